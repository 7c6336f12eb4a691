"""Stud hand evaluation: hand-built cases for every category and tie rule (SPEC §0, B3, B5),
best hand showing, the bring-in seat, errors, and property / cross-checks."""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

from casino.game import evaluator as caribbean
from casino.game.cards import cards_from_str, cards_to_str
from casino.stud.evaluate import (
    HandValue,
    StudCategory,
    best_showing_seat,
    bring_in_seat,
    evaluate,
    evaluate_many,
    showing_strength,
)

C = StudCategory


def value(game: str, text: str) -> HandValue:
    return evaluate(game, cards_from_str(text))


def best(game: str, text: str) -> str:
    return " ".join(cards_to_str(value(game, text).best_five))


def strength(game: str, text: str) -> int:
    return value(game, text).strength


def show(game: str, text: str) -> int:
    return showing_strength(game, cards_from_str(text))


# --- the standard categories ------------------------------------------------------------

STANDARD_CASES = [
    # (hand, category, best five as a player reads it)
    ("Ts Js Qs Ks As", C.ROYAL_FLUSH, "As Ks Qs Js Ts"),
    ("9h Th Jh Qh Kh", C.STRAIGHT_FLUSH, "Kh Qh Jh Th 9h"),
    ("Ad 2d 3d 4d 5d", C.STRAIGHT_FLUSH, "5d 4d 3d 2d Ad"),
    ("7c 7d 7h 7s 2c", C.FOUR_OF_A_KIND, "7s 7h 7d 7c 2c"),
    ("3c 3d Kh Ks 3s", C.FULL_HOUSE, "3s 3d 3c Ks Kh"),
    ("2h 9h Jh 4h Kh", C.FLUSH, "Kh Jh 9h 4h 2h"),
    ("6c 7d 8h 9s Tc", C.STRAIGHT, "Tc 9s 8h 7d 6c"),
    ("Ah 2c 3d 4s 5h", C.STRAIGHT, "5h 4s 3d 2c Ah"),
    ("Tc Jd Qh Ks Ac", C.STRAIGHT, "Ac Ks Qh Jd Tc"),
    ("Qc Qd Qh 2s 9c", C.THREE_OF_A_KIND, "Qh Qd Qc 9c 2s"),
    ("4c 4d Jh Js Ac", C.TWO_PAIR, "Js Jh 4d 4c Ac"),
    ("8c 8d 2h 5s Kc", C.ONE_PAIR, "8d 8c Kc 5s 2h"),
    ("Ac 9d 7h 4s 2c", C.HIGH_CARD, "Ac 9d 7h 4s 2c"),
    ("Qc Kd Ah 2s 3c", C.HIGH_CARD, "Ah Kd Qc 3c 2s"),  # QKA23 is not a straight
]


@pytest.mark.parametrize("game", ["five_stud", "seven_stud"])
@pytest.mark.parametrize(("hand", "category", "five"), STANDARD_CASES)
def test_every_standard_category_with_its_five_cards_in_reading_order(game, hand, category, five):
    result = value(game, hand)
    assert result.category is category
    assert " ".join(cards_to_str(result.best_five)) == five
    assert result.strength >> 20 == category


def test_category_names_follow_spec():
    assert [category.key for category in StudCategory] == [
        "high_card", "one_pair", "four_straight", "four_flush", "two_pair", "three_of_a_kind",
        "straight", "flush", "full_house", "four_of_a_kind", "straight_flush", "royal_flush",
    ]  # fmt: skip
    assert C.FOUR_FLUSH.label == "Four flush"
    assert C.ONE_PAIR.label == "One pair"
    assert StudCategory.from_key("four_straight") is C.FOUR_STRAIGHT
    with pytest.raises(ValueError, match="unknown hand category"):
        StudCategory.from_key("five_of_a_kind")


def test_standard_hands_rank_in_spec_order():
    ladder = [
        "Ac 9d 7h 4s 2c", "Qc Kd Ah 2s 3c", "8c 8d 2h 5s Kc", "4c 4d Jh Js Ac", "Qc Qd Qh 2s 9c",
        "Ah 2c 3d 4s 5h", "6c 7d 8h 9s Tc", "Tc Jd Qh Ks Ac", "2h 9h Jh 4h Kh", "3c 3d Kh Ks 3s",
        "7c 7d 7h 7s 2c", "Ad 2d 3d 4d 5d", "9h Th Jh Qh Kh", "Ts Js Qs Ks As",
    ]  # fmt: skip
    for game in ("five_stud", "seven_stud"):
        strengths = [strength(game, hand) for hand in ladder]
        assert strengths == sorted(strengths) and len(set(strengths)) == len(strengths)


