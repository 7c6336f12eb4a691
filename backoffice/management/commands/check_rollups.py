"""Compare every closed day's rollups with the ledger and the hands; exit 1 on a difference.
``--rebuild DAY …`` first writes those closed days' rollups again from the ledger and the hands."""

from datetime import date

from django.core.management.base import BaseCommand, CommandError

from backoffice.rollups import rollups_check, rollups_close, rollups_rebuild


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"{text!r} is not a day (YYYY-MM-DD).") from None


class Command(BaseCommand):
    help = "Check the daily rollups (reports, rake, player pages, the house's accounts) against the ledger."

    def add_arguments(self, parser):
        parser.add_argument("--close", action="store_true", help="Roll up the days that have closed first.")
        parser.add_argument(
            "--rebuild",
            nargs="+",
            type=_day,
            default=[],
            metavar="DAY",
            help="Write these closed days' rollups again from the ledger and the hands (YYYY-MM-DD), then check.",
        )

    def handle(self, *args, close: bool = False, rebuild: list[date] = (), **options):
        if close:
            self.stdout.write(f"Closed {rollups_close()} day(s).")
        if rebuild:
            done = rollups_rebuild(days=rebuild)
            missing = sorted(set(rebuild) - set(done))
            self.stdout.write(f"Rebuilt {len(done)} day(s): {', '.join(d.isoformat() for d in done) or 'none'}.")
            if missing:
                raise CommandError(
                    f"Not closed yet (the periodic work rolls them up): {', '.join(d.isoformat() for d in missing)}."
                )
        problems = rollups_check()
        for problem in problems:
            self.stderr.write(f"ROLLUP {problem}")
        if problems:
            raise CommandError(f"The rollups differ from the ledger ({len(problems)} problem(s)).", returncode=1)
        self.stdout.write("Every closed day's rollups agree with the ledger.")
