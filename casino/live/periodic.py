"""The periodic work of Celery beat (every game's deadlines, the jackpot meters, the
ledger's seal and checkpoint, the exports' sweeper, the closed days' rollups) for one process, in one place.

Two ways to run it, one schedule:

- ``manage.py run_periodic``: a loop in its own process, for a deployment whose channel
  layer crosses processes (Redis) but that runs no Celery beat.
- Inside the web server (``start_in_server``): with the in-memory channel layer of
  ``make run`` an event reaches only the sockets of the process that sends it, so the
  deadlines must be enforced by the process that serves the pages. The ASGI application
  starts it on the server's event loop (``casino.asgi``) when
  ``CASINO_PERIODIC_IN_SERVER`` is on (the default without ``REDIS_URL``).

The work is named by dotted path, as beat's schedule names its tasks, and imported when
it runs: this package imports no app.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from channels.db import database_sync_to_async
from django.conf import settings
from django.utils import timezone
from django.utils.module_loading import import_string

from casino import intervals
from casino.live import deadlines

log = logging.getLogger(__name__)

# Seconds between runs: one home for the loop and beat (casino.intervals).
DEADLINE_EVERY = intervals.DEADLINE_SWEEP_EVERY
METERS_EVERY = intervals.METERS_EVERY
SEAL_EVERY = intervals.SEAL_EVERY

# A round woken by a deadline comes this much after it (a timer may fire a little early;
# the sweep takes what is due at its clock) and never sooner than this after the last.
DEADLINE_MARGIN = 0.005
SHORTEST_PAUSE = 0.02

# What runs, each as beat runs its twin task (casino/settings.py CELERY_BEAT_SCHEDULE).
DEADLINES = "casino.live.deadlines.sweep_deadlines"
METERS = "tables.events.broadcast_meters"
SEAL = "wallets.integrity.ledger_seal"
EXPORTS = "backoffice.exports.export_sweep"
# The demo's bot players (make run; off unless POKER_DEMO_BOTS, which production refuses).
DEMO_BOTS = "poker.demo_bots.demo_bots_step"
CLOSE_DAYS = "backoffice.rollups.rollups_close"
CHECKPOINT = "wallets.integrity.ledger_checkpoint"


class Periodic:
    """Runs each piece of periodic work when it is due; one failing piece stops no other."""

    def __init__(self, *, meters_every: float = METERS_EVERY, seal_every: float = SEAL_EVERY):
        self.meters_every = meters_every
        self.seal_every = seal_every
        self._next_meters = self._next_seal = self._next_exports = self._next_close = 0.0
        self._next_checkpoint = time.monotonic() + intervals.CHECKPOINT_EVERY  # not at start: the seal comes first

    def run_due(self) -> None:
        _guarded("sweeping deadlines", DEADLINES)
        if settings.POKER_DEMO_BOTS:
            _guarded("the demo's bots", DEMO_BOTS)
        now = time.monotonic()
        if now >= self._next_meters:
            self._next_meters = now + self.meters_every
            _guarded("broadcasting the jackpot meters", METERS)
        if now >= self._next_seal:
            self._next_seal = now + self.seal_every
            _guarded("sealing the ledger", SEAL)
        if now >= self._next_exports:
            self._next_exports = now + intervals.EXPORTS_SWEEP_EVERY
            _guarded("sweeping the exports whose worker died", EXPORTS)
        if now >= self._next_close:
            self._next_close = now + intervals.CLOSE_DAYS_EVERY
            _guarded("rolling up the days that closed", CLOSE_DAYS)
        if now >= self._next_checkpoint:
            self._next_checkpoint = now + intervals.CHECKPOINT_EVERY
            _guarded("checking the ledger from its last checkpoint", CHECKPOINT)

    def pause(self, interval: float) -> float:
        """Seconds until the next round: ``interval``, or less when a deadline comes sooner
        and no countdown task will act on it (``CASINO_TIMERS`` other than ``"celery"``),
        so that a player's clock that reaches 0 is acted on at 0."""
        if settings.CASINO_TIMERS == "celery":
            return interval
        now = timezone.now()
        at = deadlines.next_deadline(now, now + timedelta(seconds=interval))
        if at is None:
            return interval
        return min(interval, max(SHORTEST_PAUSE, (at - now).total_seconds() + DEADLINE_MARGIN))

    def run_round(self, interval: float) -> float:
        """Run what is due; return the seconds to wait before the next round."""
        self.run_due()
        try:
            return self.pause(interval)
        except Exception:  # a database that is down for a while: the next round retries
            log.exception("finding the next deadline failed; the next round comes after %s s", interval)
            return interval


def _guarded(what: str, path: str) -> None:
    try:
        import_string(path)()
    except Exception:
        log.exception("%s failed; the next round retries", what)


# One task per event loop (a server process has one; a test may run several in turn).
_tasks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task] = weakref.WeakKeyDictionary()
# Its own thread, so that the periodic work never waits behind a table's actions.
_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="periodic")


def start_in_server(*, interval: float = DEADLINE_EVERY) -> asyncio.Task:
    """Start the periodic work on the running event loop, once per loop; returns its task."""
    loop = asyncio.get_running_loop()
    task = _tasks.get(loop)
    if task is None or task.done():
        task = _tasks[loop] = loop.create_task(_run_in_server(Periodic(), interval), name="casino-periodic")
    return task


async def stop_in_server() -> None:
    """Stop this loop's periodic work (tests; a server simply exits); returns once a round
    under way in its thread has ended too (cancelling the task does not stop the thread)."""
    task = _tasks.pop(asyncio.get_running_loop(), None)
    if task is not None:
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        await asyncio.wrap_future(_THREAD.submit(lambda: None))  # after the round under way


async def _run_in_server(periodic: Periodic, interval: float) -> None:
    # database_sync_to_async closes the thread's old connections around each round; the
    # events it sends go back to this loop's sockets (casino.live.outbox.flush).
    run = database_sync_to_async(periodic.run_round, thread_sensitive=False, executor=_THREAD)
    while True:
        try:
            pause = await run(interval)
        except Exception:  # a database that is down for a while: keep trying
            log.exception("the periodic work failed; retrying")
            pause = interval
        await asyncio.sleep(pause)
