"""The reports, the rake, the jackpot page and the player page from daily rollups: the
same figures as the ledger and the hands give directly, whatever is closed; a tampered
rollup is found; the closing runs with the periodic work; and once the days are closed
a report reads the rollups, not the history."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.db.models import Count, F, Sum
from django.urls import reverse
from django.utils import timezone

from backoffice import reports
from backoffice.auditor.selectors import player_totals
from backoffice.models import PlayerDay, ReportDay, TableDay
from backoffice.rollups import report_days_check, report_days_close, rollups_check, rollups_close
from jackpot.selectors import pool_history, pool_reconcile
from tables.models import Hand, HandSeat
from tests.conftest import require_postgres
from tests.plans import rows_read
from wallets.models import Account, AccountDay, LedgerDay, Leg, Transaction

LATER = timedelta(days=2)  # "now" for the closer: today has closed too


def _figures(report: dict) -> list[tuple]:
    return (
        [
            (
                r.day,
                r.table,
                r.paytable,
                r.hands,
                r.seats,
                r.raised,
                r.wagered,
                r.paid,
                r.ggr,
                r.ledger_house,
                r.ledger_ok,
            )
            for r in report["rows"]
        ]
        + [(r.table, r.wagered, r.ggr) for r in report["by_table"]]
        + [(report["total"].wagered, report["total"].ggr)]
    )


def _direct_totals(player) -> dict:
    """The player's totals straight from every hand seat."""
    got = HandSeat.objects.filter(player=player, hand__state=Hand.State.SETTLED).aggregate(
        hands=Count("id"), net=Sum("net"), jackpot_wins=Sum("jackpot_win")
    )
    return {k: v or 0 for k, v in got.items()}


def _history(pool) -> list[tuple]:
    h = pool_history(pool=pool)
    assert h["hits_total"] == len(h["hits"])  # fewer than the 200 listed
    return [
        (
            d.day,
            d.contributions_meter,
            d.contributions_reserve,
            d.prizes,
            d.resets_from_reserve,
            d.fundings,
            d.meter_end,
            d.reserve_end,
            d.hits,
            d.fixed_prizes,
        )
        for d in h["days"]
    ]


def test_the_figures_are_the_same_before_and_after_the_days_close(casino_day, pool):
    alice = casino_day["alice"]
    before = _figures(reports.table_day_report())
    theoretical = reports.table_day_report()["theoretical"]
    history = _history(pool)
    assert before and history and _direct_totals(alice)["hands"] > 0

    assert rollups_close() == 0  # today is open: nothing to roll up
    assert rollups_close(now=timezone.now() + LATER) > 0
    assert (
        ReportDay.objects.filter(day=timezone.localdate()).exists()
        and LedgerDay.objects.filter(day=timezone.localdate()).exists()
    )
    assert TableDay.objects.exists() and PlayerDay.objects.exists() and AccountDay.objects.exists()
    assert rollups_close(now=timezone.now() + LATER) == 0  # once only

    assert _figures(reports.table_day_report()) == before
    assert reports.table_day_report()["theoretical"] == theoretical
    today = timezone.localdate()
    assert _figures(reports.table_day_report(date_from=today - timedelta(days=29), date_to=today)) == before
    assert _figures(reports.table_day_report(date_from=today + timedelta(days=1))) == _figures(
        {
            "rows": [],
            "by_table": [],
            "total": reports.ReportRow(day=None, table_id=None, table="All tables", paytable=""),
        }
    )
    assert _history(pool) == history
    assert pool_reconcile(pool=pool).ok and pool_reconcile(pool=pool, rollups=False).ok
    for player in (alice, casino_day["bob"]):
        assert player_totals(player=player) == _direct_totals(player)
    assert rollups_check() == []


def test_a_day_closed_and_the_open_day_add_up(casino_day):
    """Yesterday's hands from their rollups, today's read live: the same figures."""
    first = casino_day["hands"][0]
    yesterday = first.settled_at - timedelta(days=1)
    Hand.objects.filter(pk=first.pk).update(settled_at=yesterday)
    HandSeat.objects.filter(hand=first).update(history_at=yesterday)
    before = _figures(reports.table_day_report())
    totals = {p: _direct_totals(p) for p in (casino_day["alice"], casino_day["bob"])}
    today = timezone.localdate()
    ReportDay.objects.create(day=today - timedelta(days=2))  # the reports' rollups start the day before
    assert report_days_close() == 1
    assert set(TableDay.objects.values_list("day", flat=True)) == {today - timedelta(days=1)}
    assert _figures(reports.table_day_report()) == before
    assert {r.day for r in reports.table_day_report()["rows"]} == {today, today - timedelta(days=1)}
    for player, expected in totals.items():
        assert player_totals(player=player) == expected
    assert report_days_check() == []


