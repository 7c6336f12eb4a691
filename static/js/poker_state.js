// @ts-check
/* The poker table page's state, and how each thing that happens changes it.
 *
 * `reduce(state, event) -> state` is pure: it touches no DOM, reads no clock (a message
 * comes with the local time it arrived, `at`, in ms) and returns a new state, never
 * changing the one it was given. What the page should do next besides drawing (ask the
 * server for a fresh snapshot) is listed in the new state's `effects`. The selectors
 * below (`phaseText`, `clock`, `resultPanel`, `logLines`, …) read a state into what the
 * page shows; static/js/poker.js draws them and owns the socket.
 *
 * The server's messages: on (re)connect a snapshot (poker.selectors.poker_table_view):
 * seats with stacks and up cards, the viewer's own down cards, the pots, whose turn with
 * the deadline and time bank, and the viewer's legal actions. After that a public
 * `poker.hand` event carries the hand's public state after each step (its seats, pots,
 * street, whose turn, the legal actions of the player to act, the showdown), a
 * `poker.seat` event one seat; the player's own new down cards come in a `private`
 * message that only their own sockets get. A snapshot is wanted only when a hand's
 * version skips one (an event missed), for a hand met halfway, and for the rare
 * table-wide change (the waiting list, a cancelled hand).
 *
 * Events:
 *   {type: "message", message, at}  a message from the server (socket or REST), arrived at `at`
 *   {type: "toggle_last"}            the player opens or closes the last hand's result
 */
import { capital, cardName, cents, decimal, gettext, gettext_noop, inSentence, interpolate, money, moneyText, studCategoryLabel } from "./common.js";

/** @typedef {Record<string, any>} View  poker.selectors.poker_table_view, as JSON */
/** @typedef {{type: string, [key: string]: any}} LogEvent  one of a hand's events (poker/hand records) */
/** @typedef {{hand: number|null, events: LogEvent[], names: Record<string, string>, yourSeat?: number|null}} Log */
/** @typedef {{text: string, cls?: string}} Line */
/** @typedef {{id: number, lines: Line[], summary: string, played: boolean}} Result */
/** @typedef {{type: "snapshot", reason: string}} Effect */
/**
 * @typedef {object} PokerState
 * @property {View} view           the table as this viewer sees it
 * @property {string} username     the viewer
 * @property {number} offset       the server's clock minus this one (ms)
 * @property {{at: number, offset: number}[]} offsets  the last two minutes' readings of it
 * @property {Record<string, string[]>} down  hand id -> the viewer's own down cards
 * @property {Log} log             the hand on the felt: its events so far, its players' names
 * @property {Result[]} results    the last hands' results seen here, newest first
 * @property {boolean} lastOpen    the last hand's result is shown open
 * @property {Effect[]} effects    what the page should do after this step
 */
/** @typedef {{type: "message", message: Record<string, any>, at: number} | {type: "toggle_last"} | {type: "acted", hand: number, version: number}} PokerEvent */

export const RESULTS_KEPT = 5; /* the table's last hands seen here, one click away */
const CLOCK_WINDOW_MS = 120000;

/** @type {Record<string, Record<number, string>>} */
const STREET_NAMES = {
  seven_stud: {
    3: gettext_noop("Third street"), 4: gettext_noop("Fourth street"), 5: gettext_noop("Fifth street"),
    6: gettext_noop("Sixth street"), 7: gettext_noop("Seventh street (the river)")
  },
  five_stud: { 2: gettext_noop("Second street"), 3: gettext_noop("Third street"), 4: gettext_noop("Fourth street"), 5: gettext_noop("Fifth street") },
  soko: { 2: gettext_noop("Second street"), 3: gettext_noop("Third street"), 4: gettext_noop("Fourth street"), 5: gettext_noop("Fifth street") }
};
/** @type {Record<string, string>} */
const ACTION_WORDS = {
  bring_in: gettext_noop("brings in"), complete: gettext_noop("completes to"), bet: gettext_noop("bets"),
  raise: gettext_noop("raises to"), call: gettext_noop("calls"), check: gettext_noop("checks"), fold: gettext_noop("folds"),
  all_in: gettext_noop("is all in for")
};
/** @type {Record<string, string>} */
export const TIMEOUTS = { timeout_check: "check", timeout_all_in: "all_in", timeout_fold: "fold" };
/** The actions that name an amount (the street total). */
export const SIZED = new Set(["complete", "bet", "raise"]);

/* --- the state and its steps -------------------------------------------------------- */

/** The page's state from the view the page was served with.
 * @param {View} view @param {string} username @returns {PokerState} */
