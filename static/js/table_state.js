// @ts-check
/* The Caribbean table page's state, and how each thing that happens changes it.
 *
 * `reduce(state, event) -> state` is pure: it touches no DOM, reads no clock (a message
 * comes with the local time it arrived, `at`, in ms) and returns a new state, never
 * changing the one it was given. What the page should do next besides drawing (ask for a
 * fresh snapshot, fetch a hand's result) is listed in the new state's `effects`. The
 * selectors below (`phase`, `feltHand`, `resultShown`, `activeDeadline`, …) read a state
 * into what the page shows; static/js/table.js draws them and owns the socket.
 *
 * Over the websocket /ws/tables/<id>/ come a snapshot when the socket opens, then public
 * events, the player's private hand view and the wallet. Each event is applied to the
 * page's copy of the table (a bet joins the hand, the deal turns the cards, a decision
 * marks the seat, the settlement brings the whole result); a fresh snapshot is wanted
 * only when the copy cannot be trusted: on a gap in a hand's public version (an event
 * missed), an unknown hand or seat, a deal without its cards. Every word about a result
 * (labels, the explanation lines) comes from the server.
 *
 * Events:
 *   {type: "message", message, at}  a message from the server (socket or REST), arrived at `at`
 *   {type: "result", view}           a hand's result fetched over the REST API
 *   {type: "bet_done", ante, jackpot} the player's bet was taken (the bet to repeat)
 */
import { cents, gettext } from "./common.js";

/** @typedef {Record<string, any>} Hand  a hand view (tables.selectors), as JSON */
/** @typedef {{id: number, hand_name: string, outcome_label: string, net: string|null, table?: number, ante?: string, jackpot_bet?: string}} Recent */
/** @typedef {{ante: string, jackpot: boolean}} Bet */
/** @typedef {{type: "snapshot", reason: string} | {type: "fetch_result", hand: number}} Effect */
/**
 * @typedef {object} TableState
 * @property {Record<string, any>} table    the table view: seats, limits, the live hand
 * @property {Record<string, any>|null} wallet  the player's wallet
 * @property {Hand|null} last               the last settled (or cancelled) hand's result
 * @property {Recent[]} recent              the player's last results at this table, newest first
 * @property {Bet|null} lastBet             the bet "Repeat" places
 * @property {number} offset                the server's clock minus this one (ms)
 * @property {Record<string, string>} bettingDeadlines  hand id -> when its betting closes
 * @property {string} username
 * @property {number} recentCount
 * @property {Effect[]} effects             what the page should do after this step
 */
/** @typedef {{type: "message", message: Record<string, any>, at: number} | {type: "result", view: Hand} | {type: "bet_done", ante: string, jackpot: boolean}} TableEvent */

/* Past the table's decision deadline, a seat still deciding is on its extension. */
export const EXTRA_GRACE_MS = 2000;

/** The page's state from what the page was served with.
 * @param {{table: any, wallet: any, recent?: Recent[]}} initial @param {string} username @param {number} recentCount
 * @returns {TableState} */
export function initialState(initial, username, recentCount) {
  const recent = initial.recent || [];
  const last = recent.find((r) => r.table === initial.table.id && r.ante);
  return {
    table: initial.table, wallet: initial.wallet, last: null, recent, offset: 0, bettingDeadlines: {},
    lastBet: last ? { ante: /** @type {string} */ (last.ante), jackpot: cents(last.jackpot_bet) > 0 } : null,
    username, recentCount, effects: []
  };
}

/** @type {Record<string, (state: TableState, event: any) => void>} */
const STEPS = {
  message: (state, event) => onMessage(state, event.message, event.at),
  result: (state, event) => {
    if (event.view && (event.view.state === "settled" || event.view.state === "cancelled")) setLast(state, event.view);
  },
  bet_done: (state, event) => { state.lastBet = { ante: event.ante, jackpot: !!event.jackpot }; }
};

/** The state after `event`; `state` itself is left as it was.
 * @param {TableState} state @param {TableEvent} event @returns {TableState} */
export function reduce(state, event) {
  const step = STEPS[event.type];
  if (!step) return state;
  const next = structuredClone(state);
  next.effects = [];
  step(next, event);
  return next;
}

/** @param {TableState} state @param {string} reason */
function wantSnapshot(state, reason) {
  state.effects.push({ type: "snapshot", reason });
}
/** @param {TableState} state @param {number} handId */
function wantResult(state, handId) {
  state.effects.push({ type: "fetch_result", hand: handId });
}

