// @ts-check
/* The live Caribbean table's page: draws the state (static/js/table_state.js) and sends
 * the player's actions.
 *
 * Everything the server says goes through the page's pure reducer; drawing reads the
 * state through table_state.js's selectors and touches only the DOM. This file owns what
 * is not the table's state: the socket (reconnects, pings, actions answered by ack or
 * error), the REST API while the socket is down (polled, and the actions' route), the
 * clocks' ticking, the controls, repeat and auto-rebet, the focus. Actions go over the
 * socket when it is open and over the REST API otherwise; while the socket is down the
 * page polls the REST API and reconnects with exponential backoff.
 */
import * as C from "./common.js";
import { activeDeadline, feltHand, handName, initialState, liveHand, myTableSeat, mySeatIn, phase, reduce, resultShown,
  seatDeadline, secondsLeft } from "./table_state.js";

const h = C.h;
const capital = C.capital;
const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));

/** The page's machinery around the state: the socket, the pending actions, what is drawn. */
const runtime = {
  ws: /** @type {WebSocket|null} */ (null), wsOpen: false, retries: 0, stopped: false,
  /** @type {Record<string, {resolve: (m: any) => void, reject: (m: any) => void, timer: ReturnType<typeof setTimeout>}>} */
  pending: {},
  busy: false, pollTimer: /** @type {ReturnType<typeof setInterval>|null} */ (null),
  /** @type {Record<string, number>} */
  deadlineStart: {},
  /** @type {Record<number, boolean>} */
  animated: {},
  /** @type {Record<number, string>} */
  seatKeys: {},
  dealerKey: "", resultKey: /** @type {string|null} */ (null), recentKey: "",
  /** @type {Record<number, boolean>} */
  autoBetOn: {},
  controlFocus: false, snapshotAskedAt: 0, staleAskedAt: 0,
  /** @type {string[]} */
  snapshotReasons: [], /* why the page stopped trusting its copy (read by the browser tests) */
  seq: 0
};

/** @param {string} name */
function withArticle(name) {
  return (/^(pair|straight|flush|full house|royal)/.test(name) ? "a " : "") + name;
}
/** @param {any} part @param {string|null} code @param {boolean} shown */
function isWinning(part, code, shown) {
  return !!(shown && code && part && part.winning_cards && part.winning_cards.indexOf(code) >= 0);
}