def test_kickers_break_ties_and_suits_never_do():
    game = "five_stud"
    assert strength(game, "Kc Kd 9h 5s 3c") > strength(game, "Kh Ks 9c 5d 2c")  # last kicker
    assert strength(game, "Jc Jd 4h 4s Ac") > strength(game, "Jh Js 3c 3d Ah")  # second pair
    assert strength(game, "Jc Jd 4h 4s Ac") > strength(game, "Jh Js 4c 4d Kh")  # kicker
    assert strength(game, "Ah Kh 9h 5h 3h") == strength(game, "As Ks 9s 5s 3s")  # flushes tie
    assert strength(game, "5c 6d 7h 8s 9c") == strength(game, "5d 6h 7s 8c 9d")
    assert strength(game, "Ah 2c 3d 4s 5h") < strength(game, "2c 3d 4h 5s 6c")  # the wheel is lowest
    assert strength(game, "3c 3d 3h 2s 2c") > strength(game, "2h 2d 2s As Ac")  # trips decide


# --- SOKO (B5) --------------------------------------------------------------------------

SOKO_CASES = [
    ("Ts Js Qs Ks As", C.ROYAL_FLUSH, "As Ks Qs Js Ts"),
    ("9h Th Jh Qh Kh", C.STRAIGHT_FLUSH, "Kh Qh Jh Th 9h"),
    ("7c 7d 7h 7s 2c", C.FOUR_OF_A_KIND, "7s 7h 7d 7c 2c"),
    ("3c 3d Kh Ks 3s", C.FULL_HOUSE, "3s 3d 3c Ks Kh"),
    ("2h 9h Jh 4h Kh", C.FLUSH, "Kh Jh 9h 4h 2h"),
    ("5h 6h 7h 8h 9c", C.STRAIGHT, "9c 8h 7h 6h 5h"),  # four suited inside a straight: a straight
    ("Qc Qd Qh 2s 9c", C.THREE_OF_A_KIND, "Qh Qd Qc 9c 2s"),
    ("4c 4d Jh Js Ac", C.TWO_PAIR, "Js Jh 4d 4c Ac"),
    ("2h 9h Jh 4h Kc", C.FOUR_FLUSH, "Jh 9h 4h 2h Kc"),
    ("5h 6h 7h 8h Kc", C.FOUR_FLUSH, "8h 7h 6h 5h Kc"),  # four-flush and four-straight: four-flush
    ("Ah Kh 5h 2h Ad", C.FOUR_FLUSH, "Ah Kh 5h 2h Ad"),  # a pair and a four-flush: four-flush
    ("9c Td Jh Qs 2c", C.FOUR_STRAIGHT, "Qs Jh Td 9c 2c"),
    ("5c 6d 7h 8s 8c", C.FOUR_STRAIGHT, "8s 7h 6d 5c 8c"),  # a pair and a four-straight
    ("Ac 2d 3h 4s 9c", C.FOUR_STRAIGHT, "4s 3h 2d Ac 9c"),  # A234, four high
    ("Kc Ad 2h 3s 4c", C.FOUR_STRAIGHT, "4c 3s 2h Ad Kc"),  # KA234 wraps no straight: A234
    ("Jc Qd Kh As 2c", C.FOUR_STRAIGHT, "As Kh Qd Jc 2c"),  # JQKA, ace high
    ("8c 8d 2h 5s Kc", C.ONE_PAIR, "8d 8c Kc 5s 2h"),
    ("Ac 9d 7h 4s 2c", C.HIGH_CARD, "Ac 9d 7h 4s 2c"),
    ("Qc Kd Ah 2s 3c", C.HIGH_CARD, "Ah Kd Qc 3c 2s"),  # QKA23: neither straight nor four-straight
]


@pytest.mark.parametrize(("hand", "category", "five"), SOKO_CASES)
def test_every_soko_category_with_its_five_cards(hand, category, five):
    result = value("soko", hand)
    assert result.category is category
    assert best("soko", hand) == five