/** @param {TableState} state @param {Record<string, any>} msg @param {number} at */
function onMessage(state, msg, at) {
  switch (msg.type) {
    case "snapshot": {
      if (msg.server_time) state.offset = Date.parse(msg.server_time) - at;
      const previous = state.table.hand, read = msg.table.hand;
      if (msg.wallet) state.wallet = msg.wallet;
      /* read before a step the page already drew (the next event came first): nothing newer */
      if (previous && read && (read.id < previous.id || (read.id === previous.id && read.version < previous.version))) break;
      state.table = msg.table;
      if (previous && (!msg.table.hand || msg.table.hand.id !== previous.id) && !(state.last && state.last.id >= previous.id)) {
        wantResult(state, previous.id);
      }
      break;
    }
    case "hand":
      acceptHand(state, msg.hand);
      break;
    case "wallet":
      if (msg.wallet) state.wallet = msg.wallet;
      break;
    case "event":
      onEvent(state, msg.event || {});
      break;
    case "pong":
      if (msg.server_time) state.offset = Date.parse(msg.server_time) - at;
      break;
    default: /* ack, error: the page's own */
  }
}

/** The server's own view of the hand for this player (not the table's), whose seat it marks as yours.
 * @param {Hand} view */
function isOwnView(view) { return view.own !== undefined ? view.own : view.seats.some((/** @type {any} */ s) => s.is_you); }

/** The last settled hand. The table hears the public result; the player's own view of it
 * (its lines spoken to "you") follows on the player's channel and is kept over it.
 * @param {TableState} state @param {Hand} view */
function setLast(state, view) {
  if (!view || (state.last && state.last.id > view.id)) return;
  if (state.last && state.last.id === view.id && isOwnView(state.last) && !isOwnView(view)) return;
  const fresh = !state.last || state.last.id !== view.id;
  const kept = structuredClone(view);
  kept.own = isOwnView(kept);
  kept.seats.forEach((/** @type {any} */ s) => { if (s.player === state.username) s.is_you = true; });
  state.last = kept;
  if (fresh) rememberResult(state, kept);
}

/** A result of the player's own joins their recent results (and is the bet to repeat).
 * @param {TableState} state @param {Hand} view */
function rememberResult(state, view) {
  const mine = view.seats.find((/** @type {any} */ s) => s.player === state.username);
  if (!mine || view.table !== state.table.id) return;
  state.recent = state.recent.filter((r) => r.id !== view.id);
  state.recent.unshift({ id: view.id, hand_name: mine.hand_name || mine.category_label, outcome_label: mine.outcome_label, net: mine.net });
  state.recent = state.recent.slice(0, state.recentCount);
  if (view.state === "settled") state.lastBet = { ante: mine.ante, jackpot: cents(mine.jackpot_bet) > 0 };
}

/** The player's own view of a hand (their cards, their decision deadline).
 * @param {TableState} state @param {Hand} view */
function acceptHand(state, view) {
  if (!view || view.table !== state.table.id) return;
  if (view.state === "settled" || view.state === "cancelled") {
    setLast(state, view);
    if (state.table.hand && state.table.hand.id === view.id) state.table.hand = null;
    return;
  }
  const live = state.table.hand;
  if (!live || view.id > live.id || (view.id === live.id && view.version >= live.version)) state.table.hand = view;
}

/* --- applying the table's events to the page's copy ----------------------------------- */

/** @param {TableState} state @param {number} n */
export function tableSeat(state, n) { return state.table.seats.find((/** @type {any} */ s) => s.seat === n) || null; }

/** A public event of the live hand moves its version by one: an older one was already
 * applied (it came with a snapshot), a jump means one was missed.
 * @param {TableState} state @param {any} event */
function inStep(state, event) {
  const live = liveHand(state);
  if (!live || live.id !== event.hand) {
    /* A hand that is over here already: the player's own view of its result can come
       before the table's last events of it (the player's channel is served first). */
    if ((live && event.hand < live.id) || (state.last && event.hand <= state.last.id)) return false;
    wantSnapshot(state, "unknown hand: " + event.kind + " of hand " + event.hand + (live ? ", the page's is " + live.id : ", none at the page"));
    return false;
  }
  if (typeof event.version !== "number") return true;
  if (event.version <= live.version) return false;
  if (event.version > live.version + 1) { wantSnapshot(state, "gap"); return false; }
  live.version = event.version;
  return true;
}

/** A seat that has just bet: the seat as the server sends every reader of the table
 * (tables.selectors.seat_public_view), marked as yours when it is.
 * @param {TableState} state @param {any} handSeat */
function betSeat(state, handSeat) {
  return { ...handSeat, is_you: handSeat.player === state.username };
}

