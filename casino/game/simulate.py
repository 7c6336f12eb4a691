"""Monte Carlo house edge of Caribbean Stud: one player against the dealer, vectorised.

Each simulated hand deals ten distinct uniformly random cards (the player's five, then
the dealer's five, the last of which is the dealer's up card), applies a strategy and
settles ante and raise as SPEC A5 does. Results are in units of the ante; the jackpot
side bet is not part of the return, only its qualifying hands are counted.
"""

from __future__ import annotations

import math
import secrets
import time
from typing import Any

import numpy as np

from casino.game.evaluator import CATEGORY_SHIFT, QUALIFYING_STRENGTH, Category, evaluate_batch
from casino.game.paytables import DEFAULT_JACKPOT_SCHEDULE, PayTable
from casino.game.rules import RAISE_MULTIPLE
from casino.game.strategy import get_strategy

CHUNK_HANDS = 500_000
CARDS_PER_HAND = 10
_Z95 = 1.959963984540054
_CARD_BITS = np.uint64(1) << np.arange(52, dtype=np.uint64)


def deal_batch(rng: np.random.Generator, n: int) -> np.ndarray:
    """``(n, 10)`` uint8 cards, each row ten distinct cards uniformly at random.

    Columns 0-4 are the player's hand, 5-9 the dealer's; column 9 is the up card. Each
    position draws uniformly and redraws on a clash with the row's earlier cards, which
    is exactly a uniform draw without replacement.
    """
    cards = np.empty((n, CARDS_PER_HAND), dtype=np.uint8)
    used = np.zeros(n, dtype=np.uint64)
    for position in range(CARDS_PER_HAND):
        drawn = rng.integers(0, 52, size=n, dtype=np.uint8)
        clash = np.flatnonzero(used & _CARD_BITS[drawn])
        while clash.size:
            drawn[clash] = rng.integers(0, 52, size=clash.size, dtype=np.uint8)
            clash = clash[(used[clash] & _CARD_BITS[drawn[clash]]) != 0]
        used |= _CARD_BITS[drawn]
        cards[:, position] = drawn
    return cards


def settle_batch(
    *,
    raised: np.ndarray,
    player_strengths: np.ndarray,
    dealer_strengths: np.ndarray,
    paytable: PayTable,
) -> np.ndarray:
    """Net result of each hand in units of the ante (raise = 2), int64; ``settle_seat`` vectorised."""
    odds_qualified = np.array([paytable.qualified[c] for c in Category], dtype=np.int64)
    odds_not_qualified = np.array([paytable.not_qualified.get(c, 0) for c in Category], dtype=np.int64)
    category = player_strengths >> CATEGORY_SHIFT
    comparison = np.sign(player_strengths - dealer_strengths)
    qualified = dealer_strengths >= QUALIFYING_STRENGTH
    raise_units = np.where(
        qualified,
        np.where(comparison > 0, odds_qualified[category], comparison),
        odds_not_qualified[category],
    )
    ante_net = np.where(qualified, comparison, 1)
    return np.where(raised, ante_net + RAISE_MULTIPLE * raise_units, -1).astype(np.int64)


def simulate(
    *, hands: int, paytable: PayTable, strategy: str, seed: int | None = None, jackpot: bool = True
) -> dict[str, Any]:
    """Play ``hands`` hands and report the return per unit ante with its 95 % interval.

    The same ``seed`` always gives the same result; without one a random seed is drawn
    and reported. With ``jackpot`` the player's jackpot-prize hands are counted.
    """
    if isinstance(hands, bool) or not isinstance(hands, int) or hands < 2:
        raise ValueError(f"hands must be an int of at least 2, got {hands!r}")
    if seed is None:
        seed = secrets.randbits(63)
    elif isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    chosen = get_strategy(strategy)
    rng = np.random.default_rng(seed)
    started = time.perf_counter()
    total = total_squares = raised_count = 0
    categories = np.zeros(len(Category), dtype=np.int64)
    for start in range(0, hands, CHUNK_HANDS):
        cards = deal_batch(rng, min(CHUNK_HANDS, hands - start))
        player, dealer = cards[:, :5], cards[:, 5:]
        player_strengths = evaluate_batch(player)
        raised = chosen.raises_batch(player, player_strengths, cards[:, -1])
        net = settle_batch(
            raised=raised,
            player_strengths=player_strengths,
            dealer_strengths=evaluate_batch(dealer),
            paytable=paytable,
        )
        total += int(net.sum())
        total_squares += int(np.dot(net, net))
        raised_count += int(np.count_nonzero(raised))
        if jackpot:
            categories += np.bincount(player_strengths >> CATEGORY_SHIFT, minlength=len(Category))
    mean = total / hands
    variance = (hands * total_squares - total * total) / (hands * (hands - 1))
    half_width = _Z95 * math.sqrt(variance / hands)
    result: dict[str, Any] = {
        "hands": hands,
        "paytable": paytable.name,
        "strategy": chosen.name,
        "seed": seed,
        "return_per_unit_ante": mean,
        "std_per_unit_ante": math.sqrt(variance),
        "house_edge_pct": -mean * 100,
        "house_edge_ci95_pct": [-(mean + half_width) * 100, -(mean - half_width) * 100],
        "raise_rate": raised_count / hands,
    }
    if jackpot:
        result["jackpot_hits"] = {c.key: int(categories[c]) for c in DEFAULT_JACKPOT_SCHEDULE.categories()}
    result["elapsed_s"] = time.perf_counter() - started
    return result
