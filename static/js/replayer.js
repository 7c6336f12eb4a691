// @ts-check
// The hand replayer: a stud hand replayed street by street and action by action from its
// record (docs/stud-hand-record.md), with step, play and pause.
//
// framesOf(record) is pure (record -> the list of frames: what the table looked like after
// each step), tested under Node; the DOM code below only draws a frame. The record is the
// one its reader may see: a player's has other players' unshown down cards as null (drawn
// as backs), an auditor's has every card. Its words are the page's language (common.js's
// gettext: English under Node, without the catalog).

import { cardName, gettext, gettext_noop, inSentence, interpolate, money as moneyText, setSymbol, studCategoryLabel } from "./common.js";

export const STREETS = {
  seven_stud: {
    3: gettext_noop("Third street"), 4: gettext_noop("Fourth street"), 5: gettext_noop("Fifth street"),
    6: gettext_noop("Sixth street"), 7: gettext_noop("Seventh street"),
  },
  five_stud: { 2: gettext_noop("Second street"), 3: gettext_noop("Third street"), 4: gettext_noop("Fourth street"), 5: gettext_noop("Fifth street") },
  soko: { 2: gettext_noop("Second street"), 3: gettext_noop("Third street"), 4: gettext_noop("Fourth street"), 5: gettext_noop("Fifth street") },
};

const WORDS = {
  ante: gettext_noop("posts the ante"), bring_in: gettext_noop("brings in for"), complete: gettext_noop("completes to"),
  bet: gettext_noop("bets"), raise: gettext_noop("raises to"), call: gettext_noop("calls"), check: gettext_noop("checks"),
  fold: gettext_noop("folds"), all_in: gettext_noop("is all in for"), timeout_check: gettext_noop("checks (time ran out)"),
  timeout_fold: gettext_noop("folds (time ran out)"), timeout_all_in: gettext_noop("is all in for what is in (time ran out)"),
};
const TO_TOTAL = new Set(["complete", "raise"]);
const NO_AMOUNT = new Set(["check", "fold", "timeout_check", "timeout_fold", "timeout_all_in"]);
const FOLDS = new Set(["fold", "timeout_fold"]);

/** "-6.25" -> -625: amounts are decimal strings, read as whole cents (never floats). */
export function cents(text) {
  if (text === null || text === undefined || text === "") return 0;
  const s = String(text).trim();
  const negative = s.startsWith("-");
  const [whole, fraction = ""] = s.replace(/^[-+]/, "").split(".");
  const value = parseInt(whole || "0", 10) * 100 + parseInt((fraction + "00").slice(0, 2), 10);
  return negative ? -value : value;
}

/** 1250 -> "€12.50" (German page: "12,50 €"): common.js's formatter, in this currency. */
export function money(value, symbol = "€") {
  setSymbol(symbol);
  return moneyText(value);
}

export function streetTitle(game, street) {
  const title = (STREETS[game] || {})[street];
  return title ? gettext(title) : interpolate(gettext("Street %(number)s"), { number: street }, true);
}

function potName(index, count) {
  if (index === 0) return gettext("the main pot");
  return count > 2 ? interpolate(gettext("side pot %(number)s"), { number: index }, true) : gettext("the side pot");
}

/** The frames of a replay: frame 0 is the table before the antes; each later frame is the
 * table after one step (the antes, a street's cards, an action, a return, the showdown, an
 * award, the rake, the end), with its caption. Cards as they were seen: with ``viewerSeat``
 * (a player's replay) another seat's down cards stay face down until they are shown at the
 * showdown; without it (the auditor's) every card is face up as dealt. */
