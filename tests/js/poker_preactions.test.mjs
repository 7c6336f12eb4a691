// The pre-action boxes on the poker page (static/js/poker_state.js): which boxes a waiting
// player is offered, the ticked one as the server's private message says, cleared when the
// server would clear it, and no buttons (nor turn sound) for a turn the server plays from a
// box. Replayed on the recorded hand of poker_state.test.mjs (Ann and Ben; Ann is this page),
// with the player's own private messages and a bet written in. `node --test tests/js/`.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  initialState, phaseText, preactionBoxes, preactionPlays, reduce, toCall, you
} from "../../static/js/poker_state.js";
import { fixture, replay } from "./replay.mjs";

const recorded = fixture("poker_hand.json");
const { messages, username } = recorded;
const start = initialState(messages[0].view, username);
const mine = messages[7]; /* Ann's own private message at the deal */
const BEN_TO_ACT_THIRD = 9; /* Ann brought in; Ben to act */
const FOURTH_STREET = 10; /* Ben called: fourth street, Ben to act */
const ANN_TO_ACT = 11; /* Ben checked: Ann to act, a check is free */

/** The states after `list` (messages), from the recording's start; each step checked pure. */
function run(list) {
  return replay(reduce, start, list);
}
const upTo = (i) => messages.slice(1, i + 1);
const last = (states) => states[states.length - 1];

/** Ann's private message with a box ticked on the server (or cleared: null). */
function box(preaction, at) {
  return { ...structuredClone(mine), hand: { ...mine.hand, version: at }, you: { ...mine.you, preaction } };
}

/** Message ANN_TO_ACT as if Ben had bet 2.00 instead of checking: Ann faces a bet. */
function benBets() {
  const m = structuredClone(messages[ANN_TO_ACT]);
  const ev = m.event;
  ev.events = [{ action: "bet", amount: "2.00", seat: 2, street: 4, to: "2.00", type: "action" }, { seat: 1, type: "turn" }];
  ev.public.seats[1].bet = "2.00";
  ev.public.seats[1].stack = "16.75";
  ev.public.hand.pot = "4.50";
  ev.public.legal = {
    actions: ["call", "fold", "raise"], all_in_to: null, bet_to: null, bring_in_amount: null, call_amount: "2.00",
    complete_to: null, raise_to: ["4.00", "4.00"], seat: 1, step: "0.01"
  };
  return m;
}

test("a waiting player is offered check/fold, check and call any when nothing is to call", () => {
  const s = last(run(upTo(BEN_TO_ACT_THIRD)));
  assert.equal(toCall(s), 0);
  assert.deepEqual(preactionBoxes(s).map((b) => [b.kind, b.label, b.ticked]),
    [["check_fold", "Check/fold", false], ["check", "Check", false], ["call_any", "Call any", false]]);
  assert.equal(phaseText(s, true), "Waiting for ben…");
});

test("the player to act, a spectator's page and a page before the deal get no boxes", () => {
  const states = run(upTo(ANN_TO_ACT));
  assert.deepEqual(preactionBoxes(states[7]), [], "Ann's own turn: the buttons, not the boxes");
  assert.deepEqual(preactionBoxes(states[2]), [], "no hand yet");
  const watching = last(run(upTo(BEN_TO_ACT_THIRD)));
  const spectator = { ...watching, view: { ...watching.view, you: null } };
  assert.deepEqual(preactionBoxes(spectator), []);
});

test("the ticked box is the server's: its private message ticks it, a new street clears it", () => {
  const states = run([...upTo(BEN_TO_ACT_THIRD), box({ kind: "check", amount: "0.00", street: 3 }, 1), messages[FOURTH_STREET]]);
  const ticked = states[states.length - 2];
  assert.deepEqual(preactionBoxes(ticked).filter((b) => b.ticked).map((b) => b.kind), ["check"]);
  assert.equal(phaseText(ticked, true), "Waiting for ben… Ticked for your turn: Check.");
  const next = last(states);
  assert.equal(you(next).preaction, null, "a box is for its betting round");
  assert.deepEqual(preactionBoxes(next).filter((b) => b.ticked), []);
});

test("the server's clearing message unticks it", () => {
  const states = run([...upTo(BEN_TO_ACT_THIRD), box({ kind: "call_any", amount: "0.00", street: 3 }, 1), box(null, 1)]);
  assert.equal(you(states[states.length - 2]).preaction.kind, "call_any");
  assert.equal(you(last(states)).preaction, null);
  assert.deepEqual(preactionBoxes(last(states)).filter((b) => b.ticked), []);
});

