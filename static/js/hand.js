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
    out.replaceChildren(h("p", { text: gettext("Recomputing the deck…") }));
    window.CasinoFair.verifyHand(data).then(function (result) {
      var items = [line(result.commitmentOk, result.commitmentOk
        ? gettext("The server seed hashes to the commitment shown before the hand.")
        : interpolate(gettext("The server seed does NOT hash to the commitment (got %(commitment)s)."), { commitment: result.computedCommitment }, true))];
      var rows = [];
      if (result.dealOk === null) {
        items.push(line(true, gettext("No cards were dealt in this hand, so there is no deck to compare.")));
      } else {
        result.seats.forEach(function (s) {
          items.push(line(s.ok, s.ok
            ? interpolate(gettext("Seat %(seat)s: the deck deals exactly the cards shown."), { seat: s.seat }, true)
            : interpolate(gettext("Seat %(seat)s: the deck deals %(expected)s, not %(shown)s."), { seat: s.seat, expected: s.expected.join(" "), shown: s.shown.join(" ") }, true)));
          rows.push(cardsRow(interpolate(gettext("Seat %(seat)s from the deck"), { seat: s.seat }, true), s.expected));
        });
        items.push(line(result.dealer.ok, result.dealer.ok
          ? gettext("Dealer: the deck deals exactly the cards shown.")
          : interpolate(gettext("Dealer: the deck deals %(expected)s, not %(shown)s."), { expected: result.dealer.expected.join(" "), shown: result.dealer.shown.join(" ") }, true)));
        rows.push(cardsRow(gettext("Dealer from the deck"), result.dealer.expected));
      }
      var ok = result.commitmentOk && result.dealOk !== false;
      out.dataset.verified = ok ? "match" : "mismatch";
      out.className = "verify-result " + (ok ? "is-ok" : "is-bad");
      out.replaceChildren(
        h("p", { class: "verify-verdict", text: ok ? gettext("Verified: this hand was dealt from the committed deck.") : gettext("Mismatch: this hand does not match its commitment.") }),
        h("ul", { class: "verify-list" }, items),
        rows.length ? h("div", { class: "verify-cards" }, rows) : null);
    }).catch(function (error) {
      out.dataset.verified = "error";
      out.className = "verify-result is-bad";
      out.replaceChildren(h("p", { text: interpolate(gettext("Could not verify: %(reason)s"), { reason: error && error.message ? error.message : error }, true) }));
    }).then(function () { button.disabled = false; });
  });
  button.disabled = false;  // the page draws it disabled: a click before this script listens did nothing
})();
