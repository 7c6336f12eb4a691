// The poker page's reducer (static/js/poker_state.js) on a hand recorded from the server:
// Ann and Ben at a seven-stud table, Ann to act first, the hand checked down to a showdown
// that Ben wins, then the next hand's first deal. `node --test tests/js/`.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  choices, clock, clockFigures, hand, initialState, logLines, phaseText, reduce, resultPanel, seatOf, seatStatus, shownAt,
  waitingText, you
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

test("an action the server took spends the turn until its event says whose turn is next", () => {
  const own = indexOf(messages, (m, i) => i > dealt && m.type === "private");
  const s = after(own);
  const hd = hand(s);
  const answered = reduce(s, { type: "acted", hand: hd.id, version: hd.version });
  assert.equal(you(answered).legal, null, "no buttons of the turn just played, however late its event");
  assert.notEqual(phaseText(answered, true), "Your turn.");
  assert.notEqual(you(s).legal, null, "the state it came from is left as it was");
  const next = indexOf(messages, isHandEvent(hd.version + 1));
  const overtaken = reduce(after(next), { type: "acted", hand: hd.id, version: hd.version });
  assert.deepEqual(you(overtaken), you(after(next)), "an answer that comes after its event changes nothing");
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

/* --- the turn's clock after a refill, a top-up, for a spectator --------------------------- */

/** The recorded messages with hand `from` renumbered `to` (its events, its public state, its
 * players' own messages): the same hand played again under another id. */
function asHand(list, from, to) {
  return list.map((m) => {
    const copy = structuredClone(m);
    if (copy.type === "event" && copy.event.kind === "poker.hand" && copy.event.hand === from) {
      copy.event.hand = to;
      copy.event.public.hand.id = to;
    } else if (copy.type === "private" && copy.hand && copy.hand.id === from) copy.hand.id = to;
    return copy;
  });
}

test("after a top-up and a time-bank refill the figures still add up to the server's deadline", () => {
  /* between hands ann tops up (her seat's new stack, her own new time bank in her `you`),
     then the next deal gives ben 35 s of bank (a refill) while ann is to act */
  const over = after(ended);
  const topUp = [
    { type: "event", event: { kind: "poker.seat", seat: 1, player: "ann", stack: "20.00", sitting_out: false, table: recorded.table } },
    { type: "private", table: recorded.table, you: { ...you(over), legal: undefined, can_top_up: false, top_up_amount: "0.00", time_bank: 35.0 } }
  ];
  const deal = structuredClone(messages[nextDeal]);
  const toppedUpFirst = topUp.reduce((state, message) => reduce(state, { type: "message", message, at: 0 }), over);
  assert.equal(seatOf(toppedUpFirst, 1).stack, "20.00");
  assert.equal(you(toppedUpFirst).time_bank, 35.0);
  const s = reduce(toppedUpFirst, { type: "message", message: deal, at: 0 });
  const hd = hand(s);
  assert.equal(hd.id, recorded.next_hand);
  const deadline = Date.parse(hd.deadline);
  const bank = hd.time_bank_left * 1000;
  for (let left = bank + 10000; left > 0; left -= 250) {
    const c = clock(s, deadline - left - s.offset);
    assert.equal(c.act + c.bank, Math.ceil(left / 1000), "the two figures add up to the time left at " + left);
    assert.equal(c.usingBank, left <= bank);
  }
  /* the same deal with the bank of the player to act refilled by 5 s: the server's deadline
     is 5 s later, and the time to act still comes first */
  assert.equal(bank, 30000);
  const refilled = structuredClone(deal);
  refilled.event.public.hand.time_bank_left = 35.0;
  const later = deadline + 5000;
  refilled.event.public.hand.deadline = new Date(later).toISOString();
  const r = reduce(over, { type: "message", message: refilled, at: 0 });
  const start = clock(r, later - 45000 - r.offset);
  assert.deepEqual([start.act, start.bank, start.usingBank, start.label], [10, 35, false, "Your time"]);
  for (let left = 45000; left > 0; left -= 250) {
    const c = clock(r, later - left - r.offset);
    assert.equal(c.act + c.bank, Math.ceil(left / 1000), "after the refill, at " + left);
    assert.equal(c.usingBank, left <= 35000);
  }
  /* what comes after the deal (a top-up's seat event and private message) leaves the clock as it was */
  const toppedUp = topUp.reduce((state, message) => reduce(state, { type: "message", message, at: 0 }), r);
  assert.deepEqual(clock(toppedUp, later - 20000 - toppedUp.offset), clock(r, later - 20000 - r.offset));
});

test("a spectator's clock shows the player's figures, named for the player", () => {
  /* the same recording as a signed-in spectator receives it: the table's events only */
  const watching = messages.filter((m) => m.type === "event");
  const spectator = replay(reduce, initialState(first.view, "cy"), watching);
  const at = (states, pred) => states[states.findIndex((st) => { const h = hand(st); return h && pred(h); })];
  const own = indexOf(messages, (m, i) => i > dealt && m.type === "private");
  const player = after(own);
  const watched = at(spectator, (h) => h.id === recorded.hand && h.version === hand(player).version);
  assert.equal(you(watched), null);
  const deadline = Date.parse(hand(player).deadline);
  assert.equal(hand(watched).deadline, hand(player).deadline);
  for (let left = 42000; left > -1000; left -= 250) {
    const theirs = clock(player, deadline - left - player.offset);
    const seen = clock(watched, deadline - left - watched.offset);
    assert.deepEqual([seen.act, seen.bank, seen.usingBank, seen.seconds], [theirs.act, theirs.bank, theirs.usingBank, theirs.seconds], "at " + left);
    assert.equal(seen.mine, false);
    assert.match(seen.label, /^ann's time/);
  }
  assert.equal(phaseText(watched, false), "You are watching this table.");
});

/* --- the result panel: the hand on the felt and the ones before it ------------------------ */

test("the result panel lists the hands before the last one, newest first, five kept", () => {
  const handOne = messages.slice(dealt, ended + 1);
  let s = after(ended);
  const ids = [101, 102, 103, 104, 105, 106];
  for (const id of ids) {
    for (const message of asHand(handOne, recorded.hand, id)) s = reduce(s, { type: "message", message, at: 0 });
    const panel = resultPanel(s);
    assert.equal(panel.shown.id, id);
    assert.equal(panel.current, true);
  }
  const over = resultPanel(s);
  assert.deepEqual(over.earlier.map((r) => r.id), [105, 104, 103, 102], "five kept: the felt's and four before it");
  assert.ok(over.earlier.every((r) => r.summary === "ben wins €2.38" && r.played));
  const next = reduce(s, { type: "message", message: asHand([messages[dealt]], recorded.hand, 107)[0], at: 0 });
  const panel = resultPanel(next);
  assert.equal(panel.shown.id, 106);
  assert.equal(panel.current, false);
  assert.deepEqual(panel.earlier.map((r) => r.id), [105, 104, 103, 102]);
  assert.ok(panel.earlier.every((r) => r.lines.some((l) => l.text === "ben wins €2.38 from the main pot")));
});

test("a page opened while a hand is played lists the table's last hands from the snapshot", () => {
  /* the snapshot's previous_hands: hand 1 as its last event showed it, played five times */
  const last = messages[ended].event;
  const events = messages.slice(dealt, ended + 1).flatMap((m) => (m.type === "event" ? m.event.events : []));
  const past = (id) => ({ ...structuredClone(last.public.hand), id, events: structuredClone(events), names: { 1: "ann", 2: "ben" }, your_seat: 1 });
  const view = structuredClone(after(nextDeal).view);
  view.hand.id = 300;
  view.previous_hands = [299, 298, 297, 296, 295].map(past);
  const opened = initialState(view, username);
  const panel = resultPanel(opened);
  assert.equal(panel.shown.id, 299);
  assert.equal(panel.current, false);
  assert.equal(panel.shown.summary, "ben wins €2.38");
  assert.ok(panel.shown.lines.some((l) => l.text === "ben shows pair of tens"), panel.shown.lines);
  assert.deepEqual(panel.earlier.map((r) => r.id), [298, 297, 296, 295]);
  /* a spectator's page: the same list, not as hands it played (no link to a hand history) */
  const watching = structuredClone(view);
  watching.you = null;
  watching.seats.forEach((seat) => { seat.is_you = false; delete seat.down; });
  watching.previous_hands.forEach((p) => { p.your_seat = null; });
  const spectator = resultPanel(initialState(watching, "cy"));
  assert.deepEqual([spectator.shown.id, ...spectator.earlier.map((r) => r.id)], [299, 298, 297, 296, 295]);
  assert.ok([spectator.shown, ...spectator.earlier].every((r) => !r.played));
  /* a later snapshot adds none twice and keeps five */
  const again = reduce(opened, { type: "message", message: { type: "snapshot", view }, at: 0 });
  assert.deepEqual(again.results.map((r) => r.id), [299, 298, 297, 296, 295]);
});

/* --- time-outs said at the table ---------------------------------------------------------- */

const clockPlayed = Object.fromEntries(["ann", "ben"].map((name) => [name, fixture(`poker_timeouts_${name}.json`)]));
/** Every state of the time-out recording as `name`'s page drew it. */
function clockStates(name) {
  const rec = clockPlayed[name];
  return replay(reduce, initialState(rec.messages[0].view, rec.username), rec.messages.slice(1));
}

test("a time-out that checks and one that folds are said as such; the allowance left to the timed-out player alone", () => {
  const [checked, folded] = clockPlayed.ann.clocked;
  assert.deepEqual([checked.kind, folded.kind], ["check", "fold"]);
  assert.notEqual(checked.player, folded.player);
  for (const name of ["ann", "ben"]) {
    const states = clockStates(name);
    const end = states[states.length - 1];
    assert.equal(hand(end).is_over, true);
    const expected = [
      checked.player === name ? "Your time ran out: you check; one all-in allowance left today."
        : `${checked.player}'s time ran out: ${checked.player} checks.`,
      folded.player === name ? "Your time ran out: you fold; no all-in allowance left today (one a day)."
        : `${folded.player}'s time ran out: ${folded.player} folds.`
    ];
    const said = (lines) => lines.filter((l) => /time ran out/.test(l.text)).map((l) => l.text);
    assert.deepEqual(said(logLines(end)), expected, name + "'s log");
    assert.ok(logLines(end).filter((l) => /time ran out/.test(l.text)).every((l) => l.cls === "is-timeout"));
    const panel = resultPanel(end);
    assert.equal(panel.current, true);
    assert.deepEqual(said(panel.shown.lines), expected, name + "'s result");
    /* what is left of an allowance is said to its player only */
    const others = [...logLines(end), ...panel.shown.lines].filter((l) => /allowance/.test(l.text));
    assert.ok(others.every((l) => l.text.startsWith("Your time ran out")), others.map((l) => l.text));
    const foldedRow = end.view.seats.find((row) => row.player === folded.player);
    assert.equal(seatStatus(end, foldedRow), "Folded (time ran out)");
    /* the check is said the moment it happens, before the hand goes on */
    const atCheck = states.find((st) => said(logLines(st)).length === 1);
    assert.deepEqual(said(logLines(atCheck)), expected.slice(0, 1));
  }
});

test("a time-out that checks, then one that keeps the player in by the allowance, say what was left at each", () => {
  const [checked] = clockPlayed.ann.clocked;
  const states = clockStates(checked.player);
  const end = states[states.length - 1];
  const check = end.log.events.find((e) => e.type === "action" && e.action === "timeout_check");
  /* later in the same hand the clock runs out again on a bet: the allowance keeps the player in */
  const allIn = { ...check, action: "timeout_all_in" };
  const events = end.log.events.slice();
  events.splice(events.indexOf(check) + 1, 0, allIn);
  const me = { ...you(end), all_in_allowance_left: false };
  const later = { ...end, log: { ...end.log, events }, view: { ...end.view, you: me } };
  const said = logLines(later).filter((l) => /time ran out/.test(l.text)).map((l) => l.text);
  assert.equal(said[0], "Your time ran out: you check; one all-in allowance left today.");
  assert.match(said[1], /^Your time ran out: your all-in allowance keeps you in for the .+ you put in; no all-in allowance left today \(one a day\)\.$/);
});

test("with no hand dealt the felt says why: a closed table, bots waiting for a player, or the rule of two", () => {
  const seats = (...players) => players.map((player, i) => ({ seat: i + 1, player }));
  const state = (open, ...players) => ({ ...initialState(first.view, username), view: { ...first.view, table: { ...first.view.table, is_open: open }, seats: seats(...players) } });
  const isBot = (name) => name === "grace" || name === "heidi";
  assert.equal(waitingText(state(true, "grace", "heidi", null), isBot), "The bots here start a hand as soon as a player joins them.");
  assert.equal(waitingText(state(true, "grace", "ann", null), isBot), "Waiting for players: a hand starts with two.");
  assert.equal(waitingText(state(true, null, null), isBot), "Waiting for players: a hand starts with two.");
  assert.equal(waitingText(state(false, "grace", "heidi"), isBot), "This table is closed.");
});
