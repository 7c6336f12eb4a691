/* The live poker table: draws the table from the server's events, sends the player's actions.
 *
 * On (re)connect the socket sends a snapshot (poker.selectors.poker_table_view): seats with
 * stacks and up cards, the viewer's own down cards, the pots, whose turn with the deadline
 * and time bank, and the viewer's legal actions. After that the page applies each event to
 * that state and draws it, as the Caribbean table's page does: a public `poker.hand` event
 * carries the hand's public state after the step (its seats, pots, street, whose turn, the
 * legal actions of the player to act, the showdown), a `poker.seat` event one seat; the
 * player's own new down cards come in a `private` message that only their own sockets get.
 * It asks for a snapshot only on (re)connect, when a hand's version skips one (an event
 * missed), when a deadline has passed with no event, and for the rare table-wide change
 * (the waiting list, a cancelled hand). The buttons are exactly the legal actions with their
 * amounts (a slider and a field in spread limit), so it never offers what the server would
 * refuse. Actions go over /ws/poker/<id>/ (answered by ack or error); the seat controls
 * (buy-in, top-up, sit out, leave) are also plain forms.
 */
(function () {
  "use strict";
  var C = window.Casino;
  var h = C.h;
  var config = C.readJSON("poker-config");
  var initial = C.readJSON("poker-initial");
  if (!config || !initial) return;
  C.setSymbol(config.currencySymbol);

  var $ = function (id) { return document.getElementById(id); };
  var els = {
    app: $("poker-app"), conn: $("conn-status"), connText: document.querySelector("#conn-status .conn-text"),
    seats: $("poker-seats"), pots: $("poker-pots"), community: $("poker-community"), street: $("poker-street"),
    phase: $("phase"), errors: $("errors"), timer: $("timer"), timerLabel: $("timer-label"), timerValue: $("timer-value"),
    timerBar: $("timer-bar"), bank: $("time-bank"), log: $("hand-log"), actions: $("poker-actions"), sized: $("sized-action"),
    amount: $("bet-amount"), slider: $("bet-slider"), sizedBtn: $("btn-sized"), sizedHelp: $("sized-help"),
    result: $("result-panel"), resultTitle: $("result-title"), resultBody: $("result-body"), resultLink: $("result-link"),
    resultDetail: $("result-detail"), lastToggle: $("btn-last-hand"),
    handNo: $("fair-hand"), commitment: $("fair-commitment"), seatControls: $("seat-controls"), waiting: $("waiting-list"),
    notice: $("seat-notice"), youLine: $("you-line")
  };

  var STREET_NAMES = {
    seven_stud: { 3: gettext("Third street"), 4: gettext("Fourth street"), 5: gettext("Fifth street"), 6: gettext("Sixth street"), 7: gettext("Seventh street (the river)") },
    five_stud: { 2: gettext("Second street"), 3: gettext("Third street"), 4: gettext("Fourth street"), 5: gettext("Fifth street") },
    soko: { 2: gettext("Second street"), 3: gettext("Third street"), 4: gettext("Fourth street"), 5: gettext("Fifth street") }
  };
  var ACTION_WORDS = {
    bring_in: gettext("brings in"), complete: gettext("completes to"), bet: gettext("bets"), raise: gettext("raises to"), call: gettext("calls"),
    check: gettext("checks"), fold: gettext("folds"), all_in: gettext("is all in for")
  };
  var TIMEOUTS = { timeout_check: "check", timeout_all_in: "all_in", timeout_fold: "fold" };

  var SIZED = { complete: true, bet: true, raise: true };
  var RESULTS_KEPT = 5; /* the table's last hands seen here, one click away */
  var state = {
    view: initial, offset: 0, offsets: [], ws: null, wsOpen: false, retries: 0, stopped: false, pending: {}, busy: false,
    deadlineStart: {}, pollTimer: null, snapshotTimer: null, sizedKind: null, keys: {},
    down: {}, /* hand id -> the viewer's own down cards (from the private messages) */
    log: { hand: null, events: [], names: {} }, /* the hand on the felt: its events so far, its players' names */
    results: [], lastOpen: false, /* the results of the last hands seen here (newest first); the last one shown open */
    noticeFor: null /* a seat control waiting for the server's answer to word its notice */
  };
  var seq = 0;

  /* --- reading the snapshot ------------------------------------------------------- */

  function hand() { return state.view.hand; }
  function you() { return state.view.you; }
  function seatOf(n) { return state.view.seats.filter(function (s) { return s.seat === n; })[0] || null; }
  function nameOf(n) {
    if (state.log.names[n]) return state.log.names[n];
    var s = seatOf(n);
    return s && s.player ? s.player : interpolate(gettext("Seat %(seat)s"), { seat: n }, true);
  }
  function now() { return Date.now() + state.offset; }
  function capital(t) { return t ? t.charAt(0).toUpperCase() + t.slice(1) : t; }
  function streetName(n) {
    var names = STREET_NAMES[state.view.table.game] || {};
    return names[n] || (n ? interpolate(gettext("Street %(number)s"), { number: n }, true) : "");
  }
  function handWords(entry) {
    if (!entry) return "";
    return entry.hand_name || C.categoryLabel(entry.category).toLowerCase();
  }

  /* The legal actions as buttons: [{kind, label, to?, min?, max?, step?}]. Takes either the
     list form ({actions: [{kind, amount | min, max, step}]}) or the engine's legal_as_dict. */
  function choices(legal) {
    if (!legal) return [];
    var out = [];
    if (Array.isArray(legal.actions) && legal.actions.length && typeof legal.actions[0] === "object") {
      legal.actions.forEach(function (a) { out.push(choice(a.kind, a.amount, a.min, a.max, a.step)); });
      return out;
    }
    var order = ["fold", "check", "call", "bring_in", "complete", "bet", "raise", "all_in"];
    var kinds = legal.actions || [];
    order.forEach(function (kind) {
      if (kinds.indexOf(kind) < 0) return;
      var span = legal[kind + "_to"];
      if (kind === "call") out.push(choice(kind, legal.call_amount));
      else if (kind === "bring_in") out.push(choice(kind, legal.bring_in_amount));
      else if (kind === "all_in") out.push(choice(kind, legal.all_in_to));
      else if (span) {
        var lo = C.cents(span[0]), hi = C.cents(span[1]), step = Math.max(1, C.cents(legal.step));
        var count = Math.floor((hi - lo) / step) + 1;
        if (lo === hi || count <= 2) {
          for (var v = lo; v <= hi; v += step) out.push(choice(kind, C.wire(v)));
        } else out.push(choice(kind, null, span[0], span[1], legal.step));
      } else out.push(choice(kind));
    });
    return out;
  }

  function choice(kind, amount, min, max, step) {
    var c = { kind: kind, amount: amount || null, min: min || null, max: max || null, step: step || null };
    var money = amount ? " " + C.moneyText(amount) : "";
    c.label = {
      fold: gettext("Fold"), check: gettext("Check"), call: gettext("Call") + money, bring_in: gettext("Bring in") + money,
      complete: gettext("Complete to") + money, bet: gettext("Bet") + money, raise: gettext("Raise to") + money, all_in: gettext("All in") + money
    }[kind] || kind;
    c.ranged = !!(min && max);
    return c;
  }

  /* --- the hand's log: what happened, said as a dealer says it ---------------------- */

  /* The viewer's seat in the hand on the felt, or null. */
  function mySeatInHand() {
    if (state.log.yourSeat !== undefined) return state.log.yourSeat; /* a past hand's log */
    var me = you();
    var row = me ? seatOf(me.seat) : null;
    return row && row.is_you && row.in_hand ? me.seat : null;
  }

  /* How the clock acted for a seat in this hand ("check", "all_in", "fold"), or null. */
  function timeoutOf(seat) {
    var found = null;
    state.log.events.forEach(function (e) {
      if (e.type === "action" && e.seat === seat && TIMEOUTS[e.action]) found = TIMEOUTS[e.action];
    });
    return found;
  }

  /* A time-out in words. Others hear what happened; the player alone hears what is left of
     their all-in allowance (one a day: a time-out that used it leaves none). */
  function timeoutWords(e) {
    var mine = e.seat === mySeatInHand();
    var what = TIMEOUTS[e.action];
    var words = { name: nameOf(e.seat), amount: C.money(putIn(e)) };
    if (!mine) {
      return interpolate(what === "check" ? gettext("%(name)s's time ran out: %(name)s checks.")
        : what === "all_in" ? gettext("%(name)s's time ran out: all-in protection, %(name)s is all in for the %(amount)s already in.")
        : gettext("%(name)s's time ran out: %(name)s folds."), words, true);
    }
    var me = you();
    var left = !!(me && me.all_in_allowance_left) && timeoutOf(e.seat) !== "all_in";
    words.allowance = left ? gettext("one all-in allowance left today.") : gettext("no all-in allowance left today (one a day).");
    if (what === "check") return interpolate(gettext("Your time ran out: you check; %(allowance)s"), words, true);
    if (what === "all_in") return interpolate(gettext("Your time ran out: your all-in allowance keeps you in for the %(amount)s you put in; %(allowance)s"), words, true);
    return interpolate(gettext("Your time ran out: you fold; %(allowance)s"), words, true);
  }

  /* What the seat of this event had put in this hand before it (cents), from the log. */
  function putIn(event) {
    var total = 0;
    var events = state.log.events;
    for (var i = 0; i < events.length && events[i] !== event; i++) {
      var e = events[i];
      if (e.seat !== event.seat) continue;
      if (e.type === "action") total += C.cents(e.amount);
      else if (e.type === "return") total -= C.cents(e.amount);
    }
    return total;
  }

  /* One event in words, or null for what is not said (antes, cards, turns). */
  function eventWords(e) {
    switch (e.type) {
      case "action":
        if (TIMEOUTS[e.action]) return { text: timeoutWords(e), cls: "is-timeout" };
        if (!ACTION_WORDS[e.action]) return null;
        var amount = e.action === "call" || e.action === "bring_in" || e.action === "bet" ? e.amount
          : e.action === "check" || e.action === "fold" ? null : e.to;
        return { text: nameOf(e.seat) + " " + ACTION_WORDS[e.action] + (amount ? " " + C.moneyText(amount) : "") };
      case "street":
        return { text: streetName(e.street), cls: "is-street" };
      case "community":
        return { text: interpolate(gettext("Community card %(card)s"), { card: C.cardName(e.card) }, true), cls: "is-street" };
      case "return":
        return { text: interpolate(gettext("%(amount)s returned to %(name)s (nobody called it)"), { amount: C.moneyText(e.amount), name: nameOf(e.seat) }, true), cls: "is-return" };
      case "award":
        return { text: winsFrom(nameOf(e.seat), C.moneyText(e.amount), e.pot), cls: "is-won" };
      case "rake":
        return C.cents(e.amount) > 0 ? { text: interpolate(gettext("Rake %(amount)s"), { amount: C.moneyText(e.amount) }, true) } : null;
      default:
        return null;
    }
  }

  function renderLog() {
    if (!els.log) return;
    var lines = [];
    var hd = hand();
    state.log.events.forEach(function (e) {
      if (e.type === "showdown") {
        showdownLines(hd).forEach(function (text) { lines.push({ text: text, cls: "is-showdown" }); });
        return;
      }
      var words = eventWords(e);
      if (words) lines.push(words);
    });
    var key = JSON.stringify([state.log.hand, lines]);
    if (state.keys.log === key) return;
    var sameHand = state.keys.logHand === state.log.hand;
    var drawn = sameHand ? els.log.children.length : 0;
    state.keys.log = key;
    state.keys.logHand = state.log.hand;
    if (!sameHand || drawn > lines.length) { els.log.replaceChildren(); drawn = 0; }
    /* New lines are added (the list is a live region: each is said once); a changed line
       (the allowance words once the player's own view came) is redrawn in place. */
    lines.forEach(function (line, i) {
      var li = els.log.children[i];
      if (!li) { els.log.appendChild(h("li", { class: line.cls || "", text: line.text })); return; }
      if (li.textContent !== line.text) li.textContent = line.text;
      li.className = line.cls || "";
    });
    els.log.scrollTop = els.log.scrollHeight;
  }

  /* The showdown in words: who showed what, who mucked (the page's names, shown hands named). */
  function showdownLines(hd) {
    return ((hd && hd.showdown) || []).map(function (e) {
      return e.shown ? interpolate(gettext("%(name)s shows %(hand)s"), { name: nameOf(e.seat), hand: handWords(e) }, true)
        : interpolate(gettext("%(name)s mucks"), { name: nameOf(e.seat) }, true);
    });
  }

  /* --- drawing -------------------------------------------------------------------- */

  function render() {
    els.app.dataset.toAct = String(!!(you() && you().legal));
    var handId = hand() ? hand().id : null;
    if (els.notice && state.noticeHand !== undefined && state.noticeHand !== handId) els.notice.hidden = true;
    state.noticeHand = handId;
    // "You leave when this hand ends" until the server has stood the player up: then say so.
    if (els.notice && !els.notice.hidden && state.noticeAction === "leave" && !you()) notice("leave");
    renderSeats();
    renderMiddle();
    renderControls();
    renderResult();
    renderLog();
    renderFair();
    tick();
  }

  function cardEl(code, extra, label) {
    var el = C.card(code, extra);
    el.setAttribute("role", "listitem");
    el.setAttribute("aria-label", label || C.cardName(code));
    return el;
  }

  /* "ann wins €4.00 from the main pot" (or side pot 1, 2 …). */
  function winsFrom(name, amount, pot) {
    return interpolate(pot === 0 ? gettext("%(name)s wins %(amount)s from the main pot") : gettext("%(name)s wins %(amount)s from side pot %(pot)s"),
      { name: name, amount: amount, pot: pot }, true);
  }

  function seatStatus(s, hd) {
    if (!s.player) return "";
    var shown = hd && hd.is_over ? (hd.showdown || []).filter(function (e) { return e.seat === s.seat; })[0] : null;
    var won = wonBy(s.seat);
    if (shown && shown.shown) return capital(handWords(shown)) + (won ? " · " + interpolate(gettext("wins %(amount)s"), { amount: C.money(won) }, true) : "");
    if (hd && hd.is_over && won) return interpolate(gettext("Wins %(amount)s"), { amount: C.money(won) }, true);
    var timedOut = hd && s.in_hand ? timeoutOf(s.seat) : null;
    if (s.folded) return timedOut ? gettext("Folded (time ran out)") : gettext("Folded");
    if (s.all_in && s.in_hand) return timedOut === "all_in" ? gettext("All in (time ran out)") : gettext("All in");
    if (s.sitting_out) return gettext("Sitting out");
    if (hd && !hd.is_over && hd.to_act === s.seat) return gettext("To act…");
    if (s.in_hand && C.cents(s.bet) > 0) return interpolate(gettext("Bet %(amount)s"), { amount: C.moneyText(s.bet) }, true);
    if (!s.in_hand && hd && !hd.is_over) return gettext("Joins the next hand");
    return "";
  }

  function wonBy(seat) {
    var hd = hand();
    if (!hd || !hd.is_over) return 0;
    var total = 0;
    (hd.pots || []).forEach(function (p) { total += C.cents((p.shares || {})[String(seat)]); });
    return total;
  }

  function renderSeats() {
    var hd = hand();
    var shownBySeat = {};
    if (hd && hd.is_over) (hd.showdown || []).forEach(function (e) { if (e.shown) shownBySeat[e.seat] = e; });
    state.view.seats.forEach(function (s) {
      var li = els.seats.querySelector('[data-seat="' + s.seat + '"]');
      if (!li) return;
      var toAct = hd && !hd.is_over && hd.to_act === s.seat;
      var key = JSON.stringify([s, toAct, shownBySeat[s.seat] || null, wonBy(s.seat), hd && s.in_hand ? timeoutOf(s.seat) : null]);
      if (state.keys[s.seat] === key) return;
      state.keys[s.seat] = key;
      var classes = ["pseat"];
      if (s.is_you) classes.push("is-you");
      if (!s.player) classes.push("is-empty");
      if (s.folded) classes.push("is-folded");
      if (s.all_in && s.in_hand) classes.push("is-all-in");
      if (s.sitting_out && !s.in_hand) classes.push("is-out"); /* dealt in, the hand is still theirs */
      if (toAct) classes.push("is-to-act");
      if (s.player && wonBy(s.seat) > 0) classes.push("is-winner");
      li.className = classes.join(" ");
      li.setAttribute("aria-label", (s.player
        ? interpolate(s.is_you ? gettext("Seat %(seat)s, %(player)s (you)") : gettext("Seat %(seat)s, %(player)s"), { seat: s.seat, player: s.player }, true)
        : interpolate(gettext("Seat %(seat)s, empty"), { seat: s.seat }, true)) + (toAct ? ", " + gettext("to act") : ""));
      if (toAct) li.setAttribute("aria-current", "true"); else li.removeAttribute("aria-current");

      var plate = h("div", { class: "pseat-plate" },
        h("span", { class: "seat-no", text: interpolate(gettext("Seat %(seat)s"), { seat: s.seat }, true) }),
        h("span", { class: "seat-name", text: s.player || gettext("Empty seat") }),
        s.is_you ? h("span", { class: "badge badge-gold", text: gettext("You") }) : null);
      var stack = s.player ? h("p", { class: "pseat-stack" }, h("span", { class: "visually-hidden", text: gettext("Stack") + " " }), C.moneyText(s.stack)) : null;
      var cards = h("div", { class: "cards pseat-cards", role: "list", "aria-label": interpolate(gettext("%(player)s's cards"), { player: s.player || interpolate(gettext("Seat %(seat)s"), { seat: s.seat }, true) }, true) });
      var shown = shownBySeat[s.seat];
      if (shown) {
        shown.cards.forEach(function (code) {
          var best = shown.best_five && shown.best_five.indexOf(code) >= 0;
          cards.appendChild(cardEl(code, best ? "is-winning" : "", (best ? interpolate(gettext("%(card)s (makes the hand)"), { card: C.cardName(code) }, true) : C.cardName(code))));
        });
      } else if (s.player && (s.in_hand || (s.up && s.up.length))) {
        var down = s.down || [];
        var downCount = s.down_count || 0;
        for (var i = 0; i < downCount; i++) {
          var code = down[i] || null;
          var downCard = cardEl(code, "is-down" + (code ? " is-own-down" : ""), code ? interpolate(gettext("your down card: %(card)s"), { card: C.cardName(code) }, true) : gettext("face-down card"));
          if (code) downCard.appendChild(h("span", { class: "card-down-mark", "aria-hidden": "true", text: gettext("down") }));
          cards.appendChild(downCard);
        }
        (s.up || []).forEach(function (c) { cards.appendChild(cardEl(c, "up-card", interpolate(gettext("up card: %(card)s"), { card: C.cardName(c) }, true))); });
      }
      var bet = s.player && s.in_hand && C.cents(s.bet) > 0 && !(hd && hd.is_over)
        ? h("p", { class: "pseat-bet" }, C.chip("raise", gettext("Bet this street"), C.moneyText(s.bet))) : null;
      var status = h("p", { class: "seat-status", text: seatStatus(s, hd) });
      li.replaceChildren(plate, stack || h("span"), cards, bet || h("span"), status);
    });
  }

  function renderMiddle() {
    var hd = hand();
    var key = JSON.stringify(hd ? [hd.id, hd.street, hd.pot, hd.pots, hd.community, hd.is_over] : null);
    if (state.keys.middle === key) return;
    state.keys.middle = key;
    if (!hd) {
      els.street.textContent = state.view.table.is_open ? gettext("Waiting for players: a hand starts with two.") : gettext("This table is closed.");
      els.pots.replaceChildren();
      els.community.replaceChildren();
      return;
    }
    els.street.textContent = hd.is_over ? interpolate(gettext("Hand %(hand)s is over"), { hand: hd.id }, true)
      : interpolate(gettext("Hand %(hand)s · %(street)s"), { hand: hd.id, street: streetName(hd.street) }, true);
    var pots = [];
    if (hd.is_over && hd.pots && hd.pots.length) {
      hd.pots.forEach(function (p, i) {
        var winners = (p.winners || []).map(nameOf).join(" " + gettext("and") + " ");
        pots.push(h("li", { class: "pot" }, h("span", { class: "pot-label", text: i === 0 ? gettext("Main pot") : interpolate(gettext("Side pot %(number)s"), { number: i }, true) }),
          " ", h("strong", { text: C.moneyText(p.amount) }), winners ? " → " + winners : ""));
      });
    } else {
      pots.push(h("li", { class: "pot" }, h("span", { class: "pot-label", text: gettext("Pot") }), " ", h("strong", { text: C.moneyText(hd.pot) })));
    }
    els.pots.replaceChildren.apply(els.pots, pots);
    if (hd.community) els.community.replaceChildren(h("span", { class: "felt-print", text: gettext("Community card") }), cardEl(hd.community, "up-card", interpolate(gettext("community card: %(card)s"), { card: C.cardName(hd.community) }, true)));
    else els.community.replaceChildren();
  }

  function phaseText() {
    var hd = hand();
    var me = you();
    var t = state.view.table;
    if (!config.isPlayer) return gettext("You are watching this table.");
    if (!me) {
      if (!t.is_open) return gettext("This table is closed.");
      return state.view.seats.some(function (s) { return !s.player; }) ? interpolate(gettext("Buy in for %(amount)s to take a seat."), { amount: C.moneyText(t.buy_in) }, true) : gettext("The table is full: join the waiting list.");
    }
    if (me.legal) {
      var facing = choices(me.legal).filter(function (c) { return c.kind === "call"; })[0];
      return facing ? interpolate(gettext("Your turn: %(choice)s?"), { choice: facing.label.toLowerCase() }, true) : gettext("Your turn.");
    }
    if (me.leaving && hd && !hd.is_over) return gettext("You leave when this hand ends.");
    if (!hd) return me.sitting_out ? gettext("You are sitting out.") : gettext("Waiting for the next hand…");
    if (hd.is_over) return interpolate(gettext("Hand %(hand)s is over. The next one starts shortly."), { hand: hd.id }, true);
    var mine = seatOf(me.seat);
    if (!mine || !mine.in_hand) return gettext("This hand is in play without you; you join the next one.");
    if (mine.folded) return gettext("You folded. Waiting for the hand to end…");
    if (mine.all_in) return gettext("You are all in. Waiting for the hand to end…");
    return hd.to_act ? interpolate(gettext("Waiting for %(name)s…"), { name: nameOf(hd.to_act) }, true) : gettext("Dealing…");
  }

  function renderControls() {
    var text = phaseText();
    if (els.phase.textContent !== text) els.phase.textContent = text;
    if (!config.isPlayer || !els.actions) return;
    var me = you();
    var list = me && me.legal ? choices(me.legal) : [];
    var key = JSON.stringify([list, state.busy, hand() && hand().id]);
    if (state.keys.actions !== key) {
      state.keys.actions = key;
      var hadFocus = els.actions.contains(document.activeElement);
      var buttons = [];
      var ranged = null;
      list.forEach(function (c) {
        if (c.ranged) { ranged = c; return; }
        buttons.push(h("button", {
          type: "button", class: "btn btn-big" + (c.kind === "fold" ? " btn-danger" : ""), disabled: state.busy,
          dataset: { action: c.kind, amount: c.amount || "" }, text: c.label,
          onclick: function () { send_act(c.kind, c.amount); }
        }));
      });
      els.actions.replaceChildren.apply(els.actions, buttons);
      els.actions.hidden = !list.length;
      state.sizedKind = ranged ? ranged.kind : null;
      els.sized.hidden = !ranged;
      if (ranged) {
        var lo = C.cents(ranged.min), hi = C.cents(ranged.max), step = Math.max(1, C.cents(ranged.step));
        els.slider.min = String(lo); els.slider.max = String(hi); els.slider.step = String(step);
        els.amount.min = ranged.min; els.amount.max = ranged.max; els.amount.step = C.wire(step);
        if (!(C.cents(els.amount.value) >= lo && C.cents(els.amount.value) <= hi)) {
          els.amount.value = ranged.min; els.slider.value = String(lo);
        }
        els.sizedHelp.textContent = interpolate(({ bet: gettext("Bet any amount from %(min)s to %(max)s, in steps of %(step)s."),
          raise: gettext("Raise to any amount from %(min)s to %(max)s, in steps of %(step)s."),
          complete: gettext("Complete to any amount from %(min)s to %(max)s, in steps of %(step)s.") })[ranged.kind],
          { min: C.moneyText(ranged.min), max: C.moneyText(ranged.max), step: C.money(step) }, true);
        updateSizedLabel();
        els.sizedBtn.disabled = state.busy;
      }
      /* A new turn takes the focus once (the first action that is not a fold), unless the
         player had moved it elsewhere during this turn. It counts as taken only where it
         landed: buttons drawn disabled while a seat control's answer is awaited take none,
         and the drawing after the answer tries again (else Enter would press that control). */
      var turn = list.length ? hand() && hand().id + ":" + hand().version : null;
      if (!turn) state.focusedTurn = null;
      else if (state.focusedTurn !== turn && (hadFocus || !state.focusedTurn)) {
        var first = els.actions.querySelector("button:not([data-action=fold])") || els.actions.querySelector("button") || els.amount;
        if (first) first.focus({ preventScroll: true });
        if (first && document.activeElement === first) state.focusedTurn = turn;
      }
    }
    renderSeatControls(me);
    renderYouLine(me);
  }

  /* The seated player's own time-out protection: the all-in allowance (one a day) and the
     time bank, from the snapshot's or the private message's `you` (a time-out spends them). */
  function renderYouLine(me) {
    if (!els.youLine) return;
    var text = me ? interpolate(me.all_in_allowance_left
      ? gettext("All-in allowance (time-out protection): one left today. Time bank %(seconds)s s.")
      : gettext("All-in allowance (time-out protection): used, back within 24 hours. Time bank %(seconds)s s."), { seconds: Number(me.time_bank || 0) }, true) : "";
    if (els.youLine.textContent !== text) els.youLine.textContent = text;
    els.youLine.hidden = !me;
  }

  function updateSizedLabel() {
    var value = els.amount.value.trim();
    var ok = /^\d+(\.\d{1,2})?$/.test(value);
    var word = ({ bet: gettext("Bet"), raise: gettext("Raise to"), complete: gettext("Complete to") })[state.sizedKind] || gettext("Bet");
    els.sizedBtn.textContent = word + (ok ? " " + C.moneyText(value) : "");
    els.sizedBtn.dataset.action = state.sizedKind || "";
  }

  function renderSeatControls(me) {
    if (!els.seatControls) return;
    var forms = els.seatControls.querySelectorAll("[data-when]");
    var hd = hand();
    var dealtIn = me && seatOf(me.seat) && seatOf(me.seat).in_hand && hd && !hd.is_over;
    var flags = {
      standing: !me, seated: !!me, "can-top-up": !!(me && me.can_top_up && !dealtIn),
      "sitting-out": !!(me && me.sitting_out), "sitting-in": !!(me && !me.sitting_out)
    };
    forms.forEach(function (f) {
      var show = f.dataset.when.split(" ").every(function (w) { return flags[w]; });
      f.hidden = !show;
    });
    if (me && me.top_up_to) {
      var topUp = els.seatControls.querySelector("[data-top-up-amount]");
      if (topUp) topUp.textContent = C.moneyText(me.top_up_to);
    }
  }

  /* A hand's result as this page saw it: the time-outs and returned bets, the showdown,
     who won which pot, the rake (kept in words, so it outlives the seats' names). */
  function resultOf(hd) {
    var lines = (state.log.hand === hd.id ? state.log.events : []).filter(function (e) {
      return e.type === "return" || (e.type === "action" && TIMEOUTS[e.action]);
    }).map(function (e) { return eventWords(e); });
    showdownLines(hd).forEach(function (text) { lines.push({ text: text }); });
    var won = [];
    (hd.pots || []).forEach(function (p, i) {
      var shares = p.shares || {};
      Object.keys(shares).forEach(function (seat) {
        lines.push({ cls: "won", text: winsFrom(nameOf(Number(seat)), C.moneyText(shares[seat]), i) });
        won.push(interpolate(gettext("%(name)s wins %(amount)s"), { name: nameOf(Number(seat)), amount: C.moneyText(shares[seat]) }, true));
      });
    });
    if (C.cents(hd.rake) > 0) lines.push({ text: interpolate(gettext("Rake %(amount)s"), { amount: C.moneyText(hd.rake) }, true) });
    var me = you();
    var played = !!(me && seatOf(me.seat) && seatOf(me.seat).in_hand);
    return { id: hd.id, lines: lines, summary: won.join(", "), played: played };
  }

  /* The result panel: the hand on the felt once it is over; while the next one is played,
     the last hand's result one click away ("Last hand"), with the hands before it. */
  function renderResult() {
    var hd = hand();
    var current = null;
    if (hd && hd.is_over) {
      current = resultOf(hd);
      state.results = [current].concat(state.results.filter(function (r) { return r.id !== hd.id; })).slice(0, RESULTS_KEPT);
    }
    var shown = current || state.results[0];
    if (!shown) { els.result.hidden = true; state.keys.result = null; return; }
    var open = !!current || state.lastOpen;
    var key = JSON.stringify([shown, open, !!current, state.results]);
    if (state.keys.result === key) return;
    state.keys.result = key;
    els.result.hidden = false;
    els.result.classList.toggle("is-last", !current);
    els.resultTitle.textContent = current ? interpolate(gettext("Hand %(hand)s: who won what"), { hand: shown.id }, true)
      : interpolate(shown.summary ? gettext("Last hand · Hand %(hand)s: %(summary)s") : gettext("Last hand · Hand %(hand)s"), { hand: shown.id, summary: shown.summary }, true);
    els.lastToggle.hidden = !!current;
    els.lastToggle.textContent = open ? gettext("Hide") : gettext("Show");
    els.lastToggle.setAttribute("aria-expanded", String(open));
    els.resultDetail.hidden = !open;
    var body = [h("ul", { class: "explain" }, shown.lines.map(function (w) { return h("li", { class: w.cls || "", text: w.text }); }))];
    var earlier = state.results.filter(function (r) { return r.id !== shown.id; });
    if (earlier.length) {
      body.push(h("p", { class: "result-earlier-title", text: gettext("Before it") }));
      body.push(h("ul", { class: "result-earlier" }, earlier.map(function (r) {
        var text = interpolate(r.summary ? gettext("Hand %(hand)s: %(summary)s") : gettext("Hand %(hand)s"), { hand: r.id, summary: r.summary }, true);
        return h("li", null, r.played && config.handPage ? h("a", { href: config.handPage.replace("0/", r.id + "/"), text: text }) : text);
      })));
    }
    els.resultBody.replaceChildren.apply(els.resultBody, body);
    if (els.resultLink && config.handPage) {
      els.resultLink.href = config.handPage.replace("0/", shown.id + "/");
      els.resultLink.hidden = !shown.played;
    }
  }

  function renderFair() {
    var hd = hand();
    if (!els.commitment) return;
    els.handNo.textContent = hd ? interpolate(gettext("Hand %(hand)s"), { hand: hd.id }, true) : "—";
    els.commitment.textContent = hd ? hd.commitment : gettext("Shown before the antes of the next hand.");
    els.commitment.classList.toggle("note", !hd);
    if (els.waiting) {
      var names = state.view.waiting_list || [];
      els.waiting.textContent = names.length ? names.join(", ") : gettext("Nobody is waiting.");
    }
  }

  /* --- the clock ------------------------------------------------------------------ */

  /* The figures of a turn's clock. The server's deadline is the time to act plus the time
     bank of the player to act (`time_bank_left`), so `leftMs` (to the deadline) holds both:
     the time to act counts down first, then the bank. In whole seconds, rounded up as a
     clock is read; the two figures always add up to the time left to the deadline. */
  function clockFigures(leftMs, bankMs) {
    var total = Math.max(0, Math.ceil(leftMs / 1000));
    var bank = Math.max(0, Math.ceil(bankMs / 1000));
    if (total > bank) return { act: total - bank, bank: bank, usingBank: false };
    return { act: 0, bank: total, usingBank: bank > 0 };
  }

  function tick() {
    var hd = hand();
    if (!hd || hd.is_over || !hd.deadline || !hd.to_act) { els.timer.hidden = true; return; }
    var at = Date.parse(hd.deadline);
    if (isNaN(at)) { els.timer.hidden = true; return; }
    var left = at - now();
    var bank = Math.round(Number(hd.time_bank_left || 0) * 1000);
    var figures = clockFigures(left, bank);
    var key = hd.id + ":" + hd.to_act + ":" + hd.deadline;
    if (!state.deadlineStart[key]) state.deadlineStart[key] = Math.max(left - bank, 1000);
    var mine = you() && you().seat === hd.to_act;
    if (left < -1500 && (!state.staleAt || Date.now() - state.staleAt > 3000)) {
      state.staleAt = Date.now();
      requestSnapshot();
    }
    var shown = figures.usingBank ? figures.bank : figures.act;
    els.timer.hidden = false;
    els.timer.classList.toggle("is-mine", !!mine);
    els.timer.classList.toggle("is-bank", figures.usingBank);
    els.timer.classList.toggle("is-urgent", left <= 5000);
    els.timerLabel.textContent = mine ? (figures.usingBank ? gettext("Your time bank") : gettext("Your time"))
      : interpolate(figures.usingBank ? gettext("%(name)s's time bank") : gettext("%(name)s's time"), { name: nameOf(hd.to_act) }, true);
    els.timerValue.textContent = shown + " s";
    els.timerBar.style.width = Math.max(0, Math.min(100, figures.usingBank ? left / Math.max(bank, 1) * 100
      : (left - bank) / state.deadlineStart[key] * 100)) + "%";
    if (els.bank) els.bank.textContent = figures.usingBank || !figures.bank ? "" : interpolate(gettext("+ time bank %(seconds)s s"), { seconds: figures.bank }, true);
  }

  /* --- the socket ----------------------------------------------------------------- */

  function setConn(name, text) { els.conn.dataset.state = name; els.connText.textContent = text; }

  function accept(view) {
    if (!view || !view.table || view.table.id !== state.view.table.id) return;
    state.view = view;
    var hd = view.hand, mine = view.seats.filter(function (s) { return s.is_you; })[0];
    var names = {};
    view.seats.forEach(function (s) { if (s.in_hand && s.player) names[s.seat] = s.player; });
    state.log = hd ? { hand: hd.id, events: hd.events || [], names: names } : { hand: null, events: [], names: {} };
    if (hd && mine && mine.down) state.down[hd.id] = mine.down;
    var past = view.previous_hand;
    if (past && !state.results.some(function (r) { return r.id === past.id; })) {
      state.results = state.results.concat([pastResult(past)]).slice(0, RESULTS_KEPT);
    }
    if (state.noticeFor) { notice(state.noticeFor); state.noticeFor = null; }
  }

  /* The result of the hand settled before the one being played (a page opened mid-hand):
     read as its own log, with the names and the seat it was played with. */
  function pastResult(past) {
    var current = state.log;
    state.log = { hand: past.id, events: past.events || [], names: past.names || {}, yourSeat: past.your_seat };
    try {
      var result = resultOf(past);
      result.played = past.your_seat !== null && past.your_seat !== undefined;
      return result;
    } finally {
      state.log = current;
    }
  }

  /* A seat's public part of a hand onto its row (the snapshot's own rule: a hand's entry
     counts only while the same player sits there). */
  function applySeats(hd, entries) {
    var bySeat = {};
    (entries || []).forEach(function (e) { bySeat[e.seat] = e; });
    state.view.seats.forEach(function (row) {
      var e = bySeat[row.seat];
      if (e && row.player && e.player === row.player) {
        row.in_hand = true; row.folded = e.folded; row.all_in = e.all_in; row.bet = e.bet; row.in_pot = e.in_pot;
        row.up = e.up; row.down_count = e.down_count; row.stack = e.stack;
        if (row.is_you && state.down[hd.id]) row.down = state.down[hd.id];
        else delete row.down;
      } else {
        row.in_hand = false; row.folded = false; row.all_in = false; row.bet = "0.00"; row.in_pot = "0.00";
        row.up = []; row.down_count = 0; delete row.down;
      }
    });
  }

  /* A `poker.hand` event: apply it when it is the next version of the hand on the page (or a
     new hand's first); an older one is already drawn; a gap asks for the snapshot. */
  function applyHand(ev) {
    var hd = hand(), pub = ev.public;
    if (!pub || ev.state === "cancelled") { requestSnapshot(); return false; }
    if (hd && ev.hand === hd.id) {
      if (ev.version <= hd.version) return false;
      if (ev.version !== hd.version + 1) { requestSnapshot(); return false; }
    } else if (hd && ev.hand < hd.id) {
      return false; /* a late event of a hand already gone from the felt */
    } else if (ev.version !== 0) {
      requestSnapshot(); return false; /* a hand met halfway: its start was missed */
    }
    var next = Object.assign({}, pub.hand);
    Object.keys(state.down).forEach(function (id) { if (Number(id) < next.id) delete state.down[id]; });
    if (state.log.hand !== next.id) { state.log = { hand: next.id, events: [], names: {} }; state.lastOpen = false; }
    state.log.events = state.log.events.concat(ev.events || []);
    (pub.seats || []).forEach(function (e) { state.log.names[e.seat] = e.player; });
    state.view.hand = next;
    state.view.last_hand_id = next.id;
    applySeats(next, pub.seats);
    var me = you();
    if (me) {
      var row = seatOf(me.seat);
      var mineToAct = next.state === "live" && pub.legal && pub.legal.seat === me.seat && row && row.is_you && row.in_hand;
      me.legal = mineToAct ? pub.legal : null;
    }
    return true;
  }

  /* A `poker.seat` event: who sits there, their stack, sitting out. */
  function applySeat(ev) {
    var row = seatOf(ev.seat);
    if (!row) return false;
    var hd = hand();
    if (!ev.player) {
      if (row.is_you) state.view.you = null; /* cashed out (left, stood up) */
      Object.assign(row, { player: null, stack: null, is_you: false, sitting_out: false, in_hand: false, folded: false,
        all_in: false, bet: "0.00", in_pot: "0.00", up: [], down_count: 0 });
      delete row.down;
      return true;
    }
    if (row.player !== ev.player) {
      Object.assign(row, { in_hand: false, folded: false, all_in: false, bet: "0.00", in_pot: "0.00", up: [], down_count: 0 });
      delete row.down;
    }
    row.player = ev.player;
    row.is_you = ev.player === config.username;
    if (!(row.in_hand && hd && !hd.is_over)) row.stack = ev.stack; /* in a live hand the hand's stack is drawn */
    row.sitting_out = !!ev.sitting_out;
    if (row.is_you && you()) you().sitting_out = row.sitting_out;
    else if (row.is_you) requestSnapshot(); /* seated from elsewhere: this page needs its own controls */
    return true;
  }

  /* The player's own change in a hand: their down cards and seat controls (never another's). */
  function applyPrivate(msg) {
    if (msg.table !== state.view.table.id) return false;
    var own = msg.hand, hd = hand();
    if (own) {
      state.down[own.id] = own.down;
      var row = state.view.seats.filter(function (s) { return s.is_you; })[0];
      if (row && hd && hd.id === own.id && row.in_hand) row.down = own.down;
    }
    if (msg.you === null) state.view.you = null;
    else if (msg.you) state.view.you = Object.assign({}, msg.you, { legal: you() ? you().legal : null });
    return true;
  }

  /* The server's clock, from the time stamped on its messages: a stamp is older than its
     arrival by the trip, so each one says the server's clock is at least that far ahead of
     this one; the largest of the last two minutes' is the nearest (a late message alone
     would put the clock behind, and show more time than the server gives). */
  function clockSample(offset) {
    if (isNaN(offset)) return;
    var at = Date.now();
    state.offsets = state.offsets.filter(function (s) { return at - s.at < 120000; });
    state.offsets.push({ at: at, offset: offset });
    state.offset = Math.max.apply(null, state.offsets.map(function (s) { return s.offset; }));
  }

  function onMessage(msg) {
    if (msg.server_time) clockSample(Date.parse(msg.server_time) - Date.now());
    switch (msg.type) {
      case "snapshot":
        accept(msg.view || msg.table_view || msg.snapshot || msg.table);
        break;
      case "private":
        if (!applyPrivate(msg)) return;
        break;
      case "event":
        var ev = msg.event || {};
        var drawn = false;
        if (ev.kind === "poker.hand") drawn = applyHand(ev);
        else if (ev.kind === "poker.seat") drawn = applySeat(ev);
        else requestSnapshot(); /* poker.table: the waiting list, open or closed */
        if (!drawn) return;
        break;
      case "ack":
      case "error":
        var p = msg.id !== null && msg.id !== undefined ? state.pending[msg.id] : null;
        if (p) {
          delete state.pending[msg.id];
          clearTimeout(p.timer);
          if (msg.type === "ack") p.resolve(msg); else p.reject(msg);
        } else if (msg.type === "error") showError(msg.message || gettext("Something went wrong."));
        if (msg.view) accept(msg.view);
        break;
      case "pong":
      case "wallet":
      default:
        return;
    }
    render();
  }

  function connect() {
    if (state.stopped || !("WebSocket" in window)) { startPolling(); return; }
    var ws;
    try { ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + config.wsPath); }
    catch (e) { scheduleReconnect(); return; }
    state.ws = ws;
    setConn("connecting", gettext("Connecting…"));
    ws.onopen = function () {
      state.wsOpen = true; state.retries = 0; stopPolling(); setConn("live", gettext("Live"));
      send({ action: "ping" }); /* its answer is a quick reading of the server's clock */
    };
    ws.onmessage = function (e) { var m; try { m = JSON.parse(e.data); } catch (err) { return; } onMessage(m); };
    ws.onclose = function (e) {
      var wasOpen = state.wsOpen;
      state.wsOpen = false; state.ws = null;
      Object.keys(state.pending).forEach(function (id) {
        clearTimeout(state.pending[id].timer);
        state.pending[id].reject({ message: gettext("The connection dropped before the table answered. Check the table before you try again.") });
      });
      state.pending = {};
      if (e.code === 4401) {
        state.stopped = true; stopPolling();
        setConn("offline", gettext("Session ended"));
        showError(gettext("Your session has ended: sign in again."));
        return;
      }
      if (e.code === 4404) {
        /* The page found the table, the socket did not (no live route for it here): keep the
           table current by polling, and look for the socket again now and then. */
        startPolling();
        setConn("offline", gettext("Updating every few seconds"));
        setTimeout(connect, 30000);
        return;
      }
      startPolling();
      scheduleReconnect(wasOpen);
    };
  }

  function scheduleReconnect(wasOpen) {
    if (state.stopped) return;
    var delay = wasOpen ? 300 : Math.min(15000, 500 * Math.pow(2, state.retries)) * (0.75 + Math.random() * 0.5);
    state.retries += 1;
    setConn("offline", interpolate(gettext("Reconnecting in %(seconds)s s…"), { seconds: Math.ceil(delay / 1000) }, true));
    setTimeout(connect, delay);
  }

  function send(message) { if (state.wsOpen && state.ws) state.ws.send(JSON.stringify(message)); }

  function requestSnapshot() {
    if (state.snapshotTimer) return;
    state.snapshotTimer = setTimeout(function () {
      state.snapshotTimer = null;
      if (state.wsOpen) send({ action: "snapshot" });
      else refreshByRest();
    }, 50);
  }

  function refreshByRest() {
    if (!config.snapshotUrl) return Promise.resolve();
    return C.getJSON(config.snapshotUrl).then(function (view) { accept(view); render(); }).catch(function () {});
  }
  function startPolling() { if (!state.pollTimer) state.pollTimer = setInterval(refreshByRest, 1500); }
  function stopPolling() { if (state.pollTimer) clearInterval(state.pollTimer); state.pollTimer = null; }

  /* --- the player's actions ------------------------------------------------------- */

  function request(action, payload) {
    if (!state.wsOpen) {
      /* Without the socket an action still goes through, over the page's own JSON route. */
      if (action !== "act" || !config.actUrl) return Promise.reject({ message: gettext("Not connected to the table: wait for “Live” and try again.") });
      return C.post(config.actUrl, payload).then(function (view) { accept(view); render(); return view; });
    }
    var id = "p" + ++seq;
    return new Promise(function (resolve, reject) {
      var timer = setTimeout(function () { delete state.pending[id]; reject({ message: gettext("The table did not answer in time.") }); }, 20000);
      state.pending[id] = { resolve: resolve, reject: reject, timer: timer };
      send(Object.assign({ action: action, id: id }, payload || {}));
    });
  }

  function send_act(kind, amount) {
    var hd = hand();
    if (!hd || state.busy) return;
    var payload = { hand_id: hd.id, kind: kind };
    if (amount && SIZED[kind]) payload.amount = amount; /* the street total; other actions name no amount */
    state.busy = true;
    clearError();
    render();
    request("act", payload) /* the step's event draws the result */
      .catch(function (error) { showError((error && error.message) || gettext("That did not work.")); })
      .then(function () { state.busy = false; render(); });
  }

  /* Whether the amount field holds a legal amount: within its bounds, on the chip step. */
  function sizedValid(value) {
    var lo = C.cents(els.amount.min), hi = C.cents(els.amount.max), step = Math.max(1, C.cents(els.amount.step));
    return /^\d+(\.\d{1,2})?$/.test(value) && C.cents(value) >= lo && C.cents(value) <= hi && (C.cents(value) - lo) % step === 0;
  }

  /* A refusal of the amount is taken back as soon as the field holds a legal one. */
  function sizedRefusalCleared() {
    if (els.amount.getAttribute("aria-invalid") === "true" && sizedValid(els.amount.value.trim())) {
      els.amount.removeAttribute("aria-invalid");
      clearError();
    }
  }

  function sizedSubmit(e) {
    e.preventDefault();
    var value = els.amount.value.trim();
    if (!sizedValid(value)) {
      var step = Math.max(1, C.cents(els.amount.step));
      showError(interpolate(gettext("Choose an amount from %(min)s to %(max)s in steps of %(step)s."), { min: C.moneyText(els.amount.min), max: C.moneyText(els.amount.max), step: C.money(step) }, true));
      els.amount.setAttribute("aria-invalid", "true");
      els.amount.focus();
      return;
    }
    els.amount.removeAttribute("aria-invalid");
    send_act(state.sizedKind, C.wire(C.cents(value)));
  }

  /* What a seat control did, said where the form's own page would have flashed it; worded
     from the server's answer (the snapshot that follows the ack), not from the page's guess:
     a leave mid-hand waits for the hand's end only when the server says so. */
  function notice(action) {
    if (!els.notice) return;
    var me = you();
    var text = {
      top_up: gettext("Your stack is topped up to the buy-in."), sit_out: gettext("You sit out from the next hand."),
      sit_in: gettext("You are dealt in from the next hand."),
      leave: me && me.leaving ? gettext("You leave when this hand ends; your stack goes back to your wallet then.")
        : (me ? "" : gettext("You left the table: your stack is back in your wallet."))
    }[action] || "";
    els.notice.textContent = text;
    els.notice.hidden = !text;
    state.noticeAction = action;
  }

  function showError(message) { els.errors.textContent = message; els.errors.hidden = false; }
  function clearError() { els.errors.textContent = ""; els.errors.hidden = true; }

  if (config.isPlayer && els.sized) {
    els.sized.addEventListener("submit", sizedSubmit);
    els.slider.addEventListener("input", function () {
      els.amount.value = C.wire(Number(els.slider.value));
      updateSizedLabel();
      sizedRefusalCleared();
    });
    els.amount.addEventListener("input", function () {
      var v = els.amount.value.trim();
      if (/^\d+(\.\d{1,2})?$/.test(v)) els.slider.value = String(C.cents(v));
      updateSizedLabel();
      sizedRefusalCleared();
    });
    /* The seat controls go over the socket when it is open (no page reload mid-hand); the
       forms post to the page routes otherwise. */
    document.querySelectorAll("form[data-socket-action]").forEach(function (form) {
      form.addEventListener("submit", function (e) {
        if (!state.wsOpen) return;
        e.preventDefault();
        var action = form.dataset.socketAction;
        state.busy = true;
        clearError();
        request(action, {})
          .then(function () { state.noticeFor = action; }) /* said once the answer after the ack (a snapshot) is drawn */
          .catch(function (error) { showError((error && error.message) || gettext("That did not work.")); })
          .then(function () { state.busy = false; render(); });
      });
    });
  }

  if (els.lastToggle) els.lastToggle.addEventListener("click", function () { state.lastOpen = !state.lastOpen; render(); });

  setInterval(tick, 250);
  setInterval(function () { send({ action: "ping" }); }, 25000);
  render();
  connect();
  window.CasinoPoker = { state: state, choices: choices };
})();