export function initialState(view, username) {
  /** @type {PokerState} */
  const state = {
    view, username, offset: 0, offsets: [], down: {}, log: { hand: null, events: [], names: {} },
    results: [], lastOpen: false, effects: []
  };
  return reduce(state, { type: "message", message: { type: "snapshot", view }, at: 0 });
}

/** @type {Record<string, (state: PokerState, event: any) => void>} */
const STEPS = {
  message: (state, event) => onMessage(state, event.message, event.at),
  toggle_last: (state) => { state.lastOpen = !state.lastOpen; },
  /* The server took the player's action in the hand as it stood at `version`: that turn is
     spent. Its step's event, which may come moments after the answer, says whose turn is
     next; until it does, the page offers no action of the turn just played. */
  acted: (state, event) => {
    const hd = hand(state), me = you(state);
    if (me && hd && hd.id === event.hand && hd.version === event.version) me.legal = null;
  }
};

/** The state after `event`; `state` itself is left as it was.
 * @param {PokerState} state @param {PokerEvent} event @returns {PokerState} */
export function reduce(state, event) {
  const step = STEPS[event.type];
  if (!step) return state;
  const next = structuredClone(state);
  next.effects = [];
  step(next, event);
  keepResult(next);
  return next;
}

/** @param {PokerState} state @param {Record<string, any>} msg @param {number} at */
function onMessage(state, msg, at) {
  if (msg.server_time) clockSample(state, Date.parse(msg.server_time) - at, at);
  switch (msg.type) {
    case "snapshot":
      accept(state, msg.view || msg.table_view || msg.snapshot || msg.table);
      break;
    case "private":
      applyPrivate(state, msg);
      break;
    case "event": {
      const ev = msg.event || {};
      if (ev.kind === "poker.hand") applyHand(state, ev);
      else if (ev.kind === "poker.seat") applySeat(state, ev);
      else wantSnapshot(state, "table changed"); /* poker.table: the waiting list, open or closed */
      break;
    }
    case "ack":
    case "error":
      if (msg.view) accept(state, msg.view);
      break;
    default: /* pong, wallet */
  }
}

/** @param {PokerState} state @param {string} reason */
function wantSnapshot(state, reason) {
  if (!state.effects.some((e) => e.type === "snapshot")) state.effects.push({ type: "snapshot", reason });
}

/** The server's clock, from the time stamped on its messages: a stamp is older than its
   arrival by the trip, so each one says the server's clock is at least that far ahead of
   this one; the largest of the last two minutes' is the nearest (a late message alone
   would put the clock behind, and show more time than the server gives).
   @param {PokerState} state @param {number} offset @param {number} at */
function clockSample(state, offset, at) {
  if (isNaN(offset)) return;
  state.offsets = state.offsets.filter((s) => at - s.at < CLOCK_WINDOW_MS);
  state.offsets.push({ at, offset });
  state.offset = Math.max(...state.offsets.map((s) => s.offset));
}

/** A whole view (snapshot, REST, an action's answer) replaces the page's copy, unless it
 * was read before a step the page already drew: a view answers after the database read it,
 * and the next step's event may reach the page first.
 * @param {PokerState} state @param {View|undefined} view */
function accept(state, view) {
  if (!view || !view.table || view.table.id !== state.view.table.id) return;
  const drawn = hand(state), read = view.hand;
  if (drawn && read && (read.id < drawn.id || (read.id === drawn.id && read.version < drawn.version))) return;
  state.view = view;
  const hd = view.hand;
  const mine = view.seats.find((/** @type {any} */ s) => s.is_you);
  /** @type {Record<string, string>} */
  const names = {};
  view.seats.forEach((/** @type {any} */ s) => { if (s.in_hand && s.player) names[s.seat] = s.player; });
  state.log = hd ? { hand: hd.id, events: hd.events || [], names } : { hand: null, events: [], names: {} };
  if (hd && mine && mine.down) state.down[hd.id] = mine.down;
  const kept = new Set(state.results.map((r) => r.id));
  const past = (view.previous_hands || []).filter((/** @type {any} */ p) => !kept.has(p.id));
  if (past.length) {
    state.results = state.results.concat(past.map((/** @type {any} */ p) => pastResult(state, p)))
      .sort((a, b) => b.id - a.id).slice(0, RESULTS_KEPT);
  }
}

/** The result of a hand settled before the one on the felt (a page opened later keeps the
 * table's last few): read as its own log, with the names and the seat it was played with.
 * @param {PokerState} state @param {any} past @returns {Result} */
function pastResult(state, past) {
  const asPlayed = { ...state, log: { hand: past.id, events: past.events || [], names: past.names || {}, yourSeat: past.your_seat } };
  const result = resultOf(asPlayed, past);
  result.played = past.your_seat !== null && past.your_seat !== undefined;
  return result;
}

