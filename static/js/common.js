// @ts-check
/* Shared helpers of the pages: money, cards, DOM, CSRF. ES modules, no framework, no build
   step. The money and card words are pure (the unit tests load them in Node); the DOM
   helpers touch the document only when called. */

/* --- the page's language ------------------------------------------------------------- */
/* The words come from Django's catalog script (`javascript-catalog`, a classic script that runs
   before these modules): it defines `django.gettext` and the rest. Without it (Node's unit
   tests) the English msgid is the text. Each call looks the catalog up, so a module-level
   table may hold msgids and translate on use. */

/** @returns {any} */
function catalog() { return /** @type {any} */ (globalThis).django; }

/** The text in the page's language. @param {string} msgid @returns {string} */
export function gettext(msgid) {
  const django = catalog();
  return django && django.gettext ? django.gettext(msgid) : msgid;
}

/** The singular or plural text for ``count``. @param {string} singular @param {string} plural
 * @param {number} count @returns {string} */
export function ngettext(singular, plural, count) {
  const django = catalog();
  return django && django.ngettext ? django.ngettext(singular, plural, count) : (count === 1 ? singular : plural);
}

/** The text of ``msgid`` in ``context`` ("Back" of the replay's buttons, not of a card).
 * @param {string} context @param {string} msgid @returns {string} */
export function pgettext(context, msgid) {
  const django = catalog();
  return django && django.pgettext ? django.pgettext(context, msgid) : msgid;
}

/** "%(name)s" placeholders filled from ``values`` (named) or "%s" from a list, as Django's.
 * @param {string} format @param {Record<string, any>|any[]} values @param {boolean} [named] @returns {string} */
export function interpolate(format, values, named) {
  const django = catalog();
  if (django && django.interpolate) return django.interpolate(format, values, named);
  if (named) {
    const map = /** @type {Record<string, any>} */ (values);
    return format.replace(/%\(\w+\)s/g, (match) => String(map[match.slice(2, -2)]));
  }
  const list = /** @type {any[]} */ (values);
  let i = 0;
  return format.replace(/%s/g, () => String(list[i++]));
}

/** A msgid marked for the catalog, translated later by gettext(). @param {string} msgid */
export function gettext_noop(msgid) { return msgid; }

/** Named placeholders filled in the page's language: tr("Seat %(seat)s", {seat: 3}).
 * @param {string} msgid @param {Record<string, any>} values @returns {string} */
export function format(msgid, values) { return interpolate(msgid, values, true); }

/** Whether the page is German (``<html lang="de">``, Django's active language): its money is
 * written "1.234,50 €". */
export function decimalComma() {
  const doc = /** @type {any} */ (globalThis).document;
  const lang = doc && doc.documentElement ? String(doc.documentElement.lang || "") : "";
  return /^de\b/i.test(lang);
}

/** @typedef {{symbol: string, name: string, red: boolean}} Suit */

/** @type {Record<string, Suit>} */
const SUITS = {
  c: { symbol: "\u2663", name: gettext_noop("%(rank)s of clubs"), red: false },
  d: { symbol: "\u2666", name: gettext_noop("%(rank)s of diamonds"), red: true },
  h: { symbol: "\u2665", name: gettext_noop("%(rank)s of hearts"), red: true },
  s: { symbol: "\u2660", name: gettext_noop("%(rank)s of spades"), red: false }
};
/** @type {Record<string, string>} */
const RANKS = { T: "10" };
/** @type {Record<string, string>} */
const RANK_NAMES = {
  "2": gettext_noop("Two"), "3": gettext_noop("Three"), "4": gettext_noop("Four"), "5": gettext_noop("Five"),
  "6": gettext_noop("Six"), "7": gettext_noop("Seven"), "8": gettext_noop("Eight"), "9": gettext_noop("Nine"),
  T: gettext_noop("Ten"), J: gettext_noop("Jack"), Q: gettext_noop("Queen"), K: gettext_noop("King"), A: gettext_noop("Ace")
};
/** @type {Record<string, string>} */
const CATEGORY_LABELS = {
  royal_flush: gettext_noop("Royal flush"), straight_flush: gettext_noop("Straight flush"),
  four_of_a_kind: gettext_noop("Four of a kind"), full_house: gettext_noop("Full house"), flush: gettext_noop("Flush"),
  straight: gettext_noop("Straight"), three_of_a_kind: gettext_noop("Three of a kind"), two_pair: gettext_noop("Two pair"),
  one_pair: gettext_noop("One pair"), high_card: gettext_noop("High card")
};

