// The Caribbean table page's reducer (static/js/table_state.js) on hands recorded from the
// server: Alice (seat 1, a pair of aces) raises, Bob folds, the table opens the next hand
// and both bet into it until its cards are dealt. `node --test tests/js/`.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  activeDeadline, feltHand, initialState, liveHand, mySeatIn, phase, reduce, resultShown, seatDeadline, secondsLeft
} from "../../static/js/table_state.js";
import { fixture, indexOf, replay } from "./replay.mjs";

const recorded = fixture("table_hand.json");
const { messages, username } = recorded;
const EXTENSION_S = 15;
const start = initialState({ table: messages[0].table, wallet: messages[0].wallet, recent: [] }, username, 10);
const all = replay(reduce, start, messages);
/** The state once message `i` of the recording has been applied. */
const after = (i) => all[i + 1];
const event = (kind, hand, extra = () => true) => (m) => m.type === "event" && m.event.kind === kind && m.event.hand === hand && extra(m.event);
const H1 = recorded.hand, H2 = recorded.next_hand;
const opened1 = indexOf(messages, event("hand.opened", H1));
const closes1 = indexOf(messages, event("betting.closes", H1));
const aliceBet = indexOf(messages, event("bet.placed", H1, (e) => e.seat === 1));
const dealt1 = indexOf(messages, event("hand.dealt", H1));
const ownDeal = indexOf(messages, (m, i) => i > dealt1 && m.type === "hand");
const raised = indexOf(messages, event("decision.made", H1, (e) => e.seat === 1));
const settled = indexOf(messages, event("hand.settled", H1));
const opened2 = indexOf(messages, event("hand.opened", H2));
const ownResult = indexOf(messages, (m) => m.type === "hand" && m.hand.id === H1 && m.hand.state === "settled");
const bet2 = indexOf(messages, event("bet.placed", H2));
const dealt2 = indexOf(messages, event("hand.dealt", H2));

test("the recording covers a hand from its opening to its settlement and the next deal", () => {
  assert.ok(opened1 < closes1 && closes1 < aliceBet && aliceBet < dealt1 && dealt1 < ownDeal && ownDeal < raised);
  assert.ok(raised < settled && settled < opened2 && opened2 < bet2 && bet2 < dealt2);
  assert.deepEqual(all.flatMap((s) => s.effects), [], "the recorded sequence never leaves the page unsure of its copy");
});

test("the player's phase follows the hand: bet, deal, decision", () => {
  assert.equal(phase(start, true), "standing");
  assert.equal(phase(after(opened1), true), "betting");
  assert.equal(phase(after(opened1), false), "watching");
  assert.equal(phase(after(aliceBet), true), "bet-placed");
  assert.equal(phase(after(dealt1), true), "deciding");
  assert.equal(phase(after(raised), true), "decided");
  assert.equal(phase(after(settled), true), "waiting");
  assert.equal(phase(after(opened2), true), "betting");
});

test("the deal turns the cards: the player's own face up, the others' and the dealer's hole cards face down", () => {
  const dealt = liveHand(after(dealt1));
  assert.equal(dealt.state, "decisions");
  assert.deepEqual(dealt.seats.map((s) => s.cards.length), [5, 5]);
  assert.equal(dealt.dealer.up_card, "2s");
  assert.deepEqual(dealt.dealer.cards.filter(Boolean), ["2s"]);
  const own = after(ownDeal);
  assert.deepEqual(mySeatIn(own, liveHand(own)).cards, ["Ah", "Ad", "7c", "5s", "2h"]);
  assert.deepEqual(liveHand(own).seats[1].cards, [null, null, null, null, null]);
  const decided = liveHand(after(raised)).seats[0];
  assert.deepEqual([decided.decision, decided.raise, decided.decision_label], ["raise", "2.00", "Raised"]);
});

