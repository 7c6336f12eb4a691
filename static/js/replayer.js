// @ts-check
// The hand replayer: a stud hand replayed street by street and action by action from its
// record (docs/stud-hand-record.md), with step, play and pause.
//
// framesOf(record) is pure (record -> the list of frames: what the table looked like after
// each step), tested under Node; the DOM code below only draws a frame. The record is the
// one its reader may see: a player's has other players' unshown down cards as null (drawn
// as backs), an auditor's has every card.

export const STREETS = {
  seven_stud: { 3: "Third street", 4: "Fourth street", 5: "Fifth street", 6: "Sixth street", 7: "Seventh street" },
  five_stud: { 2: "Second street", 3: "Third street", 4: "Fourth street", 5: "Fifth street" },
  soko: { 2: "Second street", 3: "Third street", 4: "Fourth street", 5: "Fifth street" },
};

const WORDS = {
  ante: "posts the ante", bring_in: "brings in for", complete: "completes to", bet: "bets", raise: "raises to",
  call: "calls", check: "checks", fold: "folds", all_in: "is all in for", timeout_check: "checks (time ran out)",
  timeout_fold: "folds (time ran out)", timeout_all_in: "is all in for what is in (time ran out)",
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

/** 1250 -> "€12.50" */
export function money(value, symbol = "€") {
  const negative = value < 0;
  const abs = Math.abs(value);
  return (negative ? "−" : "") + symbol + Math.floor(abs / 100) + "." + String(abs % 100).padStart(2, "0");
}

export function streetTitle(game, street) {
  return (STREETS[game] || {})[street] || "Street " + street;
}

function potName(index, count) {
  if (index === 0) return "the main pot";
  return count > 2 ? "side pot " + index : "the side pot";
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
  const name = (seat) => (bySeat.get(seat) || { player: "Seat " + seat }).player;
  const state = { seats, pot: 0, street: null, title: "Before the deal", community: null, toAct: null, actor: null, over: false };
  const frames = [];
  const pots = record.pots || [];
  let pending = null; // "antes" or "deal": steps shown as one frame

  const push = (kind, caption) => {
    frames.push({ ...JSON.parse(JSON.stringify(state)), index: frames.length, kind, caption });
    state.actor = null;
  };
  const flush = () => {
    if (pending === "antes") push("antes", "Everyone posts the ante: " + money(cents(record.ante), symbol) + " each");
    else if (pending === "deal") push("deal", state.title + ": the cards are dealt");
    pending = null;
  };

  push("start", "Dealt in: " + seats.map((s) => s.player + " (" + money(s.stack, symbol) + ")").join(", "));
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
      let words = s.player + " " + (WORDS[e.action] || e.action);
      if (!NO_AMOUNT.has(e.action)) words += " " + money(TO_TOTAL.has(e.action) ? cents(e.to) : amount, symbol);
      push("action", words);
      continue;
    }
    if (e.type === "return") {
      const s = bySeat.get(e.seat);
      const amount = cents(e.amount);
      s.stack += amount; s.bet -= amount; s.inPot -= amount; state.pot -= amount;
      push("return", "Uncalled " + money(amount, symbol) + " returned to " + s.player);
      continue;
    }
    if (e.type === "reshuffle") {
      push("reshuffle", "Too few cards are left: the " + e.pool_size + " left and the burns are reshuffled");
      continue;
    }
    if (e.type === "community") {
      state.community = e.card;
      state.street = 7; // seven card stud's river, shared
      state.title = streetTitle(record.game, 7);
      state.seats.forEach((s) => { s.bet = 0; });
      push("community", "Community card " + e.card + ": every player's seventh card");
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
          s.shown = { category: h.category, bestFive: h.best_five || [], words: (h.category || "").replace(/_/g, " ") };
          said.push(s.player + " shows " + s.shown.words);
        } else {
          s.mucked = true;
          said.push(s.player + " mucks");
        }
      }
      push("showdown", "Showdown: " + said.join("; "));
      continue;
    }
    if (e.type === "award") {
      const s = bySeat.get(e.seat);
      const amount = cents(e.amount);
      s.stack += amount; s.won += amount; state.pot -= amount;
      state.actor = e.seat;
      push("award", s.player + " wins " + money(amount, symbol) + " from " + potName(e.pot, pots.length));
      continue;
    }
    if (e.type === "rake") {
      state.pot -= cents(e.amount);
      push("rake", "Rake " + money(cents(e.amount), symbol));
      continue;
    }
    if (e.type === "end") {
      state.over = true;
      state.toAct = null;
      state.seats.forEach((s) => { s.bet = 0; });
      const net = record.net || {};
      const results = state.seats.map((s) => s.player + " " + (cents(net[String(s.seat)]) >= 0 ? "+" : "") + money(cents(net[String(s.seat)]), symbol));
      push("end", "The hand is over: " + results.join(", "));
    }
  }
  flush();
  return frames;
}

