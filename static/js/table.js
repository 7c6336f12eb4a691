/* The live table: draws the table_view from the server, sends the player's actions.
 *
 * Updates come over the websocket /ws/tables/<id>/ (snapshot, public events, the private
 * hand view, the wallet). After any event the client asks for a fresh snapshot and draws
 * from it, so the page is always what the server says. Actions go over the socket when it
 * is open (with an id, answered by ack or error) and over the REST API otherwise; while
 * the socket is down the page polls the REST API and reconnects with exponential backoff.
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
    seatSeed: $("fair-seat-seed")
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
    seatKeys: {}
  };
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
    return handSeat.hand_name || (handSeat.category ? C.categoryLabel(handSeat.category).toLowerCase() : "");
  }
  function capital(text) { return text ? text.charAt(0).toUpperCase() + text.slice(1) : text; }
  function withArticle(name) {
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
    C.setMeter(config.pool, state.table.jackpot_meter);
    tick();
  }

  function seatStatus(handSeat, hand) {
    if (!handSeat) return "";
    if (hand.state === "settled" || hand.state === "cancelled") {
      var label = capital(handName(handSeat));
      var outcome = {
        win: "Won", lose: "Lost", push: "Push", fold: "Folded", dealer_not_qualified: "Dealer did not qualify",
        cancelled: "Cancelled"
      }[handSeat.outcome] || "";
      var net = handSeat.net !== null && handSeat.net !== undefined ? " " + C.moneyText(handSeat.net, true) : "";
      return [label, outcome].filter(Boolean).join(" · ") + net;
    }
    if (hand.state === "decisions") {
      if (handSeat.decision === "raise") return "Raised " + C.moneyText(handSeat.raise) + (handSeat.decided_by_timeout ? " (time ran out)" : "");
      if (handSeat.decision === "fold") return "Folded" + (handSeat.decided_by_timeout ? " (time ran out)" : "");
      return (handSeat.is_you && handName(handSeat) ? capital(handName(handSeat)) + " · " : "") + "Deciding…";
    }
    return "Ante in";
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
      li.setAttribute("aria-label", "Seat " + n + (tableSeat.player ? ", " + tableSeat.player + (tableSeat.is_you ? " (you)" : "") : ", empty"));

      var plate = h("div", { class: "seat-plate" },
        h("span", { class: "seat-no", text: "Seat " + n }),
        h("span", { class: "seat-name", text: tableSeat.player || "Empty seat" }),
        tableSeat.is_you ? h("span", { class: "badge badge-gold", text: "You" }) : null);

      var spots = h("div", { class: "spots" },
        h("div", { class: "spot spot-ante" }, h("span", { class: "spot-label", "aria-hidden": "true", text: "Ante" }),
          handSeat ? C.chip("ante", "Ante", C.moneyText(handSeat.ante)) : null),
        h("div", { class: "spot spot-jackpot" }, h("span", { class: "spot-label", "aria-hidden": "true", text: "JP" }),
          handSeat && C.cents(handSeat.jackpot_bet) > 0 ? C.chip("jackpot", "Jackpot chip", C.moneyText(handSeat.jackpot_bet)) : null),
        h("div", { class: "spot spot-raise" }, h("span", { class: "spot-label", "aria-hidden": "true", text: "Raise" }),
          handSeat && C.cents(handSeat.raise) > 0 ? C.chip("raise", "Raise", C.moneyText(handSeat.raise)) : null));

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
      var sitHere = null;
      if (!tableSeat.player && config.isPlayer && phase() === "standing") {
        sitHere = h("button", { type: "button", class: "btn btn-small", dataset: { sitSeat: String(n) }, text: "Sit here",
          "aria-label": "Sit in seat " + n, onclick: function () { doSit(n); } });
      }
      li.replaceChildren(plate, spots, cards, status, sitHere || h("span"));
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
        var c = C.card(code, (animate ? "deal-in " : "") + (round === 4 ? "up-card" : "") +
          (isWinning(hand.dealer, code, hand.state === "settled") ? " is-winning" : ""));
        if (animate) c.style.animationDelay = (round * (n + 1) + n) * 70 + "ms";
        c.setAttribute("role", "listitem");
        c.setAttribute("aria-label", (round === 4 && code ? "up card: " : "") + C.cardName(code));
        return c;
      }));
      if (!cards.length) {
        for (var i = 0; i < 5; i++) els.dealerCards.appendChild(h("span", { class: "card card-slot", "aria-hidden": "true" }));
      }
    }
    if (animate) state.animated[hand.id] = true;
    var text = "";
    if (hand && hand.dealer && hand.dealer.category) {
      text = capital(handName(hand.dealer)) + " — " + (hand.dealer.qualified ? "qualifies" : "does not qualify");
      els.dealerHand.className = "dealer-hand " + (hand.dealer.qualified ? "is-qualified" : "not-qualified");
    } else if (hand && hand.dealer && hand.dealer.up_card) {
      text = "Up card: " + C.cardName(hand.dealer.up_card);
      els.dealerHand.className = "dealer-hand";
    } else {
      text = hand && hand.state === "betting" ? "Place your bets" : "";
      els.dealerHand.className = "dealer-hand";
    }
    els.dealerHand.textContent = text;
  }

  function anteCents() {
    var value = (els.ante && els.ante.value || "").trim();
    if (!/^\d+(\.\d{1,2})?$/.test(value)) return null;
    return C.cents(value);
  }

  function renderControls() {
    if (!config.isPlayer) {
      setPhaseText("You are watching this table. Only players can sit and bet.");
      return;
    }
    var p = phase();
    var app = els.phase.closest(".table-page");
    if (app && app.dataset.phase !== p) app.dataset.phase = p; /* the CSS compacts the controls to the decision */
    var hand = liveHand();
    var seat = myTableSeat();
    var mine = mySeatIn(hand);
    var free = state.table.free_seats.length;

    els.btnSit.hidden = !!seat;
    els.btnSit.disabled = state.busy || !free;
    els.btnSit.textContent = free ? "Sit down" : "Table full";
    if (els.clientSeed) els.clientSeed.closest("details").hidden = !!seat;
    els.btnLeave.hidden = !seat;
    els.btnLeave.disabled = state.busy || !!mine;

    var canBet = p === "betting" && !state.busy;
    els.ante.disabled = p !== "betting";
    els.jackpot.disabled = p !== "betting";
    var ante = anteCents();
    var total = ante === null ? null : ante + (els.jackpot.checked ? C.cents(state.table.jackpot_bet) : 0);
    els.btnBet.disabled = !canBet;
    els.btnBet.textContent = total === null ? "Bet" : "Bet " + C.money(total);
    els.btnBet.setAttribute("aria-label", total === null ? "Bet" : "Bet " + C.money(ante) + " ante" +
      (els.jackpot.checked ? " plus the " + C.moneyText(state.table.jackpot_bet) + " jackpot chip" : ""));

    var deciding = p === "deciding";
    els.btnFold.disabled = !deciding || state.busy;
    els.btnRaise.disabled = !deciding || state.busy;
    var raiseAmount = mine ? C.cents(mine.ante) * 2 : ante !== null ? ante * 2 : null;
    els.btnRaise.textContent = raiseAmount ? "Raise " + C.money(raiseAmount) : "Raise 2× ante";
    els.btnFold.textContent = mine ? "Fold (lose " + C.moneyText(mine.ante) + ")" : "Fold";

    var text = {
      standing: free ? "Take a free seat to play." : "The table is full: you are watching.",
      waiting: "Waiting for the next hand…",
      betting: "Place your ante for hand " + (hand ? hand.id : "") + ".",
      "bet-placed": "Your bet is in. Waiting for the other players…",
      deciding: (mine && handName(mine) ? "You hold " + withArticle(handName(mine)) + ". " : "") + "Fold or raise " + (raiseAmount ? C.money(raiseAmount) : "") + "?",
      decided: mine && mine.decision === "raise" ? "You raised " + C.moneyText(mine.raise) + ". Waiting for the other players…" : "You folded. Waiting for the other players…",
      "sitting-out": "This hand is in play without you; you join the next one."
    }[p] || "";
    setPhaseText(text);
    renderPaytableLine(p === "deciding" || p === "decided" ? mine : null);
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
  }

  function renderFairness() {
    var hand = liveHand();
    if (!els.commitment) return;
    els.handNo.textContent = hand ? "Hand " + hand.id : "—";
    els.commitment.textContent = hand ? hand.commitment : "A new hand opens when a player sits down.";
    els.commitment.classList.toggle("note", !hand);
    els.clientSeedShown.textContent = hand && hand.client_seed ? hand.client_seed : "fixed at the deal (the seated players' seeds)";
    els.clientSeedShown.classList.toggle("note", !(hand && hand.client_seed));
  }

  function explain(hand, seat) {
    var lines = [];
    if (hand.state === "cancelled") return ["The hand was cancelled: every stake went back to your wallet."];
    var dealer = hand.dealer;
    var mine = handName(seat);
    var theirs = handName(dealer);
    var ante = C.cents(seat.ante);
    var raised = C.cents(seat.raise);
    lines.push("Your hand: " + mine + ". Dealer: " + theirs + ", " +
      (dealer.qualified ? "qualified (ace-king or better)." : "did not qualify (needs ace-king or better)."));
    var line = seat.paytable_line || "";
    if (seat.outcome === "fold") {
      lines.push("You folded" + (seat.decided_by_timeout ? " (time ran out)" : "") + ": the ante " + C.money(ante) + " is lost.");
    } else if (seat.outcome === "lose") {
      lines.push("The dealer's " + theirs + " beats your " + mine + ": ante " + C.money(ante) + " and raise " + C.money(raised) + " lost.");
    } else if (seat.outcome === "push") {
      lines.push("A tie with the dealer: ante " + C.money(ante) + " and raise " + C.money(raised) + " returned.");
    } else if (seat.outcome === "win" || seat.outcome === "dealer_not_qualified") {
      lines.push((seat.outcome === "win" ? "You beat the dealer: ante " : "Ante ") + C.money(ante) + " pays 1 to 1 (+" + C.money(ante) + ").");
      if (line) {
        var parts = line.split(":");
        var odds = (hand.paytable[parts[0]] || {})[parts[1]];
        var won = C.cents(seat.raise_return) - raised;
        lines.push("Raise " + C.money(raised) + ": " + C.categoryLabel(parts[1]) + " pays " + odds + " to 1 (" +
          (parts[0] === "qualified" ? "dealer qualified" : "dealer not qualified") + ") (+" + C.money(won) + ").");
      } else {
        lines.push("Raise " + C.money(raised) + " returned (push: the dealer did not qualify).");
      }
    }
    var jackpotBet = C.cents(seat.jackpot_bet);
    if (jackpotBet) {
      var win = C.cents(seat.jackpot_win);
      if (win) lines.push("Jackpot chip " + C.money(jackpotBet) + " wins " + C.money(win) + " (" + mine + ")!");
      else lines.push("Jackpot chip " + C.money(jackpotBet) + ": no prize" + (config.jackpotLowest ? " (" + config.jackpotLowest.toLowerCase() + " or better wins)" : "") + ".");
    }
    if (seat.net !== null && seat.net !== undefined) lines.push("Net: " + C.moneyText(seat.net, true) + ".");
    return lines;
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
    var key = JSON.stringify([last.id, last.version, !!mine]);
    if (state.resultKey === key) return;
    state.resultKey = key;
    els.result.hidden = false;
    els.result.className = "result-panel " + (mine ? (C.cents(mine.net) > 0 ? "is-win" : C.cents(mine.net) < 0 ? "is-loss" : "is-even") : "");
    els.resultTitle.textContent = "Hand " + last.id + (last.state === "cancelled" ? " cancelled" : " settled");
    var body = [];
    if (mine) {
      body.push(h("ul", { class: "explain" }, explain(last, mine).map(function (t) { return h("li", { text: t }); })));
      els.resultLink.href = config.handPage + last.id + "/";
      els.resultLink.hidden = false;
    } else {
      var dealer = last.dealer || {};
      body.push(h("p", { text: "Dealer: " + (handName(dealer) || "—") + (dealer.category ? (dealer.qualified ? ", qualified." : ", did not qualify.") : "") }));
      els.resultLink.hidden = true;
    }
    var rows = last.seats.map(function (s) {
      return h("tr", null,
        h("th", { scope: "row", text: "Seat " + s.seat + " · " + s.player }),
        h("td", { text: capital(handName(s)) || "—" }),
        h("td", { text: ({ raise: "Raised", fold: "Folded" })[s.decision] || "—" }),
        h("td", { class: "num " + (C.cents(s.net) > 0 ? "up" : C.cents(s.net) < 0 ? "down" : ""), text: s.net !== null && s.net !== undefined ? C.moneyText(s.net, true) : "—" }));
    });
    body.push(h("table", { class: "data-table compact" },
      h("caption", { class: "visually-hidden", text: "Every seat's result" }),
      h("thead", null, h("tr", null, h("th", { scope: "col", text: "Seat" }), h("th", { scope: "col", text: "Hand" }),
        h("th", { scope: "col", text: "Decision" }), h("th", { scope: "col", class: "num", text: "Net" }))),
      h("tbody", null, rows)));
    els.resultBody.replaceChildren.apply(els.resultBody, body);
  }

  /* --- the time bank ---------------------------------------------------------------- */

  function activeDeadline() {
    var hand = liveHand();
    if (!hand) return null;
    if (hand.state === "betting") {
      var d = hand.betting_deadline || state.bettingDeadlines[hand.id];
      return d ? { at: Date.parse(d), label: mySeatIn(hand) || !myTableSeat() ? "Betting closes in" : "Place your bet within", key: "b" + hand.id } : null;
    }
    if (hand.state === "decisions") {
      var mine = mySeatIn(hand);
      if (mine && !mine.decision && (mine.decision_deadline || hand.decision_deadline)) {
        var at = Date.parse(mine.decision_deadline || hand.decision_deadline);
        var extended = hand.decision_deadline && at > Date.parse(hand.decision_deadline) + 1000;
        return { at: at, label: extended ? "Extra time (you hold a pair or better):" : "Decide within", key: "d" + hand.id + ":" + at, mine: true };
      }
      if (hand.decision_deadline) return { at: Date.parse(hand.decision_deadline), label: "Players decide within", key: "d" + hand.id };
    }
    return null;
  }

  function tick() {
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
      requestSnapshot();
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

  /* --- messages from the server ----------------------------------------------------- */

  function setLast(view) {
    if (!view || (state.last && state.last.id > view.id)) return;
    view = JSON.parse(JSON.stringify(view));
    view.seats.forEach(function (s) { if (s.player === config.username) s.is_you = true; });
    state.last = view;
  }

  function acceptHand(view) {
    if (!view || view.table !== state.table.id) return;
    if (view.state === "settled" || view.state === "cancelled") {
      setLast(view);
      if (state.table.hand && state.table.hand.id === view.id) state.table.hand = null;
      requestSnapshot();
      return;
    }
    var live = state.table.hand;
    if (!live || view.id > live.id || (view.id === live.id && view.version >= live.version)) state.table.hand = view;
  }

  function onMessage(msg) {
    switch (msg.type) {
      case "snapshot":
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
          showError(msg.message || "Something went wrong.");
        }
        break;
      case "pong":
        if (msg.server_time) state.offset = Date.parse(msg.server_time) - Date.now();
        break;
    }
    render();
  }

  function onEvent(event) {
    switch (event.kind) {
      case "jackpot.changed":
        state.table.jackpot_meter = event.meter;
        C.setMeter(event.pool, event.meter);
        return;
      case "betting.closes":
        state.bettingDeadlines[event.hand] = event.deadline;
        break;
      case "hand.settled":
      case "hand.cancelled":
        if (event.result) setLast(event.result);
        else fetchResult(event.hand);
        break;
    }
    requestSnapshot();
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
    setConn("connecting", "Connecting…");
    ws.onopen = function () {
      state.wsOpen = true;
      state.retries = 0;
      stopPolling();
      setConn("live", "Live");
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
        p.reject({ message: "The connection dropped before the table answered. Check the table before you try again." });
      });
      state.pending = {};
      /* 4401 and 4404 are final (docs/websocket.md): say so and stop reconnecting. */
      if (e.code === 4401) {
        state.stopped = true;
        stopPolling();
        setConn("offline", "Session ended");
        showError("Your session has ended: sign in again.");
        return;
      }
      if (e.code === 4404) {
        state.stopped = true;
        stopPolling();
        setConn("offline", "No such table");
        showError("There is no such table. Go back to the lobby to choose one.");
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
    setConn("offline", "Reconnecting in " + Math.ceil(delay / 1000) + " s…");
    setTimeout(connect, delay);
  }

  function send(message) {
    if (state.wsOpen && state.ws) state.ws.send(JSON.stringify(message));
  }

  function requestSnapshot() {
    if (state.snapshotTimer) return;
    state.snapshotTimer = setTimeout(function () {
      state.snapshotTimer = null;
      if (state.wsOpen) send({ action: "snapshot" });
      else refreshByRest();
    }, 60);
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
        if (!current) return Promise.reject({ message: "No hand is being played." });
        payload = Object.assign({ hand_id: current.id }, payload);
      }
      var id = "c" + ++seq;
      return new Promise(function (resolve, reject) {
        var timer = setTimeout(function () {
          delete state.pending[id];
          reject({ message: "The table did not answer in time. Check your connection." });
        }, 10000);
        state.pending[id] = { resolve: resolve, reject: reject, timer: timer };
        send(Object.assign({ action: action, id: id }, payload));
      }).then(function (ack) { requestSnapshot(); return ack; });
    }
    var hand = liveHand();
    var url = {
      sit: config.api.sit, leave: config.api.leave, bet: config.api.bet,
      fold: hand ? config.api.handBase + hand.id + "/fold/" : null,
      raise: hand ? config.api.handBase + hand.id + "/raise/" : null
    }[action];
    if (!url) return Promise.reject({ message: "No hand is being played." });
    return C.post(url, payload).then(function (result) { refreshByRest(); return result; });
  }

  function run(action, payload) {
    if (state.busy) return;
    state.busy = true;
    render();
    act(action, payload)
      .catch(function (error) { showError((error && error.message) || "That did not work."); })
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
        showError("The ante at this table is " + C.moneyText(state.table.min_ante) + " to " + C.moneyText(state.table.max_ante) + ", in whole cents.");
        els.ante.setAttribute("aria-invalid", "true");
        els.ante.focus();
        return;
      }
      els.ante.removeAttribute("aria-invalid");
      run("bet", { ante: els.ante.value.trim(), jackpot: els.jackpot.checked });
    });
  }

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
