"""Raise-or-fold strategies: the Wizard of Odds rules by example, scalar == vectorised."""

from __future__ import annotations

import numpy as np
import pytest

from casino.game.cards import card_from_str, cards_from_str
from casino.game.evaluator import evaluate_batch
from casino.game.simulate import deal_batch
from casino.game.strategy import STRATEGIES, get_strategy, wizard_raises


@pytest.mark.parametrize(
    ("hand", "up", "raises"),
    [
        ("2c 2d 7h 5s 3c", "Ah", True),  # any pair
        ("Ac Qd Jh 9s 8c", "2h", False),  # below ace-king
        ("Kc Qd Jh 9s 8c", "Ks", False),
        # rule 1: up card 2..Q matching one of the player's cards
        ("Ac Kd 8h 5s 2c", "8s", True),
        ("Ac Kd 8h 5s 2c", "2s", True),
        ("Ac Kd Qh 5s 2c", "Qs", True),
        ("Ac Kd 8h 5s 2c", "9s", False),
        # rule 2: up card ace or king, player holds a queen or a jack
        ("Ac Kd Jh 5s 2c", "As", True),
        ("Ac Kd Qh 5s 2c", "Ks", True),
        ("Ac Kd 8h 5s 2c", "As", False),
        ("Ac Kd Th 5s 2c", "Ks", False),
        # rule 3: no match, a queen, up card below the player's fourth highest card
        ("Ac Kd Qh 8s 3c", "5s", True),
        ("Ac Kd Qh Js 3c", "2s", True),
        ("Ac Kd Qh 8s 3c", "9s", False),  # up card above the fourth highest
        ("Ac Kd Qh 8s 7c", "8d", True),  # a match, so rule 1
        ("Ac Kd Jh 8s 3c", "5s", False),  # no queen
        ("Ac Kd Qh 4s 3c", "2s", True),
        ("Ac Kd Qh 4s 3c", "5s", False),
    ],
)
def test_wizard_examples(hand: str, up: str, raises: bool) -> None:
    assert wizard_raises(cards_from_str(hand), card_from_str(up)) is raises
    batch = get_strategy("wizard").raises_batch
    hands = np.array([cards_from_str(hand)], dtype=np.uint8)
    assert batch(hands, evaluate_batch(hands), np.array([card_from_str(up)], dtype=np.uint8)).tolist() == [raises]


@pytest.mark.parametrize(
    ("hand", "pair_plus", "ak_plus"),
    [
        ("2c 2d 7h 5s 3c", True, True),
        ("Ac Kd 7h 5s 3c", False, True),
        ("Ac Qd 7h 5s 3c", False, False),
        ("2h 5h 9h Jh Qh", True, True),  # a flush counts as "pair or better"
        ("7c 8d 9h Tc Jd", True, True),
    ],
)
def test_pair_plus_and_ak_plus(hand: str, pair_plus: bool, ak_plus: bool) -> None:
    cards = cards_from_str(hand)
    assert STRATEGIES["pair_plus"].raises(cards, 0) is pair_plus
    assert STRATEGIES["ak_plus"].raises(cards, 0) is ak_plus


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_vectorised_equals_scalar(name: str) -> None:
    cards = deal_batch(np.random.default_rng(11), 60_000)
    hands, up_cards = cards[:, :5], cards[:, 9]
    strategy = get_strategy(name)
    vectorised = strategy.raises_batch(hands, evaluate_batch(hands), up_cards)
    scalar = [strategy.raises(hand, up) for hand, up in zip(hands.tolist(), up_cards.tolist())]
    assert vectorised.dtype == np.bool_
    assert vectorised.tolist() == scalar
    assert 0 < vectorised.sum() < len(vectorised)


def test_unknown_strategy() -> None:
    with pytest.raises(ValueError, match="unknown strategy 'optimal'; choose one of: wizard, pair_plus, ak_plus"):
        get_strategy("optimal")