def test_soko_ladder_four_flush_beats_four_straight_beats_a_pair():
    ladder = [hand for hand, _, _ in reversed(SOKO_CASES)]
    strengths = [strength("soko", hand) for hand in ladder]
    categories = [value("soko", hand).category for hand in ladder]
    assert categories == sorted(categories)
    by_category: dict[StudCategory, list[int]] = {}
    for category, s in zip(categories, strengths):
        by_category.setdefault(category, []).append(s)
    ordered = sorted(by_category)
    for lower, higher in zip(ordered, ordered[1:]):
        assert max(by_category[lower]) < min(by_category[higher])
    # the weakest four-flush beats the best four-straight, which beats aces
    assert strength("soko", "2h 3h 4h 6h 8c") > strength("soko", "Tc Jd Qh As 9c")
    assert strength("soko", "Tc Jd Qh Ks 2c") > strength("soko", "Ac Ad Kh Qs 9c")
    assert strength("soko", "2c 3d 4h 5s 9c") < strength("soko", "2c 2d 3h 3s 4c")  # two pair is higher


def test_soko_four_flush_ties_four_suited_cards_high_to_low_then_the_odd_card():
    s = lambda hand: strength("soko", hand)  # noqa: E731
    assert s("Ah Kh 9h 3h 2c") > s("Ad Kd 9d 2d Qc")  # fourth suited card 3 > 2 beats the odd queen
    assert s("Ah Kh 9h 2h 4c") > s("Ad Kd 9d 2d 3c")  # equal four: the odd card decides
    assert s("Ah Kh 9h 2h Ad") > s("As Ks 9s 2s 3c")  # odd card paired with the four is still an ace
    assert s("Ah Kh 9h 2h 4c") == s("As Ks 9s 2s 4d")  # suits never break ties


def test_soko_four_straight_ties_its_top_card_then_the_odd_card():
    s = lambda hand: strength("soko", hand)  # noqa: E731
    assert s("9c Td Jh Qs 2c") > s("8c 9d Th Js Ac")  # queen high beats jack high with an ace
    assert s("Ac 2d 3h 4s Kc") < s("2c 3d 4h 5s 7c")  # A234 is four high, below 2345
    assert s("Ac 2d 3h 4s Kc") > s("Ad 2c 3s 4h Qc")  # same run: the odd card
    assert s("Ac 2d 3h 4s Kc") == s("Ad 2c 3s 4h Kd")
    assert s("5c 6d 7h 8s 8c") > s("5d 6h 7s 8c 2c")  # a paired eight is the odd card


def test_soko_never_changes_hands_of_two_pair_and_up():
    for hand, category, _ in STANDARD_CASES:
        if category >= C.TWO_PAIR:
            assert value("soko", hand) == value("five_stud", hand)


# --- seven cards ------------------------------------------------------------------------

SEVEN_CASES = [
    ("Ah 2c 3d 4s 5h 9c 9d", C.STRAIGHT, "5h 4s 3d 2c Ah"),  # wheel beats the pair
    ("4h 5h 6c 7h 8d 9h Kh", C.FLUSH, "Kh 9h 7h 5h 4h"),  # flush beats the straight
    ("Kh Kd Ks 9c 9d 9s 2c", C.FULL_HOUSE, "Ks Kh Kd 9s 9d"),  # two trips: a full house
    ("Kh Kd 9c 9d 4s 4c 2c", C.TWO_PAIR, "Kh Kd 9d 9c 4s"),  # three pairs: best kicker is the 4
    ("Kh Kd 9c 9d 4s 4c Ac", C.TWO_PAIR, "Kh Kd 9d 9c Ac"),
    ("Qc Qd Qh Qs Kc Kd Kh", C.FOUR_OF_A_KIND, "Qs Qh Qd Qc Kh"),
    ("7h 8h 9h Th Jh 7c 7d", C.STRAIGHT_FLUSH, "Jh Th 9h 8h 7h"),
    ("2h 3h 4h 5h 7h Ah 6c", C.STRAIGHT_FLUSH, "5h 4h 3h 2h Ah"),  # steel wheel over the 7-high straight
    ("9s Ts Js Qs Ks As 2d", C.ROYAL_FLUSH, "As Ks Qs Js Ts"),
    ("2c 3d 4h 5s 6c 7d 8h", C.STRAIGHT, "8h 7d 6c 5s 4h"),
    ("Ac Kc Qd Jh 9s 7c 5d", C.HIGH_CARD, "Ac Kc Qd Jh 9s"),
    ("Jc Jd 8h 5s 3c 2d Ah", C.ONE_PAIR, "Jd Jc Ah 8h 5s"),
    ("6c 6d 6h Kc Kd 2c 2d", C.FULL_HOUSE, "6h 6d 6c Kd Kc"),
    ("Tc Td Th 4c 8d 2s Qh", C.THREE_OF_A_KIND, "Th Td Tc Qh 8d"),
    ("Qc Kd Ah 2s 3c 9h 7d", C.HIGH_CARD, "Ah Kd Qc 9h 7d"),
]