def test_a_tampered_rollup_is_found_by_the_check_and_by_the_pages(casino_day, pool):
    rollups_close(now=timezone.now() + LATER)
    assert rollups_check() == []
    row = TableDay.objects.order_by("id").first()
    TableDay.objects.filter(pk=row.pk).update(antes=F("antes") + 100)
    problems = rollups_check()
    assert len(problems) == 1 and "rolled up" in problems[0] and str(row.day) in problems[0]
    TableDay.objects.filter(pk=row.pk).update(antes=F("antes") - 100)

    PlayerDay.objects.filter(player=casino_day["alice"]).update(net=F("net") + 1)
    assert any("player" in p for p in rollups_check())
    PlayerDay.objects.filter(player=casino_day["alice"]).update(net=F("net") - 1)

    meter = AccountDay.objects.filter(account_id=pool.meter_account_id, kind="jackpot_contribution").first()
    AccountDay.objects.filter(pk=meter.pk).update(total=F("total") + 5)
    assert any(f"account #{pool.meter_account_id}" in p for p in rollups_check())
    assert not pool_reconcile(pool=pool).ok  # the page's reconciliation no longer adds up
    assert pool_reconcile(pool=pool, rollups=False).ok  # the ledger itself is sound


def test_the_check_runs_in_the_background_and_from_the_command_line(casino_day, capsys):
    from django.core.management import CommandError, call_command

    from backoffice.tasks import check_rollups

    rollups_close(now=timezone.now() + LATER)
    assert check_rollups.delay().get() == 0
    call_command("check_rollups")
    assert "agree with the ledger" in capsys.readouterr().out
    TableDay.objects.update(hands=F("hands") + 1)
    assert check_rollups.delay().get() > 0
    with pytest.raises(CommandError):
        call_command("check_rollups")


def test_a_stale_or_tampered_day_is_rebuilt_from_the_ledger_and_a_day_not_closed_is_refused(casino_day, pool, capsys):
    from django.core.management import CommandError, call_command

    rollups_close(now=timezone.now() + LATER)
    before = _figures(reports.table_day_report()), _history(pool), player_totals(player=casino_day["alice"])
    days = sorted(LedgerDay.objects.values_list("day", flat=True))
    day = TableDay.objects.order_by("id").first().day
    TableDay.objects.filter(day=day).update(antes=F("antes") + 100)
    PlayerDay.objects.filter(day=day).delete()  # a row lost
    AccountDay.objects.filter(day=day, account_id=pool.meter_account_id).update(total=F("total") + 5)
    legs = Leg.objects.count()
    assert len(rollups_check()) >= 3

    call_command("check_rollups", "--rebuild", day.isoformat())
    out = capsys.readouterr().out
    assert f"Rebuilt 1 day(s): {day.isoformat()}" in out and "agree with the ledger" in out
    assert rollups_check() == []
    after = _figures(reports.table_day_report()), _history(pool), player_totals(player=casino_day["alice"])
    assert after == before and before[2] == _direct_totals(casino_day["alice"])
    assert Leg.objects.count() == legs  # the ledger is never touched

    not_closed = days[-1] + timedelta(days=30)
    with pytest.raises(CommandError, match="Not closed yet"):
        call_command("check_rollups", "--rebuild", not_closed.isoformat())
    with pytest.raises(CommandError, match="is not a day"):
        call_command("check_rollups", "--rebuild", "yesterday")
    assert rollups_check() == []


def test_the_days_close_with_the_periodic_work(casino_day, settings, monkeypatch):
    from casino.live.periodic import Periodic
    from wallets import rollups

    assert any(e["task"] == "backoffice.tasks.close_days" for e in settings.CELERY_BEAT_SCHEDULE.values())
    monkeypatch.setattr(rollups, "DAY_CLOSE_GRACE", -LATER)  # today is due
    Periodic().run_due()
    assert ReportDay.objects.filter(day=timezone.localdate()).exists()
    assert LedgerDay.objects.filter(day=timezone.localdate()).exists()


