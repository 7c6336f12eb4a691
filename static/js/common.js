/* Shared helpers of the player pages: money, cards, DOM, CSRF. No framework, no build step. */
(function (root) {
  "use strict";

  /* The words of the page's language: the catalog script (Django's JavaScriptCatalog) loads first. */
  var gettext = root.django && root.django.gettext ? root.django.gettext : function (s) { return s; };
  var interpolate = root.django && root.django.interpolate ? root.django.interpolate
    : function (fmt, obj) { return fmt.replace(/%\((\w+)\)s/g, function (m, k) { return String(obj[k]); }); };

  var SUITS = {
    c: { symbol: "\u2663", name: "clubs", red: false },
    d: { symbol: "\u2666", name: "diamonds", red: true },
    h: { symbol: "\u2665", name: "hearts", red: true },
    s: { symbol: "\u2660", name: "spades", red: false }
  };
  var RANKS = { T: "10" };
  var RANK_NAMES = {
    "2": gettext("Two"), "3": gettext("Three"), "4": gettext("Four"), "5": gettext("Five"), "6": gettext("Six"),
    "7": gettext("Seven"), "8": gettext("Eight"), "9": gettext("Nine"), T: gettext("Ten"), J: gettext("Jack"),
    Q: gettext("Queen"), K: gettext("King"), A: gettext("Ace")
  };
  /* "Ten of hearts": the whole name is one message (German: "Herz Zehn"). */
  function cardNamer(template) {
    return function (rank) { return interpolate(template, { rank: rank }, true); };
  }
  var CARD_NAMES = {
    c: cardNamer(gettext("%(rank)s of clubs")), d: cardNamer(gettext("%(rank)s of diamonds")),
    h: cardNamer(gettext("%(rank)s of hearts")), s: cardNamer(gettext("%(rank)s of spades"))
  };
  var CATEGORY_LABELS = {
    royal_flush: gettext("Royal flush"), straight_flush: gettext("Straight flush"), four_of_a_kind: gettext("Four of a kind"),
    full_house: gettext("Full house"), flush: gettext("Flush"), straight: gettext("Straight"), three_of_a_kind: gettext("Three of a kind"),
    two_pair: gettext("Two pair"), one_pair: gettext("One pair"), high_card: gettext("High card")
  };

  var symbol = "\u20ac";
  /* The page's language (<html lang>, Django's active language): German writes 1.234,50 €. */
  var decimalComma = /^de\b/.test(document.documentElement.lang || "");

  /* "12.50" -> 1250, exactly (string arithmetic, never floats). */
  function cents(amount) {
    if (amount === null || amount === undefined || amount === "") return 0;
    var text = String(amount).trim();
    var negative = text.charAt(0) === "-";
    text = text.replace(/^[+-]/, "");
    var parts = text.split(".");
    var frac = ((parts[1] || "") + "00").slice(0, 2);
    var value = parseInt(parts[0] || "0", 10) * 100 + parseInt(frac, 10);
    return negative ? -value : value;
  }

  /* 125000 -> "€1,250.00" (German: "1.250,00 €"); signed: "+€2.00" / "−€2.00". The same
     as casino.money.money on the server. */
  function money(centsValue, signed) {
    var n = Math.abs(centsValue);
    var units = String(Math.floor(n / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, decimalComma ? "." : ",");
    var fraction = String(n % 100).padStart(2, "0");
    var text = decimalComma ? units + "," + fraction + "\u00a0" + symbol.trim() : symbol + units + "." + fraction;
    if (centsValue < 0) return "\u2212" + text;
    return signed && centsValue > 0 ? "+" + text : text;
  }

  function moneyText(amount, signed) {
    return money(cents(amount), signed);
  }

  /* 1250 -> "12.50": an amount as the API reads it, whatever the page's language. */
  function wire(centsValue) {
    var n = Math.abs(centsValue);
    return (centsValue < 0 ? "-" : "") + Math.floor(n / 100) + "." + String(n % 100).padStart(2, "0");
  }

  function categoryLabel(key) {
    return key ? CATEGORY_LABELS[key] || key : "";
  }

  /* h("div", {class: "x", text: "hi"}, child, …): elements built without innerHTML. */
  function h(tag, attrs) {
    var el = document.createElement(tag);
    var key;
    attrs = attrs || {};
    for (key in attrs) {
      if (!Object.prototype.hasOwnProperty.call(attrs, key) || attrs[key] === null || attrs[key] === undefined || attrs[key] === false) continue;
      if (key === "text") el.textContent = attrs[key];
      else if (key === "class") el.className = attrs[key];
      else if (key === "dataset") Object.assign(el.dataset, attrs[key]);
      else if (key.slice(0, 2) === "on") el.addEventListener(key.slice(2), attrs[key]);
      else el.setAttribute(key, attrs[key] === true ? "" : attrs[key]);
    }
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined || child === false) continue;
      if (Array.isArray(child)) child.forEach(function (c) { if (c) el.appendChild(c); });
      else el.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return el;
  }

  function cardName(code) {
    if (!code) return gettext("face-down card");
    return CARD_NAMES[code.charAt(1)](RANK_NAMES[code.charAt(0)]);
  }

  /* A card as drawn on the felt: "Ah" face up, null face down. */
  function card(code, extraClass) {
    if (!code) {
      return h("span", { class: "card card-back" + (extraClass ? " " + extraClass : ""), role: "img", "aria-label": gettext("face-down card") });
    }
    var suit = SUITS[code.charAt(1)];
    var rank = RANKS[code.charAt(0)] || code.charAt(0);
    return h(
      "span",
      { class: "card " + (suit.red ? "card-red" : "card-black") + (extraClass ? " " + extraClass : ""), role: "img", "aria-label": cardName(code), dataset: { card: code } },
      h("span", { class: "card-corner", "aria-hidden": "true" }, h("span", { class: "card-rank", text: rank }), h("span", { class: "card-suit", text: suit.symbol })),
      h("span", { class: "card-pip", "aria-hidden": "true", text: suit.symbol }),
      h("span", { class: "card-corner card-corner-bottom", "aria-hidden": "true" }, h("span", { class: "card-rank", text: rank }), h("span", { class: "card-suit", text: suit.symbol }))
    );
  }

  function chip(kind, label, amountText) {
    return h("span", { class: "chip chip-" + kind, role: "img", "aria-label": label + " " + amountText, title: label + " " + amountText },
      h("span", { class: "chip-value", "aria-hidden": "true", text: amountText.replace(symbol.trim(), "").trim() }));
  }

  function cookie(name) {
    var match = document.cookie.match(new RegExp("(?:^|; )" + name + "=([^;]*)"));
    return match ? decodeURIComponent(match[1]) : "";
  }

  function randomKey() {
    if (root.crypto && root.crypto.randomUUID) return root.crypto.randomUUID();
    var bytes = new Uint8Array(16);
    root.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  }

  /* JSON POST with session auth, CSRF header and a fresh Idempotency-Key. */
  function post(url, body) {
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

  function getJSON(url) {
    return fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } }).then(parseResponse);
  }

  function parseResponse(response) {
    return response.text().then(function (text) {
      var data = null;
      try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
      if (!response.ok) {
        var error = new Error((data && data.message) || interpolate(gettext("The server refused this (%(status)s)."), { status: response.status }, true));
        error.code = (data && data.code) || "http_" + response.status;
        error.status = response.status;
        throw error;
      }
      return data;
    });
  }

  function readJSON(id) {
    var el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : null;
  }

  function setMeter(poolId, amount) {
    document.querySelectorAll('[data-pool-meter="' + poolId + '"] [data-meter-value]').forEach(function (el) {
      var text = moneyText(amount);
      if (el.textContent !== text) {
        el.textContent = text;
        var box = el.closest("[data-pool-meter]");
        box.classList.remove("meter-tick");
        void box.offsetWidth; /* restart the animation */
        box.classList.add("meter-tick");
      }
    });
  }

  /* A success notice on a live table's page says what was just done; the table goes on
     dealing its next hands, so the notice goes after a while. Errors stay, and every other
     page keeps its notices (a cashier reads back what was booked, a newcomer their next step). */
  var NOTICE_SECONDS = 8;
  if (document.querySelector("#table-app, #poker-app")) {
    setTimeout(function () {
      document.querySelectorAll(".flash-list .flash-success").forEach(function (item) {
        var list = item.parentNode;
        item.remove();
        if (list && !list.children.length) list.remove();
      });
    }, NOTICE_SECONDS * 1000);
  }

  root.Casino = {
    cents: cents, money: money, moneyText: moneyText, wire: wire, categoryLabel: categoryLabel, h: h, card: card, cardName: cardName,
    chip: chip, cookie: cookie, post: post, getJSON: getJSON, readJSON: readJSON, setMeter: setMeter,
    setSymbol: function (s) { symbol = s; }
  };
})(window);