/* A poker hand's page: "Verify" recomputes the deck in this browser (static/js/fair.js) and
   checks every card the player saw against its place in the deck. */
(function () {
  "use strict";
  var C = window.Casino;
  var h = C.h;
  var data = C.readJSON("poker-fair");
  var button = document.getElementById("btn-verify");
  var out = document.getElementById("verify-result");
  if (!data || !button || !out || !window.CasinoFair) return;

  function line(ok, text) {
    return h("li", { class: ok ? "ok" : "bad" }, h("span", { class: "mark", "aria-hidden": "true", text: ok ? "\u2714" : "\u2718" }), " " + text);
  }

  button.addEventListener("click", function () {
    button.disabled = true;
    out.dataset.verified = "";
    out.replaceChildren(h("p", { text: gettext("Recomputing the deck…") }));
    var F = window.CasinoFair;
    F.commitmentOf(data.serverSeed).then(function (computed) {
      var commitmentOk = computed === String(data.commitment).toLowerCase();
      return F.shuffledDeck(data.serverSeed, data.clientSeed, data.nonce).then(function (deck) {
        var bad = data.cards.filter(function (c) { return deck[c.pos] !== c.card; });
        var items = [line(commitmentOk, commitmentOk ? gettext("The server seed hashes to the commitment shown before the antes.")
          : interpolate(gettext("The server seed does NOT hash to the commitment (got %(commitment)s)."), { commitment: computed }, true))];
        items.push(line(!bad.length, bad.length
          ? interpolate(gettext("%(bad)s of the %(total)s cards you saw are not where the deck puts them (first: %(card)s at card %(position)s, the deck has %(deck)s)."),
            { bad: bad.length, total: data.cards.length, card: bad[0].card, position: bad[0].pos + 1, deck: deck[bad[0].pos] }, true)
          : interpolate(gettext("All %(total)s cards you saw are exactly where the committed deck puts them."), { total: data.cards.length }, true)));
        var ok = commitmentOk && !bad.length;
        out.dataset.verified = ok ? "match" : "mismatch";
        out.className = "verify-result " + (ok ? "is-ok" : "is-bad");
        out.replaceChildren(
          h("p", { class: "verify-verdict", text: ok ? gettext("Verified: this hand was dealt from the committed deck.") : gettext("Mismatch: this hand does not match its commitment.") }),
          h("ul", { class: "verify-list" }, items),
          h("div", { class: "verify-row" }, h("span", { class: "verify-label", text: gettext("The deck's first cards") }),
            h("span", { class: "cards cards-small", role: "list", "aria-label": gettext("The deck's first cards") },
              deck.slice(0, Math.min(deck.length, (data.cards.length ? data.cards[data.cards.length - 1].pos + 1 : 0))).map(function (code) {
                var c = C.card(code); c.setAttribute("role", "listitem"); return c;
              }))));
      });
    }).catch(function (error) {
      out.dataset.verified = "error";
      out.className = "verify-result is-bad";
      out.replaceChildren(h("p", { text: interpolate(gettext("Could not verify: %(reason)s"), { reason: error && error.message ? error.message : error }, true) }));
    }).then(function () { button.disabled = false; });
  });
  button.disabled = false;  // the page draws it disabled: a click before this script listens did nothing
})();