/** A seat's public part of a hand onto its row (the snapshot's own rule: a hand's entry
 * counts only while the same player sits there).
 * @param {PokerState} state @param {any} hd @param {any[]} entries */
function applySeats(state, hd, entries) {
  /** @type {Record<number, any>} */
  const bySeat = {};
  (entries || []).forEach((e) => { bySeat[e.seat] = e; });
  state.view.seats.forEach((/** @type {any} */ row) => {
    const e = bySeat[row.seat];
    if (e && row.player && e.player === row.player) {
      Object.assign(row, { in_hand: true, folded: e.folded, all_in: e.all_in, bet: e.bet, in_pot: e.in_pot, up: e.up, down_count: e.down_count, stack: e.stack });
      if (row.is_you && state.down[hd.id]) row.down = state.down[hd.id];
      else delete row.down;
    } else {
      Object.assign(row, { in_hand: false, folded: false, all_in: false, bet: "0.00", in_pot: "0.00", up: [], down_count: 0 });
      delete row.down;
    }
  });
}

/** A `poker.hand` event: applied when it is the next version of the hand on the page (or
 * a new hand's first); an older one is already drawn; a gap wants the snapshot.
 * @param {PokerState} state @param {any} ev */
function applyHand(state, ev) {
  const hd = hand(state), pub = ev.public;
  if (!pub || ev.state === "cancelled") { wantSnapshot(state, "hand cancelled"); return; }
  if (hd && ev.hand === hd.id) {
    if (ev.version <= hd.version) return;
    if (ev.version !== hd.version + 1) { wantSnapshot(state, "gap"); return; }
  } else if (hd && ev.hand < hd.id) {
    return; /* a late event of a hand already gone from the felt */
  } else if (ev.version !== 0) {
    wantSnapshot(state, "hand met halfway"); return; /* its start was missed */
  }
  const next = { ...pub.hand };
  Object.keys(state.down).forEach((id) => { if (Number(id) < next.id) delete state.down[id]; });
  if (state.log.hand !== next.id) { state.log = { hand: next.id, events: [], names: {} }; state.lastOpen = false; }
  state.log.events = state.log.events.concat(ev.events || []);
  (pub.seats || []).forEach((/** @type {any} */ e) => { state.log.names[e.seat] = e.player; });
  state.view.hand = next;
  state.view.last_hand_id = next.id;
  applySeats(state, next, pub.seats);
  const me = you(state);
  if (me) {
    const row = seatOf(state, me.seat);
    const mineToAct = next.state === "live" && pub.legal && pub.legal.seat === me.seat && row && row.is_you && row.in_hand;
    me.legal = mineToAct ? pub.legal : null;
    const acted = (ev.events || []).some((/** @type {any} */ e) => e.type === "action" && e.seat === me.seat);
    if (me.preaction) {
      /* The server clears a box that no longer holds, and plays one that does the moment the
         turn comes (or clears it when not legal then): the next event says what was played,
         and no buttons (nor the turn's sound) are offered for a turn already taken. */
      const stale = acted || preactionStale(state, me.preaction);
      if (!stale && mineToAct && preactionPlays(me.preaction, pub.legal, level(state))) me.legal = null;
      if (stale || mineToAct) me.preaction = null;
    }
  }
}

/* --- pre-actions: the boxes ticked before the player's turn (poker.services.poker_preact) -- */

/** The kinds of box, in the order they are shown. */
export const PREACTION_KINDS = ["check_fold", "check", "call", "call_any", "fold"];
/** The boxes ticked for one amount to call: the server clears them when it changes. */
const FOR_AN_AMOUNT = new Set(["check", "call"]);

/** The street's bet (cents): the highest street total of the seats in the hand.
 * @param {PokerState} state */
function level(state) {
  return Math.max(0, ...state.view.seats.filter((/** @type {any} */ s) => s.in_hand).map((/** @type {any} */ s) => cents(s.bet)));
}

/** What the viewer has to put in to call the street's bet (cents), or null when not in the hand.
 * @param {PokerState} state */
export function toCall(state) {
  const me = you(state);
  const row = me ? seatOf(state, me.seat) : null;
  if (!row || !row.is_you || !row.in_hand) return null;
  return Math.max(0, level(state) - cents(row.bet));
}

/** Whether a ticked box no longer holds after a public step (the server's own rule, which
 * its private message confirms): the player folded or is all in, a new street began, or the
 * amount to call that a check or a call was ticked for has changed.
 * @param {PokerState} state @param {any} pre */
function preactionStale(state, pre) {
  const hd = hand(state), me = you(state);
  const row = me ? seatOf(state, me.seat) : null;
  if (!hd || hd.is_over || hd.state !== "live" || !row || !row.in_hand || row.folded || row.all_in) return true;
  if (pre.street !== hd.street) return true;
  return FOR_AN_AMOUNT.has(pre.kind) && toCall(state) !== cents(pre.amount);
}

