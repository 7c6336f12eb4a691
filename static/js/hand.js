/* Hand detail: the "Verify" button recomputes the deck in this browser (static/js/fair.js). */
(function () {
  "use strict";
  var C = window.Casino;
  var h = C.h;
  var data = C.readJSON("fair-data");
  var button = document.getElementById("btn-verify");
  var out = document.getElementById("verify-result");
  if (!data || !button || !out) return;

  function line(ok, text) {
    return h("li", { class: ok ? "ok" : "bad" }, h("span", { class: "mark", "aria-hidden": "true", text: ok ? "\u2714" : "\u2718" }), " " + text);
  }

  function cardsRow(label, cards) {
    return h("div", { class: "verify-row" }, h("span", { class: "verify-label", text: label }),
      h("span", { class: "cards cards-small", role: "list", "aria-label": label }, cards.map(function (code) {
        var c = C.card(code);
        c.setAttribute("role", "listitem");
        return c;
      })));
  }

  button.addEventListener("click", function () {
    button.disabled = true;
    out.dataset.verified = "";
    out.replaceChildren(h("p", { text: "Recomputing the deck…" }));
    window.CasinoFair.verifyHand(data).then(function (result) {
      var items = [line(result.commitmentOk, result.commitmentOk
        ? "The server seed hashes to the commitment shown before the hand."
        : "The server seed does NOT hash to the commitment (got " + result.computedCommitment + ").")];
      var rows = [];
      if (result.dealOk === null) {
        items.push(line(true, "No cards were dealt in this hand, so there is no deck to compare."));
      } else {
        result.seats.forEach(function (s) {
          items.push(line(s.ok, "Seat " + s.seat + ": " + (s.ok ? "the deck deals exactly the cards shown." : "the deck deals " + s.expected.join(" ") + ", not " + s.shown.join(" ") + ".")));
          rows.push(cardsRow("Seat " + s.seat + " from the deck", s.expected));
        });
        items.push(line(result.dealer.ok, "Dealer: " + (result.dealer.ok ? "the deck deals exactly the cards shown." : "the deck deals " + result.dealer.expected.join(" ") + ", not " + result.dealer.shown.join(" ") + ".")));
        rows.push(cardsRow("Dealer from the deck", result.dealer.expected));
      }
      var ok = result.commitmentOk && result.dealOk !== false;
      out.dataset.verified = ok ? "match" : "mismatch";
      out.className = "verify-result " + (ok ? "is-ok" : "is-bad");
      out.replaceChildren(
        h("p", { class: "verify-verdict", text: ok ? "Verified: this hand was dealt from the committed deck." : "Mismatch: this hand does not match its commitment." }),
        h("ul", { class: "verify-list" }, items),
        rows.length ? h("div", { class: "verify-cards" }, rows) : null);
    }).catch(function (error) {
      out.dataset.verified = "error";
      out.className = "verify-result is-bad";
      out.replaceChildren(h("p", { text: "Could not verify: " + (error && error.message ? error.message : error) }));
    }).then(function () { button.disabled = false; });
  });
  button.disabled = false;  // the page draws it disabled: a click before this script listens did nothing
})();
