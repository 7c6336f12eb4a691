/* The live table: draws the table_view from the server, sends the player's actions.
 *
 * Updates come over the websocket /ws/tables/<id>/: a snapshot when the socket opens, then
 * public events, the player's private hand view and the wallet. The page applies each
 * event to its copy of the table (a bet joins the hand, the deal turns the cards, a
 * decision marks the seat, the settlement brings the whole result) and asks for a fresh
 * snapshot only when it cannot trust that copy: on (re)connect, on a gap in a hand's
 * public version (an event missed), or when a deadline it shows has passed. Every word
 * about a result (labels, the explanation lines) comes from the server: this file draws.
 * Actions go over the socket when it is open (with an id, answered by ack or error) and
 * over the REST API otherwise; while the socket is down the page polls the REST API and
 * reconnects with exponential backoff.
 */
(function () {
  "use strict";
  var C = window.Casino;
  var h = C.h;
  var config = C.readJSON("table-config");
  var initial = C.readJSON("table-initial");
  if (!config || !initial) return;
  C.setSymbol(config.currencySymbol);

  var $ = function (id) { return document.getElementById(id); };
  var els = {
    conn: $("conn-status"), connText: document.querySelector("#conn-status .conn-text"),
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

  var state = {
    table: initial.table,
    wallet: initial.wallet,
    last: null,
    offset: 0,
    bettingDeadlines: {},
    deadlineStart: {},
    pending: {},
    ws: null,
    wsOpen: false,
    retries: 0,
    stopped: false,
    pollTimer: null,
    snapshotTimer: null,
    busy: false,
    animated: {},
    lastPhase: "",
    seatKeys: {},
    recent: initial.recent || [],
    lastBet: null,
    autoBetOn: {},
    controlFocus: false,
    snapshotAskedAt: 0,
    snapshotReasons: []
  };
  var AUTO_KEY = "casino.autoRebet." + config.username;
  var seq = 0;

  /* --- reading the state ------------------------------------------------------------ */

  function liveHand() { return state.table.hand; }
  function myTableSeat() { return state.table.seats.filter(function (s) { return s.is_you; })[0] || null; }
  function mySeatIn(hand) {
    if (!hand) return null;
    return hand.seats.filter(function (s) { return s.is_you || s.player === config.username; })[0] || null;
  }
  function now() { return Date.now() + state.offset; }
  function feltHand() {
    var live = liveHand();
    if (live && (live.state === "decisions" || live.seats.length > 0)) return live;
    if (state.last && state.last.table === state.table.id) return state.last;
    return live;
  }

  function phase() {
    var hand = liveHand();
    var seat = myTableSeat();
    var mine = mySeatIn(hand);
    if (!config.isPlayer) return "watching";
    if (!seat) return "standing";
    if (!hand) return "waiting";
    if (hand.state === "betting") return mine ? "bet-placed" : "betting";
    if (hand.state === "decisions") {
      if (!mine) return "sitting-out";
      return mine.decision ? "decided" : "deciding";
    }
    return "waiting";
  }

  /* --- hand names: the server's words ("pair of tens", "king high") --------------------- */

  function handName(handSeat) {
    if (!handSeat) return "";
    return handSeat.hand_name || (handSeat.category_label ? handSeat.category_label.toLowerCase() : "");
  }
  function capital(text) { return text ? text.charAt(0).toUpperCase() + text.slice(1) : text; }
  /* The decision words of a public frame arrive in English (every socket gets the same
     frame); gettext reads them in this page's language. */
  var SERVER_WORDS = [gettext_noop("Raised"), gettext_noop("Folded")];  // eslint-disable-line no-unused-vars

  function withArticle(name) {
    if (!/^en\b/.test(document.documentElement.lang || "en")) return name;  /* English wants "a pair of tens" */
    return (/^(pair|straight|flush|full house|royal)/.test(name) ? "a " : "") + name;
  }
  function isWinning(part, code, shown) {
    return !!(shown && code && part && part.winning_cards && part.winning_cards.indexOf(code) >= 0);
  }

  /* --- drawing ---------------------------------------------------------------------- */

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

  function seatStatus(handSeat, hand) {
    if (!handSeat) return "";
    var timeout = handSeat.decided_by_timeout ? " " + gettext("(time ran out)") : "";
    if (hand.state === "settled" || hand.state === "cancelled") {
      var net = handSeat.net !== null && handSeat.net !== undefined ? " " + C.moneyText(handSeat.net, true) : "";
      var outcome = handSeat.outcome_label ? handSeat.outcome_label + (handSeat.outcome === "fold" ? timeout : "") : null;
      return [capital(handName(handSeat)), outcome].filter(Boolean).join(" · ") + net;
    }
    if (hand.state === "decisions") {
      if (handSeat.decision === "raise") return gettext(handSeat.decision_label) + " " + C.moneyText(handSeat.raise) + timeout;
      if (handSeat.decision) return gettext(handSeat.decision_label) + timeout;
      return (handSeat.is_you && handName(handSeat) ? capital(handName(handSeat)) + " · " : "") + gettext("Deciding…");
    }
    return gettext("Ante in");
  }

  function renderSeats() {
    var hand = feltHand();
    var dealtCount = hand ? hand.seats.length : 0;
    state.table.seats.forEach(function (tableSeat) {
      var n = tableSeat.seat;
      var li = els.seats.querySelector('[data-seat="' + n + '"]');
      var handSeat = hand ? hand.seats.filter(function (s) { return s.seat === n; })[0] : null;
      if (handSeat && tableSeat.player && handSeat.player !== tableSeat.player) handSeat = null;
      if (handSeat && !tableSeat.player && hand !== liveHand()) handSeat = null;
      var animate = hand && hand.state === "decisions" && !state.animated[hand.id];
      var key = JSON.stringify([tableSeat, handSeat, hand && hand.state, hand && hand.id, phase() === "standing"]);
      if (state.seatKeys[n] === key && !animate) return;
      state.seatKeys[n] = key;

      var classes = ["seat", "seat-" + n];
      if (tableSeat.is_you) classes.push("is-you");
      if (!tableSeat.player) classes.push("is-empty");
      if (handSeat && handSeat.decision === "fold") classes.push("is-folded");
      if (handSeat && handSeat.outcome) classes.push("outcome-" + handSeat.outcome);
      if (handSeat && handSeat.net) classes.push(C.cents(handSeat.net) > 0 ? "net-up" : C.cents(handSeat.net) < 0 ? "net-down" : "");
      li.className = classes.filter(Boolean).join(" ");
      li.setAttribute("aria-label", tableSeat.player
        ? interpolate(tableSeat.is_you ? gettext("Seat %(seat)s, %(player)s (you)") : gettext("Seat %(seat)s, %(player)s"), { seat: n, player: tableSeat.player }, true)
        : interpolate(gettext("Seat %(seat)s, empty"), { seat: n }, true));

      var plate = h("div", { class: "seat-plate" },
        h("span", { class: "seat-no", text: interpolate(gettext("Seat %(seat)s"), { seat: n }, true) }),
        h("span", { class: "seat-name", text: tableSeat.player || gettext("Empty seat") }),
        tableSeat.is_you ? h("span", { class: "badge badge-gold", text: gettext("You") }) : null);

      var spots = h("div", { class: "spots" },
        h("div", { class: "spot spot-ante" }, h("span", { class: "spot-label", "aria-hidden": "true", text: gettext("Ante") }),
          handSeat ? C.chip("ante", gettext("Ante"), C.moneyText(handSeat.ante)) : null),
        h("div", { class: "spot spot-jackpot" }, h("span", { class: "spot-label", "aria-hidden": "true", text: "JP" }),
          handSeat && C.cents(handSeat.jackpot_bet) > 0 ? C.chip("jackpot", gettext("Jackpot chip"), C.moneyText(handSeat.jackpot_bet)) : null),
        h("div", { class: "spot spot-raise" }, h("span", { class: "spot-label", "aria-hidden": "true", text: gettext("Raise") }),
          handSeat && C.cents(handSeat.raise) > 0 ? C.chip("raise", gettext("Raise"), C.moneyText(handSeat.raise)) : null));

      var cards = h("div", { class: "cards hand-cards", role: "list", "aria-label": (tableSeat.player || "Seat " + n) + "'s cards" });
      if (handSeat && handSeat.cards && handSeat.cards.length) {
        var order = hand.seats.map(function (s) { return s.seat; }).sort(function (a, b) { return a - b; }).indexOf(n);
        handSeat.cards.forEach(function (code, round) {
          var shown = hand.state === "settled" || (hand.state === "decisions" && handSeat.is_you);
          var c = C.card(code, (animate ? "deal-in" : "") + (isWinning(handSeat, code, shown) ? " is-winning" : ""));
          if (animate) c.style.animationDelay = (round * (dealtCount + 1) + order) * 70 + "ms";
          c.setAttribute("role", "listitem");
          c.setAttribute("aria-label", C.cardName(code));
          cards.appendChild(c);
        });
      }
      var status = h("p", { class: "seat-status", text: seatStatus(handSeat, hand || {}) });
      var clock = h("p", { class: "seat-timer", hidden: true, dataset: { seatTimer: String(n) } },
        h("span", { class: "seat-timer-label" }), " ", h("strong", { class: "seat-timer-value" }));
      var sitHere = null;
      if (!tableSeat.player && config.isPlayer && phase() === "standing") {
        sitHere = h("button", { type: "button", class: "btn btn-small", dataset: { sitSeat: String(n) }, text: gettext("Sit here"),
          "aria-label": interpolate(gettext("Sit in seat %(seat)s"), { seat: n }, true), onclick: function () { doSit(n); } });
      }
      li.replaceChildren(plate, spots, cards, status, clock, sitHere || h("span"));
    });
  }

  function renderDealer() {
    var hand = feltHand();
    var cards = hand && hand.dealer ? hand.dealer.cards || [] : [];
    var animate = hand && hand.state === "decisions" && !state.animated[hand.id];
    var key = JSON.stringify([cards, hand && hand.id, hand && hand.dealer && hand.dealer.category]);
    if (state.dealerKey !== key || animate) {
      state.dealerKey = key;
      var n = hand ? hand.seats.length : 0;
      els.dealerCards.replaceChildren.apply(els.dealerCards, cards.map(function (code, round) {
        var up = !!code && code === hand.dealer.up_card;
        var c = C.card(code, (animate ? "deal-in " : "") + (up ? "up-card" : "") +
          (isWinning(hand.dealer, code, hand.state === "settled") ? " is-winning" : ""));
        if (animate) c.style.animationDelay = (round * (n + 1) + n) * 70 + "ms";
        c.setAttribute("role", "listitem");
        c.setAttribute("aria-label", up ? interpolate(gettext("up card: %(card)s"), { card: C.cardName(code) }, true) : C.cardName(code));
        return c;
      }));
      if (!cards.length) {
        for (var i = 0; i < 5; i++) els.dealerCards.appendChild(h("span", { class: "card card-slot", "aria-hidden": "true" }));
      }
    }
    if (animate) state.animated[hand.id] = true;
    var text = "";
    if (hand && hand.dealer && hand.dealer.category) {
      text = capital(handName(hand.dealer)) + " — " + (hand.dealer.qualified ? gettext("qualifies") : gettext("does not qualify"));
      els.dealerHand.className = "dealer-hand " + (hand.dealer.qualified ? "is-qualified" : "not-qualified");
    } else if (hand && hand.dealer && hand.dealer.up_card) {
      text = interpolate(gettext("Up card: %(card)s"), { card: C.cardName(hand.dealer.up_card) }, true);
      els.dealerHand.className = "dealer-hand";
    } else {
      text = hand && hand.state === "betting" ? gettext("Place your bets") : "";
      els.dealerHand.className = "dealer-hand";
    }
    els.dealerHand.textContent = text;
  }

  function anteCents() {
    var value = (els.ante && els.ante.value || "").trim();
    if (!/^\d+(\.\d{1,2})?$/.test(value)) return null;
    return C.cents(value);
  }

  /* What a bet of `ante` cents holds in the wallet: the ante, the chip and the raise of
     RAISE_MULTIPLE antes held so that the player can always raise (the server's rule). */
  function betHolds(ante, jackpot) {
    return ante * (1 + config.raiseMultiple) + (jackpot ? C.cents(state.table.jackpot_bet) : 0);
  }
  function available() { return state.wallet ? C.cents(state.wallet.available) : 0; }
  function covers(bet) { return !!bet && betHolds(C.cents(bet.ante), bet.jackpot) <= available(); }

  function renderControls() {
    if (!config.isPlayer) {
      setPhaseText(gettext("You are watching this table. Only players can sit and bet."));
      return;
    }
    var p = phase();
    var app = els.phase.closest(".table-page");
    if (app && app.dataset.phase !== p) app.dataset.phase = p; /* the CSS compacts the controls to the decision */
    var hand = liveHand();
    var seat = myTableSeat();
    var mine = mySeatIn(hand);
    var free = state.table.free_seats.length;
    var empty = !!state.wallet && available() === 0;

    els.btnSit.hidden = !!seat;
    els.btnSit.disabled = state.busy || !free;
    els.btnSit.textContent = free ? gettext("Sit down") : gettext("Table full");
    if (els.clientSeed) els.clientSeed.closest("details").hidden = !!seat;
    els.btnLeave.hidden = !seat;
    els.btnLeave.disabled = state.busy || !!mine;

    var canBet = p === "betting" && !state.busy && !empty;
    els.ante.disabled = p !== "betting";
    els.jackpot.disabled = p !== "betting";
    var ante = anteCents();
    var total = ante === null ? null : betHolds(ante, els.jackpot.checked) - ante * config.raiseMultiple;
    els.btnBet.disabled = !canBet;
    els.btnBet.textContent = total === null ? pgettext("Caribbean button", "Bet") : interpolate(pgettext("Caribbean button", "Bet %(amount)s"), { amount: C.money(total) }, true);
    els.btnBet.setAttribute("aria-label", total === null ? pgettext("Caribbean button", "Bet") : els.jackpot.checked
      ? interpolate(gettext("Bet %(ante)s ante plus the %(chip)s jackpot chip"), { ante: C.money(ante), chip: C.moneyText(state.table.jackpot_bet) }, true)
      : interpolate(gettext("Bet %(ante)s ante"), { ante: C.money(ante) }, true));
    renderChips(p === "betting", ante);
    renderRepeat(canBet);
    renderEmptyNotice(empty);

    var deciding = p === "deciding";
    els.btnFold.disabled = !deciding || state.busy;
    els.btnRaise.disabled = !deciding || state.busy;
    var raiseAmount = mine ? C.cents(mine.ante) * config.raiseMultiple : ante !== null ? ante * config.raiseMultiple : null;
    els.btnRaise.textContent = raiseAmount ? interpolate(gettext("Raise %(amount)s"), { amount: C.money(raiseAmount) }, true)
      : interpolate(gettext("Raise %(multiple)s× ante"), { multiple: config.raiseMultiple }, true);
    els.btnFold.textContent = mine ? interpolate(gettext("Fold (lose %(ante)s)"), { ante: C.moneyText(mine.ante) }, true) : gettext("Fold");

    var text = {
      standing: free ? gettext("Take a free seat to play.") : gettext("The table is full: you are watching."),
      waiting: gettext("Waiting for the next hand…"),
      betting: empty ? gettext("Your wallet is empty: request a deposit to play.") : interpolate(gettext("Place your ante for hand %(hand)s."), { hand: hand ? hand.id : "" }, true),
      "bet-placed": gettext("Your bet is in. Waiting for the other players…"),
      deciding: (mine && handName(mine) ? interpolate(gettext("You hold %(hand)s."), { hand: withArticle(handName(mine)) }, true) + " " : "") +
        interpolate(gettext("Fold or raise %(amount)s?"), { amount: raiseAmount ? C.money(raiseAmount) : "" }, true),
      decided: mine && mine.decision === "raise" ? interpolate(gettext("You raised %(amount)s. Waiting for the other players…"), { amount: C.moneyText(mine.raise) }, true)
        : gettext("You folded. Waiting for the other players…"),
      "sitting-out": gettext("This hand is in play without you; you join the next one.")
    }[p] || "";
    setPhaseText(text);
    renderPaytableLine(p === "deciding" || p === "decided" ? mine : null);
    maybeAutoRebet(p, hand);
  }

  /* The chip rack beside the ante: a chip sets the ante to its value. */
  function renderChips(open, ante) {
    if (!els.chips) return;
    els.chips.querySelectorAll("button[data-chip]").forEach(function (b) {
      b.disabled = !open;
      b.setAttribute("aria-pressed", String(ante !== null && C.cents(b.dataset.chip) === ante));
    });
  }

  function betText(bet) {
    return C.moneyText(bet.ante) + (bet.jackpot ? " + jackpot chip" : "");
  }

  function renderRepeat(canBet) {
    if (!els.btnRepeat) return;
    var bet = state.lastBet;
    els.btnRepeat.hidden = !bet;
    if (!bet) return;
    els.btnRepeat.textContent = interpolate(gettext("Repeat last bet (%(bet)s)"), { bet: betText(bet) }, true);
    els.btnRepeat.disabled = !canBet || !covers(bet);
  }

  /* The notice of an empty wallet follows the balance: it appears when the wallet runs dry
     and goes once a deposit lands, without a reload. */
  function renderEmptyNotice(empty) {
    var notice = $("wallet-empty");
    var fence = els.btnBet.closest("fieldset"); /* the page as served: Bet fenced off while empty */
    if (fence) fence.disabled = empty;
    if (empty && !notice) {
      notice = h("p", { class: "empty-wallet", id: "wallet-empty" }, gettext("Your wallet is empty —") + " ",
        h("a", { href: config.walletPage + "#deposit", text: gettext("request a deposit") }), gettext(". You can bet once the cashier has completed it."));
      els.betForm.parentNode.insertBefore(notice, els.betForm);
    } else if (!empty && notice) {
      notice.remove();
    }
  }

  /* --- repeat and auto-rebet ---------------------------------------------------------- */

  function autoRebetWanted() {
    try { return window.localStorage.getItem(AUTO_KEY) === "on"; } catch (e) { return false; }
  }
  function setAutoRebet(on, why) {
    try { if (on) window.localStorage.setItem(AUTO_KEY, "on"); else window.localStorage.removeItem(AUTO_KEY); } catch (e) { /* private mode */ }
    if (els.autoRebet) els.autoRebet.checked = on;
    if (!on && why) showError(interpolate(gettext("Auto-rebet stopped: %(why)s"), { why: why }, true));
  }

  function maybeAutoRebet(p, hand) {
    if (p !== "betting" || !hand || state.busy || !els.autoRebet || !els.autoRebet.checked) return;
    if (state.autoBetOn[hand.id]) return;
    state.autoBetOn[hand.id] = true;
    var bet = state.lastBet;
    if (!bet) { setAutoRebet(false, gettext("there is no last bet to repeat yet.")); return; }
    if (!covers(bet)) { setAutoRebet(false, interpolate(gettext("your balance does not cover %(bet)s and the raise it holds."), { bet: betText(bet) }, true)); return; }
    placeBet(bet.ante, bet.jackpot, true);
  }

  function placeBet(ante, jackpot, auto) {
    var bet = { ante: ante, jackpot: !!jackpot };
    run("bet", { ante: ante, jackpot: !!jackpot }, function (error) {
      if (auto || autoRebetWanted()) setAutoRebet(false, (error && error.message) || gettext("the bet was refused."));
    }, function () { state.lastBet = bet; });
  }

  /* --- the last results at this table (the server's rows, then each settlement) --------- */

  function renderRecent() {
    if (!els.recent) return;
    var rows = state.recent.slice(0, config.recentCount);
    var key = JSON.stringify(rows);
    if (state.recentKey === key) return;
    state.recentKey = key;
    var list = els.recent.querySelector("ol");
    var none = els.recent.querySelector(".recent-none");
    if (none) none.hidden = rows.length > 0;
    list.replaceChildren.apply(list, rows.map(function (r) {
      var net = r.net !== null && r.net !== undefined ? C.cents(r.net) : null;
      return h("li", { class: "recent-row " + (net > 0 ? "up" : net < 0 ? "down" : "even") },
        h("a", { href: config.handPage + r.id + "/", text: interpolate(gettext("Hand %(hand)s"), { hand: r.id }, true) }),
        h("span", { class: "recent-hand", text: capital(r.hand_name || "") || "—" }),
        h("span", { class: "recent-outcome", text: r.outcome_label || "—" }),
        h("strong", { class: "recent-net num", text: net === null ? "—" : C.money(net, true) }));
    }));
  }

  function rememberResult(view) {
    var mine = view.seats.filter(function (s) { return s.player === config.username; })[0];
    if (!mine || view.table !== state.table.id) return;
    state.recent = state.recent.filter(function (r) { return r.id !== view.id; });
    state.recent.unshift({ id: view.id, hand_name: mine.hand_name || mine.category_label, outcome_label: mine.outcome_label, net: mine.net });
    state.recent = state.recent.slice(0, config.recentCount);
    if (view.state === "settled") state.lastBet = { ante: mine.ante, jackpot: C.cents(mine.jackpot_bet) > 0 };
  }

  /* --- focus: it stays in the control area after each action --------------------------- */

  function usable(el) { return el && !el.disabled && !el.hidden && el.offsetParent !== null; }
  function keepFocus() {
    if (!config.isPlayer || !state.controlFocus || !els.controls) return;
    var active = document.activeElement;
    if (active && active !== els.controls && els.controls.contains(active) && usable(active)) return; /* still on a live control */
    var p = phase();
    var target = p === "deciding" ? els.btnRaise : p === "betting" ? (usable(els.btnRepeat) ? els.btnRepeat : els.btnBet) : null;
    if (!usable(target)) target = [els.btnSit, els.btnLeave].filter(usable)[0] || els.controls;
    if (target !== active) target.focus({ preventScroll: true });
  }

  /* The pay table row of the player's hand, lit while they decide and after the hand. */
  function renderPaytableLine(deciding) {
    var last = state.last && state.last.state === "settled" ? mySeatIn(state.last) : null;
    var seat = deciding || last;
    var key = seat ? (seat.paytable_line ? seat.paytable_line.split(":")[1] : seat.category) : null;
    document.querySelectorAll(".paytable tr[data-categories]").forEach(function (row) {
      var lit = !!key && row.dataset.categories.split(" ").indexOf(key) >= 0;
      row.classList.toggle("is-lit", lit);
      if (lit) row.setAttribute("aria-current", "true"); else row.removeAttribute("aria-current");
    });
  }

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
    var hand = liveHand();
    if (!els.commitment) return;
    els.handNo.textContent = hand ? interpolate(gettext("Hand %(hand)s"), { hand: hand.id }, true) : "—";
    els.commitment.textContent = hand ? hand.commitment : "A new hand opens when a player sits down.";
    els.commitment.classList.toggle("note", !hand);
    els.clientSeedShown.textContent = hand && hand.client_seed ? hand.client_seed : gettext("fixed at the deal (the seated players' seeds)");
    els.clientSeedShown.classList.toggle("note", !(hand && hand.client_seed));
  }

  function renderResult() {
    var last = state.last;
    var live = liveHand();
    var mine = last ? mySeatIn(last) : null;
    if (!last || (live && live.state === "decisions" && live.id !== last.id)) {
      els.result.hidden = true;
      state.resultKey = null;
      return;
    }
    var key = JSON.stringify([last.id, last.version, !!mine, !!last.own]);
    if (state.resultKey === key) return;
    state.resultKey = key;
    els.result.hidden = false;
    els.result.className = "result-panel " + (mine ? (C.cents(mine.net) > 0 ? "is-win" : C.cents(mine.net) < 0 ? "is-loss" : "is-even") : "");
    els.resultTitle.textContent = interpolate(last.state === "cancelled" ? gettext("Hand %(hand)s cancelled") : gettext("Hand %(hand)s settled"), { hand: last.id }, true);
    var body = [];
    if (mine) {
      body.push(h("ul", { class: "explain" }, (mine.explanation || []).map(function (t) { return h("li", { text: t }); })));
      els.resultLink.href = config.handPage + last.id + "/";
      els.resultLink.hidden = false;
    } else {
      var dealer = last.dealer || {};
      body.push(h("p", { text: interpolate(!dealer.category ? gettext("Dealer: %(hand)s") : dealer.qualified ? gettext("Dealer: %(hand)s, qualified.") : gettext("Dealer: %(hand)s, did not qualify."), { hand: handName(dealer) || "—" }, true) }));
      els.resultLink.hidden = true;
    }
    var rows = last.seats.map(function (s) {
      return h("tr", null,
        h("th", { scope: "row", text: interpolate(gettext("Seat %(seat)s · %(player)s"), { seat: s.seat, player: s.player }, true) }),
        h("td", { text: capital(handName(s)) || "—" }),
        h("td", { text: s.decision_label ? gettext(s.decision_label) + (s.decided_by_timeout ? " " + gettext("(time ran out)") : "") : "—" }),
        h("td", { class: "num " + (C.cents(s.net) > 0 ? "up" : C.cents(s.net) < 0 ? "down" : ""), text: s.net !== null && s.net !== undefined ? C.moneyText(s.net, true) : "—" }));
    });
    body.push(h("table", { class: "data-table compact" },
      h("caption", { class: "visually-hidden", text: gettext("Every seat's result") }),
      h("thead", null, h("tr", null, h("th", { scope: "col", text: gettext("Seat") }), h("th", { scope: "col", text: gettext("Hand") }),
        h("th", { scope: "col", text: gettext("Decision") }), h("th", { scope: "col", class: "num", text: gettext("Net") }))),
      h("tbody", null, rows)));
    els.resultBody.replaceChildren.apply(els.resultBody, body);
  }

  /* --- the time bank ---------------------------------------------------------------- */

  function activeDeadline() {
    var hand = liveHand();
    if (!hand) return null;
    if (hand.state === "betting") {
      var d = hand.betting_deadline || state.bettingDeadlines[hand.id];
      return d ? { at: Date.parse(d), label: mySeatIn(hand) || !myTableSeat() ? gettext("Betting closes in") : gettext("Place your bet within"), key: "b" + hand.id } : null;
    }
    if (hand.state === "decisions") {
      var mine = mySeatIn(hand);
      if (mine && !mine.decision && (mine.decision_deadline || hand.decision_deadline)) {
        var at = Date.parse(mine.decision_deadline || hand.decision_deadline);
        var extended = hand.decision_deadline && at > Date.parse(hand.decision_deadline) + 1000;
        return { at: at, label: extended ? gettext("Extra time (you hold a pair or better):") : gettext("Decide within"), key: "d" + hand.id + ":" + at, mine: true };
      }
      if (hand.decision_deadline) {
        var shared = Date.parse(hand.decision_deadline);
        if (now() < shared + EXTRA_GRACE_MS) return { at: shared, label: gettext("Players decide within"), key: "d" + hand.id };
        /* past the table's deadline a seat still deciding has its extension (see seatDeadline) */
        return { at: shared + config.extensionSeconds * 1000, label: gettext("Extra time for the players still deciding:"), key: "x" + hand.id };
      }
    }
    return null;
  }

  function tick() {
    tickSeats();
    var d = activeDeadline();
    if (!d || isNaN(d.at)) {
      els.timer.hidden = true;
      return;
    }
    var left = Math.max(0, d.at - now());
    // Never trust a push alone: a deadline shown as passed for more than a moment means
    // an event was missed (a dropped socket, a server restart); ask for the state again.
    if (d.at - now() < -1500 && (!state.staleAskedAt || Date.now() - state.staleAskedAt > 3000)) {
      state.staleAskedAt = Date.now();
      requestSnapshot("deadline");
    }
    if (!state.deadlineStart[d.key]) state.deadlineStart[d.key] = Math.max(left, 1000);
    var seconds = Math.ceil(left / 1000);
    els.timer.hidden = false;
    els.timer.classList.toggle("is-urgent", seconds <= 5);
    els.timer.classList.toggle("is-mine", !!d.mine);
    els.timerLabel.textContent = d.label;
    els.timerValue.textContent = seconds + " s";
    els.timerBar.style.width = Math.min(100, (left / state.deadlineStart[d.key]) * 100) + "%";
  }

  /* Every seat's own clock on the felt: the betting window for a seated player who has not
     bet, the decision time for a seat still deciding. A seat's extension is private (it
     would tell the table the seat holds a pair): your own seat shows yours as soon as you
     have it; another seat's shows only once the table's deadline has passed with that seat
     still deciding, which everyone sees anyway, and counts down the table's extension. */
  var EXTRA_GRACE_MS = 2000;
  function seatDeadline(n, hand) {
    var tableSeat = state.table.seats.filter(function (s) { return s.seat === n; })[0];
    if (!hand || !tableSeat || !tableSeat.player) return null;
    var handSeat = hand.seats.filter(function (s) { return s.seat === n; })[0];
    if (hand.state === "betting") {
      var closes = hand.betting_deadline || state.bettingDeadlines[hand.id];
      return !handSeat && closes ? { at: Date.parse(closes), label: gettext("to bet") } : null;
    }
    if (hand.state !== "decisions" || !handSeat || handSeat.decision || !hand.decision_deadline) return null;
    var shared = Date.parse(hand.decision_deadline);
    if (handSeat.is_you && handSeat.decision_deadline) {
      var own = Date.parse(handSeat.decision_deadline);
      return own > shared + 1000 ? { at: own, label: gettext("extra time"), extra: true } : { at: own, label: gettext("to decide") };
    }
    if (now() < shared + EXTRA_GRACE_MS) return { at: shared, label: gettext("to decide") };
    return { at: shared + config.extensionSeconds * 1000, label: gettext("extra time"), extra: true };
  }

  function tickSeats() {
    var hand = liveHand();
    els.seats.querySelectorAll("[data-seat-timer]").forEach(function (el) {
      var n = Number(el.dataset.seatTimer);
      var d = seatDeadline(n, hand);
      if (!d || isNaN(d.at)) { el.hidden = true; return; }
      var seconds = Math.ceil(Math.max(0, d.at - now()) / 1000);
      el.hidden = false;
      el.classList.toggle("is-urgent", seconds <= 5);
      el.classList.toggle("is-extra", !!d.extra);
      el.querySelector(".seat-timer-label").textContent = d.extra ? "Extra time" : "";
      el.querySelector(".seat-timer-value").textContent = seconds + " s";
      el.setAttribute("aria-label", interpolate(gettext("Seat %(seat)s: %(seconds)s seconds %(what)s"), { seat: n, seconds: seconds, what: d.label }, true));
    });
  }

  /* --- messages from the server ----------------------------------------------------- */

  /* The server's own view of the hand for this player (not the table's), whose seat it marks as yours. */
  function isOwnView(view) { return view.own !== undefined ? view.own : view.seats.some(function (s) { return s.is_you; }); }

  /* The last settled hand. The table hears the public result; the player's own view of it
     (its lines spoken to "you") follows on the player's channel and is kept over it. */
  function setLast(view) {
    if (!view || (state.last && state.last.id > view.id)) return;
    if (state.last && state.last.id === view.id && isOwnView(state.last) && !isOwnView(view)) return;
    var fresh = !state.last || state.last.id !== view.id;
    view = JSON.parse(JSON.stringify(view));
    view.own = isOwnView(view);
    view.seats.forEach(function (s) { if (s.player === config.username) s.is_you = true; });
    state.last = view;
    if (fresh) rememberResult(view);
  }

  function acceptHand(view) {
    if (!view || view.table !== state.table.id) return;
    if (view.state === "settled" || view.state === "cancelled") {
      setLast(view);
      if (state.table.hand && state.table.hand.id === view.id) state.table.hand = null;
      return;
    }
    var live = state.table.hand;
    if (!live || view.id > live.id || (view.id === live.id && view.version >= live.version)) state.table.hand = view;
  }

  function onMessage(msg) {
    switch (msg.type) {
      case "snapshot":
        state.snapshotAskedAt = 0;
        if (msg.server_time) state.offset = Date.parse(msg.server_time) - Date.now();
        var previous = state.table.hand;
        state.table = msg.table;
        if (previous && (!msg.table.hand || msg.table.hand.id !== previous.id) && !(state.last && state.last.id >= previous.id)) {
          fetchResult(previous.id);
        }
        if (msg.wallet) state.wallet = msg.wallet;
        break;
      case "hand":
        acceptHand(msg.hand);
        break;
      case "wallet":
        if (msg.wallet) state.wallet = msg.wallet;
        break;
      case "event":
        onEvent(msg.event || {});
        break;
      case "ack":
      case "error":
        var pending = msg.id !== null && msg.id !== undefined ? state.pending[msg.id] : null;
        if (pending) {
          delete state.pending[msg.id];
          clearTimeout(pending.timer);
          if (msg.type === "ack") pending.resolve(msg);
          else pending.reject(msg);
        } else if (msg.type === "error") {
          showError(msg.message || gettext("Something went wrong."));
        }
        break;
      case "pong":
        if (msg.server_time) state.offset = Date.parse(msg.server_time) - Date.now();
        break;
    }
    render();
  }

  /* --- applying the table's events to the page's copy -------------------------------- */

  function tableSeat(n) { return state.table.seats.filter(function (s) { return s.seat === n; })[0] || null; }

  /* A public event of the live hand moves its version by one: an older one was already
     applied (it came with a snapshot), a jump means one was missed. */
  function inStep(event) {
    var live = liveHand();
    if (!live || live.id !== event.hand) {
      /* A hand that is over here already: the player's own view of its result can come
         before the table's last events of it (the player's channel is served first). */
      if ((live && event.hand < live.id) || (state.last && event.hand <= state.last.id)) return false;
      requestSnapshot("unknown hand: " + event.kind + " of hand " + event.hand + (live ? ", the page's is " + live.id : ", none at the page"));
      return false;
    }
    if (typeof event.version !== "number") return true;
    if (event.version <= live.version) return false;
    if (event.version > live.version + 1) { requestSnapshot("gap"); return false; }
    live.version = event.version;
    return true;
  }

  function emptySeat(n, event) {
    var sitter = tableSeat(n);
    var player = sitter ? sitter.player : null;
    return {
      seat: n, player: player, is_you: player === config.username, ante: event.ante, jackpot_bet: event.jackpot_bet,
      raise: "0.00", decision: null, decided_by_timeout: false, decision_deadline: null, cards: [], category: null,
      category_label: null, hand_name: null, winning_cards: null, outcome: null, paytable_line: null, ante_return: null,
      raise_return: null, jackpot_win: null, net: null, decision_label: null, outcome_label: null, explanation: []
    };
  }

  function onEvent(event) {
    var live = liveHand();
    switch (event.kind) {
      case "jackpot.changed":
        state.table.jackpot_meter = event.meter;
        C.setMeter(event.pool, event.meter);
        return;
      case "seat.changed":
        var sitter = tableSeat(event.seat);
        if (!sitter) { requestSnapshot("unknown seat"); return; }
        sitter.player = event.player;
        sitter.is_you = event.player === config.username;
        state.table.free_seats = state.table.seats.filter(function (s) { return !s.player; }).map(function (s) { return s.seat; });
        return;
      case "hand.opened":
        if (live && live.id === event.hand) { /* the same hand, announced again with new limits */
          state.table.min_ante = live.min_ante = event.min_ante;
          state.table.max_ante = live.max_ante = event.max_ante;
          return;
        }
        if (live && live.id > event.hand) return;
        if (live) { fetchResult(live.id); }
        state.table.min_ante = event.min_ante;
        state.table.max_ante = event.max_ante;
        state.table.hand = {
          id: event.hand, table: state.table.id, nonce: event.nonce, state: "betting",
          version: typeof event.version === "number" ? event.version : 0, commitment: event.commitment,
          server_seed: null, client_seed: null, min_ante: event.min_ante, max_ante: event.max_ante,
          betting_deadline: state.bettingDeadlines[event.hand] || null, decision_deadline: null, dealt_at: null,
          settled_at: null, dealer: { cards: [], up_card: null, category: null, qualified: null, hand_name: null, winning_cards: null },
          seats: []
        };
        return;
      case "betting.closes":
        state.bettingDeadlines[event.hand] = event.deadline;
        if (live && live.id === event.hand) live.betting_deadline = event.deadline;
        return;
      case "bet.placed":
        if (!inStep(event)) return;
        if (!tableSeat(event.seat) || !tableSeat(event.seat).player) { requestSnapshot("unknown seat"); return; }
        live.seats = live.seats.filter(function (s) { return s.seat !== event.seat; }).concat([emptySeat(event.seat, event)]);
        live.seats.sort(function (a, b) { return a.seat - b.seat; });
        return;
      case "hand.dealt":
        if (!inStep(event)) return;
        live.state = "decisions";
        live.betting_deadline = null;
        live.decision_deadline = event.decision_deadline;
        live.dealer.up_card = event.dealer_up_card;
        if (!event.dealer_cards) { requestSnapshot("no dealer cards"); return; }
        live.dealer.cards = event.dealer_cards;
        live.seats = live.seats.filter(function (s) { return event.seats.indexOf(s.seat) >= 0; });
        live.seats.forEach(function (s) {
          if (!s.cards.length) s.cards = new Array(event.cards_each).fill(null);
          if (s.is_you) s.decision_deadline = event.decision_deadline;
        });
        return;
      case "decision.made":
        if (!inStep(event)) return;
        var seat = live.seats.filter(function (s) { return s.seat === event.seat; })[0];
        if (!seat) { requestSnapshot("unknown seat"); return; }
        seat.decision = event.decision;
        seat.decision_label = event.decision_label || null;
        seat.decided_by_timeout = !!event.by_timeout;
        seat.decision_deadline = null;
        if (event.raise) seat.raise = event.raise;
        return;
      case "hand.settled":
      case "hand.cancelled":
        if (event.result) {
          setLast(event.result);
          if (live && live.id === event.hand) state.table.hand = null;
        } else {
          fetchResult(event.hand);
          requestSnapshot("no result");
        }
        return;
    }
  }

  function fetchResult(handId) {
    if (!config.isPlayer) return;
    C.getJSON(config.api.handBase + handId + "/").then(function (view) {
      if (view && (view.state === "settled" || view.state === "cancelled")) {
        setLast(view);
        render();
      }
    }).catch(function () { /* not our hand: nothing to explain */ });
  }

  /* --- the socket ------------------------------------------------------------------- */

  function setConn(stateName, text) {
    els.conn.dataset.state = stateName;
    els.connText.textContent = text;
  }

  function connect() {
    if (state.stopped) return;
    var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + config.wsPath;
    var ws;
    try {
      ws = new WebSocket(url);
    } catch (e) {
      scheduleReconnect();
      return;
    }
    state.ws = ws;
    setConn("connecting", gettext("Connecting…"));
    ws.onopen = function () {
      state.wsOpen = true;
      state.retries = 0;
      stopPolling();
      setConn("live", gettext("Live"));
    };
    ws.onmessage = function (e) {
      var msg;
      try { msg = JSON.parse(e.data); } catch (err) { return; }
      onMessage(msg);
    };
    ws.onclose = function (e) {
      var wasOpen = state.wsOpen;
      state.wsOpen = false;
      state.ws = null;
      Object.keys(state.pending).forEach(function (id) {
        var p = state.pending[id];
        clearTimeout(p.timer);
        p.reject({ message: gettext("The connection dropped before the table answered. Check the table before you try again.") });
      });
      state.pending = {};
      /* 4401 and 4404 are final (docs/websocket.md): say so and stop reconnecting. */
      if (e.code === 4401) {
        state.stopped = true;
        stopPolling();
        setConn("offline", gettext("Session ended"));
        showError(gettext("Your session has ended: sign in again."));
        return;
      }
      if (e.code === 4404) {
        state.stopped = true;
        stopPolling();
        setConn("offline", gettext("No such table"));
        showError(gettext("There is no such table. Go back to the lobby to choose one."));
        return;
      }
      startPolling();
      scheduleReconnect(wasOpen);
    };
  }

  function scheduleReconnect(wasOpen) {
    if (state.stopped) return;
    var delay = Math.min(15000, 500 * Math.pow(2, state.retries)) * (0.75 + Math.random() * 0.5);
    if (wasOpen) delay = 300;
    state.retries += 1;
    setConn("offline", interpolate(gettext("Reconnecting in %(seconds)s s…"), { seconds: Math.ceil(delay / 1000) }, true));
    setTimeout(connect, delay);
  }

  function send(message) {
    if (state.wsOpen && state.ws) state.ws.send(JSON.stringify(message));
  }

  /* A fresh snapshot, when the page cannot trust its copy; one at a time. */
  function requestSnapshot(reason) {
    if (state.snapshotAskedAt && Date.now() - state.snapshotAskedAt < 2000) return;
    state.snapshotAskedAt = Date.now();
    state.snapshotReasons.push(reason); /* why the page stopped trusting its copy (read by the browser tests) */
    if (state.wsOpen) send({ action: "snapshot" });
    else refreshByRest().then(function () { state.snapshotAskedAt = 0; });
  }

  /* While the socket is down: the same state from the REST API, every few seconds. */
  function refreshByRest() {
    var jobs = [C.getJSON(config.api.table).then(function (view) { onMessage({ type: "snapshot", table: view, wallet: null }); })];
    if (config.isPlayer) jobs.push(C.getJSON(config.api.wallet).then(function (w) { onMessage({ type: "wallet", wallet: w }); }));
    return Promise.all(jobs).catch(function () { /* the next poll tries again */ });
  }

  function startPolling() {
    if (state.pollTimer) return;
    state.pollTimer = setInterval(refreshByRest, 3000);
  }

  function stopPolling() {
    if (state.pollTimer) clearInterval(state.pollTimer);
    state.pollTimer = null;
  }

  /* --- the player's actions --------------------------------------------------------- */

  function act(action, payload) {
    payload = payload || {};
    clearError();
    if (state.wsOpen) {
      if (action === "fold" || action === "raise") {
        /* A decision names its hand: a late resend can never land on the next hand. */
        var current = liveHand();
        if (!current) return Promise.reject({ message: gettext("No hand is being played.") });
        payload = Object.assign({ hand_id: current.id }, payload);
      }
      var id = "c" + ++seq;
      return new Promise(function (resolve, reject) {
        var timer = setTimeout(function () {
          delete state.pending[id];
          reject({ message: gettext("The table did not answer in time. Check your connection.") });
        }, 10000);
        state.pending[id] = { resolve: resolve, reject: reject, timer: timer };
        send(Object.assign({ action: action, id: id }, payload));
      }); /* what the action changed comes as events (sit and leave: with a snapshot) */
    }
    var hand = liveHand();
    var url = {
      sit: config.api.sit, leave: config.api.leave, bet: config.api.bet,
      fold: hand ? config.api.handBase + hand.id + "/fold/" : null,
      raise: hand ? config.api.handBase + hand.id + "/raise/" : null
    }[action];
    if (!url) return Promise.reject({ message: gettext("No hand is being played.") });
    return C.post(url, payload).then(function (result) { refreshByRest(); return result; });
  }

  function run(action, payload, onError, onDone) {
    if (state.busy) return;
    state.busy = true;
    render();
    act(action, payload)
      .then(function (result) { if (onDone) onDone(result); })
      .catch(function (error) {
        showError((error && error.message) || gettext("That did not work."));
        if (onError) onError(error);
      })
      .then(function () { state.busy = false; render(); });
  }

  function doSit(seatNumber) {
    var payload = {};
    if (seatNumber) payload.seat = seatNumber;
    var seed = els.clientSeed ? els.clientSeed.value.trim() : "";
    if (seed) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(seed)) {
        showError("A client seed is 1 to 64 letters, digits, '-' or '_'.");
        els.clientSeed.focus();
        return;
      }
      payload.client_seed = seed;
    }
    run("sit", payload);
  }

  function showError(message) {
    els.errors.textContent = message;
    els.errors.hidden = false;
  }

  function clearError() {
    els.errors.textContent = "";
    els.errors.hidden = true;
  }

  if (config.isPlayer) {
    els.btnSit.addEventListener("click", function () { doSit(null); });
    els.btnLeave.addEventListener("click", function () { run("leave"); });
    els.btnFold.addEventListener("click", function () { run("fold"); });
    els.btnRaise.addEventListener("click", function () { run("raise"); });
    els.ante.addEventListener("input", renderControls);
    els.jackpot.addEventListener("change", renderControls);
    els.betForm.addEventListener("submit", function (e) {
      e.preventDefault();
      var ante = anteCents();
      var min = C.cents(state.table.min_ante), max = C.cents(state.table.max_ante);
      if (ante === null || ante < min || ante > max) {
        showError(interpolate(gettext("The ante at this table is %(min)s to %(max)s, in whole cents."), { min: C.moneyText(state.table.min_ante), max: C.moneyText(state.table.max_ante) }, true));
        els.ante.setAttribute("aria-invalid", "true");
        els.ante.focus();
        return;
      }
      els.ante.removeAttribute("aria-invalid");
      placeBet(els.ante.value.trim(), els.jackpot.checked, false);
    });
    if (els.chips) els.chips.addEventListener("click", function (e) {
      var chip = e.target.closest("button[data-chip]");
      if (!chip || chip.disabled) return;
      els.ante.value = chip.dataset.chip;
      els.ante.removeAttribute("aria-invalid");
      renderControls();
    });
    if (els.btnRepeat) els.btnRepeat.addEventListener("click", function () {
      if (state.lastBet) placeBet(state.lastBet.ante, state.lastBet.jackpot, false);
    });
    if (els.autoRebet) {
      els.autoRebet.checked = autoRebetWanted();
      els.autoRebet.addEventListener("change", function () {
        setAutoRebet(els.autoRebet.checked);
        if (els.autoRebet.checked) { clearError(); var live = liveHand(); if (live) delete state.autoBetOn[live.id]; renderControls(); }
      });
    }
    /* Focus is kept in the control area only while the player works there. */
    document.addEventListener("focusin", function (e) { state.controlFocus = els.controls.contains(e.target); });
    document.addEventListener("pointerdown", function (e) { state.controlFocus = els.controls.contains(e.target); });
  }
  state.lastBet = (state.recent.filter(function (r) { return r.table === state.table.id && r.ante; })[0] || null);
  if (state.lastBet) state.lastBet = { ante: state.lastBet.ante, jackpot: C.cents(state.lastBet.jackpot_bet) > 0 };

  /* After a reload: the result of this table's previous hand, if it was the player's. */
  function loadPreviousResult() {
    var live = liveHand();
    if (!config.isPlayer || !live || live.state !== "betting") return;
    C.getJSON(config.api.handBase + "?limit=1").then(function (page) {
      var row = page && page.results && page.results[0];
      if (row && row.table === state.table.id && row.nonce === live.nonce - 1) fetchResult(row.id);
    }).catch(function () { /* no history: nothing to show */ });
  }

  setInterval(tick, 250);
  setInterval(function () { send({ action: "ping" }); }, 25000);
  render();
  loadPreviousResult();
  if ("WebSocket" in window) connect();
  else startPolling();
  window.CasinoTable = { state: state };
})();