/** Whether the server plays `pre` now, the player's turn having come with `legal` (the
 * server's rule, poker.services._preaction_move): else it clears it and the turn is theirs.
 * @param {any} pre @param {any} legal @param {number} street  the street's bet (cents) */
export function preactionPlays(pre, legal, street) {
  const can = (/** @type {string} */ k) => (legal.actions || []).indexOf(k) >= 0;
  const call = cents(legal.call_amount);
  switch (pre.kind) {
    case "check_fold": return can("check") || can("fold");
    case "check": return can("check");
    case "fold": return can("fold");
    case "call":
    case "call_any":
      if (pre.kind === "call" && call !== cents(pre.amount)) return false;
      if (call === 0) return pre.kind === "call_any" && can("check");
      return can("call") || (can("all_in") && legal.all_in_to !== null && cents(legal.all_in_to) <= street);
    default: return false;
  }
}

/** @typedef {{kind: string, label: string, amount: string|null, ticked: boolean}} PreactionBox */

/** The boxes the viewer may tick now, or [] when there are none: dealt into the live hand,
 * still in it and able to act, and not to act. Nothing to call: check/fold, check, call any;
 * facing a bet: fold, call (this amount), call any. The box ticked on the server is shown
 * ticked (and shown even when it is not among these, e.g. check/fold once a bet came).
 * @param {PokerState} state @returns {PreactionBox[]} */
export function preactionBoxes(state) {
  const hd = hand(state), me = you(state);
  const row = me ? seatOf(state, me.seat) : null;
  if (!hd || hd.is_over || hd.state !== "live" || !me || me.legal || !row || !row.in_hand || row.folded || row.all_in) return [];
  if (hd.to_act === me.seat || !hd.to_act) return [];
  const owed = /** @type {number} */ (toCall(state));
  const kinds = owed ? ["fold", "call", "call_any"] : ["check_fold", "check", "call_any"];
  const ticked = me.preaction ? me.preaction.kind : null;
  if (ticked && kinds.indexOf(ticked) < 0) kinds.push(ticked);
  kinds.sort((a, b) => PREACTION_KINDS.indexOf(a) - PREACTION_KINDS.indexOf(b));
  return kinds.map((kind) => {
    const amount = kind === "call" ? (ticked === "call" ? me.preaction.amount : decimal(owed)) : null;
    return { kind, label: preactionLabel(kind, amount), amount, ticked: kind === ticked };
  });
}

/** A box's words. @param {string} kind @param {string|null} [amount] */
export function preactionLabel(kind, amount) {
  /** @type {Record<string, string>} */
  const labels = {
    check_fold: gettext("Check/fold"), check: gettext("Check"), call_any: gettext("Call any"), fold: gettext("Fold"),
    call: amount ? interpolate(gettext("Call %(amount)s"), { amount: moneyText(amount) }, true) : gettext("Call")
  };
  return labels[kind] || kind;
}

/** A `poker.seat` event: who sits there, their stack, sitting out.
 * @param {PokerState} state @param {any} ev */
function applySeat(state, ev) {
  const row = seatOf(state, ev.seat);
  if (!row) return;
  const hd = hand(state);
  if (!ev.player) {
    if (row.is_you) state.view.you = null; /* cashed out (left, stood up) */
    Object.assign(row, { player: null, stack: null, is_you: false, sitting_out: false, in_hand: false, folded: false,
      all_in: false, bet: "0.00", in_pot: "0.00", up: [], down_count: 0 });
    delete row.down;
    return;
  }
  if (row.player !== ev.player) {
    Object.assign(row, { in_hand: false, folded: false, all_in: false, bet: "0.00", in_pot: "0.00", up: [], down_count: 0 });
    delete row.down;
  }
  row.player = ev.player;
  row.is_you = ev.player === state.username;
  if (!(row.in_hand && hd && !hd.is_over)) row.stack = ev.stack; /* in a live hand the hand's stack is drawn */
  row.sitting_out = !!ev.sitting_out;
  const me = you(state);
  if (row.is_you && me) me.sitting_out = row.sitting_out;
  else if (row.is_you) wantSnapshot(state, "seated elsewhere"); /* this page needs its own controls */
}

/** The player's own change in a hand: their down cards and seat controls (never another's).
 * @param {PokerState} state @param {any} msg */
function applyPrivate(state, msg) {
  if (msg.table !== state.view.table.id) return;
  const own = msg.hand, hd = hand(state);
  if (own) {
    state.down[own.id] = own.down;
    const row = state.view.seats.find((/** @type {any} */ s) => s.is_you);
    if (row && hd && hd.id === own.id && row.in_hand) row.down = own.down;
  }
  const me = you(state);
  if (msg.you === null) state.view.you = null;
  else if (msg.you) state.view.you = { ...msg.you, legal: me ? me.legal : null };
}