test("a bet joins the hand as the seat the server sends every reader, marked as yours when it is", () => {
  /* what a hand view's seat says to one reader alone: who they are, their clock, words to them */
  const perReader = ["is_you", "decision_deadline", "decision_label", "outcome_label", "explanation"];
  const sent = messages[aliceBet].event.hand_seat;
  for (const key of perReader) assert.ok(!(key in sent), key + ": one reader's part in an event every reader gets");
  assert.deepEqual(liveHand(after(aliceBet)).seats, [{ ...sent, is_you: true }]);
  const bobBet = indexOf(messages, event("bet.placed", H1, (e) => e.seat === 2));
  assert.deepEqual(liveHand(after(bobBet)).seats[1], { ...messages[bobBet].event.hand_seat, is_you: false });
  /* the seat a snapshot shows has the same public fields (the server builds both) */
  const own = messages[ownDeal].hand.seats[1];
  assert.deepEqual(Object.keys(sent).sort(), Object.keys(own).filter((k) => !perReader.includes(k)).sort());
  /* a bet without its seat: the page cannot trust its copy */
  const bare = structuredClone(messages[aliceBet]);
  delete bare.event.hand_seat;
  assert.equal(reduce(after(closes1), { type: "message", message: bare, at: 0 }).effects[0].type, "snapshot");
});

test("the clocks: betting closes for everyone, each seat that has not bet shows its own", () => {
  const s = after(closes1);
  const closes = Date.parse(messages[closes1].event.deadline);
  const d = activeDeadline(s, closes - 7000 - s.offset, EXTENSION_S);
  assert.deepEqual([d.at, d.label], [closes, "Place your bet within"]);
  assert.equal(secondsLeft(s, d, closes - 7000 - s.offset), 7);
  assert.equal(secondsLeft(s, d, closes - 6500 - s.offset), 7, "whole seconds, rounded up");
  assert.equal(secondsLeft(s, d, closes + 3000 - s.offset), 0);
  assert.equal(seatDeadline(s, 2, closes, EXTENSION_S).label, "to bet");
  assert.equal(activeDeadline(after(aliceBet), closes, EXTENSION_S).label, "Betting closes in");
  assert.equal(seatDeadline(after(aliceBet), 1, closes, EXTENSION_S), null, "a seat that has bet has no clock");
});

test("the clocks: the decision time, then the table's extension for the seats still deciding", () => {
  const s = after(ownDeal);
  const shared = Date.parse(liveHand(s).decision_deadline);
  const mine = activeDeadline(s, shared - 10000, EXTENSION_S);
  assert.equal(mine.mine, true);
  assert.equal(mine.label, "Decide within");
  assert.equal(secondsLeft(s, mine, shared - 10000 - s.offset), 10);
  assert.deepEqual(seatDeadline(s, 2, shared - 1000 - s.offset, EXTENSION_S), { at: shared, label: "to decide" });
  const later = seatDeadline(s, 2, shared + 2500 - s.offset, EXTENSION_S);
  assert.deepEqual(later, { at: shared + EXTENSION_S * 1000, label: "extra time", extra: true });
  const decided = after(raised);
  const table = activeDeadline(decided, shared - 1000 - decided.offset, EXTENSION_S);
  assert.deepEqual([table.at, table.label], [shared, "Players decide within"]);
  const extra = activeDeadline(decided, shared + 2500 - decided.offset, EXTENSION_S);
  assert.deepEqual([extra.at, extra.label], [shared + EXTENSION_S * 1000, "Extra time for the players still deciding:"]);
  /* a player's own extension (a pair held) is theirs alone to see */
  const extended = structuredClone(s);
  mySeatIn(extended, liveHand(extended)).decision_deadline = new Date(shared + EXTENSION_S * 1000).toISOString();
  assert.equal(activeDeadline(extended, shared - 1000, EXTENSION_S).label, "Extra time (you hold a pair or better):");
  assert.equal(seatDeadline(extended, 1, shared - 1000, EXTENSION_S).extra, true);
});

test("the clocks read the server's time, whatever this machine's says", () => {
  const skewed = replay(reduce, start, messages, { skewMs: 4000 });
  const s = skewed[ownDeal + 1];
  assert.ok(Math.abs(s.offset - 4000) < 1, String(s.offset));
  const shared = Date.parse(liveHand(s).decision_deadline);
  const d = activeDeadline(s, shared - 4000 - 10000, EXTENSION_S);
  assert.equal(secondsLeft(s, d, shared - 4000 - 10000), 10);
});

