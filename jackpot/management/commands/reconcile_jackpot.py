"""Prove each pool's meter and reserve from the ledger alone; exit 1 on any difference."""

from django.core.management.base import BaseCommand, CommandError

from casino.cents import format_cents
from jackpot.models import JackpotPool
from jackpot.selectors import ledger_total, pool_reconcile


class Command(BaseCommand):
    help = "Reconcile every jackpot pool's meter and reserve with the ledger, to the cent."

    def add_arguments(self, parser):
        parser.add_argument("--pool", help="Only this pool (name).")

    def handle(self, *args, pool=None, **options):
        pools = JackpotPool.objects.all()
        if pool:
            pools = pools.filter(name=pool)
            if not pools.exists():
                raise CommandError(f"No jackpot pool named {pool!r}.")
        failed = False
        for p in pools:
            report = pool_reconcile(pool=p, rollups=False)
            for acc in (report.meter, report.reserve):
                self.stdout.write(f"{acc.code}: balance {format_cents(acc.balance)}")
                for kind, cents in sorted(acc.inflows.items()):
                    self.stdout.write(f"  + {kind:<22} {format_cents(cents):>14}")
                for kind, cents in sorted(acc.outflows.items()):
                    self.stdout.write(f"  - {kind:<22} {format_cents(cents):>14}")
                self.stdout.write(f"  = from the ledger         {format_cents(acc.from_ledger):>14}")
            for problem in report.problems:
                self.stderr.write(f"MISMATCH {problem}")
            failed |= not report.ok
            self.stdout.write(f"{p.name}: {'OK' if report.ok else 'FAILED'}")
        total = ledger_total()
        if total != 0:
            self.stderr.write(f"MISMATCH the ledger as a whole sums to {total}, not 0")
            failed = True
        if failed:
            raise CommandError("Jackpot reconciliation failed.", returncode=1)
        self.stdout.write("Reconciled to the cent.")