/** The hand on the felt once it is over is the newest of the results kept.
 * @param {PokerState} state */
function keepResult(state) {
  const hd = hand(state);
  if (!hd || !hd.is_over) return;
  const current = resultOf(state, hd);
  state.results = [current].concat(state.results.filter((r) => r.id !== hd.id)).slice(0, RESULTS_KEPT);
}

/* --- reading the state ------------------------------------------------------------ */

/** @param {PokerState} state */
export function hand(state) { return state.view.hand; }
/** @param {PokerState} state */
export function you(state) { return state.view.you; }
/** @param {PokerState} state @param {number} n */
export function seatOf(state, n) { return state.view.seats.find((/** @type {any} */ s) => s.seat === n) || null; }
/** @param {PokerState} state @param {number} n @returns {string} */
export function nameOf(state, n) {
  if (state.log.names[n]) return state.log.names[n];
  const s = seatOf(state, n);
  return s && s.player ? s.player : interpolate(gettext("Seat %(seat)s"), { seat: n }, true);
}
/** @param {PokerState} state @param {number} n */
export function streetName(state, n) {
  const names = STREET_NAMES[state.view.table.game] || {};
  return names[n] ? gettext(names[n]) : (n ? interpolate(gettext("Street %(number)s"), { number: n }, true) : "");
}
/** @param {any} entry */
export function handWords(entry) {
  if (!entry) return "";
  return entry.hand_name || inSentence(studCategoryLabel(entry.category));
}

/** @typedef {{kind: string, label: string, amount: string|null, min: string|null, max: string|null, step: string|null, ranged: boolean}} Choice */

/** The legal actions as buttons. Takes either the list form ({actions: [{kind, amount | min,
 * max, step}]}) or the engine's legal_as_dict.
 * @param {any} legal @returns {Choice[]} */
export function choices(legal) {
  if (!legal) return [];
  /** @type {Choice[]} */
  const out = [];
  if (Array.isArray(legal.actions) && legal.actions.length && typeof legal.actions[0] === "object") {
    legal.actions.forEach((/** @type {any} */ a) => out.push(choice(a.kind, a.amount, a.min, a.max, a.step)));
    return out;
  }
  const order = ["fold", "check", "call", "bring_in", "complete", "bet", "raise", "all_in"];
  const kinds = legal.actions || [];
  order.forEach((kind) => {
    if (kinds.indexOf(kind) < 0) return;
    const span = legal[kind + "_to"];
    if (kind === "call") out.push(choice(kind, legal.call_amount));
    else if (kind === "bring_in") out.push(choice(kind, legal.bring_in_amount));
    else if (kind === "all_in") out.push(choice(kind, legal.all_in_to));
    else if (span) {
      const lo = cents(span[0]), hi = cents(span[1]), step = Math.max(1, cents(legal.step));
      const count = Math.floor((hi - lo) / step) + 1;
      if (lo === hi || count <= 2) {
        for (let v = lo; v <= hi; v += step) out.push(choice(kind, decimal(v)));
      } else out.push(choice(kind, null, span[0], span[1], legal.step));
    } else out.push(choice(kind));
  });
  return out;
}

/** @param {string} kind @param {string|null} [amount] @param {string|null} [min] @param {string|null} [max] @param {string|null} [step] @returns {Choice} */
function choice(kind, amount, min, max, step) {
  const sum = amount ? " " + moneyText(amount) : "";
  /** @type {Record<string, string>} */
  const labels = {
    fold: gettext("Fold"), check: gettext("Check"), call: gettext("Call") + sum, bring_in: gettext("Bring in") + sum,
    complete: gettext("Complete to") + sum, bet: gettext("Bet") + sum, raise: gettext("Raise to") + sum, all_in: gettext("All in") + sum
  };
  return { kind, label: labels[kind] || kind, amount: amount || null, min: min || null, max: max || null, step: step || null, ranged: !!(min && max) };
}

/* --- the hand's log: what happened, said as a dealer says it ------------------------ */

/** The viewer's seat in the hand on the felt, or null. @param {PokerState} state @returns {number|null} */
function mySeatInHand(state) {
  if (state.log.yourSeat !== undefined) return state.log.yourSeat; /* a past hand's log */
  const me = you(state);
  const row = me ? seatOf(state, me.seat) : null;
  return row && row.is_you && row.in_hand ? me.seat : null;
}

/** How the clock acted for a seat in this hand ("check", "all_in", "fold"), or null.
 * @param {PokerState} state @param {number} seat @returns {string|null} */
