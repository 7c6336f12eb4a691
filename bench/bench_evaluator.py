"""Evaluator speed against phevaluator and treys, on the same random five-card hands.

Run from the repository root: ``python bench/bench_evaluator.py``. Prints evaluations
per second and ratios, checks that the three evaluators order the sample hands the same
way, and exits 1 if a speed target is missed:
``evaluate`` >= 2x treys' ``Evaluator.evaluate``; ``evaluate_batch`` >= phevaluator's
``evaluate_cards`` called once per hand.
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
from casino.game.evaluator import evaluate, evaluate_batch  # noqa: E402

HANDS = 200_000
REPEATS = 5
SEED = 20240601


def best_rate(run: Callable[[], object], count: int) -> float:
    """Evaluations per second of the fastest of ``REPEATS`` runs."""
    best = float("inf")
    for _ in range(REPEATS):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return count / best


def same_order(ours: np.ndarray, theirs: np.ndarray) -> bool:
    """True if ``theirs`` is a strictly decreasing function of ``ours`` (theirs: lower is better)."""
    pairs = np.unique(np.stack([ours, theirs], axis=1), axis=0)
    return len(pairs) == len(np.unique(ours)) == len(np.unique(theirs)) and bool(np.all(np.diff(pairs[:, 1]) < 0))


def main() -> int:
    rng = np.random.default_rng(SEED)
    array = np.argsort(rng.random((HANDS, 52)), axis=1)[:, :5].astype(np.uint8)
    hands = array.tolist()
    treys_hands = [[TreysCard.new(text) for text in cards_to_str(hand)] for hand in hands]
    treys = TreysEvaluator().evaluate

    def run_evaluate() -> None:
        for hand in hands:
            evaluate(hand)

    def run_phevaluator() -> None:
        for hand in hands:
            evaluate_cards(*hand)

    def run_treys() -> None:
        for hand in treys_hands:
            treys(hand, [])

    ours = evaluate_batch(array)
    orders_agree = (
        ours.tolist() == [evaluate(hand) for hand in hands]
        and same_order(ours, np.array([evaluate_cards(*hand) for hand in hands]))
        and same_order(ours, np.array([treys(hand, []) for hand in treys_hands]))
    )

    rates = {
        "casino evaluate (pure Python, per hand)": best_rate(run_evaluate, HANDS),
        "casino evaluate_batch (numpy, one call)": best_rate(lambda: evaluate_batch(array), HANDS),
        "phevaluator evaluate_cards (C, per hand)": best_rate(run_phevaluator, HANDS),
        "treys Evaluator.evaluate (per hand)": best_rate(run_treys, HANDS),
    }
    phe = rates["phevaluator evaluate_cards (C, per hand)"]
    treys_rate = rates["treys Evaluator.evaluate (per hand)"]

    print(f"{HANDS:,} random five-card hands, best of {REPEATS} runs, Python {sys.version.split()[0]}")
    print(f"{'evaluator':<42} {'evals/s':>14} {'vs treys':>9} {'vs phevaluator':>15}")
    for name, rate in rates.items():
        print(f"{name:<42} {rate:>14,.0f} {rate / treys_rate:>8.2f}x {rate / phe:>14.2f}x")
    print(f"same ordering as phevaluator and treys on the sample: {'yes' if orders_agree else 'NO'}")

    targets = [
        ("evaluate >= 2x treys", rates["casino evaluate (pure Python, per hand)"] / treys_rate, 2.0),
        ("evaluate_batch >= 1x phevaluator", rates["casino evaluate_batch (numpy, one call)"] / phe, 1.0),
    ]
    for label, ratio, needed in targets:
        print(f"target {label:<34} {ratio:8.2f}x  {'met' if ratio >= needed else 'MISSED'}")
    return 0 if orders_agree and all(ratio >= needed for _, ratio, needed in targets) else 1


if __name__ == "__main__":
    sys.exit(main())
