// The poker page's reducer (static/js/poker_state.js) on a hand recorded from the server:
// Ann and Ben at a seven-stud table, Ann to act first, the hand checked down to a showdown
// that Ben wins, then the next hand's first deal. `node --test tests/js/`.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  choices, clock, clockFigures, hand, initialState, logLines, phaseText, reduce, resultPanel, seatOf, seatStatus, shownAt, you
} from "../../static/js/poker_state.js";
import { fixture, indexOf, replay } from "./replay.mjs";

const recorded = fixture("poker_hand.json");
const { messages, username } = recorded;
const first = messages[0];
const isHandEvent = (version, id = recorded.hand) => (m) =>
  m.type === "event" && m.event.kind === "poker.hand" && m.event.hand === id && m.event.version === version;
const dealt = indexOf(messages, isHandEvent(0));
const ended = indexOf(messages, (m) => m.type === "event" && m.event.kind === "poker.hand" && m.event.public.hand.is_over);
const nextDeal = indexOf(messages, isHandEvent(0, recorded.next_hand));

function states(options) {
  return replay(reduce, initialState(first.view, username), messages.slice(1), options);
}
const all = states();
/** The state once message `i` of the recording has been applied. */
const after = (i) => all[i];

test("the recording covers a deal, a showdown and the next deal", () => {
  assert.ok(dealt < ended && ended < nextDeal);
  assert.equal(hand(after(messages.length - 1)).id, recorded.next_hand);
});

test("a hand's first event deals the cards onto the seats; the private message adds the player's own down cards", () => {
  const s = after(dealt);
  const ann = seatOf(s, 1), ben = seatOf(s, 2);
  assert.equal(ann.player, "ann");
  assert.ok(ann.in_hand && ben.in_hand);
  assert.equal(ann.down_count, 2);
  assert.equal(ann.up.length, 1);
  assert.equal(ben.down, undefined, "another player's down cards never reach this page");
  const own = indexOf(messages, (m, i) => i > dealt && m.type === "private");
  const mine = seatOf(after(own), 1);
  assert.deepEqual(mine.down, messages[own].hand.down);
  assert.equal(seatOf(after(own), 2).down, undefined);
});

test("the player to act is offered exactly the legal actions, with their amounts", () => {
  const own = indexOf(messages, (m, i) => i > dealt && m.type === "private");
  const s = after(own);
  assert.deepEqual(choices(you(s).legal).map((c) => c.label), ["Bring in €1.00", "Complete to €2.00"]);
  assert.equal(phaseText(s, true), "Your turn.");
  assert.equal(phaseText(s, false), "You are watching this table.");
  const benToAct = after(indexOf(messages, isHandEvent(1)));
  assert.equal(you(benToAct).legal, null, "no buttons while the other player acts");
  assert.equal(phaseText(benToAct, true), "Waiting for ben…");
});

test("the log says each step as a dealer says it", () => {
  const lines = logLines(after(ended)).map((l) => l.text);
  assert.ok(lines.includes("ann brings in €1.00"), lines);
  assert.ok(lines.includes("ben calls €1.00"), lines);
  assert.ok(lines.includes("Fourth street"), lines);
  assert.ok(lines.includes("ben shows pair of tens"), lines);
  assert.ok(lines.includes("ann mucks"), lines);
  assert.ok(lines.includes("ben wins €2.38 from the main pot"), lines);
  assert.ok(lines.includes("Rake €0.12"), lines);
});

