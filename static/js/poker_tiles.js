// @ts-check
/* "My tables" (templates/poker/my_tables.html): up to four of the player's own tables, each
 * its live table page drawn compact in a frame (poker.views.poker_table_tile) on a socket
 * of its own. Each tile tells this page when it becomes or stops being the player's turn
 * there (static/js/poker_tile_frame.js); this page marks the tables waiting for the player,
 * the one waiting longest first, says so in a line, in the tab's title while the tab is
 * hidden and with the turn's sound, and hands the keyboard to that table
 * (poker_tiles_state.js's rules), so that the table's own keys (F, C, B, R, A) play there
 * at once. With "Move the tables waiting for you to the front" on, the waiting tables also
 * move to the front of the grid (off by default: a table that moves under the pointer
 * takes a click meant for another).
 *
 * Only messages from this page's own frames, of this site's origin, are heard. */
import { playTurnTones, soundKey, tabTitle } from "./poker_keys.js";
import { FOCUS, TURN, focusTarget, isTyping, turnChange, turnMark, waitingLine, waitingOrder } from "./poker_tiles_state.js";

const REORDER_KEY = "casino.poker.tiles.first";

const tiles = Array.from(document.querySelectorAll("[data-tile]")).map((el) => {
  const tile = /** @type {HTMLElement} */ (el);
  return {
    el: tile,
    table: String(tile.dataset.tile),
    frame: /** @type {HTMLIFrameElement} */ (tile.querySelector("iframe")),
    name: ((tile.querySelector(".tile-name") || { textContent: "" }).textContent || "").trim(),
    mark: /** @type {HTMLElement} */ (tile.querySelector("[data-tile-turn]"))
  };
});
const tables = tiles.map((t) => t.table);
const status = document.getElementById("tiles-status");
const reorder = /** @type {HTMLInputElement|null} */ (document.getElementById("tiles-first"));
const baseTitle = document.title;
/** @type {import("./poker_tiles_state.js").Waiting} */
let waiting = {};
const username = (document.getElementById("tiles-app") || { dataset: {} }).dataset.username || "";
/** @type {AudioContext|null} */
let audio = null;
let beeps = 0;

/** The turn's sound, two short rising tones, as a table page plays it, switched on or off by
 * the same per-player switch. The tiles stay silent: a frame may sound only once the player
 * used it, this page as soon as the player used any of its tiles. */
function beep() {
  try {
    if (localStorage.getItem(soundKey(username)) === "off") return;
  } catch (e) { /* no switch kept: the sound is on */ }
  const activation = /** @type {any} */ (navigator).userActivation;
  if (activation && !activation.hasBeenActive) return;
  try {
    const Ctx = /** @type {any} */ (window).AudioContext || /** @type {any} */ (window).webkitAudioContext;
    if (!Ctx) return;
    audio = audio || new Ctx();
    const ctx = /** @type {AudioContext} */ (audio);
    playTurnTones(ctx);
    beeps += 1;
  } catch (e) { /* no sound is no error: the marks, the title and the focus still say it */ }
}

/** @param {string} table */
function tileOf(table) { return tiles.find((t) => t.table === table) || null; }

/** The tile whose frame has the keyboard's focus, or null. */
function focusedTile() { return tiles.find((t) => t.frame === document.activeElement) || null; }

/** Whether the player is typing in a field of the focused tile (its frame is this site's). */
function typingInTile() {
  const tile = focusedTile();
  if (!tile) return false;
  try {
    const doc = tile.frame.contentDocument;
    return isTyping(doc ? /** @type {any} */ (doc.activeElement) : null);
  } catch (e) {
    return false;
  }
}

function draw() {
  const order = waitingOrder(waiting, tables);
  const first = !!(reorder && reorder.checked);
  tiles.forEach((t, i) => {
    const place = order.indexOf(t.table);
    t.el.classList.toggle("is-waiting", place >= 0);
    t.el.classList.toggle("is-first", place === 0);
    t.mark.hidden = place < 0;
    t.mark.textContent = place >= 0 ? turnMark(place, order.length) : "";
    t.el.style.order = first && place >= 0 ? String(place - tiles.length) : String(i);
  });
  const names = order.map((id) => (tileOf(id) || { name: id }).name);
  if (status && status.textContent !== waitingLine(names)) status.textContent = waitingLine(names);
  document.title = tabTitle(baseTitle, names[0] || "", names.length > 0, document.visibilityState === "hidden");
  fit(); /* the line may now take two */
}

/** The keyboard to the table waiting longest, unless the player is at a waiting table (and
 * did not just act there) or typing. @param {boolean} done the focused table's wait just ended */
function handOver(done) {
  const focused = focusedTile();
  const target = tileOf(focusTarget(waitingOrder(waiting, tables), focused ? focused.table : null, typingInTile(), done) || "");
  if (!target || !target.frame.contentWindow) return;
  target.frame.focus();
  target.frame.contentWindow.postMessage({ type: FOCUS }, location.origin);
}

window.addEventListener("message", (e) => {
  if (e.origin !== location.origin) return;
  const tile = tiles.find((t) => t.frame.contentWindow === e.source);
  const data = e.data;
  if (!tile || !data || data.type !== TURN || String(data.table) !== tile.table) return;
  const before = waiting[tile.table];
  waiting = turnChange(waiting, tile.table, typeof data.turn === "string" && data.turn ? data.turn : null, Date.now());
  const after = waiting[tile.table];
  const focused = focusedTile();
  draw();
  if (after && after !== before) beep(); /* a new turn of the player's at this table */
  handOver(!!before && before !== after && !!focused && focused.table === tile.table);
});

if (reorder) {
  try { reorder.checked = localStorage.getItem(REORDER_KEY) === "on"; } catch (e) { /* not remembered */ }
  reorder.addEventListener("change", () => {
    try { localStorage.setItem(REORDER_KEY, reorder.checked ? "on" : "off"); } catch (e) { /* not remembered */ }
    draw();
  });
}
/* The frames' height follows where the grid begins (the lines above it take one or two). */
function fit() {
  const grid = document.querySelector(".tiles");
  if (grid) document.documentElement.style.setProperty("--tiles-top", Math.round(grid.getBoundingClientRect().top + window.scrollY) + "px");
}
window.addEventListener("resize", fit);
document.addEventListener("visibilitychange", draw);
fit();
draw();
/* For the browser tests and the console: the waiting tables, the first first. */
/** @type {any} */ (window).CasinoPokerTiles = { get waiting() { return waitingOrder(waiting, tables); }, get beeps() { return beeps; } };
