"""Compare every closed day's rollups with the ledger and the hands; exit 1 on a difference."""

from django.core.management.base import BaseCommand, CommandError

from backoffice.rollups import rollups_check, rollups_close


class Command(BaseCommand):
    help = "Check the daily rollups (reports, rake, player pages, the house's accounts) against the ledger."

    def add_arguments(self, parser):
        parser.add_argument("--close", action="store_true", help="Roll up the days that have closed first.")

    def handle(self, *args, close: bool = False, **options):
        if close:
            self.stdout.write(f"Closed {rollups_close()} day(s).")
        problems = rollups_check()
        for problem in problems:
            self.stderr.write(f"ROLLUP {problem}")
        if problems:
            raise CommandError(f"The rollups differ from the ledger ({len(problems)} problem(s)).", returncode=1)
        self.stdout.write("Every closed day's rollups agree with the ledger.")
