"""Verify the ledger (MACs, the hash chain, every balance against its legs); exit 1 on any tampering.

From the latest checkpoint on by default (what was written since it), the whole ledger
with ``--full``; a clean check becomes the next checkpoint."""

import time

from django.core.management.base import BaseCommand, CommandError

from wallets.integrity import ledger_check, ledger_seal


class Command(BaseCommand):
    help = (
        "Find any edited, inserted or deleted ledger row (MACs, the hash chain, balances), from the last "
        "checkpoint or, with --full, everywhere."
    )

    def add_arguments(self, parser):
        parser.add_argument("--seal", action="store_true", help="Seal committed transactions first.")
        parser.add_argument(
            "--full", action="store_true", help="Verify the whole ledger, not only what follows the last checkpoint."
        )
        parser.add_argument(
            "--no-checkpoint", action="store_true", help="Do not save the point reached as a checkpoint."
        )

    def handle(self, *args, seal: bool = False, full: bool = False, no_checkpoint: bool = False, **options):
        if seal:
            self.stdout.write(f"Sealed {ledger_seal()} transaction(s).")
        started = time.monotonic()

        def progress(done: int) -> None:
            if full and done % 100_000 == 0:
                self.stdout.write(f"  {done:,} transactions verified ({time.monotonic() - started:.0f} s)")

        check = ledger_check(full=full, save=not no_checkpoint, progress=progress)
        report = check.ledger
        since = check.since
        scope = (
            "the whole ledger"
            if since is None
            else f"since the checkpoint at seal {since.seq} ({since.created_at:%Y-%m-%d %H:%M:%S})"
        )
        self.stdout.write(
            f"{report.transactions} transactions, {report.sealed} sealed, {report.pending} waiting to be sealed: "
            f"{scope}."
        )
        for problem in report.problems:
            self.stderr.write(f"TAMPERED {problem}")
        for mismatch in check.account_mismatches:
            self.stderr.write(
                f"BALANCE {mismatch['account']}: {mismatch['balance']}, its legs give {mismatch['from_legs']}"
            )
        if check.ledger_sum:
            self.stderr.write(f"SUM the ledger sums to {check.ledger_sum}, not 0")
        if not check.ok:
            raise CommandError(
                f"The ledger fails verification ({len(report.problems) + len(check.account_mismatches)} problem(s)).",
                returncode=1,
            )
        self.stdout.write("The ledger verifies: every MAC and the whole chain match.")
