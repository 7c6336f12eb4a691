/* Lobby: the jackpot meter and the free seats, refreshed every few seconds from the API. */
(function () {
  "use strict";
  var C = window.Casino;
  var script = document.currentScript;
  var jackpotApi = script.dataset.jackpotApi;
  var lobbyApi = script.dataset.lobbyApi;
  var INTERVAL = 4000;

  function refresh() {
    if (document.hidden) return;
    C.getJSON(jackpotApi).then(function (data) {
      (data.pools || []).forEach(function (pool) { C.setMeter(pool.id, pool.meter); });
    }).catch(function () {});
    C.getJSON(lobbyApi).then(function (data) {
      (data.tables || []).forEach(function (t) {
        var card = document.querySelector('.table-card[data-table="' + t.id + '"]');
        if (!card) return;
        var free = card.querySelector("[data-free-seats]");
        if (free && free.textContent !== String(t.free_seats)) free.textContent = String(t.free_seats);
        card.querySelectorAll(".seat-dot").forEach(function (dot, i) { dot.classList.toggle("taken", i < t.seats_taken); });
      });
    }).catch(function () {});
  }

  setInterval(refresh, INTERVAL);
  document.addEventListener("visibilitychange", refresh);
})();