/** @param {TableState} state @param {any} event */
function onEvent(state, event) {
  const live = liveHand(state);
  switch (event.kind) {
    case "jackpot.changed":
      state.table.jackpot_meter = event.meter;
      return;
    case "seat.changed": {
      const sitter = tableSeat(state, event.seat);
      if (!sitter) { wantSnapshot(state, "unknown seat"); return; }
      sitter.player = event.player;
      sitter.is_you = event.player === state.username;
      state.table.free_seats = state.table.seats.filter((/** @type {any} */ s) => !s.player).map((/** @type {any} */ s) => s.seat);
      return;
    }
    case "hand.opened":
      if (live && live.id === event.hand) { /* the same hand, announced again with new limits */
        state.table.min_ante = live.min_ante = event.min_ante;
        state.table.max_ante = live.max_ante = event.max_ante;
        return;
      }
      if (live && live.id > event.hand) return;
      if (live) wantResult(state, live.id);
      state.table.min_ante = event.min_ante;
      state.table.max_ante = event.max_ante;
      state.table.hand = {
        id: event.hand, table: state.table.id, nonce: event.nonce, state: "betting",
        version: typeof event.version === "number" ? event.version : 0, commitment: event.commitment,
        server_seed: null, client_seed: null, min_ante: event.min_ante, max_ante: event.max_ante,
        betting_deadline: state.bettingDeadlines[event.hand] || null, decision_deadline: null, dealt_at: null,
        settled_at: null, dealer: { cards: [], up_card: null, category: null, qualified: null, hand_name: null, winning_cards: null },
        seats: []
      };
      return;
    case "betting.closes":
      state.bettingDeadlines[event.hand] = event.deadline;
      if (live && live.id === event.hand) live.betting_deadline = event.deadline;
      return;
    case "bet.placed": {
      if (!inStep(state, event) || !live) return;
      const sitter = tableSeat(state, event.seat);
      if (!sitter || !sitter.player || !event.hand_seat) { wantSnapshot(state, "unknown seat"); return; }
      live.seats = live.seats.filter((/** @type {any} */ s) => s.seat !== event.seat).concat([betSeat(state, event.hand_seat)]);
      live.seats.sort((/** @type {any} */ a, /** @type {any} */ b) => a.seat - b.seat);
      return;
    }
    case "hand.dealt":
      if (!inStep(state, event) || !live) return;
      live.state = "decisions";
      live.betting_deadline = null;
      live.decision_deadline = event.decision_deadline;
      live.dealer.up_card = event.dealer_up_card;
      if (!event.dealer_cards) { wantSnapshot(state, "no dealer cards"); return; }
      live.dealer.cards = event.dealer_cards;
      live.seats = live.seats.filter((/** @type {any} */ s) => event.seats.indexOf(s.seat) >= 0);
      live.seats.forEach((/** @type {any} */ s) => {
        if (!s.cards.length) s.cards = new Array(event.cards_each).fill(null);
        if (s.is_you) s.decision_deadline = event.decision_deadline;
      });
      return;
    case "decision.made": {
      if (!inStep(state, event) || !live) return;
      const seat = live.seats.find((/** @type {any} */ s) => s.seat === event.seat);
      if (!seat) { wantSnapshot(state, "unknown seat"); return; }
      seat.decision = event.decision;
      seat.decision_label = event.decision_label || null;
      seat.decided_by_timeout = !!event.by_timeout;
      seat.decision_deadline = null;
      if (event.raise) seat.raise = event.raise;
      return;
    }
    case "hand.settled":
    case "hand.cancelled":
      if (event.result) {
        setLast(state, event.result);
        if (live && live.id === event.hand) state.table.hand = null;
      } else {
        wantResult(state, event.hand);
        wantSnapshot(state, "no result");
      }
      return;
    default:
  }
}

/* --- reading the state ------------------------------------------------------------ */

/** @param {TableState} state @returns {Hand|null} */
export function liveHand(state) { return state.table.hand; }
/** @param {TableState} state */
export function myTableSeat(state) { return state.table.seats.find((/** @type {any} */ s) => s.is_you) || null; }
/** The player's seat in a hand. @param {TableState} state @param {Hand|null} hand */
export function mySeatIn(state, hand) {
  if (!hand) return null;
  return hand.seats.find((/** @type {any} */ s) => s.is_you || s.player === state.username) || null;
}

/** The hand drawn on the felt: the live one once it is dealt (or has bets), else the last
 * result until the next deal. @param {TableState} state @returns {Hand|null} */
export function feltHand(state) {
  const live = liveHand(state);
  if (live && (live.state === "decisions" || live.seats.length > 0)) return live;
  if (state.last && state.last.table === state.table.id) return state.last;
  return live;
}

/** Where the viewer stands: "watching", "standing", "waiting", "betting", "bet-placed",
 * "deciding", "decided", "sitting-out". @param {TableState} state @param {boolean} isPlayer */
