// The page scripts' words and money (static/js/common.js): English without Django's catalog
// (as under Node), the catalog's words where the page has it, German money on a German page.
// `node --test tests/js/`.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";

import { cardName, categoryLabel, decimal, gettext, interpolate, money, moneyText, ngettext, pgettext } from "../../static/js/common.js";

afterEach(() => {
  delete globalThis.django;
  delete globalThis.document;
});

test("without the catalog the words are the English msgids", () => {
  assert.equal(gettext("Fold"), "Fold");
  assert.equal(ngettext("%(n)s card", "%(n)s cards", 1), "%(n)s card");
  assert.equal(ngettext("%(n)s card", "%(n)s cards", 3), "%(n)s cards");
  assert.equal(pgettext("Caribbean button", "Bet"), "Bet");
  assert.equal(interpolate("%(name)s wins %(amount)s", { name: "ben", amount: "€2.38" }, true), "ben wins €2.38");
  assert.equal(interpolate("%s of %s", [3, 7]), "3 of 7");
  assert.equal(cardName("Ah"), "Ace of hearts");
  assert.equal(categoryLabel("two_pair"), "Two pair");
});

test("with the catalog the words are its translations", () => {
  const german = { Fold: "Passen", Ace: "Ass", "%(rank)s of hearts": "%(rank)s Herz", "Two pair": "Zwei Paare" };
  globalThis.django = {
    gettext: (/** @type {string} */ s) => german[s] || s,
    ngettext: (/** @type {string} */ s, /** @type {string} */ p, /** @type {number} */ n) => (n === 1 ? s : p),
    pgettext: (/** @type {string} */ c, /** @type {string} */ s) => (c === "Caribbean button" && s === "Bet" ? "Einsatz" : s),
    interpolate: (/** @type {string} */ f, /** @type {any} */ v) => f.replace(/%\((\w+)\)s/g, (_, k) => String(v[k]))
  };
  assert.equal(gettext("Fold"), "Passen");
  assert.equal(pgettext("Caribbean button", "Bet"), "Einsatz");
  assert.equal(cardName("Ah"), "Ass Herz");
  assert.equal(categoryLabel("two_pair"), "Zwei Paare");
});

test("money follows the page's language; the wire format does not", () => {
  assert.equal(money(123450), "€1,234.50");
  assert.equal(money(-200), "\u2212€2.00");
  assert.equal(moneyText("2.5", true), "+€2.50");
  globalThis.document = { documentElement: { lang: "de" } };
  assert.equal(money(123450), "1.234,50\u00a0€");
  assert.equal(money(-200), "\u22122,00\u00a0€");
  assert.equal(moneyText("1000000", true), "+1.000.000,00\u00a0€");
  assert.equal(decimal(123450), "1234.50");
});