export function timeoutOf(state, seat) {
  let found = null;
  state.log.events.forEach((e) => {
    if (e.type === "action" && e.seat === seat && TIMEOUTS[e.action]) found = TIMEOUTS[e.action];
  });
  return found;
}

/** What the seat of this event had put in this hand before it (cents), from the log.
 * @param {PokerState} state @param {LogEvent} event */
function putIn(state, event) {
  let total = 0;
  for (const e of state.log.events) {
    if (e === event) break;
    if (e.seat !== event.seat) continue;
    if (e.type === "action") total += cents(e.amount);
    else if (e.type === "return") total -= cents(e.amount);
  }
  return total;
}

/** Whether the seat of this event was kept in by its all-in allowance later in this hand.
 * @param {PokerState} state @param {LogEvent} event */
function allInLater(state, event) {
  const events = state.log.events;
  return events.slice(events.indexOf(event) + 1).some((e) => e.type === "action" && e.seat === event.seat && TIMEOUTS[e.action] === "all_in");
}

/** A time-out in words. Others hear what happened; the player alone hears what was left of
 * their all-in allowance at that moment (one a day: a time-out that used it leaves none; an
 * earlier time-out of the hand that used it later still had it).
 * @param {PokerState} state @param {LogEvent} e */
function timeoutWords(state, e) {
  const mine = e.seat === mySeatInHand(state);
  const what = TIMEOUTS[e.action];
  const amount = money(putIn(state, e));
  if (!mine) {
    const name = nameOf(state, e.seat);
    return interpolate(what === "check" ? gettext("%(name)s's time ran out: %(name)s checks.")
      : what === "all_in" ? gettext("%(name)s's time ran out: all-in protection, %(name)s is all in for the %(amount)s already in.")
        : gettext("%(name)s's time ran out: %(name)s folds."), { name, amount }, true);
  }
  const me = you(state);
  const left = what !== "all_in" && (allInLater(state, e) || (!!(me && me.all_in_allowance_left) && timeoutOf(state, e.seat) !== "all_in"));
  const allowance = left ? gettext("one all-in allowance left today.") : gettext("no all-in allowance left today (one a day).");
  if (what === "check") return interpolate(gettext("Your time ran out: you check; %(allowance)s"), { allowance }, true);
  if (what === "all_in") return interpolate(gettext("Your time ran out: your all-in allowance keeps you in for the %(amount)s you put in; %(allowance)s"), { amount, allowance }, true);
  return interpolate(gettext("Your time ran out: you fold; %(allowance)s"), { allowance }, true);
}

/** One event in words, or null for what is not said (antes, cards, turns).
 * @param {PokerState} state @param {LogEvent} e @returns {Line|null} */
export function eventWords(state, e) {
  switch (e.type) {
    case "action": {
      if (TIMEOUTS[e.action]) return { text: timeoutWords(state, e), cls: "is-timeout" };
      if (!ACTION_WORDS[e.action]) return null;
      const amount = e.action === "call" || e.action === "bring_in" || e.action === "bet" ? e.amount
        : e.action === "check" || e.action === "fold" ? null : e.to;
      return { text: nameOf(state, e.seat) + " " + gettext(ACTION_WORDS[e.action]) + (amount ? " " + moneyText(amount) : "") };
    }
    case "street":
      return { text: streetName(state, e.street), cls: "is-street" };
    case "community":
      return { text: interpolate(gettext("Community card %(card)s"), { card: cardName(e.card) }, true), cls: "is-street" };
    case "return":
      return { text: interpolate(gettext("%(amount)s returned to %(name)s (nobody called it)"), { amount: moneyText(e.amount), name: nameOf(state, e.seat) }, true), cls: "is-return" };
    case "award":
      return { text: potWin(nameOf(state, e.seat), moneyText(e.amount), e.pot), cls: "is-won" };
    case "rake":
      return cents(e.amount) > 0 ? { text: interpolate(gettext("Rake %(amount)s"), { amount: moneyText(e.amount) }, true) } : null;
    default:
      return null;
  }
}

/** "ben wins €2.38 from the main pot" (pot 0) or "… from the side pot 1".
 * @param {string} name @param {string} amount @param {number} pot */
function potWin(name, amount, pot) {
  return pot === 0 ? interpolate(gettext("%(name)s wins %(amount)s from the main pot"), { name, amount }, true)
    : interpolate(gettext("%(name)s wins %(amount)s from the side pot %(pot)s"), { name, amount, pot }, true);
}

/** The showdown in words: who showed what, who mucked (the page's names, shown hands named).
 * @param {PokerState} state @param {any} hd @returns {string[]} */