export function framesOf(record, { symbol = "€", viewerSeat = null } = {}) {
  const seats = (record.seats || []).map((s) => ({
    seat: s.seat, player: s.player, stack: cents(s.stack), bet: 0, inPot: 0, cards: [], folded: false, allIn: false,
    shown: null, mucked: false, won: 0,
  }));
  const bySeat = new Map(seats.map((s) => [s.seat, s]));
  const name = (seat) => (bySeat.get(seat) || { player: interpolate(gettext("Seat %(seat)s"), { seat }, true) }).player;
  const state = { seats, pot: 0, street: null, title: gettext("Before the deal"), community: null, toAct: null, actor: null, over: false };
  const frames = [];
  const pots = record.pots || [];
  let pending = null; // "antes" or "deal": steps shown as one frame

  const push = (kind, caption) => {
    frames.push({ ...JSON.parse(JSON.stringify(state)), index: frames.length, kind, caption });
    state.actor = null;
  };
  const flush = () => {
    if (pending === "antes") push("antes", interpolate(gettext("Everyone posts the ante: %(amount)s each"), { amount: money(cents(record.ante), symbol) }, true));
    else if (pending === "deal") push("deal", interpolate(gettext("%(street)s: the cards are dealt"), { street: state.title }, true));
    pending = null;
  };

  push("start", interpolate(gettext("Dealt in: %(players)s"), { players: seats.map((s) => s.player + " (" + money(s.stack, symbol) + ")").join(", ") }, true));
  for (const e of record.events || []) {
    if (e.type === "deal" || e.type === "burn") {
      if (pending === "antes") flush();
      if (e.type === "deal" && e.street !== state.street) {
        state.street = e.street;
        state.title = streetTitle(record.game, e.street);
        state.seats.forEach((s) => { s.bet = 0; });
      }
      if (e.type === "deal") {
        const hidden = viewerSeat !== null && !e.up && e.seat !== viewerSeat;
        bySeat.get(e.seat).cards.push({ code: hidden ? null : e.card, up: e.up });
      }
      pending = "deal";
      continue;
    }
    if (e.type === "action" && e.action === "ante") {
      const s = bySeat.get(e.seat);
      const amount = cents(e.amount);
      s.stack -= amount; s.inPot += amount; state.pot += amount;
      pending = "antes";
      continue;
    }
    flush();
    if (e.type === "turn") { state.toAct = e.seat; continue; }
    if (e.type === "street") { state.toAct = e.first_to_act; continue; }
    if (e.type === "action") {
      const s = bySeat.get(e.seat);
      const amount = cents(e.amount);
      s.stack -= amount; s.bet += amount; s.inPot += amount; state.pot += amount;
      if (FOLDS.has(e.action)) s.folded = true;
      if (e.action === "all_in" || e.action === "timeout_all_in" || (s.stack === 0 && amount > 0)) s.allIn = true;
      state.actor = e.seat;
      state.toAct = null;
      let words = s.player + " " + (WORDS[e.action] ? gettext(WORDS[e.action]) : e.action);
      if (!NO_AMOUNT.has(e.action)) words += " " + money(TO_TOTAL.has(e.action) ? cents(e.to) : amount, symbol);
      push("action", words);
      continue;
    }
    if (e.type === "return") {
      const s = bySeat.get(e.seat);
      const amount = cents(e.amount);
      s.stack += amount; s.bet -= amount; s.inPot -= amount; state.pot -= amount;
      push("return", interpolate(gettext("Uncalled %(amount)s returned to %(name)s"), { amount: money(amount, symbol), name: s.player }, true));
      continue;
    }
    if (e.type === "reshuffle") {
      push("reshuffle", interpolate(gettext("Too few cards are left: the %(count)s left and the burns are reshuffled"), { count: e.pool_size }, true));
      continue;
    }
    if (e.type === "community") {
      state.community = e.card;
      state.street = 7; // seven card stud's river, shared
      state.title = streetTitle(record.game, 7);
      state.seats.forEach((s) => { s.bet = 0; });
      push("community", interpolate(gettext("Community card %(card)s: every player's seventh card"), { card: e.card }, true));
      continue;
    }
    if (e.type === "showdown") {
      state.toAct = null;
      state.seats.forEach((s) => { s.bet = 0; });
      const said = [];
      for (const h of e.hands || []) {
        const s = bySeat.get(h.seat);
        if (Array.isArray(h.cards) && (h.shown || viewerSeat === null)) h.cards.forEach((code, i) => { if (s.cards[i]) s.cards[i].code = code; });
        if (h.shown) {
          s.shown = { category: h.category, bestFive: h.best_five || [], words: inSentence(studCategoryLabel(h.category)) };
          said.push(interpolate(gettext("%(name)s shows %(hand)s"), { name: s.player, hand: s.shown.words }, true));
        } else {
          s.mucked = true;
          said.push(interpolate(gettext("%(name)s mucks"), { name: s.player }, true));
        }
      }
      push("showdown", interpolate(gettext("Showdown: %(hands)s"), { hands: said.join("; ") }, true));
      continue;
    }
    if (e.type === "award") {
      const s = bySeat.get(e.seat);
      const amount = cents(e.amount);
      s.stack += amount; s.won += amount; state.pot -= amount;
      state.actor = e.seat;
      push("award", interpolate(gettext("%(name)s wins %(amount)s from %(pot)s"), { name: s.player, amount: money(amount, symbol), pot: potName(e.pot, pots.length) }, true));
      continue;
    }
    if (e.type === "rake") {
      state.pot -= cents(e.amount);
      push("rake", interpolate(gettext("Rake %(amount)s"), { amount: money(cents(e.amount), symbol) }, true));
      continue;
    }
    if (e.type === "end") {
      state.over = true;
      state.toAct = null;
      state.seats.forEach((s) => { s.bet = 0; });
      const net = record.net || {};
      const results = state.seats.map((s) => s.player + " " + (cents(net[String(s.seat)]) >= 0 ? "+" : "") + money(cents(net[String(s.seat)]), symbol));
      push("end", interpolate(gettext("The hand is over: %(results)s"), { results: results.join(", ") }, true));
    }
  }
  flush();
  return frames;
}