@pytest.mark.parametrize(("hand", "category", "five"), SEVEN_CASES)
def test_best_five_of_seven(hand, category, five):
    result = value("seven_stud", hand)
    assert result.category is category
    assert " ".join(cards_to_str(result.best_five)) == five


def test_six_cards_and_a_community_card_are_just_more_cards():
    six = value("seven_stud", "Ah 2c 3d 4s 9c 9d")
    assert six.category is C.ONE_PAIR
    with_community = value("seven_stud", "Ah 2c 3d 4s 9c 9d 5h")
    assert with_community.category is C.STRAIGHT
    assert value("seven_stud", "Ah 2c 3d 4s 5h").strength == with_community.strength


# --- best hand showing (B3) -------------------------------------------------------------


@pytest.mark.parametrize("game", ["five_stud", "soko", "seven_stud"])
def test_showing_order_quads_trips_two_pair_pair_high_cards(game):
    ladder = ["Ac", "Ac Kd", "Ac Kd Qh", "2c 2d", "2c 2d 3h", "2c 2d 3h 4s", "Ac Ad", "Ac Ad Kh",
              "2c 2d 3h 3s", "Ac Ad Kh Ks", "2c 2d 2h", "2c 2d 2h 3s",
              "Ac Ad Ah", "2c 2d 2h 2s", "Ac Ad Ah As"]  # fmt: skip
    strengths = [show(game, cards) for cards in ladder]
    assert strengths == sorted(strengths) and len(set(strengths)) == len(strengths)


@pytest.mark.parametrize("game", ["five_stud", "seven_stud"])
def test_standard_showing_has_no_straights_or_flushes(game):
    assert show(game, "5h 6h 7h 8h") < show(game, "2c 2d 3h 4s")  # suited run: just high cards
    assert show(game, "5h 6h 7h 8h") == show(game, "5c 6d 7h 8s")
    assert show(game, "9c 8d 7h 6s") < show(game, "Tc 4d 3h 2s")  # ten high beats nine high


def test_soko_showing_four_flush_and_four_straight_between_two_pair_and_one_pair():
    order = [
        "Ac Kd Qh 9s",
        "Ac Ad Kh Qs",
        "2c 3d 4h 5s",
        "9c Td Jh Qs",
        "2h 3h 4h 6h",
        "5h 6h 7h 8h",
        "Ah Kh Qh Th",
        "2c 2d 3h 3s",
    ]
    strengths = [show("soko", cards) for cards in order]
    assert strengths == sorted(strengths) and len(set(strengths)) == len(strengths)
    assert show("soko", "Ac 2d 3h 4s") < show("soko", "2c 3d 4h 5s")  # A234 shows four high
    assert show("soko", "Ac 2d 3h 4s") > show("soko", "Ac Ad Kh Qs")
    assert show("soko", "Qc Kd Ah 2s") == show("soko", "Qd Kc As 2h")  # no wrap: high cards
    assert show("soko", "5h 6h 7h") == show("soko", "5c 6d 7s")  # three suited cards: nothing


def test_showing_kickers_and_suits():
    assert show("seven_stud", "Kc Kd 7h") > show("seven_stud", "Kh Ks 6c")
    assert show("seven_stud", "Kc 7d") == show("seven_stud", "Ks 7h")
    assert show("seven_stud", "Kc 7d 2h") > show("seven_stud", "Ks 7h")


