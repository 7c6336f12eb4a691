"""Template filters for every page, player and staff alike: one way to show money, a card
and a hand's category.

``{% load casino_tags %}``, then:

- ``{{ cents|money }}`` -> ``"€1,250.00"`` (cents as an ``int``, or a decimal string such
  as an API body's ``"12.50"``); ``{{ cents|signed_money }}`` -> ``"+€2.00"`` / ``"−€2.00"``.
  Both are :func:`casino.money.money`, built on ``casino.cents.format_cents``.
- ``{% with card=code|card %}{% include "partials/card.html" %}{% endwith %}``: a card
  code (``"Th"``) as what the card partial draws (rank, suit sign, colour, spoken name);
  face down (``None``/``""``) stays ``None``.
- ``{{ key|category_label }}``: a category key (``"one_pair"``) in words (``"One pair"``);
  ``{{ cards|hand_name }}``: five shown card codes as players say them (``"Pair of
  tens"``), else ``""``.
- ``{{ row.hold_pct|percent }}`` -> ``"4.20 %"``; none -> ``"—"``.
- The game's numbers, from their one home ``casino.game.rules``, for the pages' prose:
  ``{% raise_multiple %}`` -> ``2`` ("Raise 2× ante"), ``{% raise_times %}`` -> ``"twice"``
  ("a raise of twice the ante"), ``{% seats_in_words %}`` -> ``"four"`` ("four players
  against the dealer").
"""

from __future__ import annotations

from django import template
from django.utils.translation import get_language, gettext, gettext_noop, pgettext_lazy

from casino.game.evaluator import Category
from casino.game.names import hand_name_from_codes, number_word, times_word
from casino.game.rules import MAX_SEATS, RAISE_MULTIPLE
from casino.money import decimal_comma
from casino.money import money as _money

register = template.Library()

# casino.game's words (English, Django-free), marked here for the catalogs: the filters and
# tags translate them where they are read.
GAME_WORDS = (
    gettext_noop("once"),
    gettext_noop("twice"),
    gettext_noop("three times"),
    gettext_noop("four times"),
    gettext_noop("two"),
    gettext_noop("three"),
    gettext_noop("four"),
    gettext_noop("five"),
    gettext_noop("six"),
    gettext_noop("seven"),
    gettext_noop("eight"),
    gettext_noop("nine"),
    gettext_noop("ten"),
    gettext_noop("Royal flush"),
    gettext_noop("Straight flush"),
    gettext_noop("Four of a kind"),
    gettext_noop("Full house"),
    gettext_noop("Flush"),
    gettext_noop("Straight"),
    gettext_noop("Three of a kind"),
    gettext_noop("Two pair"),
    gettext_noop("One pair"),
    gettext_noop("High card"),
)

ROLE_LABELS = {
    "player": pgettext_lazy("role", "Player"),
    "cashier": pgettext_lazy("role", "Cashier"),
    "manager": pgettext_lazy("role", "Manager"),
    "auditor": pgettext_lazy("role", "Auditor"),
    "administrator": pgettext_lazy("role", "Administrator"),
}


SUIT_SYMBOLS = {
    "c": ("\u2663", "clubs", False),
    "d": ("\u2666", "diamonds", True),
    "h": ("\u2665", "hearts", True),
    "s": ("\u2660", "spades", False),
}
RANK_NAMES = dict(
    zip(
        "23456789TJQKA",
        (
            gettext_noop("Two"),
            gettext_noop("Three"),
            gettext_noop("Four"),
            gettext_noop("Five"),
            gettext_noop("Six"),
            gettext_noop("Seven"),
            gettext_noop("Eight"),
            gettext_noop("Nine"),
            gettext_noop("Ten"),
            gettext_noop("Jack"),
            gettext_noop("Queen"),
            gettext_noop("King"),
            gettext_noop("Ace"),
        ),
    )
)
# A card's whole name is one message: "Ten of hearts", German "Herz Zehn".
SUIT_NAME_FORMATS = {
    "c": gettext_noop("%(rank)s of clubs"),
    "d": gettext_noop("%(rank)s of diamonds"),
    "h": gettext_noop("%(rank)s of hearts"),
    "s": gettext_noop("%(rank)s of spades"),
}


@register.filter
def money(amount) -> str:
    """``casino.money.money``; a missing value (``None`` or the template's ``""``) shows nothing."""
    return "" if amount in (None, "") else _money(amount)


@register.filter
def signed_money(amount) -> str:
    return "" if amount in (None, "") else _money(amount, signed=True)


@register.filter
def percent(value) -> str:
    """A percentage (a ``Decimal`` or its string) with its sign: ``"97.40 %"``; none -> ``"—"``."""
    if value is None or value == "":
        return "\u2014"
    return f"{str(value).replace('.', ',') if decimal_comma() else value} %"


@register.filter
def card(code: str | None) -> dict | None:
    """``"Th"`` -> ``{"code", "rank": "10", "suit": "♥", "red": True, "name": "Ten of hearts"}``."""
    if not code:
        return None
    symbol, suit_name, red = SUIT_SYMBOLS[code[1]]
    return {
        "code": code,
        "rank": "10" if code[0] == "T" else code[0],
        "suit": symbol,
        "red": red,
        "name": gettext(SUIT_NAME_FORMATS[code[1]]) % {"rank": gettext(RANK_NAMES[code[0]])},
    }


@register.filter
def category_label(key: str | None) -> str:
    """A Caribbean category key in words; an unknown key as it is; none -> ``""``."""
    if not key:
        return ""
    try:
        return gettext(Category.from_key(key).label)
    except ValueError:
        return key


@register.filter
def role_label(role: str) -> str:
    """A role's group name (``"cashier"``) as its reader says it (``"Cashier"``, ``"Kassierer"``)."""
    return str(ROLE_LABELS.get(role, role))


@register.filter
def hand_name(codes) -> str:
    """Five shown cards named as players say them, capitalised; otherwise ``""``."""
    if not codes or len(codes) != 5 or None in codes:
        return ""
    name = hand_name_from_codes(list(codes), language=get_language() or "en")
    return name[0].upper() + name[1:]


@register.simple_tag
def raise_multiple() -> int:
    """How many antes a raise is (SPEC A1), as a number."""
    return RAISE_MULTIPLE


@register.simple_tag
def raise_times() -> str:
    """How many antes a raise is, in words: "twice" (the reader's language)."""
    return gettext(times_word(RAISE_MULTIPLE))


@register.simple_tag
def seats_in_words() -> str:
    """The seats at a table (players against the dealer), in words: "four" (the reader's language)."""
    return gettext(number_word(MAX_SEATS))
