"""Daily rollups of the house's accounts: what each closed day moved on each house, rake
and jackpot account, by kind and side (``AccountDay``), so that the staff's pages read a
row per day instead of every leg of the history.

- ``ledger_days_close`` (periodic: Celery beat, or the periodic loop) rolls up each day
  once it has closed (``DAY_CLOSE_GRACE`` after its midnight, so that a transaction
  stamped before midnight has committed); it writes nothing on the hot path and moves no
  money. A day is closed at most once (``LedgerDay``).
- ``account_flows`` and ``account_flows_by_day``: the closed days from the rollups, the
  open days (since the last closed one) from the ledger, read by the legs' (account,
  transaction) index from the open period's first transaction on.
- ``ledger_days_check``: every rolled-up row against the ledger recomputed; a tampered or
  stale rollup is named, and ``ledger_day_rebuild`` writes its day again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import date, datetime, timedelta

from django.db import transaction
from django.db.models import Count, F, Max, Min, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone

from wallets.models import ROLLED_UP_KINDS, AccountDay, LedgerDay, Leg, Transaction
from wallets.selectors import day_start

# A day is rolled up this long after its end: a transaction's time is taken when it
# starts, so one stamped just before midnight may commit a little after it.
DAY_CLOSE_GRACE = timedelta(minutes=5)


def as_date(value) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, str):
        return date.fromisoformat(value)
    return value


def closed_through() -> date | None:
    """The last day rolled up (every day before it is too), or None."""
    return LedgerDay.objects.aggregate(last=Max("day"))["last"]


def open_since(last_closed: date | None) -> datetime | None:
    """When the open period starts (the midnight after the last closed day); None: no day
    is closed, everything is open."""
    return None if last_closed is None else day_start(last_closed + timedelta(days=1))


def first_transaction_since(moment: datetime) -> int:
    """The lowest id among the transactions stamped at or after ``moment`` (read on the
    time index, over the open period only); every such transaction has an id at least
    this. One more than the highest id if there is none."""
    # MIN of ``id + 0``, not of ``id``: PostgreSQL answers MIN(id) by walking the primary
    # key up from the oldest transaction until one is recent enough (every row of the
    # closed days, as ids grow with time); the expression leaves it the time index's range.
    found = Transaction.objects.filter(created_at__gte=moment).aggregate(first=Min(F("id") + 0))["first"]
    if found is not None:
        return found
    return (Transaction.objects.aggregate(last=Max("id"))["last"] or 0) + 1


def days_due(*, last: date | None, now: datetime | None = None) -> list[date]:
    """The days to roll up now: from the day after ``last`` (the last closed one; None:
    the ledger's first day) to the last day that ended ``DAY_CLOSE_GRACE`` ago."""
    now = now or timezone.now()
    last_due = timezone.localtime(now - DAY_CLOSE_GRACE).date() - timedelta(days=1)
    if last is not None:
        first = last + timedelta(days=1)
    else:
        oldest = Transaction.objects.aggregate(first=Min("created_at"))["first"]
        if oldest is None:
            return []
        first = timezone.localtime(oldest).date()
    return [first + timedelta(days=n) for n in range((last_due - first).days + 1)]


def _day_legs(day: date):
    return Leg.objects.filter(
        account__kind__in=ROLLED_UP_KINDS,
        transaction__created_at__gte=day_start(day),
        transaction__created_at__lt=day_start(day + timedelta(days=1)),
    )


def account_day_rows(*, day: date) -> list[AccountDay]:
    """A day's rollup, computed from its legs (the day's transactions only)."""
    rows = (
        _day_legs(day)
        .values_list("account_id", "transaction__kind", "side")
        .annotate(total=Sum("amount"), n=Count("id"))
        .order_by()
    )
    return [AccountDay(day=day, account_id=a, kind=k, side=s, total=t, legs=n) for a, k, s, t, n in rows]


def ledger_days_close(*, now: datetime | None = None) -> int:
    """Roll up every day that has closed and is not rolled up yet; returns how many.

    Each day in a transaction of its own, with its ``LedgerDay`` mark: run twice at once,
    the second writer of a day fails on the mark's key and the day stays rolled up once."""
    closed = 0
    for day in days_due(last=closed_through(), now=now):
        with transaction.atomic():
            if LedgerDay.objects.filter(day=day).exists():
                continue
            AccountDay.objects.bulk_create(account_day_rows(day=day))
            LedgerDay.objects.create(day=day)
        closed += 1
    return closed


def ledger_day_rebuild(*, day: date) -> bool:
    """Write a closed day's rollup again from its legs (after ``ledger_days_check`` named a
    stale row); False if the day is not closed (the periodic work closes it). For the
    caller's transaction: its mark is locked, so a check or a second rebuild waits."""
    if not LedgerDay.objects.select_for_update().filter(day=day).exists():
        return False
    AccountDay.objects.filter(day=day).delete()
    AccountDay.objects.bulk_create(account_day_rows(day=day))
    return True


def _open_legs(account_ids: Iterable[int], since: datetime | None):
    legs = Leg.objects.filter(account_id__in=list(account_ids))
    if since is not None:
        legs = legs.filter(transaction_id__gte=first_transaction_since(since), transaction__created_at__gte=since)
    return legs


def account_flows(*, account_ids: Iterable[int]) -> dict[tuple[int, str, str], int]:
    """What flowed on each account by (account, transaction kind, side), over the whole
    history: the closed days' rollups plus the open period's legs."""
    account_ids = list(account_ids)
    last = closed_through()
    flows: dict[tuple[int, str, str], int] = defaultdict(int)
    if last is not None:
        rolled = AccountDay.objects.filter(account_id__in=account_ids, day__lte=last)
        for account_id, kind, side, total in (
            rolled.values_list("account_id", "kind", "side").annotate(t=Sum("total")).order_by()
        ):
            flows[(account_id, kind, side)] += total
    live = (
        _open_legs(account_ids, open_since(last))
        .values_list("account_id", "transaction__kind", "side")
        .annotate(t=Sum("amount"))
        .order_by()
    )
    for account_id, kind, side, total in live:
        flows[(account_id, kind, side)] += total
    return dict(flows)


def account_flows_by_day(
    *, account_ids: Iterable[int], date_from: date | None = None, date_to: date | None = None
) -> dict[tuple[date, int, str, str], int]:
    """``account_flows`` by day (the day of the transaction, site time zone), optionally
    within a range of days: closed days from the rollups, open days from the legs."""
    account_ids = list(account_ids)
    last = closed_through()
    flows: dict[tuple[date, int, str, str], int] = defaultdict(int)
    if last is not None and (date_from is None or date_from <= last):
        rolled = AccountDay.objects.filter(account_id__in=account_ids, day__lte=last)
        if date_from:
            rolled = rolled.filter(day__gte=date_from)
        if date_to:
            rolled = rolled.filter(day__lte=date_to)
        for day, account_id, kind, side, total in rolled.values_list("day", "account_id", "kind", "side", "total"):
            flows[(day, account_id, kind, side)] += total
    since = open_since(last)
    if date_from is not None and (since is None or day_start(date_from) > since):
        since = day_start(date_from)
    if date_to is None or since is None or day_start(date_to + timedelta(days=1)) > since:
        live = _open_legs(account_ids, since)
        if date_to is not None:
            live = live.filter(transaction__created_at__lt=day_start(date_to + timedelta(days=1)))
        rows = (
            live.annotate(day=TruncDate("transaction__created_at"))
            .values_list("day", "account_id", "transaction__kind", "side")
            .annotate(t=Sum("amount"))
            .order_by()
        )
        for day, account_id, kind, side, total in rows:
            flows[(as_date(day), account_id, kind, side)] += total
    return dict(flows)


def ledger_days_check(*, days: Iterable[date] | None = None, max_problems: int = 100) -> list[str]:
    """Every rolled-up day (or ``days``) recomputed from the ledger and compared with its
    rows; the problems found, each naming the day, account, kind and side."""
    problems: list[str] = []
    if days is None:
        days = LedgerDay.objects.order_by("day").values_list("day", flat=True).iterator()
    for day in days:
        stored = {(r.account_id, r.kind, r.side): (r.total, r.legs) for r in AccountDay.objects.filter(day=day)}
        fresh = {(r.account_id, r.kind, r.side): (r.total, r.legs) for r in account_day_rows(day=day)}
        for key in sorted(set(stored) | set(fresh), key=str):
            if stored.get(key) != fresh.get(key):
                account_id, kind, side = key
                problems.append(
                    f"{day}: account #{account_id} {kind} {side}: rolled up {stored.get(key)}, the ledger gives "
                    f"{fresh.get(key)} (total, legs)"
                )
                if len(problems) >= max_problems:
                    return problems
    return problems