let symbol = "\u20ac";

/** The currency symbol of this page's money (the page's config says which). @param {string} s */
export function setSymbol(s) { symbol = s; }

/** "12.50" -> 1250, exactly (string arithmetic, never floats).
 * @param {string|number|null|undefined} amount @returns {number} */
export function cents(amount) {
  if (amount === null || amount === undefined || amount === "") return 0;
  let text = String(amount).trim();
  const negative = text.charAt(0) === "-";
  text = text.replace(/^[+-]/, "");
  const parts = text.split(".");
  const frac = ((parts[1] || "") + "00").slice(0, 2);
  const value = parseInt(parts[0] || "0", 10) * 100 + parseInt(frac, 10);
  return negative ? -value : value;
}

/** 125000 -> "€1,250.00" (German page: "1.250,00 €"); signed: "+€2.00" / "−€2.00". The same
 * as casino.money.money on the server. Amounts sent to the server: decimal().
 * @param {number} centsValue @param {boolean} [signed] @returns {string} */
export function money(centsValue, signed) {
  const n = Math.abs(centsValue);
  const comma = decimalComma();
  const units = String(Math.floor(n / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, comma ? "." : ",");
  const fraction = String(n % 100).padStart(2, "0");
  const text = comma ? units + "," + fraction + "\u00a0" + symbol.trim() : symbol + units + "." + fraction;
  if (centsValue < 0) return "\u2212" + text;
  return signed && centsValue > 0 ? "+" + text : text;
}

/** "1250.5" -> "€1,250.50" (German: "1.250,50 €"). @param {string|number|null|undefined} amount @param {boolean} [signed] */
export function moneyText(amount, signed) {
  return money(cents(amount), signed);
}

/** Cents as the API's decimal string: 1250 -> "12.50". @param {number} centsValue */
export function decimal(centsValue) {
  const n = Math.abs(centsValue);
  return (centsValue < 0 ? "-" : "") + Math.floor(n / 100) + "." + String(n % 100).padStart(2, "0");
}

/** @param {string|null|undefined} key */
export function categoryLabel(key) {
  return key ? (CATEGORY_LABELS[key] ? gettext(CATEGORY_LABELS[key]) : key) : "";
}

/** A stud hand's category in stud players' words: the German stud table says "Drilling" and
 * "Vierling" where the Caribbean table says "Drei Gleiche" and "Vier Gleiche" (docs/glossary.md),
 * and SOKO's extra ranks are "Four Card Flush" and "Four Card Straight"; every other category
 * is worded as categoryLabel's. @param {string|null|undefined} key */
export function studCategoryLabel(key) {
  switch (key) {
    case "three_of_a_kind": return pgettext("stud hand", "Three of a kind");
    case "four_of_a_kind": return pgettext("stud hand", "Four of a kind");
    case "four_flush": return pgettext("stud hand", "Four flush");
    case "four_straight": return pgettext("stud hand", "Four straight");
    default: return categoryLabel(key);
  }
}

/** A hand's label inside a sentence: lower case in English ("shows a full house"); a German
 * page keeps its nouns' capitals ("zeigt Drilling"), as the server's in_sentence.
 * @param {string} label */
export function inSentence(label) { return decimalComma() ? label : label.toLowerCase(); }

/** "Ah" -> "Ace of hearts"; null -> "face-down card". @param {string|null|undefined} code */
export function cardName(code) {
  if (!code) return gettext("face-down card");
  return format(gettext(SUITS[code.charAt(1)].name), { rank: gettext(RANK_NAMES[code.charAt(0)]) });
}

/** A text's first letter in capitals. @param {string} text */
export function capital(text) { return text ? text.charAt(0).toUpperCase() + text.slice(1) : text; }

/* --- the DOM ---------------------------------------------------------------------- */

/** @typedef {HTMLElement|string|null|undefined|false} Child */

/** h("div", {class: "x", text: "hi"}, child, …): elements built without innerHTML.
 * @param {string} tag @param {Record<string, any>|null} [attrs] @param {...(Child|Child[])} children
 * @returns {HTMLElement} */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") el.textContent = value;
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.slice(0, 2) === "on") el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) child.forEach((c) => { if (c) el.append(c); });
    else el.append(child);
  }
  return el;
}

