// @ts-check
/* Reality check: at the interval the player chose, a dialog with the session's play time
   and net result (from /api/responsible-gaming/). Loaded on every page for players. */
import { getJSON, moneyText } from "./common.js";

const STATE_URL = "/api/responsible-gaming/";
/** @type {ReturnType<typeof setTimeout>|null} */
let timer = null;

/** @typedef {{reality_check_minutes: number|null, session: {started_at: string, net: string}|null}} GamingState */

/** @param {string} iso */
function minutesSince(iso) {
  return Math.max(0, Math.floor((Date.now() - new Date(iso).getTime()) / 60000));
}

/** @param {GamingState} state */
function schedule(state) {
  if (timer) clearTimeout(timer);
  const every = state.reality_check_minutes;
  if (!every || !state.session || !state.session.started_at) return;
  const started = new Date(state.session.started_at).getTime();
  const period = every * 60000;
  const elapsed = Date.now() - started;
  timer = setTimeout(check, period - (elapsed % period));
}

function check() {
  getJSON(STATE_URL).then((/** @type {GamingState} */ state) => {
    show(state);
    schedule(state);
  }).catch(() => { /* offline: try again at the next interval */ });
}

/** @param {GamingState} state */
function show(state) {
  const dialog = /** @type {HTMLDialogElement|null} */ (document.getElementById("reality-check"));
  if (!dialog || typeof dialog.showModal !== "function" || !state.session) return;
  /** @type {HTMLElement} */ (dialog.querySelector("[data-reality-minutes]")).textContent = String(minutesSince(state.session.started_at));
  /** @type {HTMLElement} */ (dialog.querySelector("[data-reality-net]")).textContent = moneyText(state.session.net, true);
  if (!dialog.open) dialog.showModal();
}

const dialog = /** @type {HTMLDialogElement|null} */ (document.getElementById("reality-check"));
if (dialog) {
  /** @type {HTMLElement} */ (dialog.querySelector("[data-reality-continue]")).addEventListener("click", () => dialog.close());
  getJSON(STATE_URL).then(schedule).catch(() => {});
}