def test_best_showing_seat_ties_go_to_the_lowest_seat():
    seats = {5: cards_from_str("Ac Kd"), 2: cards_from_str("As Kh"), 7: cards_from_str("Qc Qd")}
    assert best_showing_seat("seven_stud", seats) == 7
    del seats[7]
    assert best_showing_seat("seven_stud", seats) == 2
    soko = {1: cards_from_str("Ac Ad Kh Qc"), 3: cards_from_str("2h 3h 4h 6h"), 4: cards_from_str("9c Td Jh Qs")}
    assert best_showing_seat("soko", soko) == 3
    assert best_showing_seat("five_stud", soko) == 1
    with pytest.raises(ValueError, match="no seats"):
        best_showing_seat("soko", {})
    with pytest.raises(ValueError, match="two seats"):
        best_showing_seat("soko", {1: cards_from_str("Ac"), 2: cards_from_str("Ac")})


# --- bring-in (B3) ----------------------------------------------------------------------


def test_bring_in_lowest_door_card_with_suit_ties():
    doors = {1: "2s", 2: "2h", 3: "2c", 4: "2d", 5: "3c"}
    door_cards = {seat: cards_from_str(card)[0] for seat, card in doors.items()}
    assert bring_in_seat(door_cards, "lowest") == 3  # clubs lowest
    del door_cards[3]
    assert bring_in_seat(door_cards, "lowest") == 4  # then diamonds
    del door_cards[4]
    assert bring_in_seat(door_cards, "lowest") == 2  # then hearts


def test_bring_in_highest_door_card_spades_highest():
    doors = {1: "Ah", 2: "Ac", 3: "As", 4: "Ad", 6: "Kd"}
    door_cards = {seat: cards_from_str(card)[0] for seat, card in doors.items()}
    assert bring_in_seat(door_cards, "highest") == 3
    assert bring_in_seat(door_cards, "lowest") == 6
    with pytest.raises(ValueError, match="bring-in rule"):
        bring_in_seat(door_cards, "high")
    with pytest.raises(ValueError, match="duplicate"):
        bring_in_seat({1: 0, 2: 0}, "lowest")
    with pytest.raises(ValueError, match="no door cards"):
        bring_in_seat({}, "lowest")


# --- errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "cards", "message"),
    [
        ("five_stud", [0, 1, 2, 3], "expected 5 cards, got 4"),
        ("soko", [0, 1, 2, 3, 4, 5], "expected 5 cards, got 6"),
        ("seven_stud", [0, 1, 2, 3], "expected 5 to 7 cards, got 4"),
        ("seven_stud", list(range(8)), "expected 5 to 7 cards, got 8"),
        ("seven_stud", [0, 1, 2, 3, 4, 5, 5], "duplicate cards: 3d"),
        ("five_stud", [0, 1, 2, 3, 3], "duplicate cards: 2s"),
        ("seven_stud", [0, 1, 2, 3, 4, 5, 52], "not a card: 52"),
        ("seven_stud", [0, 1, 2, 3, 4, 5, -1], "not a card: -1"),
        ("soko", [0, 1, 2, 3, True], "not a card: True"),
        ("seven_stud", [0, 1, 2, 3, 4, 5, 6.0], "not a card: 6.0"),
        ("five_stud", ["As", "Ks", "Qs", "Js", "Ts"], "not a card: 'As'"),
        ("five_stud", "As Ks Qs Js Ts", "expected a sequence of cards"),
        ("five_stud", None, "expected a sequence of cards"),
        ("holdem", [0, 1, 2, 3, 4], "unknown stud game 'holdem'"),
    ],
)
def test_errors_say_what_is_wrong(game, cards, message):
    with pytest.raises(ValueError, match=message):
        evaluate(game, cards)


def test_showing_and_batch_errors():
    with pytest.raises(ValueError, match="expected 1 to 4 cards, got 5"):
        showing_strength("seven_stud", [0, 4, 8, 12, 16])
    with pytest.raises(ValueError, match="expected 1 to 4 cards, got 0"):
        showing_strength("seven_stud", [])
    with pytest.raises(ValueError, match="unknown stud game"):
        showing_strength("razz", [0])
    with pytest.raises(ValueError, match="duplicate"):
        showing_strength("soko", [7, 7])
    with pytest.raises(ValueError, match=r"shape \(N, 5 to 7\)"):
        evaluate_many("seven_stud", np.zeros((3, 4), dtype=np.int8))
    with pytest.raises(ValueError, match="0..51"):
        evaluate_many("soko", np.array([[0, 1, 2, 3, 52]]))
    with pytest.raises(ValueError, match="same card twice"):
        evaluate_many("seven_stud", np.array([[0, 1, 2, 3, 4, 5, 6], [0, 1, 2, 3, 4, 5, 5]]))
    with pytest.raises(ValueError, match="integer cards"):
        evaluate_many("five_stud", np.zeros((2, 5)))
    with pytest.raises(ValueError, match="unknown stud game"):
        evaluate_many("omaha", np.zeros((2, 5), dtype=int))