export function phase(state, isPlayer) {
  const hand = liveHand(state);
  const mine = mySeatIn(state, hand);
  if (!isPlayer) return "watching";
  if (!myTableSeat(state)) return "standing";
  if (!hand) return "waiting";
  if (hand.state === "betting") return mine ? "bet-placed" : "betting";
  if (hand.state === "decisions") {
    if (!mine) return "sitting-out";
    return mine.decision ? "decided" : "deciding";
  }
  return "waiting";
}

/** The last hand's result while it is shown: until the next deal's cards arrive.
 * @param {TableState} state @returns {Hand|null} */
export function resultShown(state) {
  const last = state.last;
  const live = liveHand(state);
  if (!last || (live && live.state === "decisions" && live.id !== last.id)) return null;
  return last;
}

/* --- hand names: the server's words ("pair of tens", "king high") -------------------- */

/** @param {any} handSeat */
export function handName(handSeat) {
  if (!handSeat) return "";
  return handSeat.hand_name || (handSeat.category_label ? handSeat.category_label.toLowerCase() : "");
}

/* --- the clocks ------------------------------------------------------------------- */

/** @typedef {{at: number, label: string, key: string, mine?: boolean}} Deadline */

/**
 * The table's clock at the page's time `localNow`: the betting window, the player's own
 * decision time (with its extension when they hold a pair or better), or the table's.
 * @param {TableState} state @param {number} localNow @param {number} extensionSeconds
 * @returns {Deadline|null}
 */
export function activeDeadline(state, localNow, extensionSeconds) {
  const hand = liveHand(state);
  if (!hand) return null;
  const now = localNow + state.offset;
  if (hand.state === "betting") {
    const d = hand.betting_deadline || state.bettingDeadlines[hand.id];
    return d ? { at: Date.parse(d), label: mySeatIn(state, hand) || !myTableSeat(state) ? gettext("Betting closes in") : gettext("Place your bet within"), key: "b" + hand.id } : null;
  }
  if (hand.state === "decisions") {
    const mine = mySeatIn(state, hand);
    if (mine && !mine.decision && (mine.decision_deadline || hand.decision_deadline)) {
      const at = Date.parse(mine.decision_deadline || hand.decision_deadline);
      const extended = hand.decision_deadline && at > Date.parse(hand.decision_deadline) + 1000;
      return { at, label: extended ? gettext("Extra time (you hold a pair or better):") : gettext("Decide within"), key: "d" + hand.id + ":" + at, mine: true };
    }
    if (hand.decision_deadline) {
      const shared = Date.parse(hand.decision_deadline);
      if (now < shared + EXTRA_GRACE_MS) return { at: shared, label: gettext("Players decide within"), key: "d" + hand.id };
      /* past the table's deadline a seat still deciding has its extension (see seatDeadline) */
      return { at: shared + extensionSeconds * 1000, label: gettext("Extra time for the players still deciding:"), key: "x" + hand.id };
    }
  }
  return null;
}

/**
 * A seat's own clock on the felt: the betting window for a seated player who has not
 * bet, the decision time for a seat still deciding. A seat's extension is private (it
 * would tell the table the seat holds a pair): your own seat shows yours as soon as you
 * have it; another seat's shows only once the table's deadline has passed with that seat
 * still deciding, which everyone sees anyway, and counts down the table's extension.
 * @param {TableState} state @param {number} n @param {number} localNow @param {number} extensionSeconds
 * @returns {{at: number, label: string, extra?: boolean}|null}
 */
export function seatDeadline(state, n, localNow, extensionSeconds) {
  const hand = liveHand(state);
  const sitter = tableSeat(state, n);
  if (!hand || !sitter || !sitter.player) return null;
  const handSeat = hand.seats.find((/** @type {any} */ s) => s.seat === n);
  if (hand.state === "betting") {
    const closes = hand.betting_deadline || state.bettingDeadlines[hand.id];
    return !handSeat && closes ? { at: Date.parse(closes), label: gettext("to bet") } : null;
  }
  if (hand.state !== "decisions" || !handSeat || handSeat.decision || !hand.decision_deadline) return null;
  const shared = Date.parse(hand.decision_deadline);
  if (handSeat.is_you && handSeat.decision_deadline) {
    const own = Date.parse(handSeat.decision_deadline);
    return own > shared + 1000 ? { at: own, label: gettext("extra time"), extra: true } : { at: own, label: gettext("to decide") };
  }
  if (localNow + state.offset < shared + EXTRA_GRACE_MS) return { at: shared, label: gettext("to decide") };
  return { at: shared + extensionSeconds * 1000, label: gettext("extra time"), extra: true };
}

/** Whole seconds left on a deadline at the page's time, as a clock reads them.
 * @param {TableState} state @param {{at: number}} deadline @param {number} localNow */
export function secondsLeft(state, deadline, localNow) {
  return Math.ceil(Math.max(0, deadline.at - (localNow + state.offset)) / 1000);
}
