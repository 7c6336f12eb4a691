// The poker table's keys, quick amounts and turn title (static/js/poker_keys.js), on the
// choices the reducer draws from a player's legal actions. `node --test tests/js/`.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";

import { keyAction, keyLabel, keyLabels, keyRefusal, quickAmounts, soundKey, soundLabel, tabTitle } from "../../static/js/poker_keys.js";
import { choices } from "../../static/js/poker_state.js";

/* A seven-stud 1-3 spread table: the bring-in player may bring in or complete to 1.00–3.00. */
const bringIn = choices({ actions: ["bring_in", "complete"], bring_in_amount: "0.50", complete_to: ["1.00", "3.00"], step: "0.25" });
/* Facing a bet in spread limit: fold, call, raise to 2.00–3.00. */
const facing = choices({ actions: ["fold", "call", "raise"], call_amount: "1.00", raise_to: ["2.00", "3.00"], step: "0.25" });
/* Fixed limit, first to act on a street: check or bet 2.00. */
const fixed = choices({ actions: ["check", "bet"], bet_to: ["2.00", "2.00"], step: "2.00" });
const turn = { turn: true };

test("each button shows its key", () => {
  assert.deepEqual(facing.map(keyLabel), ["Fold (F)", "Call €1.00 (C)", "Raise to (R)"]);
  assert.deepEqual(bringIn.map(keyLabel), ["Bring in €0.50 (B)", "Complete to (R)"]);
  assert.deepEqual(fixed.map(keyLabel), ["Check (C)", "Bet €2.00 (R)"]);
});

test("of two fixed raises, R plays the first: only its button shows the key", () => {
  const short = choices({ actions: ["fold", "call", "raise"], call_amount: "2.75", raise_to: ["5.50", "5.75"], step: "0.25" });
  assert.deepEqual(keyLabels(short), ["Fold (F)", "Call €2.75 (C)", "Raise to €5.50 (R)", "Raise to €5.75"]);
  assert.deepEqual(keyAction("r", short, turn), { type: "act", kind: "raise", amount: "5.50", sized: false });
  assert.deepEqual(keyLabels(facing), facing.map(keyLabel));
});

test("F folds, C checks or calls, B brings in, R bets, raises or completes", () => {
  assert.deepEqual(keyAction("f", facing, turn), { type: "act", kind: "fold", amount: null, sized: false });
  assert.deepEqual(keyAction("C", facing, turn), { type: "act", kind: "call", amount: "1.00", sized: false });
  assert.deepEqual(keyAction("c", fixed, turn), { type: "act", kind: "check", amount: null, sized: false });
  assert.deepEqual(keyAction("r", fixed, turn), { type: "act", kind: "bet", amount: "2.00", sized: false });
  assert.deepEqual(keyAction("b", bringIn, turn), { type: "act", kind: "bring_in", amount: "0.50", sized: false });
  /* a spread amount is the field's: the page checks it as a click of the sized button would */
  assert.deepEqual(keyAction("r", bringIn, turn), { type: "act", kind: "complete", amount: null, sized: true });
  assert.deepEqual(keyAction("R", facing, turn), { type: "act", kind: "raise", amount: null, sized: true });
});

test("a key for an action that is not legal now does nothing", () => {
  assert.equal(keyAction("f", bringIn, turn), null, "the bring-in player cannot fold");
  assert.equal(keyAction("c", bringIn, turn), null);
  assert.equal(keyAction("b", facing, turn), null);
  assert.equal(keyAction("a", facing, turn), null);
  assert.equal(keyAction("x", facing, turn), null);
  assert.equal(keyAction("Enter", facing, turn), null, "Enter and Space stay the focused button's");
  assert.equal(keyAction(" ", facing, turn), null);
});

test("no key acts out of turn, while typing, or with Ctrl, Alt or Meta held", () => {
  for (const key of ["f", "c", "r", "1", "+"]) {
    assert.equal(keyAction(key, facing, { turn: false }), null, key);
    assert.equal(keyAction(key, facing, { turn: true, typing: true }), null, key);
    assert.equal(keyAction(key, facing, { turn: true, modifier: true }), null, key);
    assert.equal(keyAction(key, [], { turn: true }), null, key);
  }
});

test("quick amounts: the minimum, the player's last amount within the range, the maximum", () => {
  const ranged = facing.find((c) => c.ranged) || null;
  assert.deepEqual(quickAmounts(ranged, null), [
    { key: "1", label: "Min", amount: "2.00" }, { key: "3", label: "Max", amount: "3.00" }]);
  assert.deepEqual(quickAmounts(ranged, "2.50").map((q) => q.amount), ["2.00", "2.50", "3.00"]);
  /* brought onto the chip's step; left out where it is the minimum or the maximum */
  assert.deepEqual(quickAmounts(ranged, "2.30").map((q) => q.amount), ["2.00", "2.25", "3.00"]);
  assert.deepEqual(quickAmounts(ranged, "9.00").map((q) => q.label), ["Min", "Max"]);
  assert.deepEqual(quickAmounts(ranged, "1.00").map((q) => q.label), ["Min", "Max"]);
  assert.deepEqual(quickAmounts(null, "2.50"), []);
});