// --- the page ---------------------------------------------------------------------------

const SUITS = { c: ["♣", false], d: ["♦", true], h: ["♥", true], s: ["♠", false] };

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  children.flat().forEach((child) => { if (child) node.appendChild(typeof child === "string" ? document.createTextNode(child) : child); });
  return node;
}

function cardEl(card, winning) {
  if (!card.code) return el("span", { class: "card card-back", role: "listitem", "aria-label": gettext("face-down card") });
  const [symbol, red] = SUITS[card.code[1]];
  const rank = card.code[0] === "T" ? "10" : card.code[0];
  const named = card.up ? cardName(card.code) : interpolate(gettext("%(card)s, down"), { card: cardName(card.code) }, true);
  const label = winning ? interpolate(gettext("%(card)s (makes the hand)"), { card: named }, true) : named;
  const corner = (extra) => el("span", { class: "card-corner" + extra, "aria-hidden": "true" },
    el("span", { class: "card-rank", text: rank }), el("span", { class: "card-suit", text: symbol }));
  const node = el("span", {
    class: "card " + (red ? "card-red" : "card-black") + (card.up ? "" : " is-down is-own-down") + (winning ? " is-winning" : ""),
    role: "listitem", "aria-label": label, "data-card": card.code,
  }, corner(""), el("span", { class: "card-pip", "aria-hidden": "true", text: symbol }), corner(" card-corner-bottom"));
  if (!card.up) node.appendChild(el("span", { class: "card-down-mark", "aria-hidden": "true", text: gettext("down") }));
  return node;
}

