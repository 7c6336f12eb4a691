"""The deadline sweeper as a loop, for ``make run`` (no Celery broker needed)."""

import time

from django.core.management.base import BaseCommand
from django.db import close_old_connections

from tables.timers import sweep_deadlines


class Command(BaseCommand):
    help = "Enforce betting and decision deadlines every --interval seconds until stopped."

    def add_arguments(self, parser):
        parser.add_argument("--interval", type=float, default=0.5)

    def handle(self, *args, interval: float, **options):
        self.stdout.write(f"Timers: sweeping deadlines every {interval}s.")
        try:
            while True:
                close_old_connections()
                sweep_deadlines()
                time.sleep(interval)
        except KeyboardInterrupt:
            pass