def _grow(days: int, per_day: int, *, table, pool, player) -> None:
    """History of ``days`` past days: settled hands (copies of a settled one) and balanced
    ledger transactions on the house's and the pool's accounts, all closed afterwards."""
    hand = Hand.objects.filter(state=Hand.State.SETTLED, table=table).first()
    seat = HandSeat.objects.filter(hand=hand, player=player).first()
    hand_values = {f.attname: getattr(hand, f.attname) for f in Hand._meta.concrete_fields if not f.primary_key}
    seat_values = {
        f.attname: getattr(seat, f.attname)
        for f in HandSeat._meta.concrete_fields
        if f.attname not in ("id", "hand_id")
    }
    nonce = Hand.objects.order_by("-nonce").values_list("nonce", flat=True).first()
    now = timezone.now()
    stamps = [now - timedelta(days=1 + d, minutes=m) for d in range(days) for m in range(per_day)]
    hands = Hand.objects.bulk_create(
        Hand(**{**hand_values, "nonce": nonce + 1 + n, "settled_at": at, "opened_at": at})
        for n, at in enumerate(stamps)
    )
    HandSeat.objects.bulk_create(HandSeat(**{**seat_values, "history_at": h.settled_at}, hand=h) for h in hands)
    with transaction.atomic():  # the ledger's legs balance at COMMIT
        _grow_ledger(stamps, table=table, pool=pool)
    with connection.cursor() as cursor:
        for name in ("tables_hand", "tables_handseat", "wallets_leg", "wallets_transaction"):
            cursor.execute(f"ANALYZE {name}")


def _grow_ledger(stamps, *, table, pool) -> None:
    txns = Transaction.objects.bulk_create(
        Transaction(idempotency_key=f"grow:{n}", fingerprint="x", kind="bankroll", created_at=at)
        for n, at in enumerate(stamps)
    )
    house = table.house_account_id
    legs = []
    for t in txns:
        legs += [
            Leg(transaction=t, account_id=house, side="D", amount=100),
            Leg(transaction=t, account_id=pool.meter_account_id, side="C", amount=100),
        ]
    Leg.objects.bulk_create(legs)


@pytest.mark.django_db(transaction=True)
def test_once_the_days_close_the_pages_read_no_history(casino_day, pool):
    """Thousands of hands and legs on past days: with the days closed, the reports, the
    jackpot page and the player page read the rollups and the open day only."""
    require_postgres()
    alice = casino_day["alice"]
    _grow(10, 300, table=casino_day["tables"][0], pool=pool, player=alice)
    rollups_close(now=timezone.now() + LATER)
    totals = _direct_totals(alice)
    reconciled = pool_reconcile(pool=pool, rollups=False)
    today = timezone.localdate()

    def reads(call) -> dict:
        with transaction.atomic():
            before = {t: rows_read(t) for t in ("tables_handseat", "tables_hand", "wallets_leg")}
            got = call()
            read = {t: rows_read(t) - before[t] for t in before}
        return got, read

    for call in (
        reports.table_day_report,
        lambda: reports.table_day_report(date_from=today - timedelta(days=29), date_to=today),
        lambda: pool_reconcile(pool=pool),
        lambda: pool_history(pool=pool)["days"],
        lambda: player_totals(player=alice),
        reports.poker_rake_report,
    ):
        got, read = reads(call)
        assert all(n < 50 for n in read.values()), read
    assert player_totals(player=alice) == totals
    mine = pool_reconcile(pool=pool)
    assert mine.ok and (mine.meter.inflows, mine.meter.outflows) == (
        reconciled.meter.inflows,
        reconciled.meter.outflows,
    )
    assert (
        sum(r.hands for r in reports.table_day_report()["rows"])
        == Hand.objects.filter(state=Hand.State.SETTLED).count()
    )


def test_the_report_api_and_the_rake_page_read_the_rollups(casino_day, api, browser, auditor):
    rollups_close(now=timezone.now() + LATER)
    body = api(auditor).get(reverse("api-auditor-report")).json()
    nassau = next(r for r in body["rows"] if r["table_name"] == "Nassau")
    assert (nassau["wagered"], nassau["ggr"], nassau["ledger_ok"]) == ("20.50", "-10812.20", True)
    assert browser(auditor).get(reverse("staff-auditor-poker-rake")).status_code == 200
    assert Account.objects.exists()


