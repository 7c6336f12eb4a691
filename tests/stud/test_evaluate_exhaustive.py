"""Every five-card and every seven-card hand, counted by category.

The SOKO counts are derived here by combinatorics, the standard five-card counts are
SPEC §0's table (and derived too), the seven-card counts are the published ones (Brian
Alspach, "7-Card Poker Hands", 2000; the Wikipedia table "Poker probability").
"""

from __future__ import annotations

import time
from functools import cache
from math import comb

import numpy as np
import pytest

from casino.stud.evaluate import StudCategory, evaluate, evaluate_many

C = StudCategory


@cache
def all_combinations(n: int, k: int) -> np.ndarray:
    """Every k-subset of range(n), ascending rows in lexicographic order, as uint8."""
    if k == 0:
        return np.zeros((1, 0), dtype=np.uint8)
    blocks = []
    for first in range(n - k + 1):
        rest = all_combinations(n - first - 1, k - 1) + np.uint8(first + 1)
        block = np.empty((len(rest), k), dtype=np.uint8)
        block[:, 0] = first
        block[:, 1:] = rest
        blocks.append(block)
    return np.concatenate(blocks)


@pytest.fixture(scope="module")
def five_card_hands() -> np.ndarray:
    hands = all_combinations(52, 5)
    assert len(hands) == comb(52, 5) == 2_598_960
    return hands


def category_counts(strengths: np.ndarray) -> dict[StudCategory, int]:
    counts = np.bincount(strengths >> 20, minlength=len(StudCategory))
    return {category: int(counts[category]) for category in StudCategory}


# --- expected five-card counts, by combinatorics -------------------------------------------

SPEC_STANDARD_COUNTS = {  # SPEC §0's table
    C.ROYAL_FLUSH: 4, C.STRAIGHT_FLUSH: 36, C.FOUR_OF_A_KIND: 624, C.FULL_HOUSE: 3_744,
    C.FLUSH: 5_108, C.STRAIGHT: 10_200, C.THREE_OF_A_KIND: 54_912, C.TWO_PAIR: 123_552,
    C.ONE_PAIR: 1_098_240, C.HIGH_CARD: 1_302_540, C.FOUR_FLUSH: 0, C.FOUR_STRAIGHT: 0,
}  # fmt: skip


def derived_standard_counts() -> dict[StudCategory, int]:
    runs = 10  # five-card straights: A2345 … TJQKA
    return {
        C.ROYAL_FLUSH: 4,
        C.STRAIGHT_FLUSH: runs * 4 - 4,
        C.FOUR_OF_A_KIND: 13 * 48,
        C.FULL_HOUSE: 13 * comb(4, 3) * 12 * comb(4, 2),
        C.FLUSH: 4 * comb(13, 5) - runs * 4,
        C.STRAIGHT: runs * 4**5 - runs * 4,
        C.THREE_OF_A_KIND: 13 * comb(4, 3) * comb(12, 2) * 4**2,
        C.TWO_PAIR: comb(13, 2) * comb(4, 2) ** 2 * 11 * 4,
        C.ONE_PAIR: 13 * comb(4, 2) * comb(12, 3) * 4**3,
        C.HIGH_CARD: (comb(13, 5) - runs) * (4**5 - 4),
        C.FOUR_FLUSH: 0,
        C.FOUR_STRAIGHT: 0,
    }


def derived_soko_counts() -> dict[StudCategory, int]:
    """SPEC B5 counted: four-flush and four-straight take hands from one pair and high card."""
    standard = derived_standard_counts()
    # Four-flush: four cards of one suit (distinct ranks) and a fifth of another suit,
    # except where the five ranks are a straight (10 runs, which card is off-suit, the
    # suit of the four, the odd card's suit).
    exactly_four_suited = 4 * comb(13, 4) * 39
    straights_with_four_suited = 10 * 5 * 4 * 3
    four_flush = exactly_four_suited - straights_with_four_suited
    four_flush_with_pair = 4 * comb(13, 4) * 4 * 3  # the odd card pairs one of the four
    four_flush_no_pair = four_flush - four_flush_with_pair
    # Four-straight: 11 runs (A234 four high … JQKA ace high); the odd card's rank must not
    # extend the run to a five-card straight (A234 and JQKA have one such rank, the others two).
    runs = [("A234", 1), ("JQKA", 1)] + [(f"run{top}", 2) for top in range(9)]
    assert len(runs) == 11
    # odd card of a fifth rank: any suits but all five or exactly four of one suit
    unsuited_five = 4**5 - 4 - 5 * 4 * 3
    odd_ranks = sum(13 - 4 - extensions for _, extensions in runs)
    four_straight_no_pair = odd_ranks * unsuited_five
    # odd card pairing a run rank: two of that rank, one of each other; minus the
    # four-flushes (the four ranks in one suit, the pair's second card in another)
    paired = comb(4, 2) * 4**3 - 4 * 3
    four_straight_with_pair = len(runs) * 4 * paired
    counts = dict(standard)
    counts[C.FOUR_FLUSH] = four_flush
    counts[C.FOUR_STRAIGHT] = four_straight_no_pair + four_straight_with_pair
    counts[C.ONE_PAIR] = standard[C.ONE_PAIR] - four_flush_with_pair - four_straight_with_pair
    counts[C.HIGH_CARD] = standard[C.HIGH_CARD] - four_flush_no_pair - four_straight_no_pair
    return counts


