"""The periodic work of Celery beat, as one loop, for ``make run`` (no broker needed):
deadlines every half second, the jackpot meters every second (as beat does: one
message a second to every open table socket is what "live" needs), the ledger's hash
chain every few seconds."""

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
        parser.add_argument("--meters-every", type=float, default=1.0, help="Seconds between jackpot meter broadcasts.")
        parser.add_argument("--seal-every", type=float, default=5.0, help="Seconds between ledger seals.")

    def handle(self, *args, interval: float, meters_every: float, seal_every: float, **options):
        self.stdout.write(
            f"Periodic work: deadlines every {interval}s, jackpot meters every {meters_every}s,"
            f" ledger seal every {seal_every}s."
        )
        next_seal = next_meters = 0.0
        try:
            while True:
                close_old_connections()
                sweep_deadlines()
                if time.monotonic() >= next_meters:
                    broadcast_meters()
                    next_meters = time.monotonic() + meters_every
                if time.monotonic() >= next_seal:
                    try:
                        ledger_seal()
                    except Exception:
                        log.exception("sealing the ledger failed; the next round retries")
                    next_seal = time.monotonic() + seal_every
                time.sleep(interval)
        except KeyboardInterrupt:
            pass
