/* Reality check: at the interval the player chose, a dialog with the session's play time
   and net result (from /api/responsible-gaming/). Loaded on every page for players. */
(function () {
  "use strict";
  var STATE_URL = "/api/responsible-gaming/";
  var timer = null;

  function minutesSince(iso) {
    return Math.max(0, Math.floor((Date.now() - new Date(iso).getTime()) / 60000));
  }

  function schedule(state) {
    if (timer) clearTimeout(timer);
    var every = state.reality_check_minutes;
    if (!every || !state.session || !state.session.started_at) return;
    var started = new Date(state.session.started_at).getTime();
    var period = every * 60000;
    var elapsed = Date.now() - started;
    var wait = period - (elapsed % period);
    timer = setTimeout(check, wait);
  }

  function check() {
    Casino.getJSON(STATE_URL).then(function (state) {
      show(state);
      schedule(state);
    }).catch(function () { /* offline: try again at the next interval */ });
  }

  function show(state) {
    var dialog = document.getElementById("reality-check");
    if (!dialog || typeof dialog.showModal !== "function") return;
    dialog.querySelector("[data-reality-minutes]").textContent = String(minutesSince(state.session.started_at));
    dialog.querySelector("[data-reality-net]").textContent = Casino.moneyText(state.session.net, true);
    if (!dialog.open) dialog.showModal();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var dialog = document.getElementById("reality-check");
    if (!dialog) return;
    dialog.querySelector("[data-reality-continue]").addEventListener("click", function () { dialog.close(); });
    Casino.getJSON(STATE_URL).then(schedule).catch(function () {});
  });
})();
