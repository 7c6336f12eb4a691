"""Five-card poker hand evaluation (SPEC §0 "Hand categories").

A hand's *strength* is one int: higher is better, equal is a tie. Its layout is part of
the API (the vectorised strategies read it)::

    strength = category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5

``r1..r5`` are rank indices (0 = two … 12 = ace) that break ties inside the category,
most significant first, unused fields 0: the straight's top card for straights and
straight flushes (5 for ``A2345``), the quads/trips/pairs' ranks then the kickers for
grouped hands, all five ranks from high to low for flushes and high cards.

Lookup: each card maps to ``rank_key << 8 | suit_code``. The rank keys are a greedy
B5 sequence (every multiset of five ranks has its own key sum) and the suit codes are
chosen so that five of them sum to ``5 * code`` only when all five are the same suit.
One addition per card therefore yields an index into a single strength table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from enum import IntEnum
from itertools import combinations, combinations_with_replacement
from typing import Self

import numpy as np

CATEGORY_SHIFT = 20


class CategoryNames(IntEnum):
    """Names of a hand-category enum's members (the base of ``Category`` and the stud one;
    an enum with no members of its own, so each of them extends it)."""

    @property
    def key(self) -> str:
        """SPEC's machine name, e.g. ``"royal_flush"``."""
        return self.name.lower()

    @property
    def label(self) -> str:
        """Human name, e.g. ``"Royal flush"``."""
        return self.name.replace("_", " ").capitalize()

    @classmethod
    def from_key(cls, key: str) -> Self:
        """Inverse of ``.key``; raises ValueError for an unknown name."""
        if not isinstance(key, str) or key != key.lower() or key.upper() not in cls.__members__:
            names = ", ".join(category.key for category in cls)
            raise ValueError(f"unknown hand category {key!r}; expected one of: {names}")
        return cls[key.upper()]


class Category(CategoryNames):
    """Hand categories, low to high."""

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9


RANK_NAMES = (
    "Two", "Three", "Four", "Five", "Six", "Seven", "Eight",
    "Nine", "Ten", "Jack", "Queen", "King", "Ace",
)  # fmt: skip
_PLURALS = tuple("Sixes" if name == "Six" else name + "s" for name in RANK_NAMES)

_ACE, _KING, _FIVE = 12, 11, 3
_RANK_KEYS = (0, 1, 6, 31, 108, 366, 926, 2286, 5733, 12905, 27316, 44676, 94545)
_SUIT_CODES = (0, 1, 6, 36)
_SUIT_BITS = 8


def _pack(category: Category, ranks: Sequence[int]) -> int:
    strength = category << CATEGORY_SHIFT
    for position, rank in enumerate(ranks):
        strength |= rank << (16 - 4 * position)
    return strength


def _fields(strength: int) -> tuple[int, int, int, int, int]:
    return (
        (strength >> 16) & 15,
        (strength >> 12) & 15,
        (strength >> 8) & 15,
        (strength >> 4) & 15,
        strength & 15,
    )


QUALIFYING_STRENGTH = _pack(Category.HIGH_CARD, (_ACE, _KING))
"""The dealer qualifies with a strength at or above this (ace-king high or better)."""


def _strength_of_ranks(ranks: Sequence[int], *, flush: bool) -> int:
    counts = Counter(ranks)
    ordered = sorted(counts, key=lambda rank: (counts[rank], rank), reverse=True)
    if len(counts) == 5:
        if ordered[0] - ordered[4] == 4:
            top = ordered[0]
        elif ordered == [_ACE, _FIVE, 2, 1, 0]:
            top = _FIVE
        else:
            return _pack(Category.FLUSH if flush else Category.HIGH_CARD, ordered)
        if flush:
            category = Category.ROYAL_FLUSH if top == _ACE else Category.STRAIGHT_FLUSH
        else:
            category = Category.STRAIGHT
        return _pack(category, (top,))
    shape = tuple(sorted(counts.values(), reverse=True))
    category = {
        (4, 1): Category.FOUR_OF_A_KIND,
        (3, 2): Category.FULL_HOUSE,
        (3, 1, 1): Category.THREE_OF_A_KIND,
        (2, 2, 1): Category.TWO_PAIR,
        (2, 1, 1, 1): Category.ONE_PAIR,
    }[shape]
    return _pack(category, ordered)