/** A card as drawn on the felt: "Ah" face up, null face down.
 * @param {string|null} code @param {string} [extraClass] */
export function card(code, extraClass) {
  const extra = extraClass ? " " + extraClass : "";
  if (!code) return h("span", { class: "card card-back" + extra, role: "img", "aria-label": gettext("face-down card") });
  const suit = SUITS[code.charAt(1)];
  const rank = RANKS[code.charAt(0)] || code.charAt(0);
  const corner = (/** @type {string} */ cls) => h("span", { class: cls, "aria-hidden": "true" },
    h("span", { class: "card-rank", text: rank }), h("span", { class: "card-suit", text: suit.symbol }));
  return h("span", { class: "card " + (suit.red ? "card-red" : "card-black") + extra, role: "img", "aria-label": cardName(code), dataset: { card: code } },
    corner("card-corner"),
    h("span", { class: "card-pip", "aria-hidden": "true", text: suit.symbol }),
    corner("card-corner card-corner-bottom"));
}

/** @param {string} kind @param {string} label @param {string} amountText */
export function chip(kind, label, amountText) {
  return h("span", { class: "chip chip-" + kind, role: "img", "aria-label": label + " " + amountText, title: label + " " + amountText },
    h("span", { class: "chip-value", "aria-hidden": "true", text: amountText.replace(symbol.trim(), "").trim() }));
}

/** @param {string} name */
export function cookie(name) {
  const match = document.cookie.match(new RegExp("(?:^|; )" + name + "=([^;]*)"));
  return match ? decodeURIComponent(match[1]) : "";
}

function randomKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** An error the server answered with: its message, its stable code, the HTTP status. */
export class RequestError extends Error {
  /** @param {string} message @param {string} code @param {number} status */
  constructor(message, code, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

/** @param {Response} response */
async function parseResponse(response) {
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
  if (!response.ok) {
    throw new RequestError((data && data.message) || format(gettext("The server refused this (%(status)s)."), { status: response.status }),
      (data && data.code) || "http_" + response.status, response.status);
  }
  return data;
}

/** JSON POST with session auth, CSRF header and a fresh Idempotency-Key.
 * @param {string} url @param {object} [body] */
export function post(url, body) {
  return fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json",
      "X-CSRFToken": cookie("csrftoken"),
      "Idempotency-Key": randomKey()
    },
    body: JSON.stringify(body || {})
  }).then(parseResponse);
}

/** @param {string} url */
export function getJSON(url) {
  return fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } }).then(parseResponse);
}

/** The JSON a template put in a <script type="application/json" id=…> (json_script). @param {string} id */
export function readJSON(id) {
  const el = document.getElementById(id);
  return el ? JSON.parse(el.textContent || "null") : null;
}

/** A jackpot meter on the page shows this amount (with a tick when it changed).
 * @param {number|string} poolId @param {string} amount */
export function setMeter(poolId, amount) {
  document.querySelectorAll('[data-pool-meter="' + poolId + '"] [data-meter-value]').forEach((el) => {
    const text = moneyText(amount);
    if (el.textContent === text) return;
    el.textContent = text;
    const box = /** @type {HTMLElement} */ (el.closest("[data-pool-meter]"));
    box.classList.remove("meter-tick");
    void box.offsetWidth; /* restart the animation */
    box.classList.add("meter-tick");
  });
}