test("a turn the box plays offers no buttons; the next step shows what was played", () => {
  const states = run([...upTo(FOURTH_STREET), box({ kind: "check_fold", amount: "0.00", street: 4 }, 2), messages[ANN_TO_ACT],
    messages[13]]);
  const turn = states[states.length - 2];
  assert.equal(you(turn).legal, null, "the server checks for Ann at once");
  assert.equal(you(turn).preaction, null);
  assert.equal(phaseText(turn, true), "Your pre-action is played…");
  assert.deepEqual(preactionBoxes(turn), []);
  assert.equal(phaseText(last(states), true), "Waiting for ben…");
});

test("a check ticked before a bet does not play: the turn is the player's own", () => {
  const states = run([...upTo(FOURTH_STREET), box({ kind: "check", amount: "0.00", street: 4 }, 2), benBets()]);
  const s = last(states);
  assert.deepEqual(you(s).legal.actions, ["call", "fold", "raise"]);
  assert.equal(you(s).preaction, null);
  assert.equal(phaseText(s, true), "Your turn: call €2.00?");
  const folds = last(run([...upTo(FOURTH_STREET), box({ kind: "check_fold", amount: "0.00", street: 4 }, 2), benBets()]));
  assert.equal(you(folds).legal, null, "check/fold folds to the bet, at once");
});

test("facing a bet: fold, call this amount and call any; a call's box names its amount", () => {
  const s = last(run(upTo(FOURTH_STREET)));
  const view = structuredClone(s.view);
  view.seats.find((r) => r.seat === 2).bet = "2.00"; /* as a third player's page would see Ben's bet */
  const facing = reduce(s, { type: "message", message: { type: "snapshot", view }, at: 0 });
  assert.equal(toCall(facing), 200);
  assert.deepEqual(preactionBoxes(facing).map((b) => [b.kind, b.label, b.amount]),
    [["call", "Call €2.00", "2.00"], ["call_any", "Call any", null], ["fold", "Fold", null]]);
  view.you = { ...view.you, preaction: { kind: "check_fold", amount: "0.00", street: 4 } };
  const kept = reduce(s, { type: "message", message: { type: "snapshot", view }, at: 0 });
  assert.deepEqual(preactionBoxes(kept).map((b) => [b.kind, b.ticked]),
    [["check_fold", true], ["call", false], ["call_any", false], ["fold", false]], "the ticked box stays in sight");
});

test("which boxes the server plays: the page's rule is the server's", () => {
  const legal = (actions, call, allInTo = null) => ({ actions, call_amount: call, all_in_to: allInTo });
  assert.ok(preactionPlays({ kind: "check_fold" }, legal(["bet", "check"], "0.00"), 0));
  assert.ok(preactionPlays({ kind: "check_fold" }, legal(["call", "fold", "raise"], "2.00"), 200));
  assert.ok(!preactionPlays({ kind: "check_fold" }, legal(["bring_in", "complete"], "0.00"), 0));
  assert.ok(!preactionPlays({ kind: "check" }, legal(["call", "fold"], "2.00"), 200));
  assert.ok(preactionPlays({ kind: "call", amount: "2.00" }, legal(["call", "fold"], "2.00"), 200));
  assert.ok(!preactionPlays({ kind: "call", amount: "2.00" }, legal(["call", "fold"], "4.00"), 400));
  assert.ok(preactionPlays({ kind: "call_any", amount: "0.00" }, legal(["call", "fold"], "4.00"), 400));
  assert.ok(preactionPlays({ kind: "call_any", amount: "0.00" }, legal(["bet", "check"], "0.00"), 0), "nothing to call: a check");
  assert.ok(preactionPlays({ kind: "call_any", amount: "0.00" }, legal(["all_in", "fold"], "4.00", "3.00"), 400), "a short stack calls all in");
  assert.ok(!preactionPlays({ kind: "fold" }, legal(["bet", "check"], "0.00"), 0), "a free check is never folded");
});

test("a box ticked on the last street does not play when the new street opens on the player", () => {
  const m = structuredClone(messages[FOURTH_STREET]);
  m.event.to_act = 1;
  m.event.public.hand.to_act = 1;
  m.event.events = m.event.events.map((e) => (e.type === "turn" ? { ...e, seat: 1 } : e));
  m.event.public.legal = { ...m.event.public.legal, seat: 1, actions: ["bet", "check"], call_amount: "0.00" };
  const s = last(run([...upTo(BEN_TO_ACT_THIRD), box({ kind: "call_any", amount: "0.00", street: 3 }, 1), m]));
  assert.deepEqual(you(s).legal.actions, ["bet", "check"], "the server cleared it with the street: Ann's own turn");
  assert.equal(you(s).preaction, null);
});