def _build_tables() -> tuple[np.ndarray, np.ndarray]:
    rank_sums = [
        (ranks, sum(_RANK_KEYS[rank] for rank in ranks))
        for ranks in combinations_with_replacement(range(13), 5)
        if len(set(ranks)) > 1
    ]
    flush_base = max(key for _, key in rank_sums) + 1
    flush_sums = [(ranks, flush_base + sum(_RANK_KEYS[r] for r in ranks)) for ranks in combinations(range(13), 5)]
    table = np.full(max(key for _, key in flush_sums) + 1, -1, dtype=np.int64)
    for entries, flush in ((rank_sums, False), (flush_sums, True)):
        for ranks, key in entries:
            if table[key] != -1:
                raise RuntimeError("rank keys collide: the evaluator table is corrupt")
            table[key] = _strength_of_ranks(ranks, flush=flush)
    flush_offset = np.zeros(1 << _SUIT_BITS, dtype=np.int32)
    flush_offset[[5 * code for code in _SUIT_CODES]] = flush_base
    return table, flush_offset


_TABLE, _FLUSH_OFFSET = _build_tables()
_WORDS = np.array(
    [_RANK_KEYS[card >> 2] << _SUIT_BITS | _SUIT_CODES[card & 3] for card in range(52)],
    dtype=np.int32,
)
_SUIT_MASK = (1 << _SUIT_BITS) - 1
_STRENGTHS = frozenset(_TABLE[_TABLE >= 0].tolist())


def _make_evaluate() -> Callable[[Sequence[int]], int]:
    words = tuple(_WORDS.tolist())
    table = tuple(_TABLE.tolist())
    flush_offset = tuple(_FLUSH_OFFSET.tolist())

    def evaluate(cards: Sequence[int]) -> int:
        """Strength of exactly five distinct cards (ints 0..51; not checked, for speed)."""
        a, b, c, d, e = cards
        w = words[a] + words[b] + words[c] + words[d] + words[e]
        return table[(w >> 8) + flush_offset[w & 255]]  # literals: _SUIT_BITS and _SUIT_MASK

    return evaluate


evaluate = _make_evaluate()


def evaluate_batch(hands: np.ndarray) -> np.ndarray:
    """Strengths of an ``(N, 5)`` integer array of cards, as int64; equal to ``evaluate`` row by row."""
    hands = np.asarray(hands)
    if hands.ndim != 2 or hands.shape[1] != 5:
        raise ValueError(f"hands must have shape (N, 5), got {hands.shape}")
    if not np.issubdtype(hands.dtype, np.integer):
        raise ValueError(f"hands must hold integer cards, got dtype {hands.dtype}")
    if hands.size and (hands.min() < 0 or hands.max() > 51):
        raise ValueError("cards must be in 0..51")
    words = _WORDS[hands[:, 0]]
    for column in range(1, 5):
        words += _WORDS[hands[:, column]]
    return _TABLE[(words >> _SUIT_BITS) + _FLUSH_OFFSET[words & _SUIT_MASK]]


def category_of(strength: int) -> Category:
    """The category of a strength; raises ValueError for a value no hand has."""
    if strength not in _STRENGTHS:
        raise ValueError(f"{strength!r} is not the strength of any five-card hand")
    return Category(strength >> CATEGORY_SHIFT)


def dealer_qualifies(strength: int) -> bool:
    """Ace-king high or better: any pair or better, or a high card holding an ace and a king."""
    return strength >= QUALIFYING_STRENGTH


def describe_strength(strength: int) -> str:
    """Human text for a strength, e.g. ``"Pair of Kings"``, ``"Ace-King high"``."""
    category = category_of(strength)
    first, second = _fields(strength)[:2]
    texts = {
        Category.ROYAL_FLUSH: "Royal flush",
        Category.STRAIGHT_FLUSH: f"Straight flush, {RANK_NAMES[first]} high",
        Category.FOUR_OF_A_KIND: f"Four {_PLURALS[first]}",
        Category.FULL_HOUSE: f"Full house, {_PLURALS[first]} over {_PLURALS[second]}",
        Category.FLUSH: f"Flush, {RANK_NAMES[first]} high",
        Category.STRAIGHT: f"Straight, {RANK_NAMES[first]} high",
        Category.THREE_OF_A_KIND: f"Three {_PLURALS[first]}",
        Category.TWO_PAIR: f"Two pair, {_PLURALS[first]} and {_PLURALS[second]}",
        Category.ONE_PAIR: f"Pair of {_PLURALS[first]}",
        Category.HIGH_CARD: f"{RANK_NAMES[first]}-{RANK_NAMES[second]} high",
    }
    return texts[category]


def describe(cards: Sequence[int]) -> str:
    """Human text for five cards, e.g. ``"Pair of Kings"``, ``"Ace-King high"``."""
    return describe_strength(evaluate(cards))