test("1, 2, 3 fill the quick amounts; + and - move the amount by one chip's step within the range", () => {
  const at = (amount, last = null) => ({ turn: true, amount, last });
  assert.deepEqual(keyAction("1", facing, at("2.75")), { type: "amount", amount: "2.00" });
  assert.deepEqual(keyAction("3", facing, at("2.00")), { type: "amount", amount: "3.00" });
  assert.deepEqual(keyAction("2", facing, at("2.00", "2.50")), { type: "amount", amount: "2.50" });
  assert.equal(keyAction("2", facing, at("2.00")), null, "no last amount, no quick amount 2");
  assert.deepEqual(keyAction("+", facing, at("2.00")), { type: "amount", amount: "2.25" });
  assert.deepEqual(keyAction("=", facing, at("2.25")), { type: "amount", amount: "2.50" });
  assert.deepEqual(keyAction("+", facing, at("3.00")), { type: "amount", amount: "3.00" });
  assert.deepEqual(keyAction("-", facing, at("2.25")), { type: "amount", amount: "2.00" });
  assert.deepEqual(keyAction("-", facing, at("2.00")), { type: "amount", amount: "2.00" });
  assert.deepEqual(keyAction("-", facing, at("2.60")), { type: "amount", amount: "2.50" }, "off the step: down to the step below");
  assert.deepEqual(keyAction("+", facing, at("")), { type: "amount", amount: "2.25" });
  assert.equal(keyAction("1", fixed, turn), null, "fixed limit has no amount to choose");
});

test("the tab's title says the turn only while the tab is hidden", () => {
  assert.equal(tabTitle("Stud 1 · Poker", "Stud 1", true, true), "▶ Your turn – Stud 1");
  assert.equal(tabTitle("Stud 1 · Poker", "Stud 1", true, false), "Stud 1 · Poker");
  assert.equal(tabTitle("Stud 1 · Poker", "Stud 1", false, true), "Stud 1 · Poker");
  assert.notEqual(soundKey("alice"), soundKey("bob"));
});

test("an action key that plays nothing now says which keys do", () => {
  assert.equal(keyRefusal("c", bringIn, turn), "C plays nothing now: B Bring in €0.50, R Complete to.");
  assert.equal(keyRefusal("F", bringIn, turn), "F plays nothing now: B Bring in €0.50, R Complete to.");
  assert.equal(keyRefusal("b", fixed, turn), "B plays nothing now: C Check, R Bet €2.00.");
  assert.equal(keyRefusal("c", bringIn, { turn: false }), null, "not on another's turn");
  assert.equal(keyRefusal("c", bringIn, { turn: true, typing: true }), null);
  assert.equal(keyRefusal("c", bringIn, { turn: true, modifier: true }), null);
  assert.equal(keyRefusal("r", bringIn, turn), null, "a key that plays says nothing");
  assert.equal(keyRefusal("x", bringIn, turn), null, "nor does a key that is not an action's");
  assert.equal(keyRefusal("2", facing, turn), null);
});

test("the sound switch says whether the turn sound is on", () => {
  assert.equal(soundLabel(true), "Turn sound: on");
  assert.equal(soundLabel(false), "Turn sound: off");
});

afterEach(() => {
  delete globalThis.django;
});

test("on a German page the turn title, the sound switch and the quick amounts read German; keys stay", () => {
  const german = {
    "▶ Your turn – %(table)s": "▶ Sie sind am Zug – %(table)s",
    "Turn sound: on": "Ton bei Zug: an",
    "Turn sound: off": "Ton bei Zug: aus"
  };
  /** @type {Record<string, string>} */
  const quick = { Min: "Min", Last: "Zuletzt", Max: "Max" };
  globalThis.django = {
    gettext: (/** @type {string} */ s) => german[s] || s,
    pgettext: (/** @type {string} */ c, /** @type {string} */ s) => (c === "quick amount" ? quick[s] || s : s),
    interpolate: (/** @type {string} */ f, /** @type {any} */ v) => f.replace(/%\((\w+)\)s/g, (_, k) => String(v[k]))
  };
  assert.equal(tabTitle("Stud 1 · Poker", "Stud 1", true, true), "▶ Sie sind am Zug – Stud 1");
  assert.equal(tabTitle("Stud 1 · Poker", "Stud 1", false, true), "Stud 1 · Poker");
  assert.equal(soundLabel(true), "Ton bei Zug: an");
  assert.equal(soundLabel(false), "Ton bei Zug: aus");
  const ranged = facing.find((c) => c.ranged) || null;
  assert.deepEqual(quickAmounts(ranged, "2.50").map((q) => [q.key, q.label]), [["1", "Min"], ["2", "Zuletzt"], ["3", "Max"]]);
  assert.deepEqual(keyAction("2", facing, { turn: true, amount: "2.00", last: "2.50" }), { type: "amount", amount: "2.50" });
});
