"""The ledger's self-check on a live ledger.

An untouched ledger never fails its own check: not while tables play and cashiers work
(one snapshot, not queries read at different moments), not for honest rows the sealer
has simply not reached yet (the check's age is not the sealer's). And the check streams:
its memory does not grow with the ledger.
"""

from __future__ import annotations

import threading
import time
import tracemalloc
from datetime import timedelta
from itertools import count

import pytest
from django.db import connection
from django.utils import timezone

from backoffice.reports import integrity_report
from tables.models import Hand
from tables.services.hands import hand_bet, hand_decide
from tables.services.seats import table_sit
from tests.conftest import require_postgres
from wallets import integrity
from wallets.integrity import ledger_seal, ledger_verify, transaction_mac
from wallets.models import Account, Leg, Transaction
from wallets.services import account_get_or_create, cashier_deposit

_keys = count(1)


def _house_accounts() -> tuple[Account, Account]:
    a = account_get_or_create(code="house:test:a", kind=Account.Kind.HOUSE, name="House A")
    b = account_get_or_create(code="house:test:b", kind=Account.Kind.HOUSE, name="House B")
    return a, b


def _post_raw(n: int, *, created_at=None) -> list[int]:
    """``n`` honest bankroll transactions between two house accounts, each with its valid
    MAC, written in bulk (fast); their ids."""
    a, b = _house_accounts()
    created_at = created_at or timezone.now()
    rows, legs = [], []
    for _ in range(n):
        key = f"raw:{next(_keys)}"
        pairs = sorted([(a.pk, "D", 1), (b.pk, "C", 1)])
        mac = transaction_mac(
            idempotency_key=key,
            kind="bankroll",
            memo="",
            created_at=created_at,
            actor_id=None,
            table_ref=None,
            hand_ref=None,
            reverses_id=None,
            legs=pairs,
        )
        rows.append(Transaction(idempotency_key=key, fingerprint="-", kind="bankroll", created_at=created_at, mac=mac))
    Transaction.objects.bulk_create(rows)
    rows = list(Transaction.objects.filter(idempotency_key__in=[r.idempotency_key for r in rows]).order_by("id"))
    for txn in rows:
        legs += [
            Leg(transaction=txn, account_id=a.pk, side="D", amount=1),
            Leg(transaction=txn, account_id=b.pk, side="C", amount=1),
        ]
    Leg.objects.bulk_create(legs)
    return [t.pk for t in rows]


# --- the check's age is not the sealer's ----------------------------------------------------


@pytest.mark.django_db
def test_an_honest_row_the_sealer_has_not_reached_yet_is_pending_not_tampering(make_player, monkeypatch):
    make_player(balance=1_000)
    assert ledger_seal() == 0  # nothing old enough yet
    monkeypatch.setattr(integrity, "SEAL_AFTER", timedelta(0), raising=True)
    assert ledger_seal() > 0  # the sealer has just run (with no age: the deposit's rows) …
    monkeypatch.undo()
    # … and a row 8 s old (past the sealer's 5 s, before its next round) is not sealed yet.
    [young] = _post_raw(1, created_at=timezone.now() - timedelta(seconds=8))
    report = ledger_verify()
    assert report.ok, report.problems
    assert report.pending == 1 and report.sealed == Transaction.objects.count() - 1


@pytest.mark.django_db
def test_a_row_the_sealer_passed_over_long_ago_is_still_reported(make_player, monkeypatch):
    make_player(balance=1_000)
    monkeypatch.setattr(integrity, "SEAL_AFTER", timedelta(0), raising=True)
    assert ledger_seal() > 0  # the sealer runs now …
    monkeypatch.undo()
    # … and finds, next to rows it sealed, one dated five minutes back that it never saw:
    # written behind its back (by someone holding the MAC key, or restored from a backup).
    [forged] = _post_raw(1, created_at=timezone.now() - timedelta(minutes=5))
    found = ledger_verify().problems
    assert any(f"#{forged} was never sealed" in p for p in found), found


