// @ts-check
/* Hand detail: the "Verify" button recomputes the deck in this browser (static/js/fair.js). */
import { card, gettext, h, interpolate, readJSON } from "./common.js";
import { verifyHand } from "./fair.js";

/** @param {boolean} ok @param {string} text */
function line(ok, text) {
  return h("li", { class: ok ? "ok" : "bad" }, h("span", { class: "mark", "aria-hidden": "true", text: ok ? "\u2714" : "\u2718" }), " " + text);
}

/** @param {string} label @param {string[]} cards */
function cardsRow(label, cards) {
  return h("div", { class: "verify-row" }, h("span", { class: "verify-label", text: label }),
    h("span", { class: "cards cards-small", role: "list", "aria-label": label }, cards.map((code) => {
      const c = card(code);
      c.setAttribute("role", "listitem");
      return c;
    })));
}

/** @param {any} data @param {HTMLButtonElement} button @param {HTMLElement} out */
function start(data, button, out) {
  button.addEventListener("click", () => {
    button.disabled = true;
    out.dataset.verified = "";
    out.replaceChildren(h("p", { text: gettext("Recomputing the deck…") }));
    verifyHand(data).then((/** @type {any} */ result) => {
      const items = [line(result.commitmentOk, result.commitmentOk
        ? gettext("The server seed hashes to the commitment shown before the hand.")
        : interpolate(gettext("The server seed does NOT hash to the commitment (got %(commitment)s)."), { commitment: result.computedCommitment }, true))];
      /** @type {HTMLElement[]} */
      const rows = [];
      if (result.dealOk === null) {
        items.push(line(true, gettext("No cards were dealt in this hand, so there is no deck to compare.")));
      } else {
        result.seats.forEach((/** @type {any} */ s) => {
          items.push(line(s.ok, interpolate(s.ok ? gettext("Seat %(seat)s: the deck deals exactly the cards shown.") : gettext("Seat %(seat)s: the deck deals %(expected)s, not %(shown)s."),
            { seat: s.seat, expected: s.expected.join(" "), shown: s.shown.join(" ") }, true)));
          rows.push(cardsRow(interpolate(gettext("Seat %(seat)s from the deck"), { seat: s.seat }, true), s.expected));
        });
        items.push(line(result.dealer.ok, interpolate(result.dealer.ok ? gettext("Dealer: the deck deals exactly the cards shown.") : gettext("Dealer: the deck deals %(expected)s, not %(shown)s."),
          { expected: result.dealer.expected.join(" "), shown: result.dealer.shown.join(" ") }, true)));
        rows.push(cardsRow(gettext("Dealer from the deck"), result.dealer.expected));
      }
      const ok = result.commitmentOk && result.dealOk !== false;
      out.dataset.verified = ok ? "match" : "mismatch";
      out.className = "verify-result " + (ok ? "is-ok" : "is-bad");
      out.replaceChildren(
        h("p", { class: "verify-verdict", text: ok ? gettext("Verified: this hand was dealt from the committed deck.") : gettext("Mismatch: this hand does not match its commitment.") }),
        h("ul", { class: "verify-list" }, items),
        ...(rows.length ? [h("div", { class: "verify-cards" }, rows)] : []));
    }).catch((error) => {
      out.dataset.verified = "error";
      out.className = "verify-result is-bad";
      out.replaceChildren(h("p", { text: interpolate(gettext("Could not verify: %(reason)s"), { reason: error && error.message ? error.message : error }, true) }));
    }).then(() => { button.disabled = false; });
  });
  button.disabled = false; // the page draws it disabled: a click before this script listens did nothing
}

const data = readJSON("fair-data");
const button = /** @type {HTMLButtonElement|null} */ (document.getElementById("btn-verify"));
const out = document.getElementById("verify-result");
if (data && button && out) start(data, button, out);
