// @ts-check
/* "My tables": which of the player's tiled tables waits for them, in what order, and which
 * one gets the keyboard, as pure functions (static/js/poker_tiles.js wires them to the
 * page; tests/js/poker_tiles.test.mjs checks them).
 *
 * A table waits from the moment its tile says a turn of the player's began there until it
 * says that turn is over. The table waiting longest comes first (two that began waiting at
 * the same moment: the one tiled first). The keyboard goes to the first waiting table,
 * unless the player already is at a waiting table (they chose it, or it was handed to
 * them: it stays theirs until they act there) or is typing in a field (the next letter
 * would play a table's key elsewhere).
 */
import { gettext, interpolate } from "./common.js";

/** The message a tile sends when the player's turn there begins or ends:
 * `{type: TURN, table: <id>, turn: <the turn's key, "<hand>:<version>">|null}`. */
export const TURN = "casino.poker.tile-turn";
/** The message the page sends a tile to take the keyboard's focus: `{type: FOCUS}`. */
export const FOCUS = "casino.poker.tile-focus";

/** @typedef {Record<string, {since: number, turn: string}>} Waiting
 *   table id -> the turn it waits on and since when (ms) */

/** The waiting tables after a tile's message: a table starts waiting at `at` when a turn
 * comes, keeps its first moment while it waits on that same turn, starts again at `at` on
 * a new turn (the player acted and it is theirs again at once: the line's end), and stops
 * when the player's turn there is over.
 * @param {Waiting} waiting @param {number|string} table @param {string|null} turn @param {number} at
 * @returns {Waiting} */
export function turnChange(waiting, table, turn, at) {
  const key = String(table);
  const now = waiting[key];
  if (turn) return now && now.turn === turn ? waiting : { ...waiting, [key]: { since: at, turn } };
  if (!now) return waiting;
  const next = { ...waiting };
  delete next[key];
  return next;
}

/** The waiting tables, the one waiting longest first; equal moments in the tiles' order.
 * @param {Waiting} waiting @param {(number|string)[]} tiles the tables in the page's order
 * @returns {string[]} */
export function waitingOrder(waiting, tiles) {
  const place = tiles.map(String);
  return Object.keys(waiting).sort((a, b) => waiting[a].since - waiting[b].since || place.indexOf(a) - place.indexOf(b));
}

/** The table whose tile should get the keyboard now, or null to leave it where it is.
 * @param {string[]} order `waitingOrder`'s
 * @param {string|null} focused the table whose tile has the focus (null: none has)
 * @param {boolean} typing the focus is in a field the player types in
 * @param {boolean} [done] the focused table's wait just ended (or began anew): the player acted there
 * @returns {string|null} */
export function focusTarget(order, focused, typing, done) {
  if (!order.length || typing) return null;
  if (!done && focused !== null && order.indexOf(focused) >= 0) return null;
  return order[0] === focused ? null : order[0];
}

/** Whether an element is a field the player types in (a slider or a button is not one),
 * as the table page itself decides that a key is not the table's.
 * @param {{tagName?: string, type?: string, isContentEditable?: boolean}|null|undefined} el */
export function isTyping(el) {
  if (!el || !el.tagName) return false;
  const tag = el.tagName.toUpperCase();
  if (el.isContentEditable || tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag !== "INPUT") return false;
  return ["range", "button", "submit", "checkbox", "radio", "reset"].indexOf(String(el.type || "text")) < 0;
}

/** A waiting tile's mark: "Your turn" alone, "Your turn · 1 of 2" when several wait.
 * @param {number} place 0 for the first @param {number} count */
export function turnMark(place, count) {
  if (count < 2) return gettext("Your turn");
  return interpolate(gettext("Your turn · %(place)s of %(count)s"), { place: place + 1, count }, true);
}

/** The page's line on who waits: the tables' names, the first first.
 * @param {string[]} names */
export function waitingLine(names) {
  if (!names.length) return gettext("No table is waiting for you.");
  return interpolate(gettext("Tables waiting for you: %(tables)s"), { tables: names.join(" → ") }, true);
}