def test_the_dashboard_counts_from_the_seals_and_the_rollups(casino_day, browser, auditor):
    from backoffice.auditor.selectors import history_sizes
    from wallets import integrity
    from wallets.models import LedgerSeal

    integrity.SEAL_AFTER, was = timedelta(0), integrity.SEAL_AFTER
    try:
        integrity.ledger_seal()
    finally:
        integrity.SEAL_AFTER = was
    settled = Hand.objects.filter(state=Hand.State.SETTLED).count()
    assert history_sizes() == {"sealed": LedgerSeal.objects.count(), "hands": settled}
    rollups_close(now=timezone.now() + LATER)
    assert history_sizes()["hands"] == settled
    page = browser(auditor).get(reverse("staff-auditor")).content.decode()
    assert "Sealed ledger transactions" in page


@pytest.mark.django_db(transaction=True)
def test_the_staff_pages_make_as_many_queries_after_months_of_history(casino_day, pool, browser, auditor):
    """The number of statements each staff page runs does not grow with the days behind it."""
    from django.test.utils import CaptureQueriesContext

    require_postgres()
    alice = casino_day["alice"]
    today = timezone.localdate()
    urls = [
        reverse("staff-auditor-ledger"),
        reverse("staff-auditor-ledger") + "?player=alice",
        reverse("staff-auditor-reports") + f"?date_from={today - timedelta(days=29)}&date_to={today}",
        reverse("staff-auditor-reports") + "?date_from=2000-01-01",
        reverse("staff-auditor-jackpot"),
        reverse("staff-auditor-pool", args=[pool.pk]),
        reverse("staff-auditor-player", args=[alice.pk]),
        reverse("staff-auditor-poker-rake"),
        reverse("staff-auditor-integrity"),
    ]
    client = browser(auditor)

    def counts() -> list[int]:
        found = []
        for url in urls:
            client.get(url)  # warm: sessions, caches
            with CaptureQueriesContext(connection) as queries:
                assert client.get(url).status_code == 200
            found.append(len(queries))
        return found

    rollups_close(now=timezone.now() + LATER)
    short = counts()
    _grow(20, 100, table=casino_day["tables"][0], pool=pool, player=alice)
    from backoffice.models import PlayerDay, RakeDay, ReportDay, TableDay
    from wallets.models import AccountDay, LedgerDay

    for model in (TableDay, RakeDay, PlayerDay, ReportDay, AccountDay, LedgerDay):  # rebuilt with the past days
        model.objects.all().delete()
    rollups_close(now=timezone.now() + LATER)
    longer = counts()
    assert all(n <= m for n, m in zip(longer, short)), (short, longer)


@pytest.mark.django_db(transaction=True)
def test_the_open_periods_first_transaction_is_found_without_reading_the_closed_days():
    """Ids grow with time: thousands of transactions of past days, then today's. Finding
    the first of today's reads today's rows, not the past days' (the pages' open period
    starts there): PostgreSQL's MIN(id) would walk the ids up from the oldest."""
    require_postgres()
    from wallets.rollups import first_transaction_since
    from wallets.services import account_get_or_create

    a = account_get_or_create(code="house:first:a", kind=Account.Kind.HOUSE, name="A")
    b = account_get_or_create(code="house:first:b", kind=Account.Kind.HOUSE, name="B")
    now = timezone.now()
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    stamps = [midnight - timedelta(days=2, seconds=n) for n in range(3000)] + [midnight + (now - midnight) / 2] * 300
    with transaction.atomic():
        txns = Transaction.objects.bulk_create(
            Transaction(idempotency_key=f"first:{n}", fingerprint="x", kind="bankroll", created_at=at)
            for n, at in enumerate(stamps)
        )
        Leg.objects.bulk_create(
            leg
            for t in txns
            for leg in (
                Leg(transaction=t, account=a, side="D", amount=1),
                Leg(transaction=t, account=b, side="C", amount=1),
            )
        )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE wallets_transaction")
    with transaction.atomic():
        before = rows_read("wallets_transaction")
        first = first_transaction_since(midnight)
        read = rows_read("wallets_transaction") - before
    assert first == txns[3000].pk
    assert read <= 300 + 10, read  # today's rows, not the 3,000 before them
