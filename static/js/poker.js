// @ts-check
/* The live poker table's page: draws the state (static/js/poker_state.js) and sends the
 * player's actions.
 *
 * Everything the server says goes through `receive`, the player's own changes through
 * `dispatch`: both run the page's pure reducer and draw the state it returns; drawing reads the state through poker_state.js's
 * selectors and touches only the DOM. This file owns what is not the table's state: the
 * socket (reconnects, pings, actions answered by ack or error), the REST fallbacks, the
 * clock's ticking and the controls. The buttons are exactly the legal actions with their
 * amounts (a slider and a field in spread limit), so the page never offers what the
 * server would refuse. Actions go over /ws/poker/<id>/; the seat controls (buy-in,
 * top-up, sit out, leave) are also plain forms.
 *
 * A new way to act (a key, a gesture) needs only `choices(you(state).legal)` for what the
 * player may do now and `act(kind, amount)` to do it; a new thing the player can change on
 * the page is an event of the reducer (poker_state.js's STEPS) sent through `dispatch`.
 * Before the player's turn, the pre-action boxes (check/fold, check, call, call any, fold:
 * poker_state.js's `preactionBoxes`) are toggle buttons; the one ticked is the server's
 * (`you.preaction`), which plays it the moment the turn comes or clears it.
 * The keys are poker_keys.js's `keyAction` (shown on the buttons); the player's turn is
 * noticed by a short sound (switched off per player, remembered in localStorage) and by the
 * tab's title while the tab is hidden.
 */
import * as C from "./common.js";
import { KEY_OF, QUICK_NAME, keyAction, keyLabels, keyRefusal, playTurnTones, quickAmounts, soundKey, soundLabel, tabTitle } from "./poker_keys.js";
import { SIZED, choices, clock, hand, initialState, logLines, nameOf, phaseText, preactionBoxes, reduce, resultPanel, seatOf,
  seatStatus, shownAt, streetName, timeoutOf, waitingText, wonBy, you } from "./poker_state.js";
import { marksFor } from "./seat_marks.js";

const h = C.h;
const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));

/** The page's machinery around the state: the socket, the pending actions, what is drawn. */
const runtime = {
  ws: /** @type {WebSocket|null} */ (null), wsOpen: false, retries: 0, stopped: false,
  /** @type {Record<string, {resolve: (m: any) => void, reject: (m: any) => void, timer: ReturnType<typeof setTimeout>}>} */
  pending: {},
  busy: false, preacting: false, pollTimer: /** @type {ReturnType<typeof setInterval>|null} */ (null),
  snapshotTimer: /** @type {ReturnType<typeof setTimeout>|null} */ (null), staleAt: 0,
  /** @type {Record<string, number>} */
  deadlineStart: {},
  sizedKind: /** @type {string|null} */ (null),
  /** @type {Record<string, any>} */
  keys: {},
  focusedTurn: /** @type {string|null} */ (null),
  noticeFor: /** @type {string|null} */ (null), /* a seat control waiting for the server's answer to word its notice */
  noticeAction: /** @type {string|null} */ (null),
  noticeHand: /** @type {number|null|undefined} */ (undefined),
  lastSized: /** @type {string|null} */ (null), /* the player's last sized amount at this table: a quick amount */
  myTurn: /** @type {boolean|null} */ (null), /* null until the first drawing: a turn found on load is not a new one */
  audio: /** @type {AudioContext|null} */ (null), beeps: 0,
  controlFocus: false, /* the focus was last on a control of the player's (a disabled or removed one drops it) */
  seq: 0
};

