// The stud pages' hand words (static/js/common.js's studCategoryLabel, used by the replayer
// and the live poker table): English without Django's catalog (as under Node), the stud
// players' German words with it, "Drilling" and "Vierling" where the Caribbean table says
// "Drei Gleiche" and "Vier Gleiche". `node --test tests/js/`.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";

import { categoryLabel, inSentence, studCategoryLabel } from "../../static/js/common.js";
import { handWords } from "../../static/js/poker_state.js";
import { framesOf } from "../../static/js/replayer.js";

afterEach(() => {
  delete globalThis.django;
  delete globalThis.document;
});

/** The German catalog's words for these tests: the stud hand's context apart from the Caribbean's. */
function germanCatalog() {
  /** @type {Record<string, string>} */
  const plain = { "Three of a kind": "Drei Gleiche", "Four of a kind": "Vier Gleiche", "Full house": "Full House", "%(name)s shows %(hand)s": "%(name)s zeigt %(hand)s" };
  /** @type {Record<string, string>} */
  const stud = { "Three of a kind": "Drilling", "Four of a kind": "Vierling", "Four flush": "Four Card Flush", "Four straight": "Four Card Straight" };
  globalThis.django = {
    gettext: (/** @type {string} */ s) => plain[s] || s,
    ngettext: (/** @type {string} */ s, /** @type {string} */ p, /** @type {number} */ n) => (n === 1 ? s : p),
    pgettext: (/** @type {string} */ c, /** @type {string} */ s) => (c === "stud hand" ? stud[s] || s : s),
    interpolate: (/** @type {string} */ f, /** @type {any} */ v) => f.replace(/%\((\w+)\)s/g, (_, k) => String(v[k]))
  };
  globalThis.document = { documentElement: { lang: "de" } };
}

test("without the catalog the stud words are English", () => {
  assert.equal(studCategoryLabel("three_of_a_kind"), "Three of a kind");
  assert.equal(studCategoryLabel("four_of_a_kind"), "Four of a kind");
  assert.equal(studCategoryLabel("four_flush"), "Four flush");
  assert.equal(studCategoryLabel("four_straight"), "Four straight");
  assert.equal(studCategoryLabel("full_house"), "Full house");
  assert.equal(studCategoryLabel(null), "");
  assert.equal(inSentence(studCategoryLabel("three_of_a_kind")), "three of a kind");
  assert.equal(handWords({ category: "four_of_a_kind" }), "four of a kind");
});

test("a German stud page says Drilling and Vierling, the Caribbean words stay the Caribbean's", () => {
  germanCatalog();
  assert.equal(studCategoryLabel("three_of_a_kind"), "Drilling");
  assert.equal(studCategoryLabel("four_of_a_kind"), "Vierling");
  assert.equal(studCategoryLabel("four_flush"), "Four Card Flush");
  assert.equal(studCategoryLabel("four_straight"), "Four Card Straight");
  assert.equal(studCategoryLabel("full_house"), "Full House");
  assert.equal(categoryLabel("three_of_a_kind"), "Drei Gleiche");
  assert.equal(inSentence(studCategoryLabel("three_of_a_kind")), "Drilling"); // a German noun keeps its capital
  assert.equal(handWords({ category: "three_of_a_kind" }), "Drilling");
  assert.equal(handWords({ category: "three_of_a_kind", hand_name: "Drilling Siebenen" }), "Drilling Siebenen");
});

test("the replayer's showdown names a stud hand in the stud words", () => {
  const record = {
    game: "seven_stud",
    seats: [{ seat: 1, player: "ann", stack: "100.00" }, { seat: 2, player: "bob", stack: "100.00" }],
    pots: [],
    events: [
      { type: "showdown", hands: [
        { seat: 1, shown: true, category: "three_of_a_kind", cards: ["7s", "7h", "7c", "Ks", "2c", "3d", "4h"], best_five: ["7s", "7h", "7c", "Ks", "4h"] },
        { seat: 2, shown: true, category: "four_of_a_kind", cards: ["As", "Ah", "Ac", "Ad", "2d", "3c", "5h"], best_five: ["As", "Ah", "Ac", "Ad", "5h"] }
      ] }
    ]
  };
  const said = (/** @type {any[]} */ frames) => frames.filter((f) => f.kind === "showdown").map((f) => f.caption).join(" ");
  assert.match(said(framesOf(record)), /ann shows three of a kind; bob shows four of a kind/);
  germanCatalog();
  assert.match(said(framesOf(record)), /ann zeigt Drilling; bob zeigt Vierling/);
});
