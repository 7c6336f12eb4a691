// @ts-check
/* A live table drawn as a tile of "My tables" (templates/poker/my_tables.html, whose page
 * script is static/js/poker_tiles.js). It tells that page when it becomes, and when it
 * stops being, the player's turn at this table, and takes the keyboard's focus when the
 * page hands it over: then the table's keys (F, C, B, R, A) play here at once.
 *
 * Messages go to the parent window of this site's origin only, and only the parent's are
 * heard; the turn is read from what static/js/poker.js draws (`data-turn` on #poker-app,
 * set on every drawing). */
import { readJSON } from "./common.js";
import { FOCUS, TURN } from "./poker_tiles_state.js";

const app = document.getElementById("poker-app");
const config = readJSON("poker-config");
const host = window.parent;

/** The player's turn here as the table last drew it ("<hand>:<version>"), or null. */
function turn() { return (app && app.dataset.turn) || null; }

/** @type {string|null|undefined} */
let told;

function tell() {
  const now = turn();
  if (now === told) return;
  told = now;
  host.postMessage({ type: TURN, table: config.table, turn: now }, location.origin);
}

/* The first action that is not a fold, as the table page itself focuses a new turn; the
   controls' panel (from where the keys still play) between turns. */
function takeFocus() {
  const actions = document.getElementById("poker-actions");
  const buttons = actions && !actions.hidden ? actions.querySelectorAll("button:not(:disabled)") : [];
  const first = Array.from(buttons).find((b) => /** @type {HTMLElement} */ (b).dataset.action !== "fold") || buttons[0] ||
    document.getElementById("poker-controls");
  if (first) /** @type {HTMLElement} */ (first).focus({ preventScroll: true });
}

if (app && config && host !== window) {
  new MutationObserver(tell).observe(app, { attributes: true, attributeFilter: ["data-turn"] });
  tell();
  window.addEventListener("message", (e) => {
    if (e.origin !== location.origin || e.source !== host) return;
    if (e.data && e.data.type === FOCUS) takeFocus();
  });
}
