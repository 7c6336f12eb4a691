"""Hand evaluation: exhaustive counts, agreement with references, ordering laws."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from phevaluator import evaluate_cards

from casino.game.cards import cards_from_str
from casino.game.evaluator import (
    Category,
    category_of,
    dealer_qualifies,
    describe,
    describe_strength,
    evaluate,
    evaluate_batch,
)

SPEC_COUNTS = {
    Category.ROYAL_FLUSH: 4,
    Category.STRAIGHT_FLUSH: 36,
    Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3_744,
    Category.FLUSH: 5_108,
    Category.STRAIGHT: 10_200,
    Category.THREE_OF_A_KIND: 54_912,
    Category.TWO_PAIR: 123_552,
    Category.ONE_PAIR: 1_098_240,
    Category.HIGH_CARD: 1_302_540,
}


def reference(cards: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """A plain evaluator for comparison: (category, ranks that break ties, most significant first)."""
    ranks = [card // 4 for card in cards]
    counts = Counter(ranks)
    by_group = tuple(sorted(counts, key=lambda rank: (counts[rank], rank), reverse=True))
    flush = len({card % 4 for card in cards}) == 1
    distinct = sorted(counts, reverse=True)
    straight_top = None
    if len(distinct) == 5 and distinct[0] - distinct[4] == 4:
        straight_top = distinct[0]
    elif distinct == [12, 3, 2, 1, 0]:
        straight_top = 3
    if straight_top is not None and flush:
        return (9 if straight_top == 12 else 8, (straight_top,))
    pattern = sorted(counts.values(), reverse=True)
    if pattern == [4, 1]:
        return (7, by_group)
    if pattern == [3, 2]:
        return (6, by_group)
    if flush:
        return (5, by_group)
    if straight_top is not None:
        return (4, (straight_top,))
    return ({(3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1}.get(tuple(pattern), 0), by_group)


def h(text: str) -> list[int]:
    return cards_from_str(text)


@pytest.fixture(scope="module")
def all_hands() -> np.ndarray:
    flat = np.fromiter((card for hand in combinations(range(52), 5) for card in hand), dtype=np.uint8)
    return flat.reshape(-1, 5)


@pytest.fixture(scope="module")
def all_strengths(all_hands: np.ndarray) -> np.ndarray:
    return evaluate_batch(all_hands)


def test_exhaustive_category_counts_match_spec(all_hands: np.ndarray, all_strengths: np.ndarray) -> None:
    assert len(all_hands) == 2_598_960
    counts = np.bincount(all_strengths >> 20, minlength=10)
    assert {Category(i): int(n) for i, n in enumerate(counts)} == SPEC_COUNTS
    assert len(np.unique(all_strengths)) == 7_462  # the number of distinct five-card hand values


def test_scalar_and_batch_agree_on_every_hand(all_strengths: np.ndarray) -> None:
    scalar = np.fromiter((evaluate(hand) for hand in combinations(range(52), 5)), dtype=np.int64)
    assert np.array_equal(scalar, all_strengths)


def test_batch_accepts_any_integer_dtype_and_lists() -> None:
    rng = np.random.default_rng(5)
    hands = np.argsort(rng.random((20_000, 52)), axis=1)[:, :5]
    expected = np.array([evaluate(hand) for hand in hands.tolist()])
    for dtype in (np.uint8, np.int16, np.int64, np.uint64):
        result = evaluate_batch(hands.astype(dtype))
        assert result.dtype == np.int64
        assert np.array_equal(result, expected)
    assert evaluate_batch(hands[:3].tolist()).tolist() == expected[:3].tolist()
    assert evaluate_batch(np.empty((0, 5), dtype=np.uint8)).shape == (0,)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (np.zeros((3, 4), dtype=np.uint8), "shape"),
        (np.zeros(5, dtype=np.uint8), "shape"),
        (np.zeros((2, 5), dtype=np.float64), "integer"),
        (np.full((2, 5), 52), "0..51"),
        (np.full((2, 5), -1), "0..51"),
    ],
)
def test_batch_rejects_bad_input(bad: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate_batch(bad)


def test_order_of_all_hands_matches_phevaluator(all_strengths: np.ndarray) -> None:
    """phevaluator (C, independent) ranks 1 = best; the map between the two must be a strict reversal."""
    theirs = np.fromiter((evaluate_cards(*hand) for hand in combinations(range(52), 5)), dtype=np.int64)
    pairs = np.unique(np.stack([all_strengths, theirs], axis=1), axis=0)
    assert len(pairs) == 7_462
    assert np.all(np.diff(pairs[:, 1]) < 0)


def test_order_of_every_hand_class_matches_reference(all_hands: np.ndarray, all_strengths: np.ndarray) -> None:
    strengths, first = np.unique(all_strengths, return_index=True)
    keys = [reference(all_hands[i].tolist()) for i in first]
    assert all(a < b for a, b in zip(keys, keys[1:]))  # strictly increasing with strength
    assert [int(category_of(int(s))) for s in strengths] == [key[0] for key in keys]


five_cards = st.permutations(range(52)).map(lambda deck: deck[:5])
two_hands = st.permutations(range(52)).map(lambda deck: (deck[:5], deck[5:10]))


@given(five_cards, st.randoms(use_true_random=False))
def test_permutation_invariance(cards: list[int], random) -> None:  # noqa: ANN001
    shuffled = list(cards)
    random.shuffle(shuffled)
    assert evaluate(shuffled) == evaluate(cards)


@given(five_cards, st.permutations(range(4)))
def test_suit_relabelling_invariance(cards: list[int], suits: list[int]) -> None:
    relabelled = [card // 4 * 4 + suits[card % 4] for card in cards]
    assert evaluate(relabelled) == evaluate(cards)


@given(two_hands)
def test_consistent_with_reference(hands: tuple[list[int], list[int]]) -> None:
    first, second = hands
    a, b = evaluate(first), evaluate(second)
    ra, rb = reference(first), reference(second)
    assert (a > b) == (ra > rb) and (a == b) == (ra == rb)
    assert category_of(a) == Category(ra[0])


@given(st.lists(five_cards, min_size=3, max_size=3))
def test_ordering_is_transitive_and_matches_reference(hands: list[list[int]]) -> None:
    a, b, c = sorted(hands, key=evaluate)
    assert reference(a) <= reference(b) <= reference(c)


def test_straights_in_order_with_five_high_lowest() -> None:
    straights = ["Ah 2c 3d 4s 5h", "2h 3c 4d 5s 6h", "6h 7c 8d 9s Th", "9h Tc Jd Qs Kh", "Th Jc Qd Ks Ah"]
    strengths = [evaluate(h(text)) for text in straights]
    assert all(category_of(s) == Category.STRAIGHT for s in strengths)
    assert strengths == sorted(strengths) and len(set(strengths)) == len(strengths)
    assert evaluate(h("Ah 2c 3d 4s 5h")) > evaluate(h("Ah Ac Ad Ks Qh"))  # lowest straight beats trips
    steel_wheel = evaluate(h("Ah 2h 3h 4h 5h"))
    assert category_of(steel_wheel) == Category.STRAIGHT_FLUSH
    assert steel_wheel < evaluate(h("2c 3c 4c 5c 6c")) < evaluate(h("9s Ts Js Qs Ks")) < evaluate(h("Ts Js Qs Ks As"))


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("Qh Kc Ad 2s 3h", Category.HIGH_CARD),
        ("Qh Kh Ah 2h 3h", Category.FLUSH),
        ("Kh Ac 2d 3s 4h", Category.HIGH_CARD),
        ("Jh Qc Kd As 2h", Category.HIGH_CARD),
    ],
)
def test_no_wrap_around_straights(text: str, category: Category) -> None:
    assert category_of(evaluate(h(text))) == category


def test_suits_never_break_ties() -> None:
    assert evaluate(h("Ah Kd 9c 5s 3h")) == evaluate(h("As Kc 9d 5h 3c"))
    assert evaluate(h("2h 5h 9h Jh Kh")) == evaluate(h("2s 5s 9s Js Ks"))


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("Ks Kd 5c 4h 2s", "Qs Qd Ac Kh Js"),  # pair rank before kickers
        ("Ks Kd 6c 4h 2s", "Kc Kh 5c 4s 3d"),  # then kickers
        ("Ks Kd 3c 3h 2s", "Qs Qd Jc Jh As"),  # two pair: high pair first
        ("Ks Kd 3c 3h 4s", "Kc Kh 3d 3s 2d"),  # two pair: kicker last
        ("2s 2d 2c 3h 3s", "As Ad Kc Kh Qd"),  # full house beats two pair
        ("3s 3d 3c 2h 2s", "2c 2d 2h As Ad"),  # full house: trips first
        ("Ah Kh 9h 5h 3h", "Ac Kc 9c 5c 2c"),  # flush: fifth card decides
        ("7c 7d 7h 7s 2c", "6c 6d 6h 6s Ac"),  # quads rank before kicker
    ],
)
def test_tie_breaks(better: str, worse: str) -> None:
    assert evaluate(h(better)) > evaluate(h(worse))


@pytest.mark.parametrize(
    ("text", "qualifies"),
    [
        ("Ah Kd 4c 3s 2h", True),  # the weakest ace-king
        ("As Kd Qc Js 9h", True),
        ("As Qd Jc 9s 8h", False),  # ace-queen high
        ("Ks Qd Jc 9s 8h", False),  # king high
        ("2s 2d 3c 4s 5h", True),  # any pair
        ("7c 8d 9h Tc Jd", True),
    ],
)
def test_dealer_qualification(text: str, qualifies: bool) -> None:
    assert dealer_qualifies(evaluate(h(text))) is qualifies


@pytest.mark.parametrize(
    ("text", "description"),
    [
        ("As Ks Qs Js Ts", "Royal flush"),
        ("9s Ks Qs Js Ts", "Straight flush, King high"),
        ("7c 7d 7h 7s 3c", "Four Sevens"),
        ("6c 6d 6h 2s 2c", "Full house, Sixes over Twos"),
        ("2h 5h 9h Jh Kh", "Flush, King high"),
        ("Ah 2c 3d 4s 5h", "Straight, Five high"),
        ("Tc Td Th 4s 2c", "Three Tens"),
        ("Kc Kd 3h 3s 9c", "Two pair, Kings and Threes"),
        ("Kc Kd 2h 3s 4c", "Pair of Kings"),
        ("Ac Kd 2h 3s 5c", "Ace-King high"),
        ("Qc 9d 2h 3s 5c", "Queen-Nine high"),
    ],
)
def test_describe(text: str, description: str) -> None:
    assert describe(h(text)) == description


def test_describe_strength_rejects_impossible_values() -> None:
    with pytest.raises(ValueError):
        describe_strength(-1)
    with pytest.raises(ValueError):
        describe_strength(10 << 20)


def test_category_names() -> None:
    assert [c.key for c in sorted(Category, reverse=True)] == [
        "royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush",
        "straight", "three_of_a_kind", "two_pair", "one_pair", "high_card",
    ]  # fmt: skip
    assert Category.ROYAL_FLUSH.label == "Royal flush"
    assert Category.ONE_PAIR.label == "One pair"
    assert Category.FOUR_OF_A_KIND.label == "Four of a kind"
    assert all(Category.from_key(c.key) is c for c in Category)
    for bad in ("ROYAL_FLUSH", "royal", "", 9):
        with pytest.raises(ValueError, match="unknown hand category"):
            Category.from_key(bad)  # type: ignore[arg-type]
