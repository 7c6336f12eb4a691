"""The periodic work of Celery beat, as one loop, for ``make run`` (no broker needed):
deadlines and the jackpot meters every half second, the ledger's hash chain every few
seconds."""

import logging
import time

from django.core.management.base import BaseCommand
from django.db import close_old_connections

from tables.events import broadcast_meters
from tables.timers import sweep_deadlines
from wallets.integrity import ledger_seal

log = logging.getLogger(__name__)


class Command(BaseCommand):
    help = "Enforce betting and decision deadlines and seal the ledger, until stopped."

    def add_arguments(self, parser):
        parser.add_argument("--interval", type=float, default=0.5, help="Seconds between deadline sweeps.")
        parser.add_argument("--seal-every", type=float, default=5.0, help="Seconds between ledger seals.")

    def handle(self, *args, interval: float, seal_every: float, **options):
        self.stdout.write(f"Periodic work: deadlines every {interval}s, ledger seal every {seal_every}s.")
        next_seal = 0.0
        try:
            while True:
                close_old_connections()
                sweep_deadlines()
                broadcast_meters()
                if time.monotonic() >= next_seal:
                    try:
                        ledger_seal()
                    except Exception:
                        log.exception("sealing the ledger failed; the next round retries")
                    next_seal = time.monotonic() + seal_every
                time.sleep(interval)
        except KeyboardInterrupt:
            pass
