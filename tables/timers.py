"""Deadlines, enforced: one code path for the rule (``services.hand_expire``), two triggers.

- A countdown task per deadline, sent after commit, acts at the deadline and does
  nothing when the hand has moved on (``hand_expire`` re-checks under the lock).
- A sweeper (``sweep_deadlines``) finds every passed deadline in the database: the safety
  net after a crash, run by Celery beat every second with Redis, and by the
  ``run_periodic`` loop under ``make run`` (no broker: no countdown tasks are sent then).
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

log = logging.getLogger(__name__)


def schedule(hand_id: int, at: datetime) -> None:
    """Ask for ``hand_expire(hand_id)`` at ``at``, once the current transaction commits."""
    if settings.CASINO_TIMERS != "celery":
        return

    def send() -> None:
        from tables.tasks import hand_deadline

        try:
            hand_deadline.apply_async((hand_id,), eta=at)
        except Exception:  # the sweeper still finds the deadline
            log.exception("could not schedule the deadline of hand %s", hand_id)

    transaction.on_commit(send)


def hands_due(now: datetime | None = None) -> list[int]:
    """Live hands with a deadline that has passed."""
    from tables.models import Hand

    now = now or timezone.now()
    return list(
        Hand.objects.filter(
            Q(state=Hand.State.BETTING, betting_deadline__lte=now)
            | Q(state=Hand.State.DECISIONS, hand_seats__decision="", hand_seats__decision_deadline__lte=now)
        )
        .values_list("pk", flat=True)
        .distinct()
        .order_by("pk")
    )


def sweep_deadlines() -> int:
    """Expire every due hand; one failing hand does not stop the others."""
    from tables.services import hand_expire

    swept = 0
    for hand_id in hands_due():
        try:
            hand_expire(hand_id=hand_id)
            swept += 1
        except Exception:
            log.exception("expiring hand %s failed; the next sweep retries", hand_id)
    return swept
