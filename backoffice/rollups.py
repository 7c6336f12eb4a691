"""The reports' daily rollups: each closed day's rows of the table report (``TableDay``)
and of the poker rake report (``RakeDay``; the rake accounts' own flows are the ledger's
rollups, ``wallets.rollups``), written once the day has closed, by the periodic work
(Celery beat's ``close-days``, or the periodic loop of ``make run``), never by a hand's
step.

``rollups_close`` closes the ledger's days and the reports' days; ``rollups_check``
recomputes every closed day from the hands and the ledger and names each row that
differs (a tampered rollup, or one written before a late row), and runs in the
background (``backoffice.tasks.check_rollups``, ``manage.py check_rollups``);
``rollups_rebuild`` writes the days it named again (``manage.py check_rollups --rebuild``).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, timedelta

from django.db import transaction
from django.db.models import Count, Sum

from backoffice.models import PlayerDay, RakeDay, ReportDay, TableDay
from backoffice.reports import hand_report_rows, report_closed_through, settled_hands
from poker.models import PokerHand
from tables.models import HandSeat
from wallets.rollups import days_due, ledger_day_rebuild, ledger_days_check, ledger_days_close
from wallets.selectors import day_start

TABLE_DAY_FIELDS = (
    "paytable_data",
    "hands",
    "seats",
    "raised",
    "antes",
    "raises",
    "jackpot_bets",
    "ante_returns",
    "raise_returns",
    "jackpot_wins",
    "ledger_house",
)
RAKE_DAY_FIELDS = ("hands", "pots", "record_rake")
PLAYER_DAY_FIELDS = ("hands", "net", "jackpot_wins")


def _bounds(day: date) -> tuple[datetime, datetime]:
    return day_start(day), day_start(day + timedelta(days=1))


def table_day_rows(*, day: date) -> list[TableDay]:
    since, until = _bounds(day)
    return hand_report_rows(hands=settled_hands(since=since, until=until))


def rake_day_rows(*, day: date) -> list[RakeDay]:
    since, until = _bounds(day)
    ended = PokerHand.objects.filter(state=PokerHand.State.ENDED, ended_at__gte=since, ended_at__lt=until)
    rows = ended.values("table_id").annotate(n=Count("id"), pots=Sum("pot_total"), rake=Sum("rake")).order_by()
    return [
        RakeDay(day=day, table_id=r["table_id"], hands=r["n"], pots=r["pots"] or 0, record_rake=r["rake"] or 0)
        for r in rows
    ]


def player_day_rows(*, day: date) -> list[PlayerDay]:
    since, until = _bounds(day)
    seats = HandSeat.objects.filter(hand__in=settled_hands(since=since, until=until))
    rows = seats.values("player_id").annotate(hands=Count("id"), net=Sum("net"), wins=Sum("jackpot_win")).order_by()
    return [
        PlayerDay(day=day, player_id=r["player_id"], hands=r["hands"], net=r["net"] or 0, jackpot_wins=r["wins"] or 0)
        for r in rows
    ]


def report_days_close(*, now: datetime | None = None) -> int:
    """Roll up every closed day whose report rows are not rolled up yet; returns how many.
    Each day in a transaction of its own with its ``ReportDay`` mark."""
    closed = 0
    for day in days_due(last=report_closed_through(), now=now):
        with transaction.atomic():
            if ReportDay.objects.filter(day=day).exists():
                continue
            TableDay.objects.bulk_create(table_day_rows(day=day))
            RakeDay.objects.bulk_create(rake_day_rows(day=day))
            PlayerDay.objects.bulk_create(player_day_rows(day=day))
            ReportDay.objects.create(day=day)
        closed += 1
    return closed


def rollups_rebuild(*, days: Iterable[date]) -> list[date]:
    """Write the rollups of closed ``days`` again from the ledger and the hands (after
    ``rollups_check`` named a tampered or stale row: they are derived data; the ledger is
    never touched). Each day in one transaction; returns the days that were closed and so
    rebuilt (a day not closed yet is left to the periodic work)."""
    rebuilt = []
    for day in sorted(set(days)):
        with transaction.atomic():
            ledger = ledger_day_rebuild(day=day)
            report = ReportDay.objects.select_for_update().filter(day=day).exists()
            if report:
                for model, rows in ((TableDay, table_day_rows), (RakeDay, rake_day_rows), (PlayerDay, player_day_rows)):
                    model.objects.filter(day=day).delete()
                    model.objects.bulk_create(rows(day=day))
        if ledger or report:
            rebuilt.append(day)
    return rebuilt


def rollups_close(*, now: datetime | None = None) -> int:
    """Close every day that is due, in the ledger's rollups and the reports'; how many
    days were closed (either)."""
    return max(ledger_days_close(now=now), report_days_close(now=now))


def _compare(day: date, what: str, stored: dict, fresh: dict, fields: tuple[str, ...], problems: list[str]) -> None:
    for key in sorted(set(stored) | set(fresh), key=str):
        was, now = stored.get(key), fresh.get(key)
        values = lambda row: None if row is None else tuple(getattr(row, f) for f in fields)  # noqa: E731
        if values(was) != values(now):
            problems.append(
                f"{day}: {what} {key}: rolled up {values(was)}, the hands and the ledger give {values(now)}"
            )


def report_days_check(*, days: Iterable[date] | None = None, max_problems: int = 100) -> list[str]:
    """Every closed day's report rollups against the hands and the ledger recomputed."""
    problems: list[str] = []
    if days is None:
        days = ReportDay.objects.order_by("day").values_list("day", flat=True).iterator()
    for day in days:
        _compare(
            day,
            "table, pay table",
            {(r.table_id, r.paytable_name): r for r in TableDay.objects.filter(day=day)},
            {(r.table_id, r.paytable_name): r for r in table_day_rows(day=day)},
            TABLE_DAY_FIELDS,
            problems,
        )
        _compare(
            day,
            "poker table",
            {r.table_id: r for r in RakeDay.objects.filter(day=day)},
            {r.table_id: r for r in rake_day_rows(day=day)},
            RAKE_DAY_FIELDS,
            problems,
        )
        _compare(
            day,
            "player",
            {r.player_id: r for r in PlayerDay.objects.filter(day=day)},
            {r.player_id: r for r in player_day_rows(day=day)},
            PLAYER_DAY_FIELDS,
            problems,
        )
        if len(problems) >= max_problems:
            break
    return problems[:max_problems]


def rollups_check(*, max_problems: int = 100) -> list[str]:
    """Every rollup of every closed day (the ledger's and the reports') against what it
    sums; an empty list when all agree."""
    problems = ledger_days_check(max_problems=max_problems)
    return problems + report_days_check(max_problems=max_problems - len(problems))
