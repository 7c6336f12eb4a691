"""Tamper evidence: verify_ledger finds every edited, inserted or deleted ledger row."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import require_postgres
from wallets import integrity
from wallets.integrity import ledger_seal, ledger_verify, transaction_mac
from wallets.models import LedgerSeal, Leg, Transaction
from wallets.services import cashier_deposit, cashier_withdraw


@pytest.fixture
def ledger(make_player, cashier, monkeypatch):
    """A few movements, all sealed."""
    monkeypatch.setattr(integrity, "SEAL_AFTER", timedelta(0))
    monkeypatch.setattr(integrity, "SEAL_GRACE", timedelta(0))  # a seal newer than a row: the sealer has passed it
    player = make_player(balance=10_000)
    cashier_deposit(cashier=cashier, player=player, amount=2_500, idempotency_key="more")
    cashier_withdraw(cashier=cashier, player=player, amount=1_000, idempotency_key="out")
    ledger_seal()
    return player


def tampered(*statements: str) -> list[str]:
    """What verify finds after this SQL, run with the append-only guards off as an intruder
    with database access would; rolled back afterwards."""
    with transaction.atomic():
        _tamper(statements)
        found = ledger_verify().problems
        transaction.set_rollback(True)
    return found


def _tamper(statements) -> None:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL session_replication_role = replica")  # no triggers, no FK checks
        else:
            cursor.execute("PRAGMA defer_foreign_keys = ON")
            for name in ("wallets_leg_no_update", "wallets_transaction_no_update", "wallets_ledgerseal_no_update"):
                cursor.execute(f"DROP TRIGGER IF EXISTS {name}")
        for statement in statements:
            cursor.execute(statement)
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL session_replication_role = origin")


def test_an_untouched_ledger_verifies_and_every_transaction_is_sealed(ledger, capsys):
    report = ledger_verify()
    assert report.ok and report.sealed == report.transactions == Transaction.objects.count()
    assert [s.prev_hash for s in LedgerSeal.objects.all()[1:]] == [s.hash for s in LedgerSeal.objects.all()][:-1]
    call_command("verify_ledger")
    assert "The ledger verifies" in capsys.readouterr().out


def test_an_edited_leg_amount_is_found(ledger):
    leg = Leg.objects.filter(transaction__kind="withdrawal").first()
    found = tampered(f"UPDATE wallets_leg SET amount = amount + 100 WHERE transaction_id = {leg.transaction_id}")
    assert any(f"#{leg.transaction_id} does not match its MAC" in p for p in found), found


def test_an_edited_memo_is_found(ledger):
    txn = Transaction.objects.get(kind="withdrawal")
    found = tampered(f"UPDATE wallets_transaction SET memo = 'nothing to see' WHERE id = {txn.pk}")
    assert any(f"#{txn.pk} does not match its MAC" in p for p in found)


def test_a_forged_transaction_is_found_even_after_the_sealer_sealed_it(ledger):
    real = Transaction.objects.get(kind="withdrawal")
    legs = list(real.legs.all())
    forged = Transaction.objects.create(
        idempotency_key="forged", fingerprint="-", kind="deposit", memo="free money", mac="0" * 64
    )
    Leg.objects.bulk_create(
        [
            Leg(transaction=forged, account_id=leg.account_id, side="C" if leg.side == "D" else "D", amount=leg.amount)
            for leg in legs
        ]
    )
    assert any(f"#{forged.pk} does not match its MAC" in p for p in ledger_verify().problems)
    ledger_seal()
    assert any(f"#{forged.pk} does not match its MAC" in p for p in ledger_verify().problems)


def test_a_transaction_inserted_without_a_seal_is_found(ledger, monkeypatch):
    ledger_seal()
    txn = Transaction.objects.order_by("-id").first()
    found = tampered(f"DELETE FROM wallets_ledgerseal WHERE transaction_id = {txn.pk}")
    assert any(f"#{txn.pk} was never sealed" in p for p in found)


def test_a_deleted_transaction_is_found(ledger):
    txn = Transaction.objects.get(kind="withdrawal")
    found = tampered(
        f"DELETE FROM wallets_leg WHERE transaction_id = {txn.pk}",
        f"DELETE FROM wallets_transaction WHERE id = {txn.pk}",
    )
    assert any(f"transaction #{txn.pk}, which is gone" in p for p in found)


def test_a_deleted_seal_breaks_the_chain(ledger):
    middle = LedgerSeal.objects.order_by("seq")[1]
    found = tampered(f"DELETE FROM wallets_ledgerseal WHERE seq = {middle.seq}")
    assert any(f"seal {middle.seq} is missing" in p for p in found), found


def test_an_edited_seal_breaks_the_chain(ledger):
    first = LedgerSeal.objects.order_by("seq").first()
    found = tampered(f"UPDATE wallets_ledgerseal SET hash = '{'f' * 64}' WHERE seq = {first.seq}")
    assert any("does not hold the hash of the seal before it" in p for p in found), found


def test_verify_ledger_exits_non_zero_on_tampering(ledger):
    with transaction.atomic():
        _tamper(["UPDATE wallets_leg SET amount = amount + 1 WHERE id = (SELECT MIN(id) FROM wallets_leg)"])
        with pytest.raises(CommandError) as failed:
            call_command("verify_ledger")
        transaction.set_rollback(True)
    assert failed.value.returncode == 1


def test_young_unsealed_transactions_are_pending_not_errors(make_player):
    make_player(balance=1_000)
    report = ledger_verify()
    assert report.ok and report.pending == Transaction.objects.count() and report.sealed == 0


def test_a_transaction_at_a_whole_second_verifies_and_an_edited_time_does_not(ledger):
    """The check hashes each time as the database writes it (UTC, to the microsecond): a
    time with no fraction, which the database keeps without one, verifies like any other;
    moved by a microsecond, it no longer matches its MAC."""
    a, b = (Leg.objects.filter(transaction__kind="withdrawal").order_by("id")[i].account_id for i in (0, 1))
    at = timezone.now().replace(microsecond=0)
    legs = sorted([(a, "D", 1), (b, "C", 1)])
    txn = Transaction.objects.create(
        idempotency_key="whole-second",
        fingerprint="-",
        kind="bankroll",
        created_at=at,
        mac=transaction_mac(
            idempotency_key="whole-second",
            kind="bankroll",
            memo="",
            created_at=at,
            actor_id=None,
            table_ref=None,
            hand_ref=None,
            reverses_id=None,
            legs=legs,
        ),
    )
    Leg.objects.bulk_create(
        [Leg(transaction=txn, account_id=acc, side=side, amount=amount) for acc, side, amount in legs]
    )
    ledger_seal()
    assert ledger_verify().ok
    found = tampered(
        f"UPDATE wallets_transaction SET created_at = created_at + interval '1 microsecond' WHERE id = {txn.pk}"
        if connection.vendor == "postgresql"
        else f"UPDATE wallets_transaction SET created_at = created_at || '.000001' WHERE id = {txn.pk}"
    )
    assert any(f"#{txn.pk} does not match its MAC" in p for p in found), found


def test_a_transaction_deleted_without_its_legs_is_found_by_its_legs(ledger):
    txn = Transaction.objects.get(kind="withdrawal")
    found = tampered(f"DELETE FROM wallets_transaction WHERE id = {txn.pk}")
    assert any(f"a leg of transaction #{txn.pk}, which is gone" in p for p in found), found
    assert any(f"transaction #{txn.pk}, which is gone: a deleted transaction" in p for p in found), found


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    texts=st.lists(st.text(), min_size=4, max_size=4),
    ids=st.lists(st.none() | st.integers(min_value=1, max_value=2**63 - 1), min_size=4, max_size=4),
    legs=st.lists(
        st.tuples(st.integers(min_value=1, max_value=2**63 - 1), st.sampled_from("CD"), st.integers(0, 2**63 - 1)),
        max_size=6,
    ),
)
def test_a_mac_covers_the_same_bytes_as_the_macs_already_written(texts, ids, legs):
    """Every MAC in a ledger was written over the compact ASCII JSON of the transaction:
    the check must rebuild exactly those bytes, whatever a memo or a key holds (quotes,
    backslashes, control characters, any language)."""
    fields = (*texts, *ids)
    written = json.dumps([*fields, sorted(legs)], separators=(",", ":")).encode()
    assert integrity.mac_content(fields, legs) == written


def test_a_ledger_longer_than_a_read_is_checked_whole_and_a_late_edit_is_found(
    ledger, make_player, cashier, monkeypatch
):
    """The rows come in reads of ``VERIFY_CHUNK`` (on PostgreSQL, streamed while the check
    computes): every transaction is read once, and an edit in the last read is found like
    one in the first."""
    monkeypatch.setattr(integrity, "VERIFY_CHUNK", 2)
    for n in range(4):
        cashier_deposit(cashier=cashier, player=ledger, amount=100 + n, idempotency_key=f"late-{n}")
    ledger_seal()
    report = ledger_verify()
    assert report.ok and report.transactions == report.sealed == Transaction.objects.count() > 6
    last = Transaction.objects.order_by("-id").first()
    first = Transaction.objects.order_by("id").first()
    found = tampered(
        f"UPDATE wallets_transaction SET memo = 'edited' WHERE id IN ({first.pk}, {last.pk})",
    )
    assert [p for p in found if "does not match its MAC" in p] == [
        f"transaction #{first.pk} does not match its MAC (edited, or inserted without the key)",
        f"transaction #{last.pk} does not match its MAC (edited, or inserted without the key)",
    ]


def test_a_verification_that_fails_half_way_leaves_the_connection_usable(ledger, make_player, cashier, monkeypatch):
    """A full verification whose progress cannot be written (the cache is down) fails with
    that error, half-way through its rows, and the next check on the same connection runs
    (the rows still coming are dropped, not left in its way)."""
    monkeypatch.setattr(integrity, "VERIFY_CHUNK", 2)
    for n in range(6):
        cashier_deposit(cashier=cashier, player=ledger, amount=100 + n, idempotency_key=f"more-{n}")

    def progress(done: int) -> None:
        if done > 2:  # after the first read of rows, with more to come
            raise ConnectionError("cache down")

    with pytest.raises(ConnectionError, match="cache down"):
        integrity.ledger_check(full=True, progress=progress)
    assert ledger_verify().ok


def test_the_whole_ledgers_stream_on_postgresql_reads_what_the_orm_reads(ledger, make_player, cashier, play_hand):
    """On PostgreSQL the full verification reads the whole ledger through one function
    (``ledger_rows()``, beside its migration); every other check, and SQLite, read the same
    rows with the ORM. Row for row they are the same: the transaction, its seal, its legs as
    the MAC's text, their count and balance, for deposits, a played hand (a jackpot chip
    among its bets), a withdrawal, a key in German and transactions not sealed yet."""
    require_postgres()
    bob = make_player(balance=5_000)
    play_hand([(ledger, 500, True, "raise"), (bob, 500, False, "fold")])
    cashier_deposit(cashier=cashier, player=ledger, amount=700, idempotency_key="Einzahlung – für Jörg")
    from_function = list(integrity._whole_ledger_rows())
    from_orm = list(integrity._ledger_rows(Transaction.objects.all(), Leg.objects.all()))
    assert len(from_function) == Transaction.objects.count() > 5
    assert from_function == from_orm
    assert any(row[10] is None for row in from_orm) and any(row[10] is not None for row in from_orm)
