// @ts-check
/* The poker table's keyboard and turn notice, as pure functions (static/js/poker.js wires
 * them to the page; tests/js/poker_keys.test.mjs checks them).
 *
 * Keys, one letter per kind of action (shown on its button):
 *   F fold · C check or call · B bring in · R bet, raise or complete (the sized amount in
 *   spread limit) · A all in.
 * The amount of a spread-limit bet: 1 the minimum, 2 your last amount, 3 the maximum,
 * + and - one chip's step up or down. A key acts only on the player's own turn, never while
 * they type in a field, and never with Ctrl, Alt or Meta held (the browser's own keys).
 */
import { cents, decimal, gettext, interpolate, pgettext } from "./common.js";

/** The quick amounts' names by key (the buttons' `data-quick`, whatever the page's language). */
export const QUICK_NAME = /** @type {Record<string, string>} */ ({ 1: "min", 2: "last", 3: "max" });

/** Each action's key, as shown on its button. @type {Record<string, string>} */
export const KEY_OF = { fold: "F", check: "C", call: "C", bring_in: "B", complete: "R", bet: "R", raise: "R", all_in: "A" };

/** The kinds a key may play, in the order one is looked for. @type {Record<string, string[]>} */
const KINDS_OF = { f: ["fold"], c: ["check", "call"], b: ["bring_in"], r: ["raise", "bet", "complete"], a: ["all_in"] };

/**
 * @typedef {import("./poker_state.js").Choice} Choice
 * @typedef {{type: "act", kind: string, amount: string|null, sized: boolean}
 *   | {type: "amount", amount: string}} KeyAction
 *   `act` plays `kind` (`sized`: with the amount field's value, checked by the page like a
 *   click of the sized button); `amount` fills the amount field and the slider.
 * @typedef {{turn: boolean, typing?: boolean, modifier?: boolean, amount?: string|null, last?: string|null}} KeyContext
 *   `turn`: the player may act now; `typing`: the key went to a text field; `amount`: the
 *   amount field's value; `last`: the player's last sized amount at this table.
 */

/** A button's words with its key: "Fold (F)". @param {Choice} c */
export function keyLabel(c) {
  const key = KEY_OF[c.kind];
  return key ? c.label + " (" + key + ")" : c.label;
}

/** The buttons' words for `list`: each with its key where that key plays it (of two
 * raises of a fixed amount, R plays the first: the second shows no key).
 * @param {Choice[]} list @returns {string[]} */
export function keyLabels(list) {
  return list.map((c) => {
    const key = KEY_OF[c.kind];
    const hit = key ? keyAction(key, list, { turn: true }) : null;
    const plays = !!hit && hit.type === "act" && hit.kind === c.kind && (c.ranged ? hit.sized : hit.amount === c.amount);
    return plays ? keyLabel(c) : c.label;
  });
}

/** The quick amounts beside a spread-limit field: the minimum, the player's last amount
 * (brought within the range and onto the chip's step; left out when it is the minimum or
 * the maximum, or when there is none) and the maximum.
 * @param {Choice|null} ranged @param {string|null} [last]
 * @returns {{key: string, label: string, amount: string}[]} */
export function quickAmounts(ranged, last) {
  if (!ranged || !ranged.min || !ranged.max) return [];
  const lo = cents(ranged.min), hi = cents(ranged.max), step = Math.max(1, cents(ranged.step || "0.01"));
  const out = [{ key: "1", label: pgettext("quick amount", "Min"), amount: decimal(lo) }];
  if (last && /^\d+(\.\d{1,2})?$/.test(last)) {
    const clamped = Math.min(hi, Math.max(lo, cents(last)));
    const onStep = lo + Math.round((clamped - lo) / step) * step;
    const v = onStep > hi ? onStep - step : onStep;
    if (v !== lo && v !== hi) out.push({ key: "2", label: pgettext("quick amount", "Last"), amount: decimal(v) });
  }
  out.push({ key: "3", label: pgettext("quick amount", "Max"), amount: decimal(hi) });
  return out;
}

