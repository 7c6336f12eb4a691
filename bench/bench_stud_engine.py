"""Stud engine speed: hands per second with bots, and against pokerkit on the same hands.

Run from the repository root: ``python bench/bench_stud_engine.py`` (no database).

1. **Bots**: for each game (``five_stud``, ``soko``, ``seven_stud``) at 2, 6 and 8
   players, complete hands per second through the engine with the bots deciding
   (``start_hand``, a bot's choice among ``state.legal()`` and ``apply`` for every
   action, ``hand_record`` at the end), seats cycling the four strategies, seeded.
2. **Against pokerkit**: the Seven Card Stud hands of step 1 again, each played twice in
   the same run on the same deals and actions: by our engine (``replay`` of the record:
   the deck from the seeds, every action through ``apply``, the final record) and by
   pokerkit's ``FixedLimitSevenCardStud`` (the same deck and cards fed to it, the same
   actions, its showdown and chip pushing automated: ``tests/stud/test_pokerkit_diff.py``'s
   driver, without its checks). Hands where pokerkit's rules part from SPEC (heads-up cap
   lift, deck exhaustion, …) are left out of both sides. Ratio = ours ÷ pokerkit.

Target: ours ≥ pokerkit at every player count (exit 1 when missed). ``BENCH_HANDS``
(default 300) sets the hands per configuration; ``BENCH_PROFILE=1`` prints where the
engine's time goes (cProfile of the 8-player Seven Card Stud replays).
"""

from __future__ import annotations

import cProfile
import hashlib
import io
import os
import pstats
import random
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

from casino.stud.bots import STRATEGIES  # noqa: E402
from casino.stud.engine import SeatIn, apply, hand_record, replay, start_hand  # noqa: E402
from casino.stud.evaluate import evaluate  # noqa: E402
from casino.stud.games import preset  # noqa: E402
from tests.stud.test_pokerkit_diff import KnownDifference, play_on_pokerkit  # noqa: E402

HANDS = int(os.environ.get("BENCH_HANDS", "300"))
PLAYERS = (2, 6, 8)
GAMES = ("five_stud", "soko", "seven_stud")
TABLE = "5-10"
ORDER = ("calling_station", "tight", "aggressive", "random_legal")


def bot_hands(game: str, players: int, hands: int) -> tuple[float, list[dict]]:
    """Play ``hands`` hands with bots; (seconds, records)."""
    config = preset(game, TABLE)
    bots = {seat: STRATEGIES[ORDER[(seat - 1) % len(ORDER)]] for seat in range(1, players + 1)}
    seeds = [hashlib.sha256(f"bench:{game}:{players}:{h}".encode()).hexdigest() for h in range(hands)]
    rngs = [random.Random(f"bench:{h}") for h in range(hands)]
    records = []
    started = time.perf_counter()
    for hand in range(hands):
        seats = [
            SeatIn(seat=s, player=f"bot{s}", stack=config.buy_in, client_seed=f"{s:016x}")
            for s in range(1, players + 1)
        ]
        state, _ = start_hand(config=config, seats=seats, server_seed=seeds[hand], nonce=hand + 1)
        rng = rngs[hand]
        while not state.is_over:
            seat = state.to_act
            state, _ = apply(state, seat, bots[seat](state, rng))
        records.append(hand_record(state))
    return time.perf_counter() - started, records


def comparable(records: list[dict]) -> list[dict]:
    """The records pokerkit plays to the end under its own rules."""
    kept = []
    for record in records:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                play_on_pokerkit(record, check=False)
        except (KnownDifference, ValueError):
            continue
        kept.append(record)
    return kept


def time_ours(records: list[dict]) -> float:
    started = time.perf_counter()
    for record in records:
        hand_record(replay(record))
    return time.perf_counter() - started


def time_pokerkit(records: list[dict]) -> float:
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for record in records:
            play_on_pokerkit(record, check=False)
    return time.perf_counter() - started


def profile(records: list[dict]) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    time_ours(records)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(15)
    return out.getvalue()


def main() -> int:
    for game, cards in (
        ("seven_stud", [0, 5, 10, 15, 20, 25, 30]),
        ("five_stud", [0, 5, 10, 15, 20]),
        ("soko", [0, 5, 10, 15, 20]),
    ):
        evaluate(game, cards)  # build the evaluator's tables outside the timing
    print(f"Stud engine bench: {HANDS} hands per configuration, table {TABLE}, seats cycling {', '.join(ORDER)}")
    print()
    print(f"{'game':<11} {'players':>7} {'hands/s (bots)':>15} {'actions/hand':>13}")
    sevens: dict[int, list[dict]] = {}
    for game in GAMES:
        for players in PLAYERS:
            seconds, records = bot_hands(game, players, HANDS)
            actions = sum(1 for r in records for e in r["events"] if e["type"] == "action") / len(records)
            print(f"{game:<11} {players:>7} {HANDS / seconds:>15,.0f} {actions:>13.1f}")
            if game == "seven_stud":
                sevens[players] = records
    print()
    print("Seven Card Stud, the same deals and actions played by both (replay of the records):")
    print(f"{'players':>7} {'hands':>6} {'ours hands/s':>13} {'pokerkit hands/s':>17} {'ratio':>6}")
    missed = False
    for players in PLAYERS:
        records = comparable(sevens[players])
        time_ours(records[:20])  # warm both up
        time_pokerkit(records[:20])
        ours = min(time_ours(records) for _ in range(2))
        theirs = min(time_pokerkit(records) for _ in range(2))
        ratio = theirs / ours
        missed |= ratio < 1
        print(
            f"{players:>7} {len(records):>6} {len(records) / ours:>13,.0f} {len(records) / theirs:>17,.0f} "
            f"{ratio:>5.2f}x"
        )
    print()
    print("target: ours >= pokerkit at every player count:", "MISSED" if missed else "met")
    if os.environ.get("BENCH_PROFILE"):
        print()
        print("Where the engine's time goes (8-player Seven Card Stud replays, by own time):")
        print(profile(comparable(sevens[8])))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
