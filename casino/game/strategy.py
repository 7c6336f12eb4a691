"""Raise-or-fold strategies for the player, each as a scalar and a vectorised function.

- ``wizard``: the Wizard of Odds strategy. Raise with a pair or better, fold below
  ace-king; with ace-king high raise only if (1) the dealer's up card is 2..Q and
  matches one of the player's ranks, or (2) the up card is an ace or king and the
  player holds a queen or a jack, or (3) the up card matches none of the player's
  ranks, the player holds a queen, and the up card is lower than the player's fourth
  highest card.
- ``pair_plus``: raise with a pair or better.
- ``ak_plus``: raise with ace-king high or better.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from casino.game.cards import rank_of
from casino.game.evaluator import CATEGORY_SHIFT, QUALIFYING_STRENGTH, evaluate

_PAIR_OR_BETTER = 1 << CATEGORY_SHIFT
_JACK, _QUEEN = 9, 10


def wizard_raises(cards: Sequence[int], up_card: int) -> bool:
    """Wizard of Odds decision for the player's five ``cards`` against the dealer's ``up_card``."""
    strength = evaluate(cards)
    if strength >= _PAIR_OR_BETTER:
        return True
    if strength < QUALIFYING_STRENGTH:
        return False
    ranks = sorted((rank_of(card) for card in cards), reverse=True)  # ace, king, then three more
    up = rank_of(up_card)
    if up in ranks:
        return up <= _QUEEN or ranks[2] in (_QUEEN, _JACK)
    return ranks[2] == _QUEEN and up < ranks[3]


def wizard_raises_batch(hands: np.ndarray, strengths: np.ndarray, up_cards: np.ndarray) -> np.ndarray:
    """``wizard_raises`` for ``(N, 5)`` hands with their strengths and the dealer's up cards."""
    pair_or_better = strengths >= _PAIR_OR_BETTER
    ace_king = (strengths >= QUALIFYING_STRENGTH) & ~pair_or_better
    up = np.asarray(up_cards) >> 2
    third = (strengths >> 8) & 15  # a high card's ranks are its strength fields, high to low
    fourth = (strengths >> 4) & 15
    match = ((np.asarray(hands) >> 2) == up[:, None]).any(axis=1)
    matched_rule = match & ((up <= _QUEEN) | (third == _QUEEN) | (third == _JACK))
    unmatched_rule = ~match & (third == _QUEEN) & (up < fourth)
    return pair_or_better | (ace_king & (matched_rule | unmatched_rule))


def pair_plus_raises(cards: Sequence[int], up_card: int) -> bool:
    """Raise with a pair or better."""
    return evaluate(cards) >= _PAIR_OR_BETTER


def pair_plus_raises_batch(hands: np.ndarray, strengths: np.ndarray, up_cards: np.ndarray) -> np.ndarray:
    """``pair_plus_raises``, vectorised."""
    return strengths >= _PAIR_OR_BETTER


def ak_plus_raises(cards: Sequence[int], up_card: int) -> bool:
    """Raise with ace-king high or better."""
    return evaluate(cards) >= QUALIFYING_STRENGTH


def ak_plus_raises_batch(hands: np.ndarray, strengths: np.ndarray, up_cards: np.ndarray) -> np.ndarray:
    """``ak_plus_raises``, vectorised."""
    return strengths >= QUALIFYING_STRENGTH


@dataclass(frozen=True)
class Strategy:
    """A named strategy: ``raises(cards, up_card)`` and ``raises_batch(hands, strengths, up_cards)``."""

    name: str
    raises: Callable[[Sequence[int], int], bool]
    raises_batch: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


STRATEGIES: Mapping[str, Strategy] = MappingProxyType(
    {
        "wizard": Strategy("wizard", wizard_raises, wizard_raises_batch),
        "pair_plus": Strategy("pair_plus", pair_plus_raises, pair_plus_raises_batch),
        "ak_plus": Strategy("ak_plus", ak_plus_raises, ak_plus_raises_batch),
    }
)


def get_strategy(name: str) -> Strategy:
    """The strategy called ``name``; raises ValueError listing the known names."""
    try:
        return STRATEGIES[name]
    except KeyError:
        raise ValueError(f"unknown strategy {name!r}; choose one of: {', '.join(STRATEGIES)}") from None
