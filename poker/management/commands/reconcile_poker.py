"""Every poker table's chips in play + cashed out + rake == bought in, and every hand posted once.

Exits non-zero (``CommandError``) when any table does not reconcile, naming each problem.
"""

from django.core.management.base import BaseCommand, CommandError

from casino.cents import format_cents
from poker.selectors import poker_reconciliation


class Command(BaseCommand):
    help = "Reconcile the poker tables with the ledger (exit 1 on any difference)."

    def handle(self, *args, **options):
        rows = poker_reconciliation()
        bad = 0
        for row in rows:
            line = (
                f"{row['table']}: bought in {format_cents(row['bought_in'])} = in play {format_cents(row['in_play'])}"
                f" + cashed out {format_cents(row['cashed_out'])} + rake {format_cents(row['rake'])}"
                f" ({row['hands']} hands)"
            )
            if row["problems"]:
                bad += 1
                self.stderr.write(self.style.ERROR(line + " DOES NOT RECONCILE"))
                for problem in row["problems"]:
                    self.stderr.write(f"  - {problem}")
            else:
                self.stdout.write(line + " ok")
        if bad:
            raise CommandError(f"{bad} of {len(rows)} poker tables do not reconcile")
        self.stdout.write(self.style.SUCCESS(f"{len(rows)} poker tables reconcile"))
