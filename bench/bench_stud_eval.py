"""Seven-card stud evaluation speed against treys (and phevaluator), on the same random hands.

Run from the repository root: ``python bench/bench_stud_eval.py``. Prints seven-card
evaluations per second of ``casino.stud.evaluate.evaluate("seven_stud", cards)`` (the
single-hand path the engine calls: input checked, a ``HandValue`` with its best five
built), of ``evaluate_many`` (numpy, one call), of treys' ``Evaluator.evaluate`` and of
phevaluator's ``evaluate_cards`` (C) on the same hands in the same run, and the ratios.
Checks that the evaluators order the sample hands the same way, and exits 1 if that
fails or the target (single-hand path >= 2x treys) is missed.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from phevaluator import evaluate_cards
from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from casino.game.cards import cards_to_str  # noqa: E402
from casino.stud.evaluate import evaluate, evaluate_many  # noqa: E402

HANDS = 100_000
REPEATS = 7
SEED = 20261201


def best_rates(runs: dict[str, Callable[[], object]], count: int) -> dict[str, float]:
    """Evaluations per second of each run's fastest of ``REPEATS`` rounds.

    The runs take turns within every round, so that a busy moment on a shared machine
    slows all of them rather than one.
    """
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(REPEATS):
        for name, run in runs.items():
            started = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - started)
    return {name: count / seconds for name, seconds in best.items()}


def same_order(ours: np.ndarray, theirs: np.ndarray) -> bool:
    """True if ``theirs`` is a strictly decreasing function of ``ours`` (theirs: lower is better)."""
    pairs = np.unique(np.stack([ours, theirs], axis=1), axis=0)
    return len(pairs) == len(np.unique(ours)) == len(np.unique(theirs)) and bool(np.all(np.diff(pairs[:, 1]) < 0))


def main() -> int:
    rng = np.random.default_rng(SEED)
    array = np.argsort(rng.random((HANDS, 52)), axis=1)[:, :7].astype(np.uint8)
    hands = array.tolist()
    treys_hands = [[TreysCard.new(text) for text in cards_to_str(hand)] for hand in hands]
    treys_split = [(hand[:2], hand[2:]) for hand in treys_hands]
    phe_hands = [cards_to_str(hand) for hand in hands]
    treys = TreysEvaluator().evaluate
    evaluate("seven_stud", hands[0])  # builds the lookup tables
    evaluate_many("seven_stud", array[:1])

    def run_evaluate() -> None:
        for hand in hands:
            evaluate("seven_stud", hand)

    def run_treys() -> None:
        for hole, board in treys_split:
            treys(hole, board)

    def run_phevaluator() -> None:
        for hand in phe_hands:
            evaluate_cards(*hand)

    ours = evaluate_many("seven_stud", array)
    single = [evaluate("seven_stud", hand) for hand in hands]
    orders_agree = (
        ours.tolist() == [value.strength for value in single]
        and same_order(ours, np.array([treys(hole, board) for hole, board in treys_split]))
        and same_order(ours, np.array([evaluate_cards(*hand) for hand in phe_hands]))
    )

    rates = best_rates(
        {
            "stud evaluate (pure Python, per hand)": run_evaluate,
            "stud evaluate_many (numpy, one call)": lambda: evaluate_many("seven_stud", array),
            "treys Evaluator.evaluate (per hand)": run_treys,
            "phevaluator evaluate_cards (C, per hand)": run_phevaluator,
        },
        HANDS,
    )
    treys_rate = rates["treys Evaluator.evaluate (per hand)"]
    phe = rates["phevaluator evaluate_cards (C, per hand)"]

    print(f"{HANDS:,} random seven-card hands, best of {REPEATS} runs, Python {sys.version.split()[0]}")
    print(f"{'evaluator':<42} {'evals/s':>14} {'vs treys':>9} {'vs phevaluator':>15}")
    for name, rate in rates.items():
        print(f"{name:<42} {rate:>14,.0f} {rate / treys_rate:>8.2f}x {rate / phe:>14.2f}x")
    print(f"same ordering as treys and phevaluator on the sample: {'yes' if orders_agree else 'NO'}")

    ratio = rates["stud evaluate (pure Python, per hand)"] / treys_rate
    print(f"target {'evaluate >= 2x treys':<34} {ratio:8.2f}x  {'met' if ratio >= 2.0 else 'MISSED'}")
    return 0 if orders_agree and ratio >= 2.0 else 1


if __name__ == "__main__":
    sys.exit(main())
