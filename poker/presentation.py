"""What a person reads about a poker hand in their language: the shown hands' names.

``poker.selectors`` names shown hands in English (the room's record and the API keep
those words); the pages and the live table show them in the reader's language.
"""

from __future__ import annotations

from django.utils import translation

from casino.game.names import hand_name_from_codes
from poker.selectors import stud_hand_name

SOKO_WORDS_DE = {"four_flush": "Four Card Flush", "four_straight": "Four Card Straight"}


def shown_hand_name(category: str | None, best_five) -> str:
    """A shown stud hand in the reader's words: the room's English name
    (``poker.selectors.stud_hand_name``), or in German ("Paar Zehnen", "Four Card Flush, Ass hoch")."""
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
    return hand_name_from_codes(list(best_five), language="de")


_RANKS_DE_BY_WORD = dict(
    zip(
        ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king", "ace"),
        ("Zwei", "Drei", "Vier", "Fünf", "Sechs", "Sieben", "Acht", "Neun", "Zehn", "Bube", "Dame", "König", "Ass"),
    )
)


def named_view(view: dict) -> dict:
    """The snapshot with every shown hand named, the felt's and the previous hands' (kept
    when the selector names them already, unless the reader reads German)."""
    german = (translation.get_language() or "en").startswith("de")
    for hand in [view.get("hand"), *(view.get("previous_hands") or ())]:
        for entry in (hand or {}).get("showdown") or ():
            if entry.get("shown") and (german or not entry.get("hand_name")):
                entry["hand_name"] = shown_hand_name(entry.get("category"), entry.get("best_five"))
    return view
