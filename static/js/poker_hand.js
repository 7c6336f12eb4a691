// @ts-check
/* A poker hand's page: "Verify" recomputes the deck in this browser (static/js/fair.js) and
   checks every card the player saw against its place in the deck. */
import { card, gettext, h, interpolate, readJSON } from "./common.js";
import { commitmentOf, shuffledDeck } from "./fair.js";

/** @param {boolean} ok @param {string} text */
function line(ok, text) {
  return h("li", { class: ok ? "ok" : "bad" }, h("span", { class: "mark", "aria-hidden": "true", text: ok ? "\u2714" : "\u2718" }), " " + text);
}

/** @param {{serverSeed: string, clientSeed: string, nonce: number, commitment: string, cards: {pos: number, card: string}[]}} data
 *  @param {HTMLButtonElement} button @param {HTMLElement} out */
function start(data, button, out) {
  button.addEventListener("click", async () => {
    button.disabled = true;
    out.dataset.verified = "";
    out.replaceChildren(h("p", { text: gettext("Recomputing the deck…") }));
    try {
      const computed = await commitmentOf(data.serverSeed);
      const commitmentOk = computed === String(data.commitment).toLowerCase();
      /** @type {string[]} */
      const deck = await shuffledDeck(data.serverSeed, data.clientSeed, data.nonce);
      const bad = data.cards.filter((c) => deck[c.pos] !== c.card);
      const items = [line(commitmentOk, commitmentOk ? gettext("The server seed hashes to the commitment shown before the antes.")
        : interpolate(gettext("The server seed does NOT hash to the commitment (got %(commitment)s)."), { commitment: computed }, true))];
      items.push(line(!bad.length, bad.length
        ? interpolate(gettext("%(bad)s of the %(total)s cards you saw are not where the deck puts them (first: %(card)s at card %(position)s, the deck has %(deck)s)."), { bad: bad.length, total: data.cards.length, card: bad[0].card, position: bad[0].pos + 1, deck: deck[bad[0].pos] }, true)
        : interpolate(gettext("All %(total)s cards you saw are exactly where the committed deck puts them."), { total: data.cards.length }, true)));
      const ok = commitmentOk && !bad.length;
      const seen = data.cards.length ? data.cards[data.cards.length - 1].pos + 1 : 0;
      out.dataset.verified = ok ? "match" : "mismatch";
      out.className = "verify-result " + (ok ? "is-ok" : "is-bad");
      out.replaceChildren(
        h("p", { class: "verify-verdict", text: ok ? gettext("Verified: this hand was dealt from the committed deck.") : gettext("Mismatch: this hand does not match its commitment.") }),
        h("ul", { class: "verify-list" }, items),
        h("div", { class: "verify-row" }, h("span", { class: "verify-label", text: gettext("The deck's first cards") }),
          h("span", { class: "cards cards-small", role: "list", "aria-label": gettext("The deck's first cards") },
            deck.slice(0, Math.min(deck.length, seen)).map((code) => {
              const c = card(code);
              c.setAttribute("role", "listitem");
              return c;
            }))));
    } catch (error) {
      out.dataset.verified = "error";
      out.className = "verify-result is-bad";
      out.replaceChildren(h("p", { text: interpolate(gettext("Could not verify: %(reason)s"), { reason: error instanceof Error ? error.message : error }, true) }));
    }
    button.disabled = false;
  });
  button.disabled = false; // the page draws it disabled: a click before this script listens did nothing
}

const data = readJSON("poker-fair");
const button = /** @type {HTMLButtonElement|null} */ (document.getElementById("btn-verify"));
const out = document.getElementById("verify-result");
if (data && button && out) start(data, button, out);
