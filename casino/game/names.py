"""Hands named as players say them, and the cards that make them.

One place for the words, used by the pages and the API alike: ``hand_name(cards)`` gives
``"pair of tens"``, ``"king high"``, ``"two pair, aces and eights"``, ``"flush, ace high"``,
``"full house, kings full of threes"``; ``winning_cards(cards)`` gives the cards that make
the hand (the pair, the trips, all five of a straight...), for the table to highlight.
``number_word(4)`` gives ``"four"`` and ``times_word(2)`` ``"twice"``, for the game's
numbers in prose (``casino.game.rules.MAX_SEATS``, ``RAISE_MULTIPLE``).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence

from casino.game.cards import cards_from_str, rank_of
from casino.game.evaluator import Category, category_of, evaluate

_RANKS = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king", "ace")
_PLURALS = tuple("sixes" if name == "six" else name + "s" for name in _RANKS)
_ACE, _KING = 12, 11
_NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_TIMES = {1: "once", 2: "twice"}


def number_word(n: int) -> str:
    """``4`` -> ``"four"`` (digits past ten)."""
    return _NUMBERS[n] if 0 <= n < len(_NUMBERS) else str(n)


def times_word(n: int) -> str:
    """``2`` -> ``"twice"``, ``3`` -> ``"three times"``."""
    return _TIMES.get(n) or f"{number_word(n)} times"


_WITH_A = (
    Category.ONE_PAIR,
    Category.STRAIGHT,
    Category.FLUSH,
    Category.FULL_HOUSE,
    Category.STRAIGHT_FLUSH,
    Category.ROYAL_FLUSH,
)


def _ranks_by_weight(cards: Sequence[int]) -> list[int]:
    """Ranks, most copies first, then highest first (``K K 3 3 3`` -> ``[3, 11]``)."""
    counts = Counter(rank_of(card) for card in cards)
    return sorted(counts, key=lambda rank: (counts[rank], rank), reverse=True)


def _straight_top(ranks: Sequence[int]) -> int:
    ordered = sorted(set(ranks), reverse=True)
    return 3 if ordered == [_ACE, 3, 2, 1, 0] else ordered[0]  # A-2-3-4-5 is five high


# The German words (the seeds' and German players'): ranks and their plurals.
_RANKS_DE = ("Zwei", "Drei", "Vier", "Fünf", "Sechs", "Sieben", "Acht", "Neun", "Zehn", "Bube", "Dame", "König", "Ass")
_PLURALS_DE = (
    "Zweien",
    "Dreien",
    "Vieren",
    "Fünfen",
    "Sechsen",
    "Siebenen",
    "Achten",
    "Neunen",
    "Zehnen",
    "Buben",
    "Damen",
    "Könige",
    "Asse",
)


def _hand_name_de(category: Category, ranks: Sequence[int], first: int, rest: list[int]) -> str:
    """The German name, its nouns capitalised as German writes them: ``"Paar Zehnen"``,
    ``"Full House, Könige über Dreien"``, ``"König hoch"``."""
    if category == Category.ROYAL_FLUSH:
        return "Royal Flush"
    if category == Category.STRAIGHT_FLUSH:
        return f"Straight Flush, {_RANKS_DE[_straight_top(ranks)]} hoch"
    if category == Category.FOUR_OF_A_KIND:
        return f"Vier {_PLURALS_DE[first]}"
    if category == Category.FULL_HOUSE:
        return f"Full House, {_PLURALS_DE[first]} über {_PLURALS_DE[rest[0]]}"
    if category == Category.FLUSH:
        return f"Flush, {_RANKS_DE[first]} hoch"
    if category == Category.STRAIGHT:
        return f"Straight, {_RANKS_DE[_straight_top(ranks)]} hoch"
    if category == Category.THREE_OF_A_KIND:
        return f"Drei {_PLURALS_DE[first]}"
    if category == Category.TWO_PAIR:
        return f"Zwei Paare, {_PLURALS_DE[first]} und {_PLURALS_DE[rest[0]]}"
    if category == Category.ONE_PAIR:
        return f"Paar {_PLURALS_DE[first]}"
    if first == _ACE and rest[0] == _KING:
        return "Ass-König hoch"
    return f"{_RANKS_DE[first]} hoch"


def hand_name(cards: Sequence[int], *, with_article: bool = False, language: str = "en") -> str:
    """Five cards named as a player says them, lower case: ``"pair of tens"``.

    ``with_article`` puts "a" where English wants one (``"a pair of tens"``, ``"a flush,
    ace high"``; but ``"king high"``, ``"two pair, ..."``, ``"three sevens"``). Raises
    ValueError for anything but five distinct cards. ``language="de"``: the German name
    (``"Paar Zehnen"``, nouns capitalised, no article).
    """
    category = category_of(evaluate(cards))
    ranks = [rank_of(card) for card in cards]
    first, *rest = _ranks_by_weight(cards)
    if language.split("-")[0] == "de":
        return _hand_name_de(category, ranks, first, rest)
    if category == Category.ROYAL_FLUSH:
        name = "royal flush"
    elif category == Category.STRAIGHT_FLUSH:
        name = f"straight flush, {_RANKS[_straight_top(ranks)]} high"
    elif category == Category.FOUR_OF_A_KIND:
        name = f"four {_PLURALS[first]}"
    elif category == Category.FULL_HOUSE:
        name = f"full house, {_PLURALS[first]} full of {_PLURALS[rest[0]]}"
    elif category == Category.FLUSH:
        name = f"flush, {_RANKS[first]} high"
    elif category == Category.STRAIGHT:
        name = f"straight, {_RANKS[_straight_top(ranks)]} high"
    elif category == Category.THREE_OF_A_KIND:
        name = f"three {_PLURALS[first]}"
    elif category == Category.TWO_PAIR:
        name = f"two pair, {_PLURALS[first]} and {_PLURALS[rest[0]]}"
    elif category == Category.ONE_PAIR:
        name = f"pair of {_PLURALS[first]}"
    elif first == _ACE and rest[0] == _KING:
        name = "ace-king high"  # the dealer's lowest qualifying hand: players name both cards
    else:
        name = f"{_RANKS[first]} high"
    return f"a {name}" if with_article and category in _WITH_A else name


def winning_cards(cards: Sequence[int]) -> list[int]:
    """The cards that make the hand, in the order given: the pair, the trips, the quads,
    both pairs, all five of a straight, flush or full house; for a high card the card (or,
    for ace-king high, the two cards) it is named after."""
    category = category_of(evaluate(cards))
    if category in (
        Category.STRAIGHT,
        Category.FLUSH,
        Category.FULL_HOUSE,
        Category.STRAIGHT_FLUSH,
        Category.ROYAL_FLUSH,
    ):
        return list(cards)
    counts = Counter(rank_of(card) for card in cards)
    if category == Category.HIGH_CARD:
        first, second = _ranks_by_weight(cards)[:2]
        keep = {first, second} if (first, second) == (_ACE, _KING) else {first}
    else:
        keep = {rank for rank, count in counts.items() if count >= 2}
    return [card for card in cards if rank_of(card) in keep]


def hand_name_from_codes(codes: Sequence[str], *, with_article: bool = False, language: str = "en") -> str:
    """:func:`hand_name` for cards written ``"Th"``, as the models store them."""
    return _named(tuple(codes), with_article, language)


@functools.lru_cache(maxsize=8192)
def _named(codes: tuple[str, ...], with_article: bool, language: str) -> str:
    """A shown hand is named for every socket and page that shows it, within moments: once."""
    return hand_name(cards_from_str(list(codes)), with_article=with_article, language=language)