// --- the page ---------------------------------------------------------------------------

const SUITS = { c: ["♣", false, "clubs"], d: ["♦", true, "diamonds"], h: ["♥", true, "hearts"], s: ["♠", false, "spades"] };
const RANKS = { T: "Ten", J: "Jack", Q: "Queen", K: "King", A: "Ace" };

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
  if (!card.code) return el("span", { class: "card card-back", role: "listitem", "aria-label": "face-down card" });
  const [symbol, red, suitName] = SUITS[card.code[1]];
  const rank = card.code[0] === "T" ? "10" : card.code[0];
  const label = (RANKS[card.code[0]] || card.code[0]) + " of " + suitName + (card.up ? "" : ", down") + (winning ? " (makes the hand)" : "");
  const corner = (extra) => el("span", { class: "card-corner" + extra, "aria-hidden": "true" },
    el("span", { class: "card-rank", text: rank }), el("span", { class: "card-suit", text: symbol }));
  const node = el("span", {
    class: "card " + (red ? "card-red" : "card-black") + (card.up ? "" : " is-down is-own-down") + (winning ? " is-winning" : ""),
    role: "listitem", "aria-label": label, "data-card": card.code,
  }, corner(""), el("span", { class: "card-pip", "aria-hidden": "true", text: symbol }), corner(" card-corner-bottom"));
  if (!card.up) node.appendChild(el("span", { class: "card-down-mark", "aria-hidden": "true", text: "down" }));
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
      else if (s.mucked) status = "Mucked";
      else if (s.folded) status = "Folded";
      else if (s.allIn) status = "All in";
      if (s.won > 0) status += (status ? " · " : "") + "wins " + money(s.won, symbol);
      return el("li", { class: classes.join(" "), "data-seat": s.seat, "aria-label": "Seat " + s.seat + ", " + s.player },
        el("p", { class: "rseat-name" }, el("span", { class: "seat-no", text: "Seat " + s.seat + " " }), el("strong", { text: s.player }),
          s.seat === data.viewerSeat ? " " : null, s.seat === data.viewerSeat ? el("span", { class: "badge badge-gold", text: "You" }) : null),
        el("p", { class: "rseat-stack", text: money(s.stack, symbol) + (s.bet > 0 ? " · bet " + money(s.bet, symbol) : "") }),
        el("div", { class: "cards pseat-cards", role: "list", "aria-label": s.player + "'s cards" }, s.cards.map((c) => cardEl(c, best.has(c.code)))),
        el("p", { class: "seat-status", text: status }));
    }));
    ui.pot.textContent = money(frame.pot, symbol);
    ui.street.textContent = frame.title;
    ui.caption.textContent = frame.caption;
    ui.counter.textContent = "Step " + frame.index + " of " + (frames.length - 1);
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
    ui.play.textContent = "Play";
    ui.play.setAttribute("aria-pressed", "false");
    root.dataset.playing = "false";
  }
  function play() {
    if (at >= frames.length - 1) show(0);
    ui.play.textContent = "Pause";
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
