"""Verification from checkpoints: a routine check reads what was written since the latest
checkpoint and finds tampering there; the full verification, in the background with its
progress, finds what was tampered with before it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.urls import reverse
from django.utils import timezone

from tests.conftest import require_postgres
from tests.plans import rows_read
from wallets import integrity
from wallets.integrity import ledger_check, ledger_checkpoint, ledger_seal, ledger_verification_request, transaction_mac
from wallets.models import Account, LedgerCheckpoint, LedgerVerification, Leg, Transaction
from wallets.services import cashier_deposit, cashier_withdraw, house_bankroll


@pytest.fixture
def ledger(make_player, cashier, monkeypatch):
    """A few movements, sealed, and a checkpoint after them."""
    monkeypatch.setattr(integrity, "SEAL_AFTER", timedelta(0))
    monkeypatch.setattr(integrity, "SEAL_GRACE", timedelta(0))
    player = make_player(balance=10_000)
    cashier_deposit(cashier=cashier, player=player, amount=2_500, idempotency_key="more")
    ledger_seal()
    assert ledger_checkpoint().ok and LedgerCheckpoint.objects.count() == 1
    return {"player": player, "cashier": cashier, "before": list(Transaction.objects.values_list("id", flat=True))}


def _more(ledger) -> list[int]:
    """Transactions after the checkpoint, sealed."""
    cashier_withdraw(cashier=ledger["cashier"], player=ledger["player"], amount=1_000, idempotency_key="out")
    cashier_deposit(cashier=ledger["cashier"], player=ledger["player"], amount=300, idempotency_key="again")
    ledger_seal()
    return list(Transaction.objects.exclude(id__in=ledger["before"]).values_list("id", flat=True))


def _tamper(*statements: str) -> None:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL session_replication_role = replica")
        else:
            cursor.execute("PRAGMA defer_foreign_keys = ON")
            for name in (
                "wallets_leg_no_update",
                "wallets_transaction_no_update",
                "wallets_ledgerseal_no_update",
                "wallets_account_no_update",
            ):
                cursor.execute(f"DROP TRIGGER IF EXISTS {name}")
        for statement in statements:
            cursor.execute(statement)
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL session_replication_role = origin")


def test_a_routine_check_reads_only_what_follows_the_checkpoint(ledger):
    new = _more(ledger)
    check = ledger_check()
    assert check.ok and check.since is not None
    assert check.ledger.transactions == len(new) == check.ledger.sealed
    assert check.accounts == Account.objects.count() and check.ledger_sum == 0
    full = ledger_check(full=True)
    assert full.ok and full.since is None and full.ledger.transactions == Transaction.objects.count()
    assert ledger_checkpoint().ok
    assert ledger_check().ledger.transactions == 0  # the checkpoint moved on


def test_a_tampered_leg_after_the_checkpoint_is_found_by_the_routine_check(ledger):
    new = _more(ledger)
    with transaction.atomic():
        _tamper(
            "UPDATE wallets_leg SET amount = amount + 1 WHERE id = (SELECT MIN(id) FROM wallets_leg WHERE "
            f"transaction_id = {new[0]})"
        )
        check = ledger_check(save=True)
        saved = LedgerCheckpoint.objects.count()
        transaction.set_rollback(True)
    assert not check.ok
    assert any(f"transaction #{new[0]} does not match its MAC" in p for p in check.ledger.problems), (
        check.ledger.problems
    )
    assert saved == 1  # a failing check moves the checkpoint nowhere


def test_a_tampered_leg_before_the_checkpoint_is_the_full_verifications_to_find(ledger, auditor):
    first = ledger["before"][0]
    _more(ledger)
    with transaction.atomic():
        _tamper(
            "UPDATE wallets_leg SET amount = amount + 1 WHERE id = (SELECT MIN(id) FROM wallets_leg WHERE "
            f"transaction_id = {first})"
        )
        routine = ledger_check()
        job = ledger_verification_request(user=auditor)  # Celery runs it (eagerly in the tests) once committed
        integrity.ledger_verification_run(verification_id=job.pk)
        job.refresh_from_db()
        transaction.set_rollback(True)
    assert routine.ok  # it does not read again what the checkpoint covers
    assert job.status == LedgerVerification.Status.DONE and job.ok is False
    assert any(f"transaction #{first} does not match its MAC" in p for p in job.problems), job.problems
    assert job.done == job.total == Transaction.objects.count()


def test_an_edited_balance_is_found_by_the_routine_check(ledger):
    wallet = Account.objects.get(owner=ledger["player"], kind=Account.Kind.PLAYER_WALLET)
    with transaction.atomic():
        _tamper(f"UPDATE wallets_account SET balance = balance + 100 WHERE id = {wallet.pk}")
        check = ledger_check()
        transaction.set_rollback(True)
    assert [m["account"] for m in check.account_mismatches] == [wallet.code]


def test_the_command_checks_from_the_checkpoint_or_everything(ledger, capsys):
    _more(ledger)
    call_command("verify_ledger")
    out = capsys.readouterr().out
    assert "since the checkpoint at seal" in out and "The ledger verifies" in out
    call_command("verify_ledger", "--full")
    assert "the whole ledger" in capsys.readouterr().out
    first = ledger["before"][0]
    with transaction.atomic():
        _tamper(
            "UPDATE wallets_leg SET amount = amount + 1 WHERE id = (SELECT MIN(id) FROM wallets_leg WHERE "
            f"transaction_id = {first})"
        )
        call_command("verify_ledger", "--no-checkpoint")  # before the checkpoint: not read
        with pytest.raises(CommandError) as failed:
            call_command("verify_ledger", "--full")
        transaction.set_rollback(True)
    assert failed.value.returncode == 1


def test_the_full_verification_from_the_api_and_the_page(
    ledger, api, browser, auditor, monkeypatch, django_capture_on_commit_callbacks
):
    from casino.celery import app

    monkeypatch.setitem(app.conf, "task_always_eager", True)
    client = api(auditor)
    with django_capture_on_commit_callbacks(execute=True):
        started = client.post(reverse("api-auditor-verifications"), HTTP_IDEMPOTENCY_KEY="verify-1")
    assert started.status_code == 202
    job = client.get(started["Location"]).json()
    assert job["status"] == "done" and job["ok"] is True and job["done"] == job["total"] == Transaction.objects.count()
    body = client.get(reverse("api-auditor-integrity")).json()
    assert body["ok"] and body["verification"]["id"] == job["id"] and body["checkpoint"]["full"] is True
    assert (
        client.get(reverse("api-auditor-verification", args=[job["id"] + 1000])).json()["code"]
        == "verification_not_found"
    )
    page = browser(auditor)
    with django_capture_on_commit_callbacks(execute=True):
        assert page.post(reverse("staff-auditor-integrity-verify")).status_code == 302
    text = page.get(reverse("staff-auditor-integrity")).content.decode()
    assert "From the checkpoint at seal" in text and "The whole ledger verifies" in text


def test_the_checkpoint_moves_on_with_the_periodic_work(ledger, settings, monkeypatch):
    from casino import intervals
    from casino.live.periodic import Periodic

    assert any(e["task"] == "wallets.tasks.checkpoint_ledger" for e in settings.CELERY_BEAT_SCHEDULE.values())
    _more(ledger)
    monkeypatch.setattr(intervals, "CHECKPOINT_EVERY", 0.0)
    Periodic().run_due()
    assert LedgerCheckpoint.objects.count() == 2 and ledger_check().ledger.transactions == 0


def _grow_sealed(count: int) -> None:
    """``count`` balanced house transactions with their MACs, sealed."""
    house = house_bankroll()
    other = Account.objects.create(code="grow:other", kind=Account.Kind.HOUSE, name="Other")
    at = timezone.now() - timedelta(minutes=5)
    with transaction.atomic():
        txns = Transaction.objects.bulk_create(
            Transaction(
                idempotency_key=f"grow:{n}",
                fingerprint="x",
                kind="bankroll",
                created_at=at,
                mac=transaction_mac(
                    idempotency_key=f"grow:{n}",
                    kind="bankroll",
                    memo="",
                    created_at=at,
                    actor_id=None,
                    table_ref=None,
                    hand_ref=None,
                    reverses_id=None,
                    legs=[(house.pk, "D", 10), (other.pk, "C", 10)],
                ),
            )
            for n in range(count)
        )
        Leg.objects.bulk_create(
            leg
            for t in txns
            for leg in (
                Leg(transaction=t, account=house, side="D", amount=10),
                Leg(transaction=t, account=other, side="C", amount=10),
            )
        )
    ledger_seal()
    with connection.cursor() as cursor:
        for name in ("wallets_leg", "wallets_transaction", "wallets_ledgerseal"):
            cursor.execute(f"ANALYZE {name}")


@pytest.mark.django_db(transaction=True)
def test_a_routine_check_reads_no_history(make_player, cashier, monkeypatch):
    require_postgres()
    monkeypatch.setattr(integrity, "SEAL_AFTER", timedelta(0))
    monkeypatch.setattr(integrity, "SEAL_GRACE", timedelta(0))
    _grow_sealed(3000)
    assert ledger_checkpoint().ok
    player = make_player(balance=1_000)
    cashier_deposit(cashier=cashier, player=player, amount=200, idempotency_key="new")
    ledger_seal()
    with transaction.atomic():
        before = {t: rows_read(t) for t in ("wallets_leg", "wallets_transaction", "wallets_ledgerseal")}
        check = ledger_check()
        read = {t: rows_read(t) - n for t, n in before.items()}
    assert check.ok and 0 < check.ledger.transactions < 10
    assert all(n < 100 for n in read.values()), read


@pytest.mark.django_db(transaction=True)
def test_the_sealer_reads_from_the_checkpoint_not_the_whole_ledger(make_player, cashier, monkeypatch):
    """The sealer runs every few seconds: it looks for unsealed rows above the checkpoint's
    floor (all sealed below it), not across every sealed transaction of the ledger."""
    require_postgres()
    monkeypatch.setattr(integrity, "SEAL_AFTER", timedelta(0))
    monkeypatch.setattr(integrity, "SEAL_GRACE", timedelta(0))
    _grow_sealed(3000)
    assert ledger_checkpoint().ok
    player = make_player(balance=1_000)
    cashier_deposit(cashier=cashier, player=player, amount=200, idempotency_key="new")
    with transaction.atomic():
        before = {t: rows_read(t) for t in ("wallets_transaction", "wallets_ledgerseal")}
        sealed = ledger_seal()
        read = {t: rows_read(t) - n for t, n in before.items()}
    assert sealed >= 2 and not Transaction.objects.filter(seal__isnull=True).exists()
    assert all(n < 100 for n in read.values()), read
    assert ledger_check().ok


def test_the_first_checkpoint_is_not_called_a_full_verification_none_of_which_ran(ledger, auditor, browser):
    """The first routine check reads from the first transaction; the page says so, and does
    not credit a full verification while it says none has run."""
    text = browser(auditor).get(reverse("staff-auditor-integrity")).content.decode()
    count = LedgerCheckpoint.objects.get().transactions
    assert f"{count} transactions verified up to it, every one from the first" in text
    assert "full verification)" not in text and "None has run yet." in text
    german = browser(auditor).get(reverse("staff-auditor-integrity"), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert f"{count} Buchungen bis dahin geprüft, jede von der ersten an" in german
