"""Cards as small ints, in the canonical deck order of SPEC §0.

A card is ``rank_index * 4 + suit_index`` with ranks ``23456789TJQKA`` and suits
``cdhs``: 0 is ``2c``, 1 is ``2d``, 51 is ``As``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

RANKS = "23456789TJQKA"
SUITS = "cdhs"
CANONICAL_DECK: tuple[int, ...] = tuple(range(52))


def rank_of(card: int) -> int:
    """Rank index of ``card``: 0 for a two, 12 for an ace."""
    return card >> 2


def suit_of(card: int) -> int:
    """Suit index of ``card``: 0 clubs, 1 diamonds, 2 hearts, 3 spades."""
    return card & 3


def card_to_str(card: int) -> str:
    """``51 -> "As"``; raises ValueError for anything but an int in 0..51."""
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < 52:
        raise ValueError(f"not a card: {card!r} (expected an int in 0..51)")
    return RANKS[card >> 2] + SUITS[card & 3]


def card_from_str(text: str) -> int:
    """``"As" -> 51``; raises ValueError unless ``text`` is a rank then a suit, e.g. ``Th``."""
    if not isinstance(text, str) or len(text) != 2:
        raise ValueError(f"not a card: {text!r} (expected rank + suit, e.g. 'Ah')")
    rank, suit = RANKS.find(text[0]), SUITS.find(text[1])
    if rank < 0 or suit < 0:
        raise ValueError(f"not a card: {text!r} (ranks are {RANKS!r}, suits are {SUITS!r}, e.g. 'Ah')")
    return rank * 4 + suit


def cards_to_str(cards: Iterable[int]) -> list[str]:
    """``[51, 0] -> ["As", "2c"]``."""
    return [card_to_str(card) for card in cards]


def cards_from_str(cards: str | Sequence[str]) -> list[int]:
    """Parse ``"Ah Kd 2c"`` (whitespace separated) or ``["Ah", "Kd", "2c"]``."""
    tokens = cards.split() if isinstance(cards, str) else cards
    return [card_from_str(token) for token in tokens]