test("the turn's clock counts the time to act, then the time bank, adding up to the server's deadline", () => {
  const own = indexOf(messages, (m, i) => i > dealt && m.type === "private");
  const s = after(own);
  const hd = hand(s);
  const deadline = Date.parse(hd.deadline);
  const bank = hd.time_bank_left * 1000;
  assert.equal(bank, 30000);
  const at = (leftMs) => clock(s, deadline - leftMs - s.offset);
  const start = at(40000);
  assert.deepEqual([start.act, start.bank, start.usingBank, start.seconds], [10, 30, false, 10]);
  assert.equal(start.label, "Your time");
  const oneLeft = at(30500);
  assert.deepEqual([oneLeft.act, oneLeft.bank, oneLeft.usingBank], [1, 30, false]);
  const inBank = at(29000);
  assert.deepEqual([inBank.act, inBank.bank, inBank.usingBank, inBank.seconds], [0, 29, true, 29]);
  assert.equal(inBank.label, "Your time bank");
  assert.equal(at(4000).urgent, true);
  assert.equal(at(-1000).stale, false);
  assert.equal(at(-2000).stale, true, "a deadline long past with no event: the page asks for the state");
  for (let left = 45000; left > 0; left -= 333) {
    const c = at(left);
    assert.equal(c.act + c.bank, Math.ceil(left / 1000), "the two figures add up to the time left at " + left);
  }
  const other = clock(after(indexOf(messages, isHandEvent(1))), deadline);
  assert.equal(other.mine, false);
  assert.match(other.label, /^ben's time/);
  assert.equal(clock(after(ended), deadline - 10000), null, "no clock once the hand is over");
});

test("the clock follows the server's, whatever this machine's says", () => {
  const skewed = states({ skewMs: 5000 }); /* this machine 5 s behind the server */
  const own = indexOf(messages, (m, i) => i > dealt && m.type === "private");
  const s = skewed[own];
  assert.ok(Math.abs(s.offset - 5000) < 1, String(s.offset));
  const deadline = Date.parse(hand(s).deadline);
  const c = clock(s, deadline - 5000 - 40000);
  assert.deepEqual([c.act, c.bank], [10, 30]);
  /* a late message alone (its stamp older than its arrival) does not put the clock behind */
  const late = reduce(s, { type: "message", message: { type: "pong", server_time: new Date(deadline - 60000).toISOString() }, at: deadline - 20000 });
  assert.equal(late.offset, s.offset);
  assert.deepEqual(clockFigures(-500, 30000), { act: 0, bank: 0, usingBank: true }, "past the deadline: nothing left of the bank");
});

test("the showdown and the result panel stay until the next deal's cards arrive", () => {
  const over = after(ended);
  const panel = resultPanel(over);
  assert.equal(panel.shown.id, recorded.hand);
  assert.equal(panel.current, true);
  assert.equal(panel.open, true);
  assert.equal(panel.shown.summary, "ben wins €2.38");
  assert.ok(shownAt(over, 2).cards.length === 7, "the winner's cards are shown at the seat");
  assert.equal(shownAt(over, 1), null, "a mucked hand is not shown");
  assert.equal(seatStatus(over, seatOf(over, 2)), "Pair of tens · wins €2.38");
  /* what comes between (the players' own messages, a seat's stack) leaves the showdown on the felt */
  for (let i = ended + 1; i < nextDeal; i++) {
    assert.equal(resultPanel(after(i)).current, true, messages[i].type);
    assert.ok(shownAt(after(i), 2));
  }
  const seated = reduce(over, { type: "message", message: { type: "event", event: { kind: "poker.seat", seat: 2, player: "ben", stack: "21.38", sitting_out: false, table: recorded.table } }, at: 0 });
  assert.equal(resultPanel(seated).current, true);
  /* the next deal: the felt shows the new cards, the result is one click away */
  const next = after(nextDeal);
  assert.equal(shownAt(next, 2), null);
  assert.equal(seatOf(next, 2).up.length, 1);
  const last = resultPanel(next);
  assert.equal(last.shown.id, recorded.hand);
  assert.equal(last.current, false);
  assert.equal(last.open, false);
  assert.equal(resultPanel(reduce(next, { type: "toggle_last" })).open, true);
  assert.equal(last.shown.played, true);
  /* the log starts over with the new hand; a result left open closes at the next deal */
  assert.ok(!logLines(next).some((l) => l.text.includes("shows")), "the last hand's log is not the new one's");
  const openedThenDealt = reduce(reduce(after(nextDeal - 1), { type: "toggle_last" }), { type: "message", message: messages[nextDeal], at: 0 });
  assert.equal(resultPanel(openedThenDealt).open, false);
});

test("a missed step asks for a snapshot and changes nothing; an old one is ignored", () => {
  const s = after(dealt);
  const skipped = messages[indexOf(messages, isHandEvent(2))];
  const gap = reduce(s, { type: "message", message: skipped, at: 0 });
  assert.deepEqual(gap.effects.map((e) => e.type), ["snapshot"]);
  assert.equal(hand(gap).version, 0);
  const again = reduce(after(indexOf(messages, isHandEvent(1))), { type: "message", message: messages[dealt], at: 0 });
  assert.deepEqual(again.effects, []);
  assert.equal(hand(again).version, 1);
  const table = reduce(s, { type: "message", message: { type: "event", event: { kind: "poker.table", table: recorded.table } }, at: 0 });
  assert.deepEqual(table.effects.map((e) => e.type), ["snapshot"]);
});

test("a snapshot replaces the page's copy; another table's view is ignored", () => {
  const s = after(ended);
  const back = reduce(s, { type: "message", message: first, at: 0 });
  assert.equal(hand(back), null);
  const other = structuredClone(first.view);
  other.table.id += 1;
  const ignored = reduce(s, { type: "message", message: { type: "snapshot", view: other }, at: 0 });
  assert.equal(hand(ignored).id, recorded.hand);
});

test("a view read before a step the page drew (an answer overtaken by the next event) changes nothing", () => {
  const one = after(indexOf(messages, isHandEvent(1)));
  const two = after(indexOf(messages, isHandEvent(2)));
  const older = structuredClone(one.view);
  for (const message of [{ type: "snapshot", view: older }, { type: "ack", id: 7, view: older }]) {
    const kept = reduce(two, { type: "message", message, at: 0 });
    assert.equal(hand(kept).version, 2);
    assert.deepEqual(kept.view, two.view);
  }
  const lastHand = structuredClone(after(ended).view);
  const next = after(nextDeal);
  assert.deepEqual(reduce(next, { type: "message", message: { type: "snapshot", view: lastHand }, at: 0 }).view, next.view);
  const same = structuredClone(two.view);
  same.waiting_list = ["cy"];
  assert.deepEqual(reduce(two, { type: "message", message: { type: "snapshot", view: same }, at: 0 }).view.waiting_list, ["cy"]);
});
