"""``manage.py stud_simulate``: bots play stud hands through the engine; a summary or the hand records."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from casino.stud.bots import STRATEGIES
from casino.stud.engine import StudError
from casino.stud.games import GAMES, PRESETS, preset
from casino.stud.simulate import MIXED, simulate

DEFAULT_TABLE = {"fixed": "5-10", "spread": "1-3"}


class Command(BaseCommand):
    help = (
        "Play stud hands with bots through the engine and print a summary (hands, showdown rate, "
        "average pot, rake, categories at showdown, hands/s), or with --jsonl one hand record per line."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", required=True, help=f"one of {', '.join(GAMES)}")
        parser.add_argument(
            "--limit",
            choices=("fixed", "spread"),
            default=None,
            help="fixed or spread (spread: seven_stud only); default: the table's",
        )
        parser.add_argument(
            "--table", default=None, help="a standard table of SPEC B1, e.g. 5-10 (default 5-10, or 1-3 for spread)"
        )
        parser.add_argument("--players", type=int, required=True, help="bots at the table, 2..8")
        parser.add_argument("--hands", type=int, required=True, help="hands to play")
        parser.add_argument(
            "--seed",
            type=int,
            default=None,
            help="derive every hand's seeds from this number: the same seed gives the same hands",
        )
        parser.add_argument(
            "--strategy",
            default=MIXED,
            help=f"{MIXED} (default: seats cycle {', '.join(STRATEGIES)}), one of those names "
            "for every seat, or a comma-separated list, one per seat (cycled)",
        )
        parser.add_argument(
            "--jsonl",
            action="store_true",
            help="print one hand record (JSON) per line instead of the summary (summary on stderr)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        game = options["game"]
        if game not in GAMES:
            raise CommandError(f"unknown game {game!r}; choose one of: {', '.join(GAMES)}")
        limit = options["limit"]
        table = options["table"] or DEFAULT_TABLE[limit or "fixed"]
        try:
            config = preset(game, table)
        except StudError as error:
            raise CommandError(error.message) from error
        if limit is not None and config.limit.kind != limit:
            tables = sorted(
                key.split("/", 1)[1]
                for key, c in PRESETS.items()
                if key.startswith(f"{game}/") and c.limit.kind == limit
            )
            hint = f"; {limit} tables for {game}: {', '.join(tables)}" if tables else f"; {game} has no {limit} table"
            raise CommandError(f"table {table!r} of {game} is {config.limit.kind} limit, not {limit}{hint}")
        write = (
            (lambda record: self.stdout.write(json.dumps(record, separators=(",", ":")))) if options["jsonl"] else None
        )
        try:
            result = simulate(
                config=config,
                players=options["players"],
                hands=options["hands"],
                seed=options["seed"],
                strategy=options["strategy"],
                on_record=write,
            )
        except (ValueError, StudError) as error:
            raise CommandError(getattr(error, "message", None) or str(error)) from error
        summary = self.summary(result)
        if options["jsonl"]:
            self.stderr.write(summary)
        else:
            self.stdout.write(summary)

    @staticmethod
    def summary(result: dict[str, Any]) -> str:
        seed = result["seed"] if result["seed"] is not None else "none (fresh seeds every hand)"
        strategies = ", ".join(f"{seat}:{name}" for seat, name in result["strategies"].items())
        shown = sum(result["categories"].values())
        lines = [
            f"{result['game']} {result['table']} ({result['limit']} limit), {result['players']} players, seed {seed}",
            f"Strategies (seat:name):  {strategies}",
            f"Hands played:            {result['hands']:,}",
            f"Showdowns:               {result['showdowns']:,} ({result['showdown_rate']:.1%})",
            f"Average pot:             {result['average_pot']}",
            f"Total pot:               {result['total_pot']}",
            f"Rake:                    {result['rake']}",
            "Net per seat:            " + ", ".join(f"{seat}: {amount}" for seat, amount in result["net"].items()),
            f"Hands at showdown by category ({shown:,} hands):",
            *(f"  {key:<16} {count:>10,}" for key, count in result["categories"].items()),
            f"Hands per second:        {result['hands_per_s']:,.0f} ({result['elapsed_s']:.2f} s)",
        ]
        return "\n".join(lines)
