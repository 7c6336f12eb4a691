"""``manage.py simulate``: Monte Carlo house edge of a pay table under a strategy."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from casino.game.paytables import DEFAULT_PAYTABLE, PAYTABLES
from casino.game.simulate import simulate
from casino.game.strategy import STRATEGIES


class Command(BaseCommand):
    help = "Simulate Caribbean Stud hands and report the house edge with its 95% interval."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--hands", type=int, default=1_000_000, help="hands to play (default 1,000,000)")
        parser.add_argument(
            "--paytable", default=DEFAULT_PAYTABLE, help=f"one of {', '.join(PAYTABLES)} (default {DEFAULT_PAYTABLE})"
        )
        parser.add_argument("--strategy", default="wizard", help=f"one of {', '.join(STRATEGIES)} (default wizard)")
        parser.add_argument("--seed", type=int, default=None, help="random seed, for a reproducible run")
        parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["paytable"] not in PAYTABLES:
            raise CommandError(f"unknown pay table {options['paytable']!r}; choose one of: {', '.join(PAYTABLES)}")
        try:
            result = simulate(
                hands=options["hands"],
                paytable=PAYTABLES[options["paytable"]],
                strategy=options["strategy"],
                seed=options["seed"],
            )
        except ValueError as error:
            raise CommandError(str(error)) from error
        if options["json"]:
            self.stdout.write(json.dumps(result))
            return
        low, high = result["house_edge_ci95_pct"]
        lines = [
            f"Pay table {result['paytable']}, strategy {result['strategy']}, seed {result['seed']}",
            f"Hands played:           {result['hands']:,}",
            f"Return per unit ante:   {result['return_per_unit_ante']:+.5f}",
            f"House edge:             {result['house_edge_pct']:.3f}% of the ante (95% CI {low:.3f}% .. {high:.3f}%)",
            f"Raise rate:             {result['raise_rate']:.2%}",
            "Jackpot hits (player's five cards):",
            *(f"  {key:<16} {count:>12,}" for key, count in result["jackpot_hits"].items()),
            f"Elapsed:                {result['elapsed_s']:.1f} s",
        ]
        self.stdout.write("\n".join(lines))