def test_the_derivations_cover_every_hand_once():
    assert derived_standard_counts() == SPEC_STANDARD_COUNTS
    soko = derived_soko_counts()
    assert sum(soko.values()) == comb(52, 5)
    assert soko[C.FOUR_FLUSH] == 110_940 and soko[C.FOUR_STRAIGHT] == 92_208


@pytest.mark.parametrize("game", ["five_stud", "seven_stud"])
def test_all_five_card_hands_standard_counts(game, five_card_hands):
    assert category_counts(evaluate_many(game, five_card_hands)) == SPEC_STANDARD_COUNTS


def test_all_five_card_hands_soko_counts(five_card_hands):
    strengths = evaluate_many("soko", five_card_hands)
    assert category_counts(strengths) == derived_soko_counts()
    # every rank pattern SOKO adds is a distinct hand value: 4 suited ranks x odd card, runs x odd card
    soko_values = np.unique(strengths[(strengths >> 20) == C.FOUR_FLUSH]).size
    assert soko_values == comb(13, 4) * 13 - 10 * 5  # less the four suited + odd card that are straights
    assert np.unique(strengths[(strengths >> 20) == C.FOUR_STRAIGHT]).size == 11 * 13 - 9 * 2 - 2


def test_single_hand_path_agrees_on_a_slice_of_every_five_card_hand(five_card_hands):
    # every 7th hand through the path the engine calls, per game (about 370,000 each)
    sample = five_card_hands[::7]
    for game in ("soko", "five_stud"):
        batch = evaluate_many(game, sample)
        single = np.fromiter(
            (evaluate(game, hand).strength for hand in sample.tolist()), dtype=np.int64, count=len(sample)
        )
        assert np.array_equal(batch, single), game


# --- every seven-card hand -------------------------------------------------------------------

PUBLISHED_SEVEN_CARD_COUNTS = {
    C.ROYAL_FLUSH: 4_324, C.STRAIGHT_FLUSH: 37_260, C.FOUR_OF_A_KIND: 224_848,
    C.FULL_HOUSE: 3_473_184, C.FLUSH: 4_047_644, C.STRAIGHT: 6_180_020,
    C.THREE_OF_A_KIND: 6_461_620, C.TWO_PAIR: 31_433_400, C.ONE_PAIR: 58_627_800,
    C.HIGH_CARD: 23_294_460, C.FOUR_FLUSH: 0, C.FOUR_STRAIGHT: 0,
}  # fmt: skip
DISTINCT_SEVEN_CARD_VALUES = 4_824  # five-card hand values that seven cards can make


def test_all_seven_card_hands_published_counts(five_card_hands):
    assert sum(PUBLISHED_SEVEN_CARD_COUNTS.values()) == comb(52, 7)
    five_values = np.unique(evaluate_many("seven_stud", five_card_hands))
    assert five_values.size == 7_462
    dense = np.full(int(five_values.max()) + 1, -1, dtype=np.int32)
    dense[five_values] = np.arange(five_values.size, dtype=np.int32)
    per_value = np.zeros(five_values.size, dtype=np.int64)
    # rows of five_card_hands whose first card is > b start at first_above[b]
    first_above = np.searchsorted(five_card_hands[:, 0], np.arange(53), side="left")
    started, hands_seen = time.perf_counter(), 0
    for a in range(52):
        for b in range(a + 1, 47):
            rest = five_card_hands[first_above[b + 1] :]
            hands = np.empty((len(rest), 7), dtype=np.uint8)
            hands[:, 0], hands[:, 1], hands[:, 2:] = a, b, rest
            ids = dense[evaluate_many("seven_stud", hands)]
            assert ids.min() >= 0, "a seven-card strength that no five cards have"
            per_value += np.bincount(ids, minlength=five_values.size)
            hands_seen += len(hands)
    elapsed = time.perf_counter() - started
    assert hands_seen == comb(52, 7)
    counts = {category: 0 for category in StudCategory}
    for value, count in zip(five_values.tolist(), per_value.tolist()):
        counts[StudCategory(value >> 20)] += count
    assert counts == PUBLISHED_SEVEN_CARD_COUNTS
    assert int((per_value > 0).sum()) == DISTINCT_SEVEN_CARD_VALUES
    print(f"\n133,784,560 seven-card hands in {elapsed:.1f} s ({hands_seen / elapsed:,.0f}/s)")