function start() {
  const root = document.getElementById("replayer");
  const source = document.getElementById("replay-data");
  if (!root || !source) return;
  const data = JSON.parse(source.textContent);
  const symbol = data.symbol || "€";
  const frames = framesOf(data.record, { symbol, viewerSeat: data.auditor ? null : data.viewerSeat });
  const ui = {
    seats: document.getElementById("rp-seats"), pot: document.getElementById("rp-pot"), street: document.getElementById("rp-street"),
    caption: document.getElementById("rp-caption"), counter: document.getElementById("rp-counter"),
    community: document.getElementById("rp-community"), slider: document.getElementById("rp-slider"),
    play: document.getElementById("rp-play"), speed: document.getElementById("rp-speed"), log: document.getElementById("rp-log"),
  };
  let at = 0;
  let timer = null;
  ui.slider.max = String(frames.length - 1);

  // The steps as a list: each one a button that shows its frame.
  frames.forEach((frame, i) => {
    const item = el("li", { "data-step": i }, el("button", { type: "button", class: "rp-step", text: frame.caption }));
    item.querySelector("button").addEventListener("click", () => { pause(); show(i); });
    ui.log.appendChild(item);
  });

  function draw(frame) {
    ui.seats.replaceChildren(...frame.seats.map((s) => {
      const best = new Set((s.shown && s.shown.bestFive) || []);
      const classes = ["rseat"];
      if (s.seat === data.viewerSeat) classes.push("is-you");
      if (s.folded) classes.push("is-folded");
      if (frame.actor === s.seat) classes.push("is-acting");
      if (frame.toAct === s.seat) classes.push("is-to-act");
      if (s.won > 0) classes.push("is-winner");
      let status = "";
      if (s.shown) status = s.shown.words;
      else if (s.mucked) status = gettext("Mucked");
      else if (s.folded) status = gettext("Folded");
      else if (s.allIn) status = gettext("All in");
      if (s.won > 0) status += (status ? " · " : "") + interpolate(gettext("wins %(amount)s"), { amount: money(s.won, symbol) }, true);
      return el("li", { class: classes.join(" "), "data-seat": s.seat, "aria-label": interpolate(gettext("Seat %(seat)s, %(player)s"), { seat: s.seat, player: s.player }, true) },
        el("p", { class: "rseat-name" }, el("span", { class: "seat-no", text: interpolate(gettext("Seat %(seat)s"), { seat: s.seat }, true) + " " }), el("strong", { text: s.player }),
          s.seat === data.viewerSeat ? " " : null, s.seat === data.viewerSeat ? el("span", { class: "badge badge-gold", text: gettext("You") }) : null),
        el("p", { class: "rseat-stack", text: money(s.stack, symbol) + (s.bet > 0 ? " · " + interpolate(gettext("bet %(amount)s"), { amount: money(s.bet, symbol) }, true) : "") }),
        el("div", { class: "cards pseat-cards", role: "list", "aria-label": interpolate(gettext("%(player)s's cards"), { player: s.player }, true) }, s.cards.map((c) => cardEl(c, best.has(c.code)))),
        el("p", { class: "seat-status", text: status }));
    }));
    ui.pot.textContent = money(frame.pot, symbol);
    ui.street.textContent = frame.title;
    ui.caption.textContent = frame.caption;
    ui.counter.textContent = interpolate(gettext("Step %(step)s of %(steps)s"), { step: frame.index, steps: frames.length - 1 }, true);
    ui.community.replaceChildren(...(frame.community ? [cardEl({ code: frame.community, up: true })] : []));
    ui.slider.value = String(frame.index);
    ui.slider.setAttribute("aria-valuetext", frame.caption);
    ui.log.querySelectorAll("li").forEach((li) => {
      const current = Number(li.dataset.step) === frame.index;
      li.classList.toggle("is-current", current);
      if (current) li.querySelector("button").setAttribute("aria-current", "step");
      else li.querySelector("button").removeAttribute("aria-current");
    });
    document.getElementById("rp-back").disabled = document.getElementById("rp-start").disabled = frame.index === 0;
    document.getElementById("rp-forward").disabled = document.getElementById("rp-end").disabled = frame.index === frames.length - 1;
    root.dataset.step = String(frame.index);
    root.dataset.over = String(frame.index === frames.length - 1);
  }

  function show(i) {
    at = Math.max(0, Math.min(frames.length - 1, i));
    draw(frames[at]);
  }
  function pause() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    ui.play.textContent = gettext("Play");
    ui.play.setAttribute("aria-pressed", "false");
    root.dataset.playing = "false";
  }
  function play() {
    if (at >= frames.length - 1) show(0);
    ui.play.textContent = gettext("Pause");
    ui.play.setAttribute("aria-pressed", "true");
    root.dataset.playing = "true";
    timer = setInterval(() => {
      if (at >= frames.length - 1) { pause(); return; }
      show(at + 1);
      if (at >= frames.length - 1) pause();
    }, 1400 / Number(ui.speed.value || 1));
  }

  document.getElementById("rp-start").addEventListener("click", () => { pause(); show(0); });
  document.getElementById("rp-back").addEventListener("click", () => { pause(); show(at - 1); });
  document.getElementById("rp-forward").addEventListener("click", () => { pause(); show(at + 1); });
  document.getElementById("rp-end").addEventListener("click", () => { pause(); show(frames.length - 1); });
  ui.play.addEventListener("click", () => (timer === null ? play() : pause()));
  ui.speed.addEventListener("change", () => { if (timer !== null) { pause(); play(); } });
  ui.slider.addEventListener("input", () => { pause(); show(Number(ui.slider.value)); });
  root.addEventListener("keydown", (event) => {
    if (event.target.closest("select, input")) return;
    if (event.key === "ArrowRight") { pause(); show(at + 1); event.preventDefault(); }
    else if (event.key === "ArrowLeft") { pause(); show(at - 1); event.preventDefault(); }
  });
  root.hidden = false;
  show(0);
}

if (typeof document !== "undefined") start();
