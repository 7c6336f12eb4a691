"""Lookup tables behind ``casino.stud.evaluate`` (built once, on first use).

Strength layout (the same as the Caribbean evaluator's, with the stud categories)::

    strength = StudCategory << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5

``r1..r5`` are rank indices (0 = two … 12 = ace), most significant first, unused fields 0.

Cards without a flush are looked up by their *rank multiset*: every rank has a key and
the keys are chosen so that the sums over any two different multisets of up to seven
ranks (at most four of each) differ. Each entry also says which cards make the best five:
positions into the cards sorted high to low (``card`` order is rank-major, so that sort
is by rank), listed in the order a player reads the hand. Five to seven cards of one suit
are looked up by the 13-bit mask of their ranks the same way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations, combinations_with_replacement

from casino.game.evaluator import CategoryNames

CATEGORY_SHIFT = 20
ACE = 12


class StudCategory(CategoryNames):
    """Hand categories, low to high, in SOKO order (SPEC B5).

    ``five_stud`` and ``seven_stud`` never produce ``FOUR_STRAIGHT`` or ``FOUR_FLUSH``.
    """

    HIGH_CARD = 0
    ONE_PAIR = 1
    FOUR_STRAIGHT = 2
    FOUR_FLUSH = 3
    TWO_PAIR = 4
    THREE_OF_A_KIND = 5
    STRAIGHT = 6
    FLUSH = 7
    FULL_HOUSE = 8
    FOUR_OF_A_KIND = 9
    STRAIGHT_FLUSH = 10
    ROYAL_FLUSH = 11


CATEGORIES: tuple[StudCategory, ...] = tuple(StudCategory)

# Rank keys whose sums identify every multiset of up to 7 ranks with at most 4 of each
# (the keys of Kenneth Shackleton's SKPokerEval; checked when the tables are built).
RANK_KEYS: tuple[int, ...] = (
    0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181,
)  # fmt: skip
SUIT_FIELD_BITS = 3  # per-suit card counts, 3 bits each, in a word's low 12 bits
SUIT_MASK = (1 << 4 * SUIT_FIELD_BITS) - 1
RANK_SHIFT = 4 * SUIT_FIELD_BITS

# Per card: its rank key above its suit count (summing words sums both).
CARD_WORDS: dict[int, int] = {
    card: RANK_KEYS[card >> 2] << RANK_SHIFT | 1 << SUIT_FIELD_BITS * (card & 3) for card in range(52)
}


def pack(category: StudCategory, ranks: Sequence[int]) -> int:
    strength = category << CATEGORY_SHIFT
    for position, rank in enumerate(ranks):
        strength |= rank << (16 - 4 * position)
    return strength


def _runs(length: int) -> tuple[tuple[int, int], ...]:
    """(top rank, bit mask of the run's ranks) for every run of ``length``, highest first."""
    return tuple((top, sum(1 << rank for rank in run_ranks(top, length))) for top in range(ACE, length - 3, -1))


def straight_top(distinct_desc: Sequence[int], length: int = 5) -> int | None:
    """Top rank of the highest run of ``length`` ranks (ace also low), or None."""
    present = 0
    for rank in distinct_desc:
        present |= 1 << rank
    for top, mask in _RUNS[length]:
        if present & mask == mask:
            return top
    return None


def run_ranks(top: int, length: int = 5) -> list[int]:
    """The ranks of a run from ``top`` down (``top`` 3 with length 5 is ``5432A``)."""
    return [ACE if top - step == -1 else top - step for step in range(length)]


_RUNS = {length: _runs(length) for length in (4, 5)}


def best_without_flush(ranks_desc: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """Best five of 5..7 ranks (sorted high to low), suits ignored.

    Returns the strength and the positions (into ``ranks_desc``) of the five cards, in
    reading order.
    """
    positions: dict[int, list[int]] = {}
    for index, rank in enumerate(ranks_desc):
        positions.setdefault(rank, []).append(index)
    counts = {rank: len(where) for rank, where in positions.items()}
    by_group = sorted(counts, key=lambda rank: (counts[rank], rank), reverse=True)

    def kickers(exclude: set[int], how_many: int) -> list[int]:
        found = [index for index, rank in enumerate(ranks_desc) if rank not in exclude]
        return found[:how_many]

    quads = [rank for rank in by_group if counts[rank] == 4]
    if quads:
        quad = quads[0]
        kicker = kickers({quad}, 1)
        return pack(StudCategory.FOUR_OF_A_KIND, (quad, ranks_desc[kicker[0]])), tuple(positions[quad] + kicker)
    trips = sorted((rank for rank in counts if counts[rank] == 3), reverse=True)
    if trips:
        pairs = sorted((rank for rank in counts if counts[rank] >= 2 and rank != trips[0]), reverse=True)
        if pairs:
            high, low = trips[0], pairs[0]
            return (
                pack(StudCategory.FULL_HOUSE, (high, low)),
                tuple(positions[high][:3] + positions[low][:2]),
            )
    top = straight_top(list(positions))
    if top is not None:
        return pack(StudCategory.STRAIGHT, (top,)), tuple(positions[rank][0] for rank in run_ranks(top))
    if trips:
        trip = trips[0]
        rest = kickers({trip}, 2)
        return (
            pack(StudCategory.THREE_OF_A_KIND, [trip] + [ranks_desc[i] for i in rest]),
            tuple(positions[trip] + rest),
        )
    pairs = sorted((rank for rank in counts if counts[rank] == 2), reverse=True)
    if len(pairs) >= 2:
        high, low = pairs[0], pairs[1]
        rest = kickers({high, low}, 1)
        return (
            pack(StudCategory.TWO_PAIR, (high, low, ranks_desc[rest[0]])),
            tuple(positions[high] + positions[low] + rest),
        )
    if pairs:
        pair = pairs[0]
        rest = kickers({pair}, 3)
        return (
            pack(StudCategory.ONE_PAIR, [pair] + [ranks_desc[i] for i in rest]),
            tuple(positions[pair] + rest),
        )
    return pack(StudCategory.HIGH_CARD, ranks_desc[:5]), (0, 1, 2, 3, 4)


def best_flush(distinct_desc: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """Best five of 5..7 cards of one suit (distinct ranks, high to low): flush or straight flush."""
    top = straight_top(distinct_desc)
    if top is None:
        return pack(StudCategory.FLUSH, distinct_desc[:5]), (0, 1, 2, 3, 4)
    category = StudCategory.ROYAL_FLUSH if top == ACE else StudCategory.STRAIGHT_FLUSH
    index = {rank: i for i, rank in enumerate(distinct_desc)}
    return pack(category, (top,)), tuple(index[rank] for rank in run_ranks(top))


def four_straight(ranks_desc: Sequence[int]) -> tuple[int, tuple[int, ...]] | None:
    """SOKO four-straight of five ranks (high to low) that are not a straight, or None.

    Ties (SPEC B5): the run's highest card (``A234`` is four high), then the odd card.
    """
    distinct = sorted(set(ranks_desc), reverse=True)
    if len(distinct) == 5 and straight_top(distinct) is not None:
        return None
    top = straight_top(distinct, 4)
    if top is None:
        return None
    run = run_ranks(top, 4)
    picked: list[int] = []
    for rank in run:
        picked.append(next(i for i, r in enumerate(ranks_desc) if r == rank and i not in picked))
    odd = next(i for i in range(5) if i not in picked)
    return pack(StudCategory.FOUR_STRAIGHT, (top, ranks_desc[odd])), tuple(picked + [odd])


def rank_multisets(size: int) -> Iterator[tuple[int, ...]]:
    """Every multiset of ``size`` ranks with at most four of each, as ranks high to low."""
    for combo in combinations_with_replacement(range(12, -1, -1), size):
        if max(Counter(combo).values()) <= 4:
            yield combo


def rank_key(ranks: Sequence[int]) -> int:
    return sum(RANK_KEYS[rank] for rank in ranks)


def build_without_flush(size: int) -> dict[int, tuple[int, tuple[int, ...]]]:
    """Rank-key sum -> (strength, picking positions) for every multiset of ``size`` ranks."""
    table: dict[int, tuple[int, tuple[int, ...]]] = {}
    for ranks in rank_multisets(size):
        key = rank_key(ranks)
        if key in table:
            raise RuntimeError("rank keys collide: the stud evaluator's tables are corrupt")
        table[key] = best_without_flush(ranks)
    return table


def build_flush() -> dict[int, tuple[int, tuple[int, ...]]]:
    """13-bit rank mask of 5..7 suited cards -> (strength, positions into them high to low)."""
    table: dict[int, tuple[int, tuple[int, ...]]] = {}
    for size in (5, 6, 7):
        for ranks in combinations(range(12, -1, -1), size):
            table[sum(1 << rank for rank in ranks)] = best_flush(ranks)
    return table


def build_flush_suit(min_count: int) -> tuple[int, ...]:
    """Suit-count field (12 bits) -> the suit holding at least ``min_count`` cards, else -1."""
    table = [-1] * (SUIT_MASK + 1)
    for word in range(SUIT_MASK + 1):
        for suit in range(4):
            if (word >> SUIT_FIELD_BITS * suit) & 7 >= min_count:
                table[word] = suit
    return tuple(table)


def build_four_flush_suit() -> tuple[int, ...]:
    """Suit-count field -> the suit holding exactly four cards, else -1 (SOKO, five cards)."""
    table = [-1] * (SUIT_MASK + 1)
    for word in range(SUIT_MASK + 1):
        for suit in range(4):
            if (word >> SUIT_FIELD_BITS * suit) & 7 == 4:
                table[word] = suit
    return tuple(table)


def showing_of_ranks(ranks_desc: Sequence[int]) -> tuple[int, int | None, int | None]:
    """Best-hand-showing strengths of 1..4 up cards' ranks (high to low), SPEC B3.

    Returns (the standard strength, the SOKO four-straight strength or None, the SOKO
    four-flush strength should the cards be of one suit, or None). Rank fields are one
    higher than ``evaluate``'s (1 = two … 13 = ace) so that an empty field sorts lowest.
    """
    counts = Counter(ranks_desc)
    grouped = sorted(counts, key=lambda rank: (counts[rank], rank), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    if shape[0] == 4:
        category = StudCategory.FOUR_OF_A_KIND
    elif shape[0] == 3:
        category = StudCategory.THREE_OF_A_KIND
    elif shape[:2] == [2, 2]:
        category = StudCategory.TWO_PAIR
    elif shape[0] == 2:
        category = StudCategory.ONE_PAIR
    else:
        category = StudCategory.HIGH_CARD
    standard = pack(category, [rank + 1 for rank in grouped])
    if len(ranks_desc) != 4 or category != StudCategory.HIGH_CARD:
        return standard, None, None
    top = straight_top(ranks_desc, 4)
    run = None if top is None else pack(StudCategory.FOUR_STRAIGHT, (top + 1,))
    return standard, run, pack(StudCategory.FOUR_FLUSH, [rank + 1 for rank in ranks_desc])


def build_showing(size: int) -> dict[int, tuple[int, int | None, int | None]]:
    """Rank-key sum of ``size`` (1..4) up cards -> ``showing_of_ranks``."""
    return {rank_key(ranks): showing_of_ranks(ranks) for ranks in rank_multisets(size)}
