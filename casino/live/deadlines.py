"""Deadlines, enforced for every game: one registry, two triggers.

A game registers its deadlines once (``register``): how to list its hands whose deadline
has passed (a query over its deadline columns) and the one function that enforces one
hand's deadlines, re-checking the hand's state under its lock (so a stale trigger does
nothing); most countdowns are stale (the players acted in time), so each game's
``expire`` first reads, without a lock, whether anything of the hand is due. Then:

- a countdown task per deadline (``schedule``), sent after commit when
  ``CASINO_TIMERS`` is ``"celery"``, acts at the deadline (``casino.live.tasks``); once
  a send fails (the broker is down), none is tried for ``BROKER_RETRY_AFTER`` seconds
  (``Broker``), since each try holds the step's thread for most of a second;
- a sweeper (``sweep_deadlines``) finds every passed deadline of every game in the
  database: the safety net after a crash, run by Celery beat every second with Redis,
  and by the periodic loop (``casino.live.periodic``) under ``make run``, where no
  countdown tasks are sent.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
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


@dataclass(frozen=True)
class DeadlineGame:
    """One game's deadlines: ``due(now)`` lists its hands past a deadline (ids, in order);
    ``expire(hand_id)`` enforces whatever of that hand has passed, and nothing else."""

    name: str
    due: Callable[[datetime], list[int]]
    expire: Callable[[int], None]

    def schedule(self, hand_id: int, at: datetime) -> None:
        """Ask for ``expire(hand_id)`` at ``at``, once the current transaction commits."""
        if settings.CASINO_TIMERS != "celery":
            return
        name = self.name

        def send() -> None:
            from casino.live.tasks import hand_deadline

            if not broker.usable():  # down a moment ago: the sweeper finds the deadline
                return
            try:
                hand_deadline.apply_async((name, hand_id), eta=at)
            except Exception:  # the sweeper still finds the deadline
                broker.failed()
                log.exception(
                    "could not schedule the deadline of %s hand %s; no countdown is sent for %s s",
                    name, hand_id, intervals.BROKER_RETRY_AFTER,
                )

        transaction.on_commit(send)


_games: dict[str, DeadlineGame] = {}


def register(name: str, *, due: Callable[[datetime], list[int]], expire: Callable[[int], None]) -> DeadlineGame:
    """Register a game's deadlines under ``name`` (stable: countdown tasks carry it)."""
    game = _games[name] = DeadlineGame(name=name, due=due, expire=expire)
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
    """Expire every due hand of every game; one failing hand (or game) stops no other."""
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
    return swept
