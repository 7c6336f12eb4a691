"""The Caribbean tables' deadlines, registered with the game-neutral deadline machinery.

One code path for the rule (``tables.services.hands.hand_expire``), two triggers (``casino.live.deadlines``):
a countdown task per deadline a hand still waits for shortly before it (``schedule``, and
the sweep's arming), and the sweeper over every registered game's deadline columns, the
safety net after a crash.
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import Q
from django.utils import timezone

from casino.live import deadlines
from tables.events import GAME


def _due(now: datetime) -> Q:
    """A hand with a deadline that has passed: a betting window, or an undecided seat's time."""
    from tables.models import Hand

    return Q(state=Hand.State.BETTING, betting_deadline__lte=now) | Q(
        state=Hand.State.DECISIONS, hand_seats__decision="", hand_seats__decision_deadline__lte=now
    )


def hands_due(now: datetime | None = None) -> list[int]:
    """Live hands with a deadline that has passed."""
    from tables.models import Hand

    return list(Hand.objects.filter(_due(now or timezone.now())).values_list("pk", flat=True).distinct().order_by("pk"))


def hands_upcoming(after: datetime, until: datetime) -> list[tuple[int, datetime]]:
    """The deadlines of live hands in ``(after, until]``, as (hand, deadline): a betting
    window, an undecided seat's time (a seat's extension is a deadline of its own)."""
    from tables.models import Hand, HandSeat

    windows = Hand.objects.filter(
        state=Hand.State.BETTING, betting_deadline__gt=after, betting_deadline__lte=until
    ).values_list("pk", "betting_deadline")
    decisions = HandSeat.objects.filter(
        hand__state=Hand.State.DECISIONS, decision="", decision_deadline__gt=after, decision_deadline__lte=until
    ).values_list("hand_id", "decision_deadline")
    return sorted(set(windows) | set(decisions))


def _expire(hand_id: int) -> None:
    """Enforce the hand's passed deadlines, if it has any. A countdown may fire for a hand
    that has moved on (the last bets or decisions came in its final seconds, or a step sent
    it for a near deadline): one unlocked read of the same predicate answers it, without
    the step's transaction and the table's lock, which a player's step would wait for. A
    hand found due is re-checked under its locks (``hand_expire``). One found not due
    cannot become due before its next deadline, which gets a countdown (and a sweep) of its
    own: no step sets a deadline in the past."""
    from tables.models import Hand
    from tables.services.hands import hand_expire

    if Hand.objects.filter(_due(timezone.now()), pk=hand_id).exists():
        hand_expire(hand_id=hand_id)


DEADLINES = deadlines.register(GAME, due=hands_due, upcoming=hands_upcoming, expire=_expire)

# ``schedule(hand_id, at)``: a step set the hand's deadline ``at`` (its countdown is sent
# after commit if it is near, else by the sweep shortly before it).
schedule = DEADLINES.schedule