function showdownLines(state, hd) {
  return ((hd && hd.showdown) || []).map((/** @type {any} */ e) => interpolate(e.shown ? gettext("%(name)s shows %(hand)s") : gettext("%(name)s mucks"), { name: nameOf(state, e.seat), hand: handWords(e) }, true));
}

/** The hand log's lines, oldest first. @param {PokerState} state @returns {Line[]} */
export function logLines(state) {
  /** @type {Line[]} */
  const lines = [];
  const hd = hand(state);
  state.log.events.forEach((e) => {
    if (e.type === "showdown") {
      showdownLines(state, hd).forEach((text) => lines.push({ text, cls: "is-showdown" }));
      return;
    }
    const words = eventWords(state, e);
    if (words) lines.push(words);
  });
  return lines;
}

/* --- the seats -------------------------------------------------------------------- */

/** What the hand on the felt paid this seat once it is over (cents).
 * @param {PokerState} state @param {number} seat */
export function wonBy(state, seat) {
  const hd = hand(state);
  if (!hd || !hd.is_over) return 0;
  let total = 0;
  (hd.pots || []).forEach((/** @type {any} */ p) => { total += cents((p.shares || {})[String(seat)]); });
  return total;
}

/** The showdown entry a seat's cards are drawn from, while the hand on the felt is over.
 * @param {PokerState} state @param {number} seat */
export function shownAt(state, seat) {
  const hd = hand(state);
  if (!hd || !hd.is_over) return null;
  return (hd.showdown || []).find((/** @type {any} */ e) => e.seat === seat && e.shown) || null;
}

/** The line under a seat's cards. @param {PokerState} state @param {any} s */
export function seatStatus(state, s) {
  const hd = hand(state);
  if (!s.player) return "";
  const shown = hd && hd.is_over ? (hd.showdown || []).find((/** @type {any} */ e) => e.seat === s.seat) : null;
  const won = wonBy(state, s.seat);
  if (shown && shown.shown) return capital(handWords(shown)) + (won ? " · " + interpolate(gettext("wins %(amount)s"), { amount: money(won) }, true) : "");
  if (hd && hd.is_over && won) return interpolate(gettext("Wins %(amount)s"), { amount: money(won) }, true);
  const timedOut = hd && s.in_hand ? timeoutOf(state, s.seat) : null;
  if (s.folded) return timedOut ? gettext("Folded (time ran out)") : gettext("Folded");
  if (s.all_in && s.in_hand) return timedOut === "all_in" ? gettext("All in (time ran out)") : gettext("All in");
  if (s.sitting_out) return gettext("Sitting out");
  if (hd && !hd.is_over && hd.to_act === s.seat) return gettext("To act…");
  if (s.in_hand && cents(s.bet) > 0) return interpolate(gettext("Bet %(amount)s"), { amount: moneyText(s.bet) }, true);
  if (!s.in_hand && hd && !hd.is_over) return gettext("Joins the next hand");
  return "";
}

/** The line that says where the viewer stands. @param {PokerState} state @param {boolean} isPlayer */
export function phaseText(state, isPlayer) {
  const hd = hand(state);
  const me = you(state);
  const t = state.view.table;
  if (!isPlayer) return gettext("You are watching this table.");
  if (!me) {
    if (!t.is_open) return gettext("This table is closed.");
    return state.view.seats.some((/** @type {any} */ s) => !s.player) ? interpolate(gettext("Buy in for %(amount)s to take a seat."), { amount: moneyText(t.buy_in) }, true) : gettext("The table is full: join the waiting list.");
  }
  if (me.legal) {
    const facing = choices(me.legal).find((c) => c.kind === "call");
    return facing ? interpolate(gettext("Your turn: %(choice)s?"), { choice: facing.label.toLowerCase() }, true) : gettext("Your turn.");
  }
  if (me.leaving && hd && !hd.is_over) return gettext("You leave when this hand ends.");
  if (!hd) return me.sitting_out ? gettext("You are sitting out.") : gettext("Waiting for the next hand…");
  if (hd.is_over) return interpolate(gettext("Hand %(hand)s is over. The next one starts shortly."), { hand: hd.id }, true);
  const mine = seatOf(state, me.seat);
  if (!mine || !mine.in_hand) return gettext("This hand is in play without you; you join the next one.");
  if (mine.folded) return gettext("You folded. Waiting for the hand to end…");
  if (mine.all_in) return gettext("You are all in. Waiting for the hand to end…");
  if (!hd.to_act) return gettext("Dealing…");
  if (hd.to_act === me.seat) return gettext("Your pre-action is played…"); /* the turn came with a box the server plays */
  const waiting = interpolate(gettext("Waiting for %(name)s…"), { name: nameOf(state, hd.to_act) }, true);
  return me.preaction ? waiting + " " + interpolate(gettext("Ticked for your turn: %(box)s."), { box: preactionLabel(me.preaction.kind, me.preaction.amount) }, true) : waiting;
}