/** @param {any} config @param {any} initial */
function start(config, initial) {
  C.setSymbol(config.currencySymbol);
  const els = {
    app: $("poker-app"), conn: $("conn-status"), connText: /** @type {any} */ (document.querySelector("#conn-status .conn-text")),
    seats: $("poker-seats"), pots: $("poker-pots"), community: $("poker-community"), street: $("poker-street"),
    phase: $("phase"), errors: $("errors"), timer: $("timer"), timerLabel: $("timer-label"), timerValue: $("timer-value"),
    timerBar: $("timer-bar"), bank: $("time-bank"), log: $("hand-log"), actions: $("poker-actions"), sized: $("sized-action"),
    amount: $("bet-amount"), slider: $("bet-slider"), sizedBtn: $("btn-sized"), sizedHelp: $("sized-help"),
    result: $("result-panel"), resultTitle: $("result-title"), resultBody: $("result-body"), resultLink: $("result-link"),
    resultDetail: $("result-detail"), lastToggle: $("btn-last-hand"),
    handNo: $("fair-hand"), commitment: $("fair-commitment"), seatControls: $("seat-controls"), waiting: $("waiting-list"),
    notice: $("seat-notice"), youLine: $("you-line"), quick: $("quick-amounts"), controls: $("poker-controls"),
    sound: $("btn-sound"), preactions: $("poker-preactions")
  };
  const baseTitle = document.title;
  const tableName = (document.querySelector(".table-head h1") || { textContent: "" }).textContent || "";
  let state = initialState(initial, config.username);

  /** Every change of the table's state goes through here: the reducer, then its effects.
   * @param {import("./poker_state.js").PokerEvent} event */
  function apply(event) {
    state = reduce(state, event);
    if (state.effects.some((e) => e.type === "snapshot")) requestSnapshot();
  }

  /** A change of the state, drawn. @param {import("./poker_state.js").PokerEvent} event */
  function dispatch(event) {
    apply(event);
    render();
  }

  /** A message from the server (the socket's or a REST answer), now. @param {any} message */
  function receive(message) {
    apply({ type: "message", message, at: Date.now() });
    /* a seat control's notice is worded from the view that answers it */
    if ((message.type === "snapshot" || message.view) && runtime.noticeFor) { notice(runtime.noticeFor); runtime.noticeFor = null; }
    render();
  }

  /* --- drawing ------------------------------------------------------------------ */

  function render() {
    const hd = hand(state), me = you(state);
    els.app.dataset.toAct = String(!!(me && me.legal));
    els.app.dataset.turn = myTurn() && hd ? hd.id + ":" + hd.version : ""; /* which turn of the player's: a tile says it (poker_tile_frame.js) */
    const handId = hd ? hd.id : null;
    if (els.notice && runtime.noticeHand !== undefined && runtime.noticeHand !== handId) els.notice.hidden = true;
    runtime.noticeHand = handId;
    // "You leave when this hand ends" until the server has stood the player up: then say so.
    if (els.notice && !els.notice.hidden && runtime.noticeAction === "leave" && !me) notice("leave");
    renderSeats();
    renderMiddle();
    renderControls();
    renderResult();
    renderLog();
    renderFair();
    renderTurn();
    tick();
  }

  /* --- the player's turn, noticed: a sound when it comes, the tab's title while hidden -- */

  function myTurn() {
    const me = you(state), hd = hand(state);
    return !!(config.isPlayer && me && me.legal && hd && !hd.is_over);
  }

  function renderTurn() {
    const turn = myTurn();
    if (runtime.myTurn === false && turn) beep();
    runtime.myTurn = turn;
    const title = tabTitle(baseTitle, tableName, turn, document.visibilityState === "hidden");
    if (document.title !== title) document.title = title;
  }

  function soundOn() {
    try { return localStorage.getItem(soundKey(config.username || "")) !== "off"; } catch (e) { return true; }
  }

  function drawSound() {
    if (!els.sound) return;
    const on = soundOn();
    els.sound.setAttribute("aria-pressed", String(on));
    els.sound.textContent = soundLabel(on);
  }

  /* Browsers let a page make sound only after a gesture: the context is made at the first one. */
  function audioReady() {
    if (runtime.audio || !soundOn()) return;
    const Ctx = /** @type {any} */ (window).AudioContext || /** @type {any} */ (window).webkitAudioContext;
    if (!Ctx) return;
    try { runtime.audio = new Ctx(); } catch (e) { runtime.audio = null; }
  }

  /** Two short rising tones (Web Audio, no file). */
  function beep() {
    if (!soundOn() || !runtime.audio || config.tile) return; /* a tile's turn sounds from My tables (poker_tiles.js) */
    try {
      const ctx = runtime.audio;
      playTurnTones(ctx);
      runtime.beeps += 1;
    } catch (e) { /* no sound is no error: the title and the focus still say it */ }
  }

  function renderLog() {
    if (!els.log) return;
    const lines = logLines(state);
    const key = JSON.stringify([state.log.hand, lines]);
    if (runtime.keys.log === key) return;
    const sameHand = runtime.keys.logHand === state.log.hand;
    let drawn = sameHand ? els.log.children.length : 0;
    runtime.keys.log = key;
    runtime.keys.logHand = state.log.hand;
    if (!sameHand || drawn > lines.length) { els.log.replaceChildren(); drawn = 0; }
    /* New lines are added (the list is a live region: each is said once); a changed line
       (the allowance words once the player's own view came) is redrawn in place. */
    lines.forEach((line, i) => {
      const li = els.log.children[i];
      if (!li) { els.log.appendChild(h("li", { class: line.cls || "", text: line.text })); return; }
      if (li.textContent !== line.text) li.textContent = line.text;
      li.className = line.cls || "";
    });
    els.log.scrollTop = els.log.scrollHeight;
  }

  /** @param {string|null} code @param {string} extra @param {string} [label] */
  function cardEl(code, extra, label) {
    const el = C.card(code, extra);
    el.setAttribute("role", "listitem");
    el.setAttribute("aria-label", label || C.cardName(code));
    return el;
  }

  function renderSeats() {
    const hd = hand(state);
    state.view.seats.forEach((/** @type {any} */ s) => {
      const li = els.seats.querySelector('[data-seat="' + s.seat + '"]');
      if (!li) return;
      const toAct = hd && !hd.is_over && hd.to_act === s.seat;
      const shown = shownAt(state, s.seat);
      const won = wonBy(state, s.seat);
      const status = seatStatus(state, s);
      const key = JSON.stringify([s, toAct, shown, won, hd && s.in_hand ? timeoutOf(state, s.seat) : null, status]);
      if (runtime.keys[s.seat] === key) return;
      runtime.keys[s.seat] = key;
      const classes = ["pseat"];
      if (s.is_you) classes.push("is-you");
      if (!s.player) classes.push("is-empty");
      if (s.folded) classes.push("is-folded");
      if (s.all_in && s.in_hand) classes.push("is-all-in");
      if (s.sitting_out && !s.in_hand) classes.push("is-out"); /* dealt in, the hand is still theirs */
      if (toAct) classes.push("is-to-act");
      if (s.player && won > 0) classes.push("is-winner");
      li.className = classes.join(" ");
      li.setAttribute("aria-label", C.interpolate(s.player ? (s.is_you ? C.gettext("Seat %(seat)s, %(player)s (you)") : C.gettext("Seat %(seat)s, %(player)s")) : C.gettext("Seat %(seat)s, empty"), { seat: s.seat, player: s.player }, true) + (toAct ? ", " + C.gettext("to act") : ""));
      if (toAct) li.setAttribute("aria-current", "true"); else li.removeAttribute("aria-current");

      const plate = h("div", { class: "pseat-plate" },
        h("span", { class: "seat-no", text: C.interpolate(C.gettext("Seat %(seat)s"), { seat: s.seat }, true) }),
        h("span", { class: "seat-name", text: s.player || C.gettext("Empty seat") }),
        s.is_you ? h("span", { class: "badge badge-gold", text: C.gettext("You") }) : null);
      const stack = s.player ? h("p", { class: "pseat-stack" }, h("span", { class: "visually-hidden", text: C.gettext("Stack") + " " }), C.moneyText(s.stack)) : null;
      const cards = h("div", { class: "cards pseat-cards", role: "list", "aria-label": C.interpolate(C.gettext("%(player)s's cards"), { player: s.player || C.interpolate(C.gettext("Seat %(seat)s"), { seat: s.seat }, true) }, true) });
      if (shown) {
        shown.cards.forEach((/** @type {string} */ code) => {
          const best = shown.best_five && shown.best_five.indexOf(code) >= 0;
          cards.appendChild(cardEl(code, best ? "is-winning" : "", (best ? C.interpolate(C.gettext("%(card)s (makes the hand)"), { card: C.cardName(code) }, true) : C.cardName(code))));
        });
      } else if (s.player && (s.in_hand || (s.up && s.up.length))) {
        const down = s.down || [];
        for (let i = 0; i < (s.down_count || 0); i++) {
          const code = down[i] || null;
          const downCard = cardEl(code, "is-down" + (code ? " is-own-down" : ""), code ? C.interpolate(C.gettext("your down card: %(card)s"), { card: C.cardName(code) }, true) : C.gettext("face-down card"));
          if (code) downCard.appendChild(h("span", { class: "card-down-mark", "aria-hidden": "true", text: C.gettext("down") }));
          cards.appendChild(downCard);
        }
        (s.up || []).forEach((/** @type {string} */ c) => cards.appendChild(cardEl(c, "up-card", C.interpolate(C.gettext("up card: %(card)s"), { card: C.cardName(c) }, true))));
      }
      const bet = s.player && s.in_hand && C.cents(s.bet) > 0 && !(hd && hd.is_over)
        ? h("p", { class: "pseat-bet" }, C.chip("raise", C.gettext("Bet this street"), C.moneyText(s.bet))) : null;
      li.replaceChildren(plate, stack || h("span"), cards, bet || h("span"), h("p", { class: "seat-status", text: status }));
    });
  }

  function renderMiddle() {
    const hd = hand(state);
    const key = JSON.stringify(hd ? [hd.id, hd.street, hd.pot, hd.pots, hd.community, hd.is_over, state.log.names] : [state.view.table.is_open, state.view.seats.map((/** @type {any} */ s) => s.player)]);
    if (runtime.keys.middle === key) return;
    runtime.keys.middle = key;
    if (!hd) {
      els.street.textContent = waitingText(state, (name) => !!marksFor(name)?.bot);
      els.pots.replaceChildren();
      els.community.replaceChildren();
      return;
    }
    els.street.textContent = (hd.is_over ? C.interpolate(C.gettext("Hand %(hand)s is over"), { hand: hd.id }, true) : C.interpolate(C.gettext("Hand %(hand)s · %(street)s"), { hand: hd.id, street: streetName(state, hd.street) }, true));
    const pots = [];
    if (hd.is_over && hd.pots && hd.pots.length) {
      hd.pots.forEach((/** @type {any} */ p, /** @type {number} */ i) => {
        const winners = (p.winners || []).map((/** @type {number} */ n) => nameOf(state, n)).join(" " + C.gettext("and") + " ");
        pots.push(h("li", { class: "pot" }, h("span", { class: "pot-label", text: i === 0 ? C.gettext("Main pot") : C.interpolate(C.gettext("Side pot %(number)s"), { number: i }, true) }),
          " ", h("strong", { text: C.moneyText(p.amount) }), winners ? " → " + winners : ""));
      });
    } else {
      pots.push(h("li", { class: "pot" }, h("span", { class: "pot-label", text: C.gettext("Pot") }), " ", h("strong", { text: C.moneyText(hd.pot) })));
    }
    els.pots.replaceChildren(...pots);
    if (hd.community) els.community.replaceChildren(h("span", { class: "felt-print", text: C.gettext("Community card") }), cardEl(hd.community, "up-card", C.interpolate(C.gettext("community card: %(card)s"), { card: C.cardName(hd.community) }, true)));
    else els.community.replaceChildren();
  }

  function renderControls() {
    const text = phaseText(state, config.isPlayer);
    if (els.phase.textContent !== text) els.phase.textContent = text;
    if (!config.isPlayer || !els.actions) return;
    const me = you(state);
    const hd = hand(state);
    const list = me && me.legal ? choices(me.legal) : [];
    const key = JSON.stringify([list, runtime.busy, hd && hd.id]);
    if (runtime.keys.actions !== key) {
      runtime.keys.actions = key;
      const hadFocus = els.actions.contains(document.activeElement);
      const hadControl = runtime.controlFocus && (!document.activeElement || document.activeElement === document.body ||
        els.controls.contains(document.activeElement));
      /** @type {HTMLElement[]} */
      const buttons = [];
      /** @type {import("./poker_state.js").Choice|null} */
      let ranged = null;
      const labels = keyLabels(list);
      list.forEach((c, i) => {
        if (c.ranged) { ranged = c; return; }
        buttons.push(h("button", {
          type: "button", class: "btn btn-big" + (c.kind === "fold" ? " btn-danger" : ""), disabled: runtime.busy,
          dataset: { action: c.kind, amount: c.amount || "" }, "aria-keyshortcuts": labels[i] !== c.label ? KEY_OF[c.kind] : null,
          onclick: () => act(c.kind, c.amount)
        }, h("span", null, c.label, labels[i] !== c.label ? keyHint(KEY_OF[c.kind]) : null)));
      });
      els.actions.replaceChildren(...buttons);
      els.actions.hidden = !list.length;
      drawSized(ranged);
      /* A new turn takes the focus once (the first action that is not a fold), unless the
         player had moved it elsewhere during this turn. It counts as taken only where it
         landed: buttons drawn disabled while a seat control's answer is awaited take none,
         and the drawing after the answer tries again (else Enter would press that control). */
      const turn = list.length && hd ? hd.id + ":" + hd.version : null;
      if (!turn) runtime.focusedTurn = null;
      else if (runtime.focusedTurn !== turn && (hadFocus || !runtime.focusedTurn) && !typingIn(document.activeElement) && mayTakeFocus()) {
        /* never taken from a field being typed in: the next letter would press the button */
        const first = els.actions.querySelector("button:not([data-action=fold])") || els.actions.querySelector("button") || els.amount;
        if (first) first.focus({ preventScroll: true });
        if (first && document.activeElement === first) runtime.focusedTurn = turn;
      }
      keepFocus(hadControl);
    }
    renderPreactions();
    renderSeatControls(me);
    renderYouLine(me);
  }

  /** The boxes ticked before the player's turn, as toggle buttons (aria-pressed): the one
     the server holds is pressed; pressing it again clears it. Drawn in place while the same
     boxes are offered, so the focus stays on the one pressed (a press while the last one's
     answer is awaited does nothing). */
  function renderPreactions() {
    if (!els.preactions) return;
    const boxes = preactionBoxes(state);
    const key = JSON.stringify(boxes);
    if (runtime.keys.preactions === key) return;
    runtime.keys.preactions = key;
    els.preactions.hidden = !boxes.length;
    const drawn = Array.from(els.preactions.querySelectorAll("button[data-preaction]"));
    const same = drawn.length === boxes.length && boxes.every((b, i) => drawn[i].dataset.preaction === b.kind);
    if (!same) {
      els.preactions.replaceChildren(h("span", { class: "preactions-label", text: C.gettext("Before your turn:") }),
        ...boxes.map((b) => h("button", { type: "button", class: "btn btn-small btn-ghost btn-preaction", dataset: { preaction: b.kind },
          onclick: (/** @type {Event} */ e) => {
            const el = /** @type {HTMLElement} */ (e.currentTarget);
            preact(el.getAttribute("aria-pressed") === "true" ? null : b.kind, el.dataset.amount || null);
          }
        })));
    }
    const buttons = els.preactions.querySelectorAll("button[data-preaction]");
    boxes.forEach((b, i) => {
      const el = /** @type {HTMLButtonElement} */ (buttons[i]);
      el.textContent = b.label;
      el.dataset.amount = b.amount || "";
      el.setAttribute("aria-pressed", String(b.ticked));
      el.classList.toggle("is-ticked", b.ticked);
    });
  }

  /** The focus is never lost to the page's body after an action: a control that was drawn
     away (or hidden) hands it to the controls' panel, from where the keys still play.
     @param {boolean} hadControl */
  function keepFocus(hadControl) {
    if (!hadControl || !els.controls || !mayTakeFocus()) return;
    if (!els.controls.contains(document.activeElement) && document.activeElement !== document.body) return;
    const el = document.activeElement;
    if (!el || el === document.body || !el.isConnected || /** @type {any} */ (el).disabled || (els.sized.hidden && els.sized.contains(el))) {
      els.controls.focus({ preventScroll: true });
    }
  }

  /** Whether the page may move the focus: a tile of "My tables" only while the focus is
     in it (that page hands it to the table waiting longest: poker_tile_frame.js). */
  function mayTakeFocus() { return !config.tile || document.hasFocus(); }

  /** A button's key, " (F)": not shown on a touch screen (static/css/poker.css). @param {string} key */
  function keyHint(key) { return h("span", { class: "key-hint", "aria-hidden": "true", text: " (" + key + ")" }); }

  /** Fills the amount field and the slider. @param {string} amount */
  function setAmount(amount) {
    els.amount.value = amount;
    els.slider.value = String(C.cents(amount));
    els.amount.removeAttribute("aria-invalid");
    updateSizedLabel();
    sizedRefusalCleared();
  }

  /** The amount field and slider of a bet, raise or completion sized by the player.
   * @param {import("./poker_state.js").Choice|null} ranged */
  function drawSized(ranged) {
    runtime.sizedKind = ranged ? ranged.kind : null;
    els.sized.hidden = !ranged;
    if (!ranged) return;
    const lo = C.cents(ranged.min), hi = C.cents(ranged.max), step = Math.max(1, C.cents(ranged.step));
    els.slider.min = String(lo); els.slider.max = String(hi); els.slider.step = String(step);
    els.amount.min = ranged.min; els.amount.max = ranged.max; els.amount.step = C.decimal(step);
    if (!(C.cents(els.amount.value) >= lo && C.cents(els.amount.value) <= hi)) {
      els.amount.value = ranged.min; els.slider.value = String(lo);
    }
    els.sizedHelp.textContent = C.interpolate(({ bet: C.gettext("Bet any amount from %(min)s to %(max)s, in steps of %(step)s."), raise: C.gettext("Raise to any amount from %(min)s to %(max)s, in steps of %(step)s."), complete: C.gettext("Complete to any amount from %(min)s to %(max)s, in steps of %(step)s.") })[/** @type {"bet"} */ (ranged.kind)], {
      min: C.moneyText(ranged.min), max: C.moneyText(ranged.max), step: C.money(step) }, true);
    updateSizedLabel();
    els.sizedBtn.disabled = runtime.busy;
    if (els.quick) {
      const quick = quickAmounts(ranged, runtime.lastSized);
      const key = JSON.stringify([quick, runtime.busy]);
      if (runtime.keys.quick !== key) {
        runtime.keys.quick = key;
        els.quick.replaceChildren(...quick.map((q) => h("button", {
          type: "button", class: "btn btn-ghost btn-small", disabled: runtime.busy, "aria-keyshortcuts": q.key,
          dataset: { quick: QUICK_NAME[q.key], amount: q.amount }, onclick: () => setAmount(q.amount)
        }, h("span", null, q.label + " " + C.moneyText(q.amount), keyHint(q.key)))));
      }
    }
  }

  /** The seated player's own time-out protection: the all-in allowance (one a day) and the
     time bank, from the snapshot's or the private message's `you` (a time-out spends them).
     @param {any} me */
  function renderYouLine(me) {
    if (!els.youLine) return;
    const text = me ? C.interpolate(me.all_in_allowance_left ? C.gettext("All-in allowance (time-out protection): one left today. Time bank %(seconds)s s.") : C.gettext("All-in allowance (time-out protection): used, back within 24 hours. Time bank %(seconds)s s."),
      { seconds: Number(me.time_bank || 0) }, true) : "";
    if (els.youLine.textContent !== text) els.youLine.textContent = text;
    els.youLine.hidden = !me;
  }

  function updateSizedLabel() {
    const value = els.amount.value.trim();
    const ok = /^\d+(\.\d{1,2})?$/.test(value);
    const word = ({ bet: C.gettext("Bet"), raise: C.gettext("Raise to"), complete: C.gettext("Complete to") })[/** @type {"bet"} */ (runtime.sizedKind)] || C.gettext("Bet");
    els.sizedBtn.replaceChildren(h("span", null, word + (ok ? " " + C.moneyText(value) : ""), keyHint("R")));
    els.sizedBtn.dataset.action = runtime.sizedKind || "";
  }

  /** @param {any} me */
  function renderSeatControls(me) {
    if (!els.seatControls) return;
    const hd = hand(state);
    const row = me ? seatOf(state, me.seat) : null;
    const dealtIn = !!(row && row.in_hand && hd && !hd.is_over);
    /** @type {Record<string, boolean>} */
    const flags = {
      standing: !me, seated: !!me, "can-top-up": !!(me && me.can_top_up && !dealtIn),
      "sitting-out": !!(me && me.sitting_out), "sitting-in": !!(me && !me.sitting_out)
    };
    els.seatControls.querySelectorAll("[data-when]").forEach((/** @type {HTMLElement} */ f) => {
      f.hidden = !(f.dataset.when || "").split(" ").every((w) => flags[w]);
    });
    if (me && me.top_up_to) {
      const topUp = els.seatControls.querySelector("[data-top-up-amount]");
      if (topUp) topUp.textContent = C.moneyText(me.top_up_to);
    }
  }

  /* The result panel: the hand on the felt once it is over; while the next one is played,
     the last hand's result one click away ("Last hand"), with the hands before it. */
  function renderResult() {
    const panel = resultPanel(state);
    if (!panel) { els.result.hidden = true; runtime.keys.result = null; return; }
    const { shown, current, open, earlier } = panel;
    const key = JSON.stringify(panel);
    if (runtime.keys.result === key) return;
    runtime.keys.result = key;
    els.result.hidden = false;
    els.result.classList.toggle("is-last", !current);
    els.resultTitle.textContent = current ? C.interpolate(C.gettext("Hand %(hand)s: who won what"), { hand: shown.id }, true)
      : (shown.summary ? C.interpolate(C.gettext("Last hand · Hand %(hand)s: %(summary)s"), { hand: shown.id, summary: shown.summary }, true) : C.interpolate(C.gettext("Last hand · Hand %(hand)s"), { hand: shown.id }, true));
    els.lastToggle.hidden = current;
    els.lastToggle.textContent = open ? C.gettext("Hide") : C.gettext("Show");
    els.lastToggle.setAttribute("aria-expanded", String(open));
    els.resultDetail.hidden = !open;
    const body = [h("ul", { class: "explain" }, shown.lines.map((w) => h("li", { class: w.cls || "", text: w.text })))];
    if (earlier.length) {
      body.push(h("p", { class: "result-earlier-title", text: C.gettext("Before it") }));
      body.push(h("ul", { class: "result-earlier" }, earlier.map((r) => {
        const text = r.summary ? C.interpolate(C.gettext("Hand %(hand)s: %(summary)s"), { hand: r.id, summary: r.summary }, true) : C.interpolate(C.gettext("Hand %(hand)s"), { hand: r.id }, true);
        return h("li", null, r.played && config.handPage ? h("a", { href: config.handPage.replace("0/", r.id + "/"), text }) : text);
      })));
    }
    els.resultBody.replaceChildren(...body);
    if (els.resultLink && config.handPage) {
      els.resultLink.href = config.handPage.replace("0/", shown.id + "/");
      els.resultLink.hidden = !shown.played;
    }
  }

  function renderFair() {
    const hd = hand(state);
    if (!els.commitment) return;
    els.handNo.textContent = hd ? C.interpolate(C.gettext("Hand %(hand)s"), { hand: hd.id }, true) : "—";
    els.commitment.textContent = hd ? hd.commitment : C.gettext("Shown before the antes of the next hand.");
    els.commitment.classList.toggle("note", !hd);
    if (els.waiting) {
      const names = state.view.waiting_list || [];
      els.waiting.textContent = names.length ? names.join(", ") : C.gettext("Nobody is waiting.");
    }
  }

  /* The turn's clock: the time to act first, then the time bank (poker_state.js's clock). */
  function tick() {
    const c = clock(state, Date.now());
    if (!c) { els.timer.hidden = true; return; }
    if (!runtime.deadlineStart[c.key]) runtime.deadlineStart[c.key] = Math.max(c.left - c.bankMs, 1000);
    if (c.stale && Date.now() - runtime.staleAt > 3000) {
      runtime.staleAt = Date.now();
      requestSnapshot();
    }
    els.timer.hidden = false;
    els.timer.classList.toggle("is-mine", c.mine);
    els.timer.classList.toggle("is-bank", c.usingBank);
    els.timer.classList.toggle("is-urgent", c.urgent);
    els.timerLabel.textContent = c.label;
    els.timerValue.textContent = C.interpolate(C.gettext("%(seconds)s s"), { seconds: c.seconds }, true);
    els.timerBar.style.width = Math.max(0, Math.min(100, c.usingBank ? c.left / Math.max(c.bankMs, 1) * 100
      : (c.left - c.bankMs) / runtime.deadlineStart[c.key] * 100)) + "%";
    if (els.bank) els.bank.textContent = c.usingBank || !c.bank ? "" : C.interpolate(C.gettext("+ time bank %(seconds)s s"), { seconds: c.bank }, true);
  }

  /* --- the socket --------------------------------------------------------------- */

  /** @param {string} name @param {string} text */
  function setConn(name, text) { els.conn.dataset.state = name; els.connText.textContent = text; }

  /** @param {any} msg */
  function onMessage(msg) {
    if (msg.type === "ack" || msg.type === "error") {
      const p = msg.id !== null && msg.id !== undefined ? runtime.pending[msg.id] : null;
      if (p) {
        delete runtime.pending[msg.id];
        clearTimeout(p.timer);
        if (msg.type === "ack") p.resolve(msg); else p.reject(msg);
      } else if (msg.type === "error") showError(msg.message || C.gettext("Something went wrong."));
    }
    receive(msg);
  }

  function connect() {
    if (runtime.stopped || !("WebSocket" in window)) { startPolling(); return; }
    let ws;
    try { ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + config.wsPath); }
    catch (e) { scheduleReconnect(false); return; }
    runtime.ws = ws;
    setConn("connecting", C.gettext("Connecting…"));
    ws.onopen = () => {
      runtime.wsOpen = true; runtime.retries = 0; stopPolling(); setConn("live", C.gettext("Live"));
      send({ action: "ping" }); /* its answer is a quick reading of the server's clock */
    };
    ws.onmessage = (e) => { let m; try { m = JSON.parse(e.data); } catch (err) { return; } onMessage(m); };
    ws.onclose = (e) => {
      const wasOpen = runtime.wsOpen;
      runtime.wsOpen = false; runtime.ws = null;
      Object.values(runtime.pending).forEach((p) => {
        clearTimeout(p.timer);
        p.reject({ message: C.gettext("The connection dropped before the table answered. Check the table before you try again.") });
      });
      runtime.pending = {};
      if (e.code === 4401) {
        runtime.stopped = true; stopPolling();
        setConn("offline", C.gettext("Session ended"));
        showError(C.gettext("Your session has ended: sign in again."));
        return;
      }
      if (e.code === 4404) {
        /* The page found the table, the socket did not (no live route for it here): keep the
           table current by polling, and look for the socket again now and then. */
        startPolling();
        setConn("offline", C.gettext("Updating every few seconds"));
        setTimeout(connect, 30000);
        return;
      }
      startPolling();
      scheduleReconnect(wasOpen);
    };
  }

  /** @param {boolean} wasOpen */
  function scheduleReconnect(wasOpen) {
    if (runtime.stopped) return;
    const delay = wasOpen ? 300 : Math.min(15000, 500 * Math.pow(2, runtime.retries)) * (0.75 + Math.random() * 0.5);
    runtime.retries += 1;
    setConn("offline", C.interpolate(C.gettext("Reconnecting in %(seconds)s s…"), { seconds: Math.ceil(delay / 1000) }, true));
    setTimeout(connect, delay);
  }

  /** @param {object} message */
  function send(message) { if (runtime.wsOpen && runtime.ws) runtime.ws.send(JSON.stringify(message)); }

  function requestSnapshot() {
    if (runtime.snapshotTimer) return;
    runtime.snapshotTimer = setTimeout(() => {
      runtime.snapshotTimer = null;
      if (runtime.wsOpen) send({ action: "snapshot" });
      else refreshByRest();
    }, 50);
  }

  function refreshByRest() {
    if (!config.snapshotUrl) return Promise.resolve();
    return C.getJSON(config.snapshotUrl).then((view) => receive({ type: "snapshot", view })).catch(() => {});
  }
  function startPolling() { if (!runtime.pollTimer) runtime.pollTimer = setInterval(refreshByRest, 1500); }
  function stopPolling() { if (runtime.pollTimer) clearInterval(runtime.pollTimer); runtime.pollTimer = null; }

  /* --- the player's actions ----------------------------------------------------- */

  /** @param {string} action @param {object} [payload] @returns {Promise<any>} */
  function request(action, payload) {
    if (!runtime.wsOpen) {
      /* Without the socket an action still goes through, over the page's own JSON route. */
      const url = action === "act" ? config.actUrl : action === "preact" ? config.preactUrl : null;
      if (!url) return Promise.reject({ message: C.gettext("Not connected to the table: wait for “Live” and try again.") });
      return C.post(url, payload).then((view) => { receive({ type: "snapshot", view }); return view; });
    }
    const id = "p" + ++runtime.seq;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { delete runtime.pending[id]; reject({ message: C.gettext("The table did not answer in time.") }); }, 20000);
      runtime.pending[id] = { resolve, reject, timer };
      send({ action, id, ...(payload || {}) });
    });
  }

  /** The player's action in the hand on the felt (one of `choices`' kinds; the street
   * total for a sized one). @param {string} kind @param {string|null} [amount] */
  function act(kind, amount) {
    const hd = hand(state);
    if (!hd || runtime.busy) return;
    /** @type {Record<string, any>} */
    const payload = { hand_id: hd.id, kind };
    if (amount && SIZED.has(kind)) payload.amount = amount; /* the street total; other actions name no amount */
    runtime.busy = true;
    clearError();
    render();
    request("act", payload) /* the step's event draws the result */
      .then(() => dispatch({ type: "acted", hand: hd.id, version: hd.version }))
      .catch((error) => showError((error && error.message) || C.gettext("That did not work.")))
      .then(() => { runtime.busy = false; render(); });
  }

  /** Tick a box before the turn (`kind`), or clear it (null): the server's answer, the
   * player's own private message, draws it. @param {string|null} kind @param {string|null} amount */
  function preact(kind, amount) {
    const hd = hand(state);
    if (!hd || runtime.preacting) return;
    /** @type {Record<string, any>} */
    const payload = { hand_id: hd.id, kind };
    if (kind === "call" && amount) payload.amount = amount; /* the amount to call it was ticked for */
    runtime.preacting = true;
    clearError();
    render();
    request("preact", payload)
      .catch((error) => showError((error && error.message) || C.gettext("That did not work.")))
      .then(() => { runtime.preacting = false; render(); });
  }

  /** Whether the amount field holds a legal amount: within its bounds, on the chip step. @param {string} value */
  function sizedValid(value) {
    const lo = C.cents(els.amount.min), hi = C.cents(els.amount.max), step = Math.max(1, C.cents(els.amount.step));
    return /^\d+(\.\d{1,2})?$/.test(value) && C.cents(value) >= lo && C.cents(value) <= hi && (C.cents(value) - lo) % step === 0;
  }

  /* A refusal of the amount is taken back as soon as the field holds a legal one. */
  function sizedRefusalCleared() {
    if (els.amount.getAttribute("aria-invalid") === "true" && sizedValid(els.amount.value.trim())) {
      els.amount.removeAttribute("aria-invalid");
      clearError();
    }
  }

  /** @param {Event} e */
  function sizedSubmit(e) {
    e.preventDefault();
    const value = els.amount.value.trim();
    if (!sizedValid(value)) {
      const step = Math.max(1, C.cents(els.amount.step));
      showError(C.interpolate(C.gettext("Choose an amount from %(min)s to %(max)s in steps of %(step)s."), { min: C.moneyText(els.amount.min), max: C.moneyText(els.amount.max), step: C.money(step) }, true));
      els.amount.setAttribute("aria-invalid", "true");
      els.amount.focus();
      return;
    }
    els.amount.removeAttribute("aria-invalid");
    runtime.lastSized = C.decimal(C.cents(value));
    act(/** @type {string} */ (runtime.sizedKind), runtime.lastSized);
  }

  /** What a seat control did, said where the form's own page would have flashed it; worded
     from the server's answer (the snapshot that follows the ack), not from the page's guess:
     a leave mid-hand waits for the hand's end only when the server says so.
     @param {string} action */
  function notice(action) {
    if (!els.notice) return;
    const me = you(state);
    const text = /** @type {Record<string, string>} */ ({
      top_up: C.gettext("Your stack is topped up to the buy-in."), sit_out: C.gettext("You sit out from the next hand."),
      sit_in: C.gettext("You are dealt in from the next hand."),
      leave: me && me.leaving ? C.gettext("You leave when this hand ends; your stack goes back to your wallet then.")
        : (me ? "" : C.gettext("You left the table: your stack is back in your wallet."))
    })[action] || "";
    els.notice.textContent = text;
    els.notice.hidden = !text;
    runtime.noticeAction = action;
  }

  /** @param {string} message */
  function showError(message) { els.errors.textContent = message; els.errors.hidden = false; }
  function clearError() { els.errors.textContent = ""; els.errors.hidden = true; }

  if (config.isPlayer && els.sized) {
    els.sized.addEventListener("submit", sizedSubmit);
    els.slider.addEventListener("input", () => {
      els.amount.value = C.decimal(Number(els.slider.value));
      updateSizedLabel();
      sizedRefusalCleared();
    });
    els.amount.addEventListener("input", () => {
      const v = els.amount.value.trim();
      if (/^\d+(\.\d{1,2})?$/.test(v)) els.slider.value = String(C.cents(v));
      updateSizedLabel();
      sizedRefusalCleared();
    });
    /* The seat controls go over the socket when it is open (no page reload mid-hand); the
       forms post to the page routes otherwise. */
    document.querySelectorAll("form[data-socket-action]").forEach((el) => {
      const form = /** @type {HTMLFormElement} */ (el);
      form.addEventListener("submit", (e) => {
        if (!runtime.wsOpen) return;
        e.preventDefault();
        const action = form.dataset.socketAction || "";
        runtime.busy = true;
        clearError();
        request(action, {})
          .then(() => { runtime.noticeFor = action; }) /* said once the answer after the ack (a snapshot) is drawn */
          .catch((error) => showError((error && error.message) || C.gettext("That did not work.")))
          .then(() => { runtime.busy = false; render(); });
      });
    });
  }

  if (els.lastToggle) els.lastToggle.addEventListener("click", () => dispatch({ type: "toggle_last" }));

  /** Whether a key went to a field the player types in (a range slider is not one).
     @param {EventTarget|null} target */
  function typingIn(target) {
    const el = /** @type {HTMLElement|null} */ (target);
    if (!el || !el.tagName) return false;
    if (el.isContentEditable || el.tagName === "TEXTAREA" || el.tagName === "SELECT") return true;
    if (el.tagName !== "INPUT") return false;
    return ["range", "button", "submit", "checkbox", "radio", "reset"].indexOf((/** @type {HTMLInputElement} */ (el)).type) < 0;
  }

  if (config.isPlayer && els.actions) {
    document.addEventListener("keydown", (e) => {
      audioReady();
      const me = you(state);
      const list = me && me.legal ? choices(me.legal) : [];
      const action = keyAction(e.key, list, {
        turn: myTurn() && !runtime.busy, typing: typingIn(e.target), modifier: e.ctrlKey || e.altKey || e.metaKey,
        amount: els.amount ? els.amount.value : null, last: runtime.lastSized
      });
      if (!action) {
        const hint = keyRefusal(e.key, list, { turn: myTurn() && !runtime.busy, typing: typingIn(e.target), modifier: e.ctrlKey || e.altKey || e.metaKey });
        if (hint) showError(hint);
        return;
      }
      e.preventDefault();
      if (action.type === "amount") { setAmount(action.amount); return; }
      if (action.sized) els.sized.requestSubmit(); /* checked as the sized button's click is */
      else act(action.kind, action.amount);
    });
    document.addEventListener("pointerdown", (e) => {
      audioReady();
      if (els.controls && !els.controls.contains(/** @type {Node} */ (e.target))) runtime.controlFocus = false;
    });
    document.addEventListener("focusin", (e) => {
      runtime.controlFocus = !!els.controls && els.controls.contains(/** @type {Node} */ (e.target));
    });
    document.addEventListener("visibilitychange", renderTurn);
    if (els.sound) {
      els.sound.addEventListener("click", () => {
        try { localStorage.setItem(soundKey(config.username || ""), soundOn() ? "off" : "on"); } catch (e) { /* not remembered */ }
        drawSound();
        audioReady();
      });
      drawSound();
    }
  }

  setInterval(tick, 250);
  setInterval(() => send({ action: "ping" }), 25000);
  render();
  connect();
  /* For the browser tests and the console: the state and the page's machinery, read-only. */
  /** @type {any} */ (window).CasinoPoker = {
    get state() { return { ...runtime, ...state }; },
    choices, act, dispatch
  };
}

const config = C.readJSON("poker-config");
const initial = C.readJSON("poker-initial");
if (config && initial) start(config, initial);
