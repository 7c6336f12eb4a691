"""Deadlines, enforced for every game: one registry, two triggers.

A game registers its deadlines once (``register``): how to list its hands whose deadline
has passed and its deadlines coming up (queries over its deadline columns), and the one
function that enforces one hand's deadlines, re-checking the hand's state under its lock
(so a stale trigger does nothing); each game's ``expire`` first reads, without a lock,
whether anything of the hand is due, since a countdown may find its hand moved on. Then:

- a countdown task per deadline a hand is still waiting for, which acts at the deadline
  (``casino.live.tasks``) when ``CASINO_TIMERS`` is ``"celery"``. Most hands move on
  before their deadline (the players act in time), so a step does not send one for a
  deadline further than ``DEADLINE_ARM_AHEAD`` seconds away (a message to the broker
  costs the step's thread 0.4-0.8 ms); the sweep that runs within that time before the
  deadline sends it (``arm``), if the hand still waits for it. A nearer deadline's
  countdown is sent by its step, after commit. Each deadline is armed once (a key in the
  cache); once a send fails (the broker is down), none is tried for
  ``BROKER_RETRY_AFTER`` seconds (``Broker``), since each try holds its thread for most
  of a second;
- a sweeper (``sweep_deadlines``) finds every passed deadline of every game in the
  database and enforces it, and arms the countdowns coming up: run by Celery beat every
  second with Redis, and by the periodic loop (``casino.live.periodic``) under
  ``make run``, where no countdown tasks are sent and the sweep alone enforces: that loop
  wakes at the soonest deadline coming up (``next_deadline``), so a clock that reaches 0
  is acted on then, not at the loop's next round.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from casino import intervals

log = logging.getLogger(__name__)


class Broker:
    """Whether a countdown is worth sending: not for ``BROKER_RETRY_AFTER`` seconds after
    a send failed. With the broker down, ``apply_async`` holds the step's thread 0.6-0.7 s
    (the connection's attempts) before it fails, after the step committed, and the player
    waits for it at every bet and decision; the sweeper, which beat runs through the same
    broker once it is back, enforces the deadlines that went unsent meanwhile."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._retry_at = 0.0

    def usable(self) -> bool:
        return self.clock() >= self._retry_at

    def failed(self) -> None:
        self._retry_at = self.clock() + intervals.BROKER_RETRY_AFTER


broker = Broker()


ARM_AHEAD = timedelta(seconds=intervals.DEADLINE_ARM_AHEAD)


@dataclass(frozen=True)
class DeadlineGame:
    """One game's deadlines: ``due(now)`` lists its hands past a deadline (ids, in order);
    ``upcoming(after, until)`` the deadlines of live hands in ``(after, until]``, as
    ``(hand id, deadline)``; ``expire(hand_id)`` enforces whatever of that hand has
    passed, and nothing else."""

    name: str
    due: Callable[[datetime], list[int]]
    upcoming: Callable[[datetime, datetime], list[tuple[int, datetime]]]
    expire: Callable[[int], None]

    def schedule(self, hand_id: int, at: datetime) -> None:
        """A step set a deadline: its countdown is sent once the transaction commits if the
        deadline is near (``ARM_AHEAD``), else by a sweep shortly before it."""
        if settings.CASINO_TIMERS != "celery":
            return

        def send() -> None:
            if at <= timezone.now() + ARM_AHEAD:
                self.arm(hand_id, at)

        transaction.on_commit(send)

    def arm(self, hand_id: int, at: datetime) -> None:
        """Send the countdown task of this deadline, unless it was sent already or the
        broker failed a moment ago (the sweeper enforces the deadline then)."""
        from casino.live.tasks import hand_deadline

        if not broker.usable() or not _first_arming(self.name, hand_id, at):
            return
        try:
            hand_deadline.apply_async((self.name, hand_id), eta=at)
        except Exception:  # the sweeper still finds the deadline
            broker.failed()
            log.exception(
                "could not schedule the deadline of %s hand %s; no countdown is sent for %s s",
                self.name,
                hand_id,
                intervals.BROKER_RETRY_AFTER,
            )


def _first_arming(name: str, hand_id: int, at: datetime) -> bool:
    """Whether this deadline's countdown is still to be sent: the first to claim its key in
    the shared cache sends it (every sweep within ``ARM_AHEAD`` of the deadline sees it).
    Without the cache, it is sent again: a second countdown finds nothing left to do."""
    key = f"deadline-armed:{name}:{hand_id}:{at.timestamp()}"
    try:
        return cache.add(key, 1, timeout=intervals.DEADLINE_ARM_AHEAD + 60)
    except Exception:
        log.warning("the cache did not answer; the countdown of %s hand %s may go twice", name, hand_id)
        return True


_games: dict[str, DeadlineGame] = {}


def register(
    name: str,
    *,
    due: Callable[[datetime], list[int]],
    upcoming: Callable[[datetime, datetime], list[tuple[int, datetime]]],
    expire: Callable[[int], None],
) -> DeadlineGame:
    """Register a game's deadlines under ``name`` (stable: countdown tasks carry it)."""
    game = _games[name] = DeadlineGame(name=name, due=due, upcoming=upcoming, expire=expire)
    return game


def games() -> list[DeadlineGame]:
    return list(_games.values())


def expire(name: str, hand_id: int) -> None:
    """Enforce one hand's deadlines (the countdown task's work)."""
    game = _games.get(name)
    if game is None:
        raise LookupError(f"no deadlines registered for {name!r}")
    game.expire(hand_id)


def sweep_deadlines(now: datetime | None = None) -> int:
    """Expire every due hand of every game, then (with countdown tasks) arm the countdowns
    of the deadlines coming up; one failing hand (or game) stops no other."""
    now = now or timezone.now()
    swept = 0
    for game in games():
        try:
            due = game.due(now)
        except Exception:
            log.exception("listing the due %s hands failed; the next sweep retries", game.name)
            continue
        for hand_id in due:
            try:
                game.expire(hand_id)
                swept += 1
            except Exception:
                log.exception("expiring %s hand %s failed; the next sweep retries", game.name, hand_id)
        if settings.CASINO_TIMERS == "celery":
            try:
                for hand_id, at in game.upcoming(now, now + ARM_AHEAD):
                    game.arm(hand_id, at)
            except Exception:
                log.exception("arming the coming %s deadlines failed; the next sweep retries", game.name)
    return swept


def next_deadline(now: datetime, until: datetime) -> datetime | None:
    """The soonest deadline of any game in ``(now, until]``, or None: when the periodic
    loop, the only trigger without countdown tasks, sweeps next."""
    soonest = None
    for game in games():
        try:
            coming = game.upcoming(now, until)
        except Exception:
            log.exception("listing the coming %s deadlines failed; the loop sweeps at its next round", game.name)
            continue
        for _, at in coming:
            if soonest is None or at < soonest:
                soonest = at
    return soonest