/** @param {any} config @param {any} initial */
function start(config, initial) {
  C.setSymbol(config.currencySymbol);
  const els = {
    conn: $("conn-status"), connText: /** @type {any} */ (document.querySelector("#conn-status .conn-text")),
    seats: $("seats"), dealerCards: $("dealer-cards"), dealerHand: $("dealer-hand"), feltPrint: $("felt-print"),
    phase: $("phase"), errors: $("errors"), timer: $("timer"), timerLabel: $("timer-label"), timerValue: $("timer-value"),
    timerBar: $("timer-bar"), btnSit: $("btn-sit"), btnLeave: $("btn-leave"), clientSeed: $("client-seed"),
    betForm: $("bet-form"), ante: $("ante"), jackpot: $("jackpot"), btnBet: $("btn-bet"),
    btnFold: $("btn-fold"), btnRaise: $("btn-raise"), walletAvailable: $("wallet-available"), walletInPlay: $("wallet-in-play"),
    handNo: $("fair-hand"), commitment: $("fair-commitment"), clientSeedShown: $("fair-client-seed"),
    result: $("result-panel"), resultTitle: $("result-title"), resultBody: $("result-body"), resultLink: $("result-link"),
    seatSeed: $("fair-seat-seed"), controls: $("controls"), chips: $("chip-rack"), btnRepeat: $("btn-repeat"),
    autoRebet: $("auto-rebet"), recent: $("recent-results"), headerBalance: $("header-balance")
  };
  const AUTO_KEY = "casino.autoRebet." + config.username;
  let state = initialState(initial, config.username, config.recentCount);

  /** Every change of the table's state goes through here: the reducer, then its effects.
   * @param {import("./table_state.js").TableEvent} event */
  function apply(event) {
    state = reduce(state, event);
    state.effects.forEach((effect) => {
      if (effect.type === "snapshot") requestSnapshot(effect.reason);
      else if (effect.type === "fetch_result") fetchResult(effect.hand);
    });
  }

  /** A message from the server (the socket's or a REST answer), now, drawn. @param {any} message */
  function receive(message) {
    apply({ type: "message", message, at: Date.now() });
    render();
  }

  /** The page's time on the server's clock is `Date.now() + state.offset` (the selectors add it). */
  const now = () => Date.now();

  /* --- drawing -------------------------------------------------------------------- */

  function render() {
    renderSeats();
    renderDealer();
    renderControls();
    renderWallet();
    renderFairness();
    renderResult();
    renderRecent();
    C.setMeter(config.pool, state.table.jackpot_meter);
    tick();
    keepFocus();
  }

  /** @param {any} handSeat @param {any} hand */
  function seatStatus(handSeat, hand) {
    if (!handSeat) return "";
    const timeout = handSeat.decided_by_timeout ? " " + C.gettext("(time ran out)") : "";
    if (hand.state === "settled" || hand.state === "cancelled") {
      const net = handSeat.net !== null && handSeat.net !== undefined ? " " + C.moneyText(handSeat.net, true) : "";
      const outcome = handSeat.outcome_label ? handSeat.outcome_label + (handSeat.outcome === "fold" ? timeout : "") : null;
      return [capital(handName(handSeat)), outcome].filter(Boolean).join(" · ") + net;
    }
    if (hand.state === "decisions") {
      if (handSeat.decision === "raise") return handSeat.decision_label + " " + C.moneyText(handSeat.raise) + timeout;
      if (handSeat.decision) return handSeat.decision_label + timeout;
      return (handSeat.is_you && handName(handSeat) ? capital(handName(handSeat)) + " · " : "") + C.gettext("Deciding…");
    }
    return C.gettext("Ante in");
  }

  function renderSeats() {
    const hand = feltHand(state);
    const dealtCount = hand ? hand.seats.length : 0;
    const standing = phase(state, config.isPlayer) === "standing";
    state.table.seats.forEach((/** @type {any} */ tableSeat) => {
      const n = tableSeat.seat;
      const li = els.seats.querySelector('[data-seat="' + n + '"]');
      let handSeat = hand ? hand.seats.find((/** @type {any} */ s) => s.seat === n) || null : null;
      if (handSeat && tableSeat.player && handSeat.player !== tableSeat.player) handSeat = null;
      if (handSeat && !tableSeat.player && hand !== liveHand(state)) handSeat = null;
      const animate = !!hand && hand.state === "decisions" && !runtime.animated[hand.id];
      const key = JSON.stringify([tableSeat, handSeat, hand && hand.state, hand && hand.id, standing]);
      if (runtime.seatKeys[n] === key && !animate) return;
      runtime.seatKeys[n] = key;

      const classes = ["seat", "seat-" + n];
      if (tableSeat.is_you) classes.push("is-you");
      if (!tableSeat.player) classes.push("is-empty");
      if (handSeat && handSeat.decision === "fold") classes.push("is-folded");
      if (handSeat && handSeat.outcome) classes.push("outcome-" + handSeat.outcome);
      if (handSeat && handSeat.net) classes.push(C.cents(handSeat.net) > 0 ? "net-up" : C.cents(handSeat.net) < 0 ? "net-down" : "");
      li.className = classes.filter(Boolean).join(" ");
      li.setAttribute("aria-label", C.interpolate(tableSeat.player ? (tableSeat.is_you ? C.gettext("Seat %(seat)s, %(player)s (you)") : C.gettext("Seat %(seat)s, %(player)s")) : C.gettext("Seat %(seat)s, empty"), { seat: n, player: tableSeat.player }, true));

      const plate = h("div", { class: "seat-plate" },
        h("span", { class: "seat-no", text: C.interpolate(C.gettext("Seat %(seat)s"), { seat: n }, true) }),
        h("span", { class: "seat-name", text: tableSeat.player || C.gettext("Empty seat") }),
        tableSeat.is_you ? h("span", { class: "badge badge-gold", text: C.gettext("You") }) : null);

      const spots = h("div", { class: "spots" },
        h("div", { class: "spot spot-ante" }, h("span", { class: "spot-label", "aria-hidden": "true", text: C.gettext("Ante") }),
          handSeat ? C.chip("ante", C.gettext("Ante"), C.moneyText(handSeat.ante)) : null),
        h("div", { class: "spot spot-jackpot" }, h("span", { class: "spot-label", "aria-hidden": "true", text: "JP" }),
          handSeat && C.cents(handSeat.jackpot_bet) > 0 ? C.chip("jackpot", C.gettext("Jackpot chip"), C.moneyText(handSeat.jackpot_bet)) : null),
        h("div", { class: "spot spot-raise" }, h("span", { class: "spot-label", "aria-hidden": "true", text: C.gettext("Raise") }),
          handSeat && C.cents(handSeat.raise) > 0 ? C.chip("raise", C.gettext("Raise"), C.moneyText(handSeat.raise)) : null));

      const cards = h("div", { class: "cards hand-cards", role: "list", "aria-label": C.interpolate(C.gettext("%(player)s's cards"), { player: tableSeat.player || C.interpolate(C.gettext("Seat %(seat)s"), { seat: n }, true) }, true) });
      if (hand && handSeat && handSeat.cards && handSeat.cards.length) {
        const order = hand.seats.map((/** @type {any} */ s) => s.seat).sort((/** @type {number} */ a, /** @type {number} */ b) => a - b).indexOf(n);
        handSeat.cards.forEach((/** @type {string|null} */ code, /** @type {number} */ round) => {
          const shown = hand.state === "settled" || (hand.state === "decisions" && handSeat.is_you);
          const c = C.card(code, (animate ? "deal-in" : "") + (isWinning(handSeat, code, shown) ? " is-winning" : ""));
          if (animate) c.style.animationDelay = (round * (dealtCount + 1) + order) * 70 + "ms";
          c.setAttribute("role", "listitem");
          c.setAttribute("aria-label", C.cardName(code));
          cards.appendChild(c);
        });
      }
      const status = h("p", { class: "seat-status", text: seatStatus(handSeat, hand || {}) });
      const clock = h("p", { class: "seat-timer", hidden: true, dataset: { seatTimer: String(n) } },
        h("span", { class: "seat-timer-label" }), " ", h("strong", { class: "seat-timer-value" }));
      let sitHere = null;
      if (!tableSeat.player && config.isPlayer && standing) {
        sitHere = h("button", { type: "button", class: "btn btn-small", dataset: { sitSeat: String(n) }, text: C.gettext("Sit here"),
          "aria-label": C.interpolate(C.gettext("Sit in seat %(seat)s"), { seat: n }, true), onclick: () => doSit(n) });
      }
      li.replaceChildren(plate, spots, cards, status, clock, sitHere || h("span"));
    });
  }

  function renderDealer() {
    const hand = feltHand(state);
    const dealer = hand && hand.dealer;
    const cards = dealer ? dealer.cards || [] : [];
    const animate = !!hand && hand.state === "decisions" && !runtime.animated[hand.id];
    const key = JSON.stringify([cards, hand && hand.id, dealer && dealer.category]);
    if (runtime.dealerKey !== key || animate) {
      runtime.dealerKey = key;
      const n = hand ? hand.seats.length : 0;
      els.dealerCards.replaceChildren(...cards.map((/** @type {string|null} */ code, /** @type {number} */ round) => {
        const up = !!code && code === dealer.up_card;
        const c = C.card(code, (animate ? "deal-in " : "") + (up ? "up-card" : "") +
          (isWinning(dealer, code, !!hand && hand.state === "settled") ? " is-winning" : ""));
        if (animate) c.style.animationDelay = (round * (n + 1) + n) * 70 + "ms";
        c.setAttribute("role", "listitem");
        c.setAttribute("aria-label", up ? C.interpolate(C.gettext("up card: %(card)s"), { card: C.cardName(code) }, true) : C.cardName(code));
        return c;
      }));
      if (!cards.length) {
        for (let i = 0; i < 5; i++) els.dealerCards.appendChild(h("span", { class: "card card-slot", "aria-hidden": "true" }));
      }
    }
    if (hand && animate) runtime.animated[hand.id] = true;
    let text = "";
    if (dealer && dealer.category) {
      text = capital(handName(dealer)) + " — " + (dealer.qualified ? C.gettext("qualifies") : C.gettext("does not qualify"));
      els.dealerHand.className = "dealer-hand " + (dealer.qualified ? "is-qualified" : "not-qualified");
    } else if (dealer && dealer.up_card) {
      text = C.interpolate(C.gettext("Up card: %(card)s"), { card: C.cardName(dealer.up_card) }, true);
      els.dealerHand.className = "dealer-hand";
    } else {
      text = hand && hand.state === "betting" ? C.gettext("Place your bets") : "";
      els.dealerHand.className = "dealer-hand";
    }
    els.dealerHand.textContent = text;
  }

  function anteCents() {
    const value = (els.ante && els.ante.value || "").trim();
    if (!/^\d+(\.\d{1,2})?$/.test(value)) return null;
    return C.cents(value);
  }

  /** What a bet of `ante` cents holds in the wallet: the ante, the chip and the raise of
     RAISE_MULTIPLE antes held so that the player can always raise (the server's rule).
     @param {number} ante @param {boolean} jackpot */
  function betHolds(ante, jackpot) {
    return ante * (1 + config.raiseMultiple) + (jackpot ? C.cents(state.table.jackpot_bet) : 0);
  }
  function available() { return state.wallet ? C.cents(state.wallet.available) : 0; }
  /** @param {import("./table_state.js").Bet|null} bet */
  function covers(bet) { return !!bet && betHolds(C.cents(bet.ante), bet.jackpot) <= available(); }

  function renderControls() {
    if (!config.isPlayer) {
      setPhaseText(C.gettext("You are watching this table. Only players can sit and bet."));
      return;
    }
    const p = phase(state, config.isPlayer);
    const app = els.phase.closest(".table-page");
    if (app && app.dataset.phase !== p) app.dataset.phase = p; /* the CSS compacts the controls to the decision */
    const hand = liveHand(state);
    const seat = myTableSeat(state);
    const mine = mySeatIn(state, hand);
    const free = state.table.free_seats.length;
    const empty = !!state.wallet && available() === 0;

    els.btnSit.hidden = !!seat;
    els.btnSit.disabled = runtime.busy || !free;
    els.btnSit.textContent = free ? C.gettext("Sit down") : C.gettext("Table full");
    if (els.clientSeed) els.clientSeed.closest("details").hidden = !!seat;
    els.btnLeave.hidden = !seat;
    els.btnLeave.disabled = runtime.busy || !!mine;

    const canBet = p === "betting" && !runtime.busy && !empty;
    els.ante.disabled = p !== "betting";
    els.jackpot.disabled = p !== "betting";
    const ante = anteCents();
    const total = ante === null ? null : betHolds(ante, els.jackpot.checked) - ante * config.raiseMultiple;
    els.btnBet.disabled = !canBet;
    els.btnBet.textContent = total === null ? C.pgettext("Caribbean button", "Bet") : C.interpolate(C.pgettext("Caribbean button", "Bet %(amount)s"), { amount: C.money(total) }, true);
    els.btnBet.setAttribute("aria-label", total === null || ante === null ? C.pgettext("Caribbean button", "Bet") : C.interpolate(els.jackpot.checked
      ? C.gettext("Bet %(ante)s ante plus the %(chip)s jackpot chip") : C.gettext("Bet %(ante)s ante"), { ante: C.money(ante), chip: C.moneyText(state.table.jackpot_bet) }, true));
    renderChips(p === "betting", ante);
    renderRepeat(canBet);
    renderEmptyNotice(empty);

    const deciding = p === "deciding";
    els.btnFold.disabled = !deciding || runtime.busy;
    els.btnRaise.disabled = !deciding || runtime.busy;
    const raiseAmount = mine ? C.cents(mine.ante) * config.raiseMultiple : ante !== null ? ante * config.raiseMultiple : null;
    els.btnRaise.textContent = raiseAmount ? C.interpolate(C.gettext("Raise %(amount)s"), { amount: C.money(raiseAmount) }, true) : C.interpolate(C.gettext("Raise %(multiple)s× ante"), { multiple: config.raiseMultiple }, true);
    els.btnFold.textContent = mine ? C.interpolate(C.gettext("Fold (lose %(ante)s)"), { ante: C.moneyText(mine.ante) }, true) : C.gettext("Fold");

    /** @type {Record<string, string>} */
    const texts = {
      standing: free ? C.gettext("Take a free seat to play.") : C.gettext("The table is full: you are watching."),
      waiting: C.gettext("Waiting for the next hand…"),
      betting: empty ? C.gettext("Your wallet is empty: request a deposit to play.") : C.interpolate(C.gettext("Place your ante for hand %(hand)s."), { hand: hand ? hand.id : "" }, true),
      "bet-placed": C.gettext("Your bet is in. Waiting for the other players…"),
      deciding: (mine && handName(mine) ? C.interpolate(C.gettext("You hold %(hand)s."), { hand: withArticle(handName(mine)) }, true) + " " : "") + C.interpolate(C.gettext("Fold or raise %(amount)s?"), { amount: raiseAmount ? C.money(raiseAmount) : "" }, true),
      decided: mine && mine.decision === "raise" ? C.interpolate(C.gettext("You raised %(amount)s. Waiting for the other players…"), { amount: C.moneyText(mine.raise) }, true) : C.gettext("You folded. Waiting for the other players…"),
      "sitting-out": C.gettext("This hand is in play without you; you join the next one.")
    };
    setPhaseText(texts[p] || "");
    renderPaytableLine(p === "deciding" || p === "decided" ? mine : null);
    maybeAutoRebet(p, hand);
  }

  /** The chip rack beside the ante: a chip sets the ante to its value.
     @param {boolean} open @param {number|null} ante */
  function renderChips(open, ante) {
    if (!els.chips) return;
    els.chips.querySelectorAll("button[data-chip]").forEach((/** @type {HTMLButtonElement} */ b) => {
      b.disabled = !open;
      b.setAttribute("aria-pressed", String(ante !== null && C.cents(b.dataset.chip) === ante));
    });
  }

  /** @param {import("./table_state.js").Bet} bet */
  function betText(bet) {
    return C.moneyText(bet.ante) + (bet.jackpot ? " + " + C.gettext("jackpot chip") : "");
  }

  /** @param {boolean} canBet */
  function renderRepeat(canBet) {
    if (!els.btnRepeat) return;
    const bet = state.lastBet;
    els.btnRepeat.hidden = !bet;
    if (!bet) return;
    els.btnRepeat.textContent = C.interpolate(C.gettext("Repeat last bet (%(bet)s)"), { bet: betText(bet) }, true);
    els.btnRepeat.disabled = !canBet || !covers(bet);
  }

  /** The notice of an empty wallet follows the balance: it appears when the wallet runs dry
     and goes once a deposit lands, without a reload. @param {boolean} empty */
  function renderEmptyNotice(empty) {
    let notice = $("wallet-empty");
    const fence = els.btnBet.closest("fieldset"); /* the page as served: Bet fenced off while empty */
    if (fence) fence.disabled = empty;
    if (empty && !notice) {
      notice = h("p", { class: "empty-wallet", id: "wallet-empty" }, C.gettext("Your wallet is empty —") + " ",
        h("a", { href: config.walletPage + "#deposit", text: C.gettext("request a deposit") }), C.gettext(". You can bet once the cashier has completed it."));
      els.betForm.parentNode.insertBefore(notice, els.betForm);
    } else if (!empty && notice) {
      notice.remove();
    }
  }

  /* --- repeat and auto-rebet -------------------------------------------------------- */

  function autoRebetWanted() {
    try { return window.localStorage.getItem(AUTO_KEY) === "on"; } catch (e) { return false; }
  }
  /** @param {boolean} on @param {string} [why] */
  function setAutoRebet(on, why) {
    try { if (on) window.localStorage.setItem(AUTO_KEY, "on"); else window.localStorage.removeItem(AUTO_KEY); } catch (e) { /* private mode */ }
    if (els.autoRebet) els.autoRebet.checked = on;
    if (!on && why) showError(C.interpolate(C.gettext("Auto-rebet stopped: %(why)s"), { why }, true));
  }

  /** @param {string} p @param {any} hand */
  function maybeAutoRebet(p, hand) {
    if (p !== "betting" || !hand || runtime.busy || !els.autoRebet || !els.autoRebet.checked) return;
    if (runtime.autoBetOn[hand.id]) return;
    runtime.autoBetOn[hand.id] = true;
    const bet = state.lastBet;
    if (!bet) { setAutoRebet(false, C.gettext("there is no last bet to repeat yet.")); return; }
    if (!covers(bet)) { setAutoRebet(false, C.interpolate(C.gettext("your balance does not cover %(bet)s and the raise it holds."), { bet: betText(bet) }, true)); return; }
    placeBet(bet.ante, bet.jackpot, true);
  }

  /** @param {string} ante @param {boolean} jackpot @param {boolean} auto */
  function placeBet(ante, jackpot, auto) {
    run("bet", { ante, jackpot: !!jackpot }, (error) => {
      if (auto || autoRebetWanted()) setAutoRebet(false, (error && error.message) || C.gettext("the bet was refused."));
    }, () => apply({ type: "bet_done", ante, jackpot: !!jackpot }));
  }

  /* --- the last results at this table (the server's rows, then each settlement) ----------- */

  function renderRecent() {
    if (!els.recent) return;
    const rows = state.recent.slice(0, config.recentCount);
    const key = JSON.stringify(rows);
    if (runtime.recentKey === key) return;
    runtime.recentKey = key;
    const list = els.recent.querySelector("ol");
    const none = els.recent.querySelector(".recent-none");
    if (none) none.hidden = rows.length > 0;
    list.replaceChildren(...rows.map((r) => {
      const net = r.net !== null && r.net !== undefined ? C.cents(r.net) : null;
      return h("li", { class: "recent-row " + (net === null ? "even" : net > 0 ? "up" : net < 0 ? "down" : "even") },
        h("a", { href: config.handPage + r.id + "/", text: C.interpolate(C.gettext("Hand %(hand)s"), { hand: r.id }, true) }),
        h("span", { class: "recent-hand", text: capital(r.hand_name || "") || "—" }),
        h("span", { class: "recent-outcome", text: r.outcome_label || "—" }),
        h("strong", { class: "recent-net num", text: net === null ? "—" : C.money(net, true) }));
    }));
  }

  /* --- focus: it stays in the control area after each action ----------------------------- */

  /** @param {any} el */
  function usable(el) { return el && !el.disabled && !el.hidden && el.offsetParent !== null; }
  function keepFocus() {
    if (!config.isPlayer || !runtime.controlFocus || !els.controls) return;
    const active = document.activeElement;
    if (active && active !== els.controls && els.controls.contains(active) && usable(active)) return; /* still on a live control */
    const p = phase(state, config.isPlayer);
    let target = p === "deciding" ? els.btnRaise : p === "betting" ? (usable(els.btnRepeat) ? els.btnRepeat : els.btnBet) : null;
    if (!usable(target)) target = [els.btnSit, els.btnLeave].filter(usable)[0] || els.controls;
    if (target !== active) target.focus({ preventScroll: true });
  }

  /** The pay table row of the player's hand, lit while they decide and after the hand.
     @param {any} deciding */
  function renderPaytableLine(deciding) {
    const last = state.last && state.last.state === "settled" ? mySeatIn(state, state.last) : null;
    const seat = deciding || last;
    const key = seat ? (seat.paytable_line ? seat.paytable_line.split(":")[1] : seat.category) : null;
    document.querySelectorAll(".paytable tr[data-categories]").forEach((/** @type {any} */ row) => {
      const lit = !!key && row.dataset.categories.split(" ").indexOf(key) >= 0;
      row.classList.toggle("is-lit", lit);
      if (lit) row.setAttribute("aria-current", "true"); else row.removeAttribute("aria-current");
    });
  }

  /** @param {string} text */
  function setPhaseText(text) {
    if (els.phase.textContent !== text) els.phase.textContent = text;
  }

  function renderWallet() {
    if (!state.wallet || !els.walletAvailable) return;
    els.walletAvailable.textContent = C.moneyText(state.wallet.available);
    els.walletInPlay.textContent = C.moneyText(state.wallet.in_play);
    if (els.headerBalance) els.headerBalance.textContent = C.moneyText(state.wallet.available);
  }

  function renderFairness() {
    const hand = liveHand(state);
    if (!els.commitment) return;
    els.handNo.textContent = hand ? C.interpolate(C.gettext("Hand %(hand)s"), { hand: hand.id }, true) : "—";
    els.commitment.textContent = hand ? hand.commitment : C.gettext("A new hand opens when a player sits down.");
    els.commitment.classList.toggle("note", !hand);
    els.clientSeedShown.textContent = hand && hand.client_seed ? hand.client_seed : C.gettext("fixed at the deal (the seated players' seeds)");
    els.clientSeedShown.classList.toggle("note", !(hand && hand.client_seed));
  }

  /* The last hand's result, until the next deal's cards arrive. */
  function renderResult() {
    const last = resultShown(state);
    if (!last) {
      els.result.hidden = true;
      runtime.resultKey = null;
      return;
    }
    const mine = mySeatIn(state, last);
    const key = JSON.stringify([last.id, last.version, !!mine, !!last.own]);
    if (runtime.resultKey === key) return;
    runtime.resultKey = key;
    els.result.hidden = false;
    els.result.className = "result-panel " + (mine ? (C.cents(mine.net) > 0 ? "is-win" : C.cents(mine.net) < 0 ? "is-loss" : "is-even") : "");
    els.resultTitle.textContent = C.interpolate(last.state === "cancelled" ? C.gettext("Hand %(hand)s cancelled") : C.gettext("Hand %(hand)s settled"), { hand: last.id }, true);
    const body = [];
    if (mine) {
      body.push(h("ul", { class: "explain" }, (mine.explanation || []).map((/** @type {string} */ t) => h("li", { text: t }))));
      els.resultLink.href = config.handPage + last.id + "/";
      els.resultLink.hidden = false;
    } else {
      const dealer = last.dealer || {};
      body.push(h("p", { text: C.interpolate(dealer.category ? (dealer.qualified ? C.gettext("Dealer: %(hand)s, qualified.") : C.gettext("Dealer: %(hand)s, did not qualify.")) : C.gettext("Dealer: %(hand)s"), { hand: handName(dealer) || "—" }, true) }));
      els.resultLink.hidden = true;
    }
    const rows = last.seats.map((/** @type {any} */ s) => h("tr", null,
      h("th", { scope: "row", text: C.interpolate(C.gettext("Seat %(seat)s · %(player)s"), { seat: s.seat, player: s.player }, true) }),
      h("td", { text: capital(handName(s)) || "—" }),
      h("td", { text: s.decision_label ? s.decision_label + (s.decided_by_timeout ? " " + C.gettext("(time ran out)") : "") : "—" }),
      h("td", { class: "num " + (C.cents(s.net) > 0 ? "up" : C.cents(s.net) < 0 ? "down" : ""), text: s.net !== null && s.net !== undefined ? C.moneyText(s.net, true) : "—" })));
    body.push(h("table", { class: "data-table compact" },
      h("caption", { class: "visually-hidden", text: C.gettext("Every seat's result") }),
      h("thead", null, h("tr", null, h("th", { scope: "col", text: C.gettext("Seat") }), h("th", { scope: "col", text: C.gettext("Hand") }),
        h("th", { scope: "col", text: C.gettext("Decision") }), h("th", { scope: "col", class: "num", text: C.gettext("Net") }))),
      h("tbody", null, rows)));
    els.resultBody.replaceChildren(...body);
  }

  /* --- the clocks ----------------------------------------------------------------- */

  function tick() {
    tickSeats();
    const t = now();
    const d = activeDeadline(state, t, config.extensionSeconds);
    if (!d || isNaN(d.at)) {
      els.timer.hidden = true;
      return;
    }
    const left = Math.max(0, d.at - (t + state.offset));
    // Never trust a push alone: a deadline shown as passed for more than a moment means
    // an event was missed (a dropped socket, a server restart); ask for the state again.
    if (d.at - (t + state.offset) < -1500 && (!runtime.staleAskedAt || Date.now() - runtime.staleAskedAt > 3000)) {
      runtime.staleAskedAt = Date.now();
      requestSnapshot("deadline");
    }
    if (!runtime.deadlineStart[d.key]) runtime.deadlineStart[d.key] = Math.max(left, 1000);
    const seconds = secondsLeft(state, d, t);
    els.timer.hidden = false;
    els.timer.classList.toggle("is-urgent", seconds <= 5);
    els.timer.classList.toggle("is-mine", !!d.mine);
    els.timerLabel.textContent = d.label;
    els.timerValue.textContent = C.interpolate(C.gettext("%(seconds)s s"), { seconds }, true);
    els.timerBar.style.width = Math.min(100, (left / runtime.deadlineStart[d.key]) * 100) + "%";
  }

  /* Every seat's own clock on the felt (table_state.js's seatDeadline says whose shows what). */
  function tickSeats() {
    const t = now();
    els.seats.querySelectorAll("[data-seat-timer]").forEach((/** @type {HTMLElement} */ el) => {
      const n = Number(el.dataset.seatTimer);
      const d = seatDeadline(state, n, t, config.extensionSeconds);
      if (!d || isNaN(d.at)) { el.hidden = true; return; }
      const seconds = secondsLeft(state, d, t);
      el.hidden = false;
      el.classList.toggle("is-urgent", seconds <= 5);
      el.classList.toggle("is-extra", !!d.extra);
      /** @type {HTMLElement} */ (el.querySelector(".seat-timer-label")).textContent = d.extra ? C.gettext("Extra time") : "";
      /** @type {HTMLElement} */ (el.querySelector(".seat-timer-value")).textContent = C.interpolate(C.gettext("%(seconds)s s"), { seconds }, true);
      el.setAttribute("aria-label", C.interpolate(C.gettext("Seat %(seat)s: %(seconds)s seconds %(what)s"), { seat: n, seconds, what: d.label }, true));
    });
  }

  /* --- messages from the server ----------------------------------------------------- */

  /** @param {any} msg */
  function onMessage(msg) {
    if (msg.type === "snapshot") runtime.snapshotAskedAt = 0;
    if (msg.type === "ack" || msg.type === "error") {
      const pending = msg.id !== null && msg.id !== undefined ? runtime.pending[msg.id] : null;
      if (pending) {
        delete runtime.pending[msg.id];
        clearTimeout(pending.timer);
        if (msg.type === "ack") pending.resolve(msg);
        else pending.reject(msg);
      } else if (msg.type === "error") {
        showError(msg.message || C.gettext("Something went wrong."));
      }
    }
    receive(msg);
  }

  /** A hand's result for the page (its own view for the player's hands). @param {number} handId */
  function fetchResult(handId) {
    if (!config.isPlayer) return;
    C.getJSON(config.api.handBase + handId + "/").then((view) => {
      apply({ type: "result", view });
      render();
    }).catch(() => { /* not our hand: nothing to explain */ });
  }

  /* --- the socket ------------------------------------------------------------------- */

  /** @param {string} stateName @param {string} text */
  function setConn(stateName, text) {
    els.conn.dataset.state = stateName;
    els.connText.textContent = text;
  }

  function connect() {
    if (runtime.stopped) return;
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + config.wsPath;
    let ws;
    try {
      ws = new WebSocket(url);
    } catch (e) {
      scheduleReconnect(false);
      return;
    }
    runtime.ws = ws;
    setConn("connecting", C.gettext("Connecting…"));
    ws.onopen = () => {
      runtime.wsOpen = true;
      runtime.retries = 0;
      stopPolling();
      setConn("live", C.gettext("Live"));
    };
    ws.onmessage = (e) => {
      let msg;
      try { msg = JSON.parse(e.data); } catch (err) { return; }
      onMessage(msg);
    };
    ws.onclose = (e) => {
      const wasOpen = runtime.wsOpen;
      runtime.wsOpen = false;
      runtime.ws = null;
      Object.values(runtime.pending).forEach((p) => {
        clearTimeout(p.timer);
        p.reject({ message: C.gettext("The connection dropped before the table answered. Check the table before you try again.") });
      });
      runtime.pending = {};
      /* 4401 and 4404 are final (docs/websocket.md): say so and stop reconnecting. */
      if (e.code === 4401) {
        runtime.stopped = true;
        stopPolling();
        setConn("offline", C.gettext("Session ended"));
        showError(C.gettext("Your session has ended: sign in again."));
        return;
      }
      if (e.code === 4404) {
        runtime.stopped = true;
        stopPolling();
        setConn("offline", C.gettext("No such table"));
        showError(C.gettext("There is no such table. Go back to the lobby to choose one."));
        return;
      }
      startPolling();
      scheduleReconnect(wasOpen);
    };
  }

  /** @param {boolean} wasOpen */
  function scheduleReconnect(wasOpen) {
    if (runtime.stopped) return;
    let delay = Math.min(15000, 500 * Math.pow(2, runtime.retries)) * (0.75 + Math.random() * 0.5);
    if (wasOpen) delay = 300;
    runtime.retries += 1;
    setConn("offline", C.interpolate(C.gettext("Reconnecting in %(seconds)s s…"), { seconds: Math.ceil(delay / 1000) }, true));
    setTimeout(connect, delay);
  }

  /** @param {object} message */
  function send(message) {
    if (runtime.wsOpen && runtime.ws) runtime.ws.send(JSON.stringify(message));
  }

  /** A fresh snapshot, when the page cannot trust its copy; one at a time. @param {string} reason */
  function requestSnapshot(reason) {
    if (runtime.snapshotAskedAt && Date.now() - runtime.snapshotAskedAt < 2000) return;
    runtime.snapshotAskedAt = Date.now();
    runtime.snapshotReasons.push(reason);
    if (runtime.wsOpen) send({ action: "snapshot" });
    else refreshByRest().then(() => { runtime.snapshotAskedAt = 0; });
  }

  /* While the socket is down: the same state from the REST API, every few seconds. */
  function refreshByRest() {
    const jobs = [C.getJSON(config.api.table).then((view) => onMessage({ type: "snapshot", table: view, wallet: null }))];
    if (config.isPlayer) jobs.push(C.getJSON(config.api.wallet).then((w) => onMessage({ type: "wallet", wallet: w })));
    return Promise.all(jobs).catch(() => { /* the next poll tries again */ });
  }

  function startPolling() {
    if (runtime.pollTimer) return;
    runtime.pollTimer = setInterval(refreshByRest, 3000);
  }

  function stopPolling() {
    if (runtime.pollTimer) clearInterval(runtime.pollTimer);
    runtime.pollTimer = null;
  }

  /* --- the player's actions --------------------------------------------------------- */

  /** @param {string} action @param {Record<string, any>} [payload] @returns {Promise<any>} */
  function act(action, payload) {
    payload = payload || {};
    clearError();
    if (runtime.wsOpen) {
      if (action === "fold" || action === "raise") {
        /* A decision names its hand: a late resend can never land on the next hand. */
        const current = liveHand(state);
        if (!current) return Promise.reject({ message: C.gettext("No hand is being played.") });
        payload = { hand_id: current.id, ...payload };
      }
      const id = "c" + ++runtime.seq;
      const message = { action, id, ...payload };
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          delete runtime.pending[id];
          reject({ message: C.gettext("The table did not answer in time. Check your connection.") });
        }, 10000);
        runtime.pending[id] = { resolve, reject, timer };
        send(message);
      }); /* what the action changed comes as events (sit and leave: with a snapshot) */
    }
    const hand = liveHand(state);
    const url = /** @type {Record<string, string|null>} */ ({
      sit: config.api.sit, leave: config.api.leave, bet: config.api.bet,
      fold: hand ? config.api.handBase + hand.id + "/fold/" : null,
      raise: hand ? config.api.handBase + hand.id + "/raise/" : null
    })[action];
    if (!url) return Promise.reject({ message: C.gettext("No hand is being played.") });
    return C.post(url, payload).then((result) => { refreshByRest(); return result; });
  }

  /** @param {string} action @param {Record<string, any>} [payload] @param {(error: any) => void} [onError] @param {(result: any) => void} [onDone] */
  function run(action, payload, onError, onDone) {
    if (runtime.busy) return;
    runtime.busy = true;
    render();
    act(action, payload)
      .then((result) => { if (onDone) onDone(result); })
      .catch((error) => {
        showError((error && error.message) || C.gettext("That did not work."));
        if (onError) onError(error);
      })
      .then(() => { runtime.busy = false; render(); });
  }

  /** @param {number|null} seatNumber */
  function doSit(seatNumber) {
    /** @type {Record<string, any>} */
    const payload = {};
    if (seatNumber) payload.seat = seatNumber;
    const seed = els.clientSeed ? els.clientSeed.value.trim() : "";
    if (seed) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(seed)) {
        showError(C.gettext("A client seed is 1 to 64 letters, digits, '-' or '_'."));
        els.clientSeed.focus();
        return;
      }
      payload.client_seed = seed;
    }
    run("sit", payload);
  }

  /** @param {string} message */
  function showError(message) {
    els.errors.textContent = message;
    els.errors.hidden = false;
  }

  function clearError() {
    els.errors.textContent = "";
    els.errors.hidden = true;
  }

  if (config.isPlayer) {
    els.btnSit.addEventListener("click", () => doSit(null));
    els.btnLeave.addEventListener("click", () => run("leave"));
    els.btnFold.addEventListener("click", () => run("fold"));
    els.btnRaise.addEventListener("click", () => run("raise"));
    els.ante.addEventListener("input", renderControls);
    els.jackpot.addEventListener("change", renderControls);
    els.betForm.addEventListener("submit", (/** @type {Event} */ e) => {
      e.preventDefault();
      const ante = anteCents();
      const min = C.cents(state.table.min_ante), max = C.cents(state.table.max_ante);
      if (ante === null || ante < min || ante > max) {
        showError(C.interpolate(C.gettext("The ante at this table is %(min)s to %(max)s, in whole cents."), { min: C.moneyText(state.table.min_ante), max: C.moneyText(state.table.max_ante) }, true));
        els.ante.setAttribute("aria-invalid", "true");
        els.ante.focus();
        return;
      }
      els.ante.removeAttribute("aria-invalid");
      placeBet(els.ante.value.trim(), els.jackpot.checked, false);
    });
    if (els.chips) els.chips.addEventListener("click", (/** @type {Event} */ e) => {
      const chip = /** @type {HTMLButtonElement|null} */ (/** @type {HTMLElement} */ (e.target).closest("button[data-chip]"));
      if (!chip || chip.disabled) return;
      els.ante.value = chip.dataset.chip;
      els.ante.removeAttribute("aria-invalid");
      renderControls();
    });
    if (els.btnRepeat) els.btnRepeat.addEventListener("click", () => {
      if (state.lastBet) placeBet(state.lastBet.ante, state.lastBet.jackpot, false);
    });
    if (els.autoRebet) {
      els.autoRebet.checked = autoRebetWanted();
      els.autoRebet.addEventListener("change", () => {
        setAutoRebet(els.autoRebet.checked);
        if (els.autoRebet.checked) {
          clearError();
          const live = liveHand(state);
          if (live) delete runtime.autoBetOn[live.id];
          renderControls();
        }
      });
    }
    /* Focus is kept in the control area only while the player works there. */
    document.addEventListener("focusin", (e) => { runtime.controlFocus = els.controls.contains(e.target); });
    document.addEventListener("pointerdown", (e) => { runtime.controlFocus = els.controls.contains(e.target); });
  }

  /* After a reload: the result of this table's previous hand, if it was the player's. */
  function loadPreviousResult() {
    const live = liveHand(state);
    if (!config.isPlayer || !live || live.state !== "betting") return;
    C.getJSON(config.api.handBase + "?limit=1").then((page) => {
      const row = page && page.results && page.results[0];
      if (row && row.table === state.table.id && row.nonce === live.nonce - 1) fetchResult(row.id);
    }).catch(() => { /* no history: nothing to show */ });
  }

  setInterval(tick, 250);
  setInterval(() => send({ action: "ping" }), 25000);
  render();
  loadPreviousResult();
  if ("WebSocket" in window) connect();
  else startPolling();
  /* For the browser tests and the console: the state and the page's machinery, read-only. */
  /** @type {any} */ (window).CasinoTable = {
    get state() { return { ...runtime, ...state }; }
  };
}

const config = C.readJSON("table-config");
const initial = C.readJSON("table-initial");
if (config && initial) start(config, initial);
