// @ts-check
/* Lobby: the jackpot meter and the free seats, refreshed every few seconds from the API.
   The script's tag names the two APIs (data-jackpot-api, data-lobby-api). */
import { getJSON, setMeter } from "./common.js";

const INTERVAL = 4000;

/** @param {string} jackpotApi @param {string} lobbyApi */
function refresh(jackpotApi, lobbyApi) {
  if (document.hidden) return;
  getJSON(jackpotApi).then((data) => {
    (data.pools || []).forEach((/** @type {any} */ pool) => setMeter(pool.id, pool.meter));
  }).catch(() => {});
  getJSON(lobbyApi).then((data) => {
    (data.tables || []).forEach((/** @type {any} */ t) => {
      const card = document.querySelector('.table-card[data-table="' + t.id + '"]');
      if (!card) return;
      const free = card.querySelector("[data-free-seats]");
      if (free && free.textContent !== String(t.free_seats)) free.textContent = String(t.free_seats);
      card.querySelectorAll(".seat-dot").forEach((dot, i) => dot.classList.toggle("taken", i < t.seats_taken));
    });
  }).catch(() => {});
}

const script = /** @type {HTMLScriptElement|null} */ (document.querySelector("script[data-lobby-api]"));
if (script) {
  const again = () => refresh(script.dataset.jackpotApi || "", script.dataset.lobbyApi || "");
  setInterval(again, INTERVAL);
  document.addEventListener("visibilitychange", again);
}