/** What the felt says while no hand is dealt: a closed table; the demo's bots, who play
 * only beside somebody else (a hand starts as soon as a player joins them); or the rule.
 * @param {PokerState} state @param {(name: string) => boolean} isBot @returns {string} */
export function waitingText(state, isBot) {
  if (!state.view.table.is_open) return gettext("This table is closed.");
  const seated = state.view.seats.filter((/** @type {any} */ s) => s.player);
  if (seated.length && seated.every((/** @type {any} */ s) => isBot(s.player))) return gettext("The bots here start a hand as soon as a player joins them.");
  return gettext("Waiting for players: a hand starts with two.");
}

/* --- results ---------------------------------------------------------------------- */

/** A hand's result as this page saw it: the time-outs and returned bets, the showdown,
 * who won which pot, the rake (kept in words, so it outlives the seats' names).
 * @param {PokerState} state @param {any} hd @returns {Result} */
function resultOf(state, hd) {
  const lines = /** @type {Line[]} */ ((state.log.hand === hd.id ? state.log.events : [])
    .filter((e) => e.type === "return" || (e.type === "action" && TIMEOUTS[e.action]))
    .map((e) => eventWords(state, e)));
  showdownLines(state, hd).forEach((text) => lines.push({ text }));
  /** @type {string[]} */
  const won = [];
  (hd.pots || []).forEach((/** @type {any} */ p, /** @type {number} */ i) => {
    const shares = p.shares || {};
    Object.keys(shares).forEach((seat) => {
      const name = nameOf(state, Number(seat));
      lines.push({ cls: "won", text: potWin(name, moneyText(shares[seat]), i) });
      won.push(interpolate(gettext("%(name)s wins %(amount)s"), { name, amount: moneyText(shares[seat]) }, true));
    });
  });
  if (cents(hd.rake) > 0) lines.push({ text: interpolate(gettext("Rake %(amount)s"), { amount: moneyText(hd.rake) }, true) });
  const me = you(state);
  const row = me ? seatOf(state, me.seat) : null;
  return { id: hd.id, lines, summary: won.join(", "), played: !!(row && row.in_hand) };
}

/** The result panel: the hand on the felt once it is over (open); while the next one is
 * played, the last hand's result one click away, with the hands before it.
 * @param {PokerState} state
 * @returns {{shown: Result, current: boolean, open: boolean, earlier: Result[]}|null} */
export function resultPanel(state) {
  const hd = hand(state);
  const current = !!(hd && hd.is_over);
  const shown = state.results[0];
  if (!shown) return null;
  return { shown, current, open: current || state.lastOpen, earlier: state.results.slice(1) };
}

/* --- the clock -------------------------------------------------------------------- */

/** The figures of a turn's clock. The server's deadline is the time to act plus the time
 * bank of the player to act (`time_bank_left`), so `leftMs` (to the deadline) holds both:
 * the time to act counts down first, then the bank. In whole seconds, rounded up as a
 * clock is read; the two figures always add up to the time left to the deadline.
 * @param {number} leftMs @param {number} bankMs */
export function clockFigures(leftMs, bankMs) {
  const total = Math.max(0, Math.ceil(leftMs / 1000));
  const bank = Math.max(0, Math.ceil(bankMs / 1000));
  if (total > bank) return { act: total - bank, bank, usingBank: false };
  return { act: 0, bank: total, usingBank: bank > 0 };
}

/**
 * The clock of the turn being played at this page's time `localNow` (ms; the server's
 * clock is `state.offset` ahead), or null when nobody is to act.
 * @param {PokerState} state @param {number} localNow
 */
export function clock(state, localNow) {
  const hd = hand(state);
  if (!hd || hd.is_over || !hd.deadline || !hd.to_act) return null;
  const at = Date.parse(hd.deadline);
  if (isNaN(at)) return null;
  const left = at - (localNow + state.offset);
  const bankMs = Math.round(Number(hd.time_bank_left || 0) * 1000);
  const figures = clockFigures(left, bankMs);
  const me = you(state);
  const mine = !!me && me.seat === hd.to_act;
  return {
    key: hd.id + ":" + hd.to_act + ":" + hd.deadline, left, bankMs, ...figures, mine,
    seconds: figures.usingBank ? figures.bank : figures.act,
    label: mine ? (figures.usingBank ? gettext("Your time bank") : gettext("Your time"))
      : interpolate(figures.usingBank ? gettext("%(name)s's time bank") : gettext("%(name)s's time"), { name: nameOf(state, hd.to_act) }, true),
    urgent: left <= 5000,
    stale: left < -1500 /* the deadline passed with no event: the page's copy is behind */
  };
}
