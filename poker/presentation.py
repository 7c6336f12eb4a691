"""What a person reads about a poker hand in their language: the shown hands' names and
the streets' titles.

``poker.selectors`` names shown hands in English (the room's record and the API keep
those words); the pages and the live table show them in the reader's language.
"""

from __future__ import annotations

from django.utils import translation
from django.utils.translation import gettext, gettext_lazy

from casino.game.names import hand_name_from_codes
from poker.selectors import stud_hand_name

STREET_WORDS = {
    "seven_stud": {
        3: gettext_lazy("Third street"),
        4: gettext_lazy("Fourth street"),
        5: gettext_lazy("Fifth street"),
        6: gettext_lazy("Sixth street"),
        7: gettext_lazy("Seventh street"),
    },
    "five_stud": {
        2: gettext_lazy("Second street"),
        3: gettext_lazy("Third street"),
        4: gettext_lazy("Fourth street"),
        5: gettext_lazy("Fifth street"),
    },
    "soko": {
        2: gettext_lazy("Second street"),
        3: gettext_lazy("Third street"),
        4: gettext_lazy("Fourth street"),
        5: gettext_lazy("Fifth street"),
    },
}


def street_title(game: str, number: int) -> str:
    """A street as its reader says it: ``"Third street"``, German ``"Third Street"``; the
    seventh card of seven-card stud ``"Seventh street"``, German ``"Seventh Street (River)"``."""
    words = STREET_WORDS.get(game, {}).get(number)
    return str(words) if words else gettext("Street %(number)s") % {"number": number}


SOKO_WORDS_DE = {"four_flush": "Four Card Flush", "four_straight": "Four Card Straight"}
# Stud players' words for trips and quads (docs/glossary.md): "Drilling Siebenen", "Vierling Asse"
# where the Caribbean table says "Drei Siebenen", "Vier Asse".
STUD_WORDS_DE = {"three_of_a_kind": ("Drei ", "Drilling "), "four_of_a_kind": ("Vier ", "Vierling ")}


def shown_hand_name(category: str | None, best_five) -> str:
    """A shown stud hand in the reader's words: the room's English name
    (``poker.selectors.stud_hand_name``), or in German ("Paar Zehnen", "Drilling Siebenen",
    "Four Card Flush, Ass hoch")."""
    english = stud_hand_name(category, best_five)
    if (
        not (translation.get_language() or "en").startswith("de")
        or not best_five
        or len(best_five) != 5
        or None in best_five
    ):
        return english
    if category in SOKO_WORDS_DE:  # "four flush, ace high": its top card's word, in German
        word = english.rsplit(", ", 1)[-1].removesuffix(" high")
        return f"{SOKO_WORDS_DE[category]}, {_RANKS_DE_BY_WORD.get(word, word)} hoch"
    name = hand_name_from_codes(list(best_five), language="de")
    if category in STUD_WORDS_DE:
        caribbean, stud = STUD_WORDS_DE[category]
        name = stud + name.removeprefix(caribbean)
    return name


_RANKS_DE_BY_WORD = dict(
    zip(
        ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king", "ace"),
        ("Zwei", "Drei", "Vier", "Fünf", "Sechs", "Sieben", "Acht", "Neun", "Zehn", "Bube", "Dame", "König", "Ass"),
    )
)


def _showdowns(hand: dict) -> list:
    """The shown-hand lists of a hand's public view: its showdown and its showdown events'."""
    events = [e.get("hands") or [] for e in hand.get("events") or () if e.get("type") == "showdown"]
    return [hand.get("showdown") or [], *events]


def named_view(view: dict) -> dict:
    """The snapshot with every shown hand named, the felt's and the previous hands' (kept
    when the selector names them already, unless the reader reads German)."""
    german = (translation.get_language() or "en").startswith("de")
    for hand in [view.get("hand"), *(view.get("previous_hands") or ())]:
        for entries in _showdowns(hand or {}):
            for entry in entries:
                if entry.get("shown") and (german or not entry.get("hand_name")):
                    entry["hand_name"] = shown_hand_name(entry.get("category"), entry.get("best_five"))
    return view


def event_in_language(event: dict) -> dict | None:
    """A public ``poker.hand`` event with its shown hands named in the reader's words (a
    copy), or None when it names none or the reader reads English, the step's words
    (``poker.selectors.stud_hand_name``): every socket of the table gets the same event."""
    if event.get("kind") != "poker.hand" or not (translation.get_language() or "en").startswith("de"):
        return None
    hand = (event.get("public") or {}).get("hand") or {}
    showdown = hand.get("showdown") or ()
    if not any(entry.get("shown") and entry.get("hand_name") for entry in showdown):
        return None

    def named(entry: dict) -> dict:
        if not (entry.get("shown") and entry.get("hand_name")):
            return entry
        return {**entry, "hand_name": shown_hand_name(entry.get("category"), entry.get("best_five"))}

    worded_hand = {**hand, "showdown": [named(entry) for entry in showdown]}
    return {**event, "public": {**event["public"], "hand": worded_hand}}
