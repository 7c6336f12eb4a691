"""Recompute every transaction's MAC and the hash chain; exit 1 on any tampering."""

from django.core.management.base import BaseCommand, CommandError

from wallets.integrity import ledger_seal, ledger_verify


class Command(BaseCommand):
    help = "Find any edited, inserted or deleted ledger row (MACs and the hash chain)."

    def add_arguments(self, parser):
        parser.add_argument("--seal", action="store_true", help="Seal committed transactions first.")

    def handle(self, *args, seal: bool = False, **options):
        if seal:
            self.stdout.write(f"Sealed {ledger_seal()} transaction(s).")
        report = ledger_verify()
        self.stdout.write(
            f"{report.transactions} transactions, {report.sealed} sealed, {report.pending} waiting to be sealed."
        )
        for problem in report.problems:
            self.stderr.write(f"TAMPERED {problem}")
        if not report.ok:
            raise CommandError(f"The ledger fails verification ({len(report.problems)} problem(s)).", returncode=1)
        self.stdout.write("The ledger verifies: every MAC and the whole chain match.")