test("the result stays on the felt and in its panel until the next deal's cards arrive", () => {
  const s = after(settled);
  assert.equal(liveHand(s), null);
  assert.equal(resultShown(s).id, H1);
  assert.equal(feltHand(s).id, H1);
  assert.equal(feltHand(s).state, "settled");
  assert.deepEqual(s.recent.map((r) => [r.id, r.net]), [[H1, "2.50"]]);
  assert.deepEqual(s.lastBet, { ante: "1.00", jackpot: true });
  for (let i = settled; i < dealt2; i++) {
    assert.equal(resultShown(after(i)).id, H1, "message " + i + " (" + messages[i].type + ")");
  }
  assert.equal(feltHand(after(opened2)).id, H1, "an opened hand with no bet leaves the last one on the felt");
  assert.equal(feltHand(after(bet2)).id, H2, "the first bet of the next hand takes the felt");
  assert.equal(resultShown(after(dealt2)), null);
});

test("the player's own view of a result is kept over the table's public one", () => {
  const own = after(ownResult);
  assert.equal(own.last.own, true);
  assert.match(mySeatIn(own, own.last).explanation[0], /^Your hand: pair of aces/);
  const publicAgain = reduce(own, { type: "message", message: messages[settled], at: 0 });
  assert.equal(publicAgain.last.own, true);
  assert.equal(publicAgain.recent.length, 1, "a result is remembered once");
  const fetched = reduce(after(settled), { type: "result", view: messages[ownResult].hand });
  assert.equal(fetched.last.own, true);
});

test("a missed event, an unknown hand or seat asks for a snapshot and changes nothing", () => {
  const s = after(aliceBet);
  const gap = reduce(s, { type: "message", message: messages[dealt1], at: 0 });
  assert.deepEqual(gap.effects, [{ type: "snapshot", reason: "gap" }]);
  assert.equal(liveHand(gap).state, "betting");
  const unknown = reduce(start, { type: "message", message: messages[aliceBet], at: 0 });
  assert.equal(unknown.effects[0].type, "snapshot");
  assert.match(unknown.effects[0].reason, /^unknown hand/);
  const old = reduce(after(dealt1), { type: "message", message: messages[aliceBet], at: 0 });
  assert.deepEqual(old.effects, []);
  /* a new hand while one is still live: the page fetches the missing result */
  const jumped = reduce(after(dealt1), { type: "message", message: messages[opened2], at: 0 });
  assert.deepEqual(jumped.effects, [{ type: "fetch_result", hand: H1 }]);
  assert.equal(liveHand(jumped).id, H2);
  /* a settlement without its result */
  const bare = reduce(after(raised), { type: "message", message: { type: "event", event: { kind: "hand.settled", hand: H1 } }, at: 0 });
  assert.deepEqual(bare.effects.map((e) => e.type), ["fetch_result", "snapshot"]);
});

test("the bet to repeat is the last one taken", () => {
  const s = reduce(after(opened2), { type: "bet_done", ante: "3.00", jackpot: false });
  assert.deepEqual(s.lastBet, { ante: "3.00", jackpot: false });
  const recent = [{ id: 9, table: messages[0].table.id, ante: "2.00", jackpot_bet: "0.50", hand_name: "", outcome_label: "", net: "1.00" }];
  assert.deepEqual(initialState({ table: messages[0].table, wallet: null, recent }, username, 10).lastBet, { ante: "2.00", jackpot: true });
});

test("a snapshot read before a step the page drew (overtaken by the next event) keeps the table; its wallet is taken", () => {
  const older = structuredClone(after(aliceBet).table);
  const s = after(dealt1);
  const wallet = { balance: "123.45" };
  const kept = reduce(s, { type: "message", message: { type: "snapshot", table: older, wallet }, at: 0 });
  assert.deepEqual(kept.table, s.table);
  assert.deepEqual(kept.wallet, wallet);
  assert.deepEqual(kept.effects, []);
  const previousHand = structuredClone(after(raised).table);
  const next = after(dealt2);
  assert.deepEqual(reduce(next, { type: "message", message: { type: "snapshot", table: previousHand }, at: 0 }).table, next.table);
  const now = structuredClone(s.table);
  now.name = "renamed";
  assert.equal(reduce(s, { type: "message", message: { type: "snapshot", table: now }, at: 0 }).table.name, "renamed");
});