@pytest.mark.django_db
def test_one_sealer_run_seals_a_backlog_larger_than_its_batch(monkeypatch):
    """So that no honest row is left behind a run that sealed later ones."""
    _post_raw(25, created_at=timezone.now() - timedelta(minutes=5))
    assert ledger_seal(batch=10, window=7) == 25  # windows of ids smaller and larger than a batch
    _post_raw(30, created_at=timezone.now() - timedelta(minutes=5))
    assert ledger_seal(batch=10, window=25) == 30
    report = ledger_verify()
    assert report.ok and report.sealed == report.transactions == 55 and report.pending == 0


# --- memory -------------------------------------------------------------------------------


def _verify_peak() -> int:
    tracemalloc.start()
    try:
        report = ledger_verify()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.ok, report.problems
    return peak


@pytest.mark.django_db
def test_verify_memory_does_not_grow_with_the_ledger(monkeypatch):
    monkeypatch.setattr(integrity, "VERIFY_CHUNK", 100, raising=True)
    monkeypatch.setattr(integrity, "SEAL_AFTER", timedelta(0), raising=True)
    _post_raw(500)
    ledger_seal()
    small = _verify_peak()
    for _ in range(5):
        _post_raw(1_000)
    ledger_seal()
    assert Transaction.objects.count() == 5_500
    large = _verify_peak()
    # Eleven times the ledger; the peak may not grow by more than noise (every MAC kept
    # would add ~0.15 KB a transaction: 750 KB here).
    assert large < small + 150_000, (small, large)


# --- a live ledger, on PostgreSQL -------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_an_untouched_ledger_never_fails_its_check_while_tables_play(make_player, make_table, cashier, monkeypatch):
    require_postgres()
    # The sealer's age, short, so that its window (due but not sealed yet) comes many times
    # during the test; the check's grace stays what it is.
    monkeypatch.setattr(integrity, "SEAL_AFTER", timedelta(milliseconds=300), raising=True)
    table = make_table("Live")
    alice, bob = make_player(balance=1_000_000), make_player(balance=1_000_000)
    walk_ins = [make_player(balance=0) for _ in range(2)]
    for player in (alice, bob):
        table_sit(user=player, table_id=table.pk)
    stop = threading.Event()
    errors: list[BaseException] = []

    def loop(step):
        def run():
            try:
                while not stop.is_set():
                    step()
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)
            finally:
                connection.close()

        return threading.Thread(target=run, daemon=True)

    def play_a_hand():
        hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=True)
        hand_bet(user=bob, table_id=table.pk, ante=100, jackpot=False)  # every seat has bet: dealt
        live = Hand.objects.get(table=table, state="decisions")
        hand_decide(user=alice, hand_id=live.pk, action="raise")
        hand_decide(user=bob, hand_id=live.pk, action="fold")

    def deposit(player):
        return lambda: cashier_deposit(cashier=cashier, player=player, amount=1, idempotency_key=f"live-{next(_keys)}")

    def seal():
        ledger_seal()
        time.sleep(0.4)

    threads = [loop(play_a_hand), loop(deposit(walk_ins[0])), loop(deposit(walk_ins[1])), loop(seal)]
    before = Transaction.objects.count()
    for thread in threads:
        thread.start()
    reports = []
    try:
        time.sleep(1.0)
        for i in range(10):  # the command's check, and the auditor's integrity page
            if i % 2:
                page = integrity_report()
                assert page.ok, (
                    page.ledger.problems,
                    page.account_mismatches,
                    page.ledger_sum,
                    [p for p in page.pools if not p.ok],
                )
                reports.append(page.ledger)
            else:
                reports.append(ledger_verify())
            time.sleep(0.2)
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)
    assert not errors, errors
    assert Transaction.objects.count() > before + 50  # the ledger really moved during the checks
    # Rows waiting for the sealer were seen (the sealer's short age took effect).
    assert sum(r.pending for r in reports) > 0
    assert [r.problems for r in reports] == [[]] * 10
