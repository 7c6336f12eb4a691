"""The Caribbean tables' deadlines, registered with the game-neutral deadline machinery.

One code path for the rule (``tables.services.hands.hand_expire``), two triggers (``casino.live.deadlines``):
a countdown task per deadline (``schedule``), and the sweeper over every registered game's
deadline columns, the safety net after a crash.
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import Q
from django.utils import timezone

from casino.live import deadlines
from tables.events import GAME


def hands_due(now: datetime | None = None) -> list[int]:
    """Live hands with a deadline that has passed: a betting window, or an undecided seat's time."""
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


def _expire(hand_id: int) -> None:
    from tables.services.hands import hand_expire

    hand_expire(hand_id=hand_id)


DEADLINES = deadlines.register(GAME, due=hands_due, expire=_expire)

# ``schedule(hand_id, at)``: ask for the hand's deadline to be enforced at ``at``, after commit.
schedule = DEADLINES.schedule
