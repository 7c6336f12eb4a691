// @ts-check
// Marks on the poker table's seats that only this viewer sees: their own colour tag and
// note on a player, and the "Bot" label of the demo's bot players. The table script draws
// the seats; this module adds the marks to each seat's name plate whenever it is drawn
// (a MutationObserver), from the page's data (#poker-seat-marks: {"notes": {name: note},
// "bots": [name]}).

import { gettext, gettext_noop, interpolate } from "./common.js";

/** @type {Record<string, string>} a colour tag's name, as the notes panel writes it */
const COLOURS = {
  red: gettext_noop("red"), orange: gettext_noop("orange"), yellow: gettext_noop("yellow"), green: gettext_noop("green"),
  blue: gettext_noop("blue"), purple: gettext_noop("purple")
};
const data = JSON.parse(document.getElementById("poker-seat-marks")?.textContent || "{}");
const notes = data.notes || {};
const bots = new Set(data.bots || []);
const seats = document.getElementById("poker-seats");

export function marksFor(name) {
  if (!name) return null;
  const note = notes[name] || null;
  return { bot: bots.has(name), colour: note ? note.colour : null, text: note ? note.text : "" };
}

function markSeat(li) {
  const plate = li.querySelector(".pseat-plate");
  const nameEl = plate && plate.querySelector(".seat-name");
  if (!plate || !nameEl) return;
  const name = li.classList.contains("is-empty") ? "" : nameEl.textContent.trim();
  const marks = marksFor(name);
  const key = JSON.stringify(marks);
  if (plate.dataset.marks === key) return;
  plate.dataset.marks = key;
  plate.querySelectorAll(".seat-mark").forEach((el) => el.remove());
  if (!marks) return;
  if (marks.bot) {
    const badge = document.createElement("span");
    badge.className = "seat-mark badge badge-bot";
    badge.textContent = gettext("Bot");
    badge.title = gettext("Played by the room's bot");
    plate.appendChild(badge);
  }
  if (marks.colour || marks.text) {
    const tag = document.createElement("span");
    tag.className = "seat-mark note-tag" + (marks.colour ? " tag-" + marks.colour : "");
    tag.setAttribute("role", "img");
    tag.setAttribute("aria-label", marks.colour ? interpolate(gettext("Your note, tagged %(colour)s"), { colour: gettext(COLOURS[marks.colour] || marks.colour) }, true) : gettext("Your note"));
    plate.appendChild(tag);
    if (marks.text) {
      const text = document.createElement("span");
      text.className = "seat-mark seat-note";
      text.textContent = marks.text;
      text.title = marks.text;
      plate.appendChild(text);
    }
  }
}

function markAll() {
  if (seats) seats.querySelectorAll("li.pseat").forEach(markSeat);
}

if (seats) {
  markAll();
  new MutationObserver(markAll).observe(seats, { childList: true, subtree: true, characterData: true });
}
