"""The periodic work of Celery beat (``casino.live.periodic``) as a loop in its own process.

For a deployment whose channel layer crosses processes (``REDIS_URL``) but that runs no
Celery beat. ``make run`` does not need it: with the in-memory channel layer the web
server runs the same work itself (``CASINO_PERIODIC_IN_SERVER``).
"""

import time

from django.core.management.base import BaseCommand
from django.db import close_old_connections

from casino.live.periodic import DEADLINE_EVERY, METERS_EVERY, SEAL_EVERY, Periodic
from casino.stud import evaluate


class Command(BaseCommand):
    help = "Enforce every game's deadlines, broadcast the jackpot meters and seal the ledger, until stopped."

    def add_arguments(self, parser):
        parser.add_argument("--interval", type=float, default=DEADLINE_EVERY, help="Seconds between deadline sweeps.")
        parser.add_argument(
            "--meters-every", type=float, default=METERS_EVERY, help="Seconds between meter broadcasts."
        )
        parser.add_argument("--seal-every", type=float, default=SEAL_EVERY, help="Seconds between ledger seals.")

    def handle(self, *args, interval: float, meters_every: float, seal_every: float, **options):
        self.stdout.write(
            f"Periodic work: deadlines every {interval}s, jackpot meters every {meters_every}s,"
            f" ledger seal every {seal_every}s."
        )
        evaluate.prepare()  # the stud evaluator's tables, before the first sweep steps a poker hand
        periodic = Periodic(meters_every=meters_every, seal_every=seal_every)
        try:
            while True:
                close_old_connections()
                time.sleep(periodic.run_round(interval))
        except KeyboardInterrupt:
            pass
