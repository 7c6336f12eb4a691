"""Stud hands played by bots through the engine, and a summary of what happened (pure, no Django).

``simulate(...)`` seats ``players`` bots at one table, plays ``hands`` hands, each from a
full buy-in (every bot tops up to the buy-in before each hand, as SPEC B1 allows, and a
winner's surplus leaves the table), and returns the summary: hands, showdown rate,
average pot, rake, the categories seen at showdown and hands per second. ``on_record`` is
called with each finished hand record (the ``--jsonl`` output).

Seeds: with ``seed`` every hand's server seed and the bots' client seeds are derived from
it (``sha256(f"stud_simulate:{seed}:{hand}")``), and each hand's bots draw from
``random.Random(f"{seed}:{hand}")``, so the same seed gives the same hands, byte for byte.
Without a seed, every hand gets fresh CSPRNG seeds (``casino.game.fair``) and the bots a
system-seeded generator.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from casino.game.fair import new_client_seed, new_server_seed
from casino.stud.bots import STRATEGIES, Strategy, get_strategy
from casino.stud.engine import SeatIn, apply, cents, hand_record, money, start_hand
from casino.stud.games import GameConfig

MIXED = "mixed"
MIXED_ORDER = ("calling_station", "tight", "aggressive", "random_legal")


@dataclass(frozen=True, slots=True)
class HandSeeds:
    """What a hand is dealt from: the server seed, each seat's client seed, the nonce."""

    server_seed: str
    client_seeds: tuple[str, ...]
    nonce: int


def hand_seeds(*, seed: int | None, hand: int, players: int) -> HandSeeds:
    """Hand ``hand``'s seeds: derived from ``seed`` (same seed, same hand), else fresh ones."""
    if seed is None:
        return HandSeeds(new_server_seed(), tuple(new_client_seed() for _ in range(players)), hand + 1)
    base = f"stud_simulate:{seed}:{hand}"
    server = hashlib.sha256(base.encode()).hexdigest()
    clients = tuple(hashlib.sha256(f"{base}:{seat}".encode()).hexdigest()[:16] for seat in range(1, players + 1))
    return HandSeeds(server, clients, hand + 1)


def strategies_for(spec: str | Sequence[str], players: int) -> tuple[str, ...]:
    """One strategy name per seat: one name for all, a comma list (cycled), or ``mixed``."""
    names = [name.strip() for name in spec.split(",")] if isinstance(spec, str) else list(spec)
    if names == [MIXED]:
        names = list(MIXED_ORDER)
    if not names or any(not name for name in names):
        raise ValueError("give a strategy name, a comma-separated list of names, or 'mixed'")
    for name in names:
        get_strategy(name)
    return tuple(names[i % len(names)] for i in range(players))


def play_hand(
    *,
    config: GameConfig,
    seats: Sequence[SeatIn],
    server_seed: str,
    nonce: int,
    strategies: dict[int, Strategy],
    rng: random.Random,
) -> dict:
    """One hand, every decision a bot's; the finished hand record."""
    state, _ = start_hand(config=config, seats=seats, server_seed=server_seed, nonce=nonce)
    while not state.is_over:
        seat = state.to_act
        assert seat is not None  # a hand that is not over has a player to act
        state, _ = apply(state, seat, strategies[seat](state, rng))
    return hand_record(state)


def simulate(
    *,
    config: GameConfig,
    players: int,
    hands: int,
    seed: int | None = None,
    strategy: str | Sequence[str] = MIXED,
    on_record: Callable[[dict], None] | None = None,
) -> dict[str, Any]:
    """Play ``hands`` hands with ``players`` bots at ``config``'s table; the summary."""
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= config.max_seats:
        raise ValueError(f"players must be 2..{config.max_seats}, got {players!r}")
    if isinstance(hands, bool) or not isinstance(hands, int) or hands < 1:
        raise ValueError(f"hands must be a positive whole number, got {hands!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"seed must be a non-negative whole number, got {seed!r}")
    names = strategies_for(strategy, players)
    chosen = {seat: STRATEGIES[name] for seat, name in enumerate(names, start=1)}
    showdowns = pot_total = rake_total = 0
    categories: Counter[str] = Counter()
    winnings: Counter[int] = Counter()
    started = time.perf_counter()
    for hand in range(hands):
        seeds = hand_seeds(seed=seed, hand=hand, players=players)
        seats = [
            SeatIn(seat=seat, player=f"bot{seat}", stack=config.buy_in, client_seed=seeds.client_seeds[seat - 1])
            for seat in range(1, players + 1)
        ]
        rng = random.Random(f"{seed}:{hand}") if seed is not None else random.Random()
        record = play_hand(
            config=config, seats=seats, server_seed=seeds.server_seed, nonce=seeds.nonce, strategies=chosen, rng=rng
        )
        pot = sum(cents(p["amount"]) for p in record["pots"])
        pot_total += pot
        rake_total += cents(record["rake"])
        if len(record["showdown"]) >= 2:
            showdowns += 1
            categories.update(entry["category"] for entry in record["showdown"])
        for seat, amount in record["net"].items():
            winnings[int(seat)] += cents(amount)
        if on_record is not None:
            on_record(record)
    elapsed = time.perf_counter() - started
    return {
        "game": config.game,
        "table": config.name,
        "limit": config.limit.kind,
        "players": players,
        "strategies": {str(seat): name for seat, name in enumerate(names, start=1)},
        "seed": seed,
        "hands": hands,
        "showdowns": showdowns,
        "showdown_rate": showdowns / hands,
        "average_pot": money(pot_total // hands),
        "total_pot": money(pot_total),
        "rake": money(rake_total),
        "net": {str(seat): money(winnings[seat]) for seat in range(1, players + 1)},
        "categories": dict(sorted(categories.items(), key=lambda item: (-item[1], item[0]))),
        "elapsed_s": elapsed,
        "hands_per_s": hands / elapsed if elapsed > 0 else float("inf"),
    }