def test_numpy_ints_are_cards_too():
    hand = np.array(cards_from_str("Ah Kh 5h 2h Ad"))
    result = evaluate("soko", hand)
    assert result.category is C.FOUR_FLUSH and all(type(card) is int for card in result.best_five)


@pytest.mark.parametrize(("hand", "_category", "_five"), SEVEN_CASES)
def test_any_sequence_of_cards_gives_the_same_value(hand, _category, _five):
    cards = cards_from_str(hand)
    expected = evaluate("seven_stud", cards)  # a list: the fast path
    assert evaluate("seven_stud", tuple(cards)) == expected
    assert evaluate("seven_stud", np.array(cards)) == expected  # the checked path
    assert evaluate("seven_stud", iter(cards)) == expected
    assert hash(evaluate("seven_stud", cards)) == hash(expected)


# --- properties and cross-checks ----------------------------------------------------------

seven_cards = st.lists(st.integers(0, 51), min_size=7, max_size=7, unique=True)
five_cards = st.lists(st.integers(0, 51), min_size=5, max_size=5, unique=True)


@settings(max_examples=400, deadline=None)
@given(seven_cards)
def test_seven_cards_are_the_best_of_their_21_fives(cards):
    result = evaluate("seven_stud", cards)
    subsets = [evaluate("seven_stud", list(five)).strength for five in combinations(cards, 5)]
    assert result.strength == max(subsets)
    assert set(result.best_five) <= set(cards) and len(set(result.best_five)) == 5
    assert evaluate("seven_stud", list(result.best_five)).strength == result.strength
    six = evaluate("seven_stud", cards[:6]).strength
    assert six == max(evaluate("seven_stud", list(five)).strength for five in combinations(cards[:6], 5))


@settings(max_examples=400, deadline=None)
@given(five_cards, five_cards)
def test_standard_five_card_strengths_order_like_the_caribbean_evaluator(first, second):
    ours = (evaluate("five_stud", first).strength > evaluate("five_stud", second).strength) - (
        evaluate("five_stud", first).strength < evaluate("five_stud", second).strength
    )
    theirs = (caribbean.evaluate(first) > caribbean.evaluate(second)) - (
        caribbean.evaluate(first) < caribbean.evaluate(second)
    )
    assert ours == theirs
    assert evaluate("five_stud", first).category.key == caribbean.category_of(caribbean.evaluate(first)).key


@settings(max_examples=300, deadline=None)
@given(five_cards)
def test_best_five_is_the_hand_reordered_and_soko_only_lifts_weak_hands(cards):
    for game in ("five_stud", "soko"):
        result = evaluate(game, cards)
        assert sorted(result.best_five) == sorted(cards)
    standard, soko = evaluate("five_stud", cards), evaluate("soko", cards)
    if soko.category in (C.FOUR_FLUSH, C.FOUR_STRAIGHT):
        assert standard.category in (C.HIGH_CARD, C.ONE_PAIR)
    else:
        assert soko == standard


@pytest.mark.parametrize(
    ("game", "size"), [("seven_stud", 7), ("seven_stud", 6), ("seven_stud", 5), ("soko", 5), ("five_stud", 5)]
)
def test_batch_path_equals_the_single_hand_path(game, size):
    rng = np.random.default_rng(size * 7 + len(game))
    hands = np.argsort(rng.random((4000, 52)), axis=1)[:, :size]
    batch = evaluate_many(game, hands.astype(np.uint8))
    single = [evaluate(game, [int(card) for card in hand]).strength for hand in hands]
    assert batch.tolist() == single
    assert evaluate_many(game, hands).tolist() == single  # any integer dtype
    assert evaluate_many(game, hands[:0]).shape == (0,)