/** What a key press does at the table now, or null (the key is left to the browser).
 * @param {string} key the KeyboardEvent's `key` @param {Choice[]} list `choices(you(state).legal)`
 * @param {KeyContext} context @returns {KeyAction|null} */
export function keyAction(key, list, context) {
  if (!context.turn || context.typing || context.modifier || !list.length || typeof key !== "string") return null;
  const k = key.toLowerCase();
  const kinds = KINDS_OF[k];
  if (kinds) {
    for (const kind of kinds) {
      const c = list.find((x) => x.kind === kind);
      if (c) return { type: "act", kind: c.kind, amount: c.ranged ? null : c.amount, sized: c.ranged };
    }
    return null;
  }
  const ranged = list.find((x) => x.ranged) || null;
  if (!ranged) return null;
  const quick = quickAmounts(ranged, context.last).find((q) => q.key === k);
  if (quick) return { type: "amount", amount: quick.amount };
  if (k === "+" || k === "=" || k === "-") {
    const lo = cents(/** @type {string} */ (ranged.min)), hi = cents(/** @type {string} */ (ranged.max));
    const step = Math.max(1, cents(ranged.step || "0.01"));
    const now = context.amount && /^\d+(\.\d{1,2})?$/.test(context.amount.trim()) ? cents(context.amount.trim()) : lo;
    const at = Math.min(hi, Math.max(lo, now)) - lo;
    const next = k === "-" ? lo + (Math.ceil(at / step) - 1) * step : lo + (Math.floor(at / step) + 1) * step;
    return { type: "amount", amount: decimal(Math.min(hi, Math.max(lo, next))) };
  }
  return null;
}

/** What to tell a player whose action key plays nothing now (C when only B and R are
 * legal), or null: "C plays nothing now: B Bring in €0.50, R Complete to". Only on the
 * player's own turn, for the action keys, and never while they type or hold a modifier.
 * @param {string} key @param {Choice[]} list @param {KeyContext} context @returns {string|null} */
export function keyRefusal(key, list, context) {
  if (!context.turn || context.typing || context.modifier || !list.length || typeof key !== "string") return null;
  if (!KINDS_OF[key.toLowerCase()] || keyAction(key, list, context)) return null;
  const keys = [];
  for (const k of ["f", "c", "b", "r", "a"]) {
    const hit = keyAction(k, list, context);
    const c = hit && hit.type === "act" ? list.find((x) => x.kind === hit.kind) : null;
    if (c) keys.push(k.toUpperCase() + " " + c.label);
  }
  return interpolate(gettext("%(key)s plays nothing now: %(keys)s."), { key: key.toUpperCase(), keys: keys.join(", ") }, true);
}

/** The tab's title: "▶ Your turn – <table>" (in the page's language) while it is the
 * player's turn and the tab is hidden, the page's own title otherwise. @param {string} base
 * @param {string} table @param {boolean} turn @param {boolean} hidden */
export function tabTitle(base, table, turn, hidden) {
  return turn && hidden ? interpolate(gettext("▶ Your turn – %(table)s"), { table }, true) : base;
}

/** The sound switch's words. @param {boolean} on */
export function soundLabel(on) {
  return on ? gettext("Turn sound: on") : gettext("Turn sound: off");
}

/** Where the sound's switch is remembered: one per player. @param {string} username */
export function soundKey(username) {
  return "casino.poker.sound." + username;
}

/** The turn's sound: two short rising tones on ``ctx`` (Web Audio, no file), as a table
 * page and the tiled tables' page play it. @param {AudioContext} ctx */
export function playTurnTones(ctx) {
  if (ctx.state === "suspended") ctx.resume();
  const t = ctx.currentTime;
  [[660, 0], [880, 0.12]].forEach(([freq, at]) => {
    const osc = ctx.createOscillator(), gain = ctx.createGain();
    osc.type = "sine";
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, t + at);
    gain.gain.exponentialRampToValueAtTime(0.2, t + at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + at + 0.1);
    osc.connect(gain).connect(ctx.destination);
    osc.start(t + at);
    osc.stop(t + at + 0.11);
  });
}