def test_same_winner_as_treys_on_random_seven_card_hands():
    treys = TreysEvaluator()
    deck = [TreysCard.new(card) for card in cards_to_str(range(52))]
    rng = random.Random(9)
    disagreements = []
    for _ in range(5000):
        cards = rng.sample(range(52), 14)
        first, second = cards[:7], cards[7:]
        ours = evaluate("seven_stud", first).strength - evaluate("seven_stud", second).strength
        # treys: lower is better
        theirs = treys.evaluate([deck[c] for c in second[:2]], [deck[c] for c in second[2:]]) - treys.evaluate(
            [deck[c] for c in first[:2]], [deck[c] for c in first[2:]]
        )
        if (ours > 0) - (ours < 0) != (theirs > 0) - (theirs < 0):
            disagreements.append((cards_to_str(first), cards_to_str(second)))
    assert disagreements == []


two_seats_up = st.integers(1, 4).flatmap(
    lambda size: st.lists(st.integers(0, 51), min_size=2 * size, max_size=2 * size, unique=True)
)


def showing_order_key(game: str, cards: list[int]) -> tuple:
    """B3 and B5 spelled out plainly: (class, ranks that decide) — compared as tuples."""
    ranks = sorted((card >> 2 for card in cards), reverse=True)
    counts = {rank: ranks.count(rank) for rank in ranks}
    grouped = sorted(counts, key=lambda rank: (counts[rank], rank), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    if game == "soko" and len(cards) == 4 and shape[0] == 1:
        if len({card & 3 for card in cards}) == 1:
            return (3.5, ranks)  # between one pair (1) ... and two pair (4)
        runs = [[12, 0, 1, 2]] + [[low + step for step in range(4)] for low in range(10)]
        tops = [run[-1] for run in runs if set(run) == set(ranks)]
        if tops:
            return (3.2, tops)
    klass = {4: 9, 3: 5}.get(shape[0], 4 if shape[:2] == [2, 2] else 1 if shape[0] == 2 else 0)
    return (klass, grouped)


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(["five_stud", "soko", "seven_stud"]), two_seats_up)
def test_showing_strength_orders_like_the_rules_spelled_out(game, cards):
    first, second = cards[: len(cards) // 2], cards[len(cards) // 2 :]
    ours = showing_strength(game, first) - showing_strength(game, second)
    key_first, key_second = showing_order_key(game, first), showing_order_key(game, second)
    expected = (key_first > key_second) - (key_first < key_second)
    assert (ours > 0) - (ours < 0) == expected
    assert (
        showing_strength(game, tuple(first)) == showing_strength(game, np.array(first)) == showing_strength(game, first)
    )


def test_a_fresh_process_evaluates_any_first_hand():
    """Tables are built on first use: whatever the first call is, it must work."""
    import subprocess
    import sys

    calls = [
        ("seven_stud", "2h 3h 4h 5h 7h Ah 6c", "straight_flush"),  # a flush first
        ("seven_stud", "Ah 2c 3d 4s 5h 9c", "straight"),
        ("soko", "Ac 2d 3h 4s 9c", "four_straight"),
        ("five_stud", "Ac 2d 3h 4s 9c", "high_card"),
    ]
    for game, hand, category in calls:
        code = (
            "import numpy as np; from casino.game.cards import cards_from_str; "
            "from casino.stud.evaluate import StudCategory, evaluate, evaluate_many; "
            f"cards = cards_from_str({hand!r}); print(evaluate({game!r}, cards).category.key); "
            f"print(StudCategory(int(evaluate_many({game!r}, np.array([cards]))[0]) >> 20).key)"
        )
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        assert result.stdout.split() == [category, category]


def test_first_use_from_many_threads_at_once():
    """The room may evaluate from several threads; the first calls build the tables."""
    import subprocess
    import sys

    code = """
import threading
from casino.stud.evaluate import evaluate, evaluate_many
import numpy as np
hands = [("seven_stud", [0, 5, 10, 15, 20, 25, 30]), ("seven_stud", [0, 4, 8, 12, 16, 20]),
         ("soko", [0, 5, 9, 13, 40]), ("five_stud", [0, 5, 9, 13, 40])]
results, errors = [], []
start = threading.Barrier(8)
def work(i):
    start.wait()
    try:
        game, cards = hands[i % 4]
        value = evaluate(game, cards)
        batch = evaluate_many(game, np.array([cards]))[0]
        results.append(value.strength == batch)
    except Exception as error:
        errors.append(repr(error))
threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
[t.start() for t in threads]; [t.join() for t in threads]
print(len(results), all(results), errors)
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "8 True []"
