"""The double-entry ledger: balanced, append-only, idempotent, never overdrawn."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction

from casino.http.errors import Conflict, InsufficientFunds
from jackpot.selectors import ledger_total
from tests.conftest import require_postgres
from wallets.models import Account, Leg, Transaction
from wallets.selectors import account_balance_from_legs, wallet_balances, wallet_statement
from wallets.services import (
    cashier_deposit,
    cashier_withdraw,
    house_bankroll,
    ledger_post,
    player_accounts_ensure,
    transaction_reverse,
)


def test_deposit_credits_the_wallet_and_debits_the_cash_drawer(make_player, cashier):
    player = make_player(balance=0)
    txn = cashier_deposit(cashier=cashier, player=player, amount=12_345, idempotency_key="d1")
    assert wallet_balances(user=player).available == 12_345
    cash = Account.objects.get(code=f"cash:{cashier.pk}")
    assert cash.balance == -12_345  # an asset: the drawer holds €123.45
    assert sorted(leg.signed_amount for leg in txn.legs.all()) == [-12_345, 12_345]
    assert ledger_total() == 0


def test_withdrawal_of_at_most_the_available_balance(make_player, cashier):
    player = make_player(balance=10_000)
    with pytest.raises(InsufficientFunds) as refused:
        cashier_withdraw(cashier=cashier, player=player, amount=10_001, idempotency_key="w1")
    assert refused.value.code == "insufficient_funds"
    assert wallet_balances(user=player).available == 10_000
    assert not Transaction.objects.filter(kind=Transaction.Kind.WITHDRAWAL).exists()
    cashier_withdraw(cashier=cashier, player=player, amount=10_000, idempotency_key="w2")
    assert wallet_balances(user=player).available == 0


def test_a_retried_deposit_moves_money_once(make_player, cashier):
    player = make_player(balance=0)
    first = cashier_deposit(cashier=cashier, player=player, amount=5_000, idempotency_key="same")
    again = cashier_deposit(cashier=cashier, player=player, amount=5_000, idempotency_key="same")
    assert again.pk == first.pk and again.replayed
    assert wallet_balances(user=player).available == 5_000


def test_a_key_reused_for_a_different_amount_is_refused(make_player, cashier):
    player = make_player(balance=0)
    cashier_deposit(cashier=cashier, player=player, amount=5_000, idempotency_key="k")
    with pytest.raises(Conflict) as refused:
        cashier_deposit(cashier=cashier, player=player, amount=6_000, idempotency_key="k")
    assert refused.value.code == "idempotency_key_reused"
    assert wallet_balances(user=player).available == 5_000


def test_a_reversal_undoes_a_mistaken_deposit_and_keeps_the_original(make_player, cashier):
    player = make_player(balance=0)
    mistake = cashier_deposit(cashier=cashier, player=player, amount=9_900, idempotency_key="oops")
    reversal = transaction_reverse(original=mistake, actor=cashier, idempotency_key="undo-oops", reason="typo")
    assert reversal.reverses_id == mistake.pk
    assert wallet_balances(user=player).available == 0
    assert Transaction.objects.filter(pk=mistake.pk).exists()
    with pytest.raises(Conflict) as twice:
        transaction_reverse(original=mistake, actor=cashier, idempotency_key="undo-again", reason="typo")
    assert twice.value.code == "already_reversed"
    with pytest.raises(Conflict) as of_reversal:
        transaction_reverse(original=reversal, actor=cashier, idempotency_key="undo-undo", reason="typo")
    assert of_reversal.value.code == "reversal_of_reversal"


def test_a_reversal_cannot_take_money_the_player_already_spent(make_player, cashier):
    player = make_player(balance=0)
    deposit = cashier_deposit(cashier=cashier, player=player, amount=1_000, idempotency_key="dep")
    cashier_withdraw(cashier=cashier, player=player, amount=600, idempotency_key="wd")
    with pytest.raises(InsufficientFunds):
        transaction_reverse(original=deposit, actor=cashier, idempotency_key="rev", reason="late")
    assert wallet_balances(user=player).available == 400


def test_statement_lists_every_movement_newest_first(make_player, cashier):
    player = make_player(balance=0)
    cashier_deposit(cashier=cashier, player=player, amount=1_000, idempotency_key="a")
    cashier_withdraw(cashier=cashier, player=player, amount=300, idempotency_key="b")
    assert [leg.signed_amount for leg in wallet_statement(user=player)] == [-300, 1_000]


def test_unbalanced_or_single_leg_posting_is_refused_before_it_reaches_the_database(make_player):
    player = make_player(balance=0)
    wallet, in_play = player_accounts_ensure(user=player)
    with transaction.atomic():
        with pytest.raises(ValueError):
            ledger_post(kind="bet", idempotency_key="x", postings=[(wallet, -5), (in_play, 4)])
        with pytest.raises(ValueError):
            ledger_post(kind="bet", idempotency_key="y", postings=[(wallet, 0), (in_play, 0)])
        with pytest.raises(TypeError):
            ledger_post(kind="bet", idempotency_key="z", postings=[(wallet, -1.5), (in_play, 1.5)])
    assert not Transaction.objects.filter(idempotency_key__in=["x", "y", "z"]).exists()


def test_balances_always_equal_the_sum_of_their_legs(make_player, cashier):
    players = [make_player(balance=0) for _ in range(3)]
    for i, player in enumerate(players):
        cashier_deposit(cashier=cashier, player=player, amount=1_000 * (i + 1), idempotency_key=f"p{i}")
    cashier_withdraw(cashier=cashier, player=players[2], amount=2_500, idempotency_key="w")
    for account in Account.objects.all():
        assert account.balance == account_balance_from_legs(account=account), account.code


# --- what the database itself enforces --------------------------------------------------


def test_database_refuses_to_update_a_leg(make_player):
    make_player(balance=1_000)
    with pytest.raises(DatabaseError), transaction.atomic():
        Leg.objects.update(amount=1)


def test_database_refuses_to_update_a_transaction(make_player):
    make_player(balance=1_000)
    with pytest.raises(DatabaseError), transaction.atomic():
        Transaction.objects.update(memo="edited")


def test_database_refuses_a_negative_player_balance(make_player):
    player = make_player(balance=100)
    wallet, _ = player_accounts_ensure(user=player)
    with pytest.raises(IntegrityError), transaction.atomic():
        txn = Transaction.objects.create(idempotency_key="raw", fingerprint="-", kind="bet")
        Leg.objects.bulk_create(
            [
                Leg(transaction=txn, account=wallet, side="D", amount=101),
                Leg(transaction=txn, account=house_bankroll(), side="C", amount=101),
            ]
        )


def test_database_refuses_a_zero_or_negative_leg(make_player):
    player = make_player(balance=100)
    wallet, _ = player_accounts_ensure(user=player)
    for amount in (0, -5):
        with pytest.raises(IntegrityError), transaction.atomic():
            txn = Transaction.objects.create(idempotency_key=f"raw{amount}", fingerprint="-", kind="bet")
            Leg.objects.create(transaction=txn, account=wallet, side="C", amount=amount)


@pytest.mark.django_db(transaction=True)
def test_postgres_refuses_at_commit_a_transaction_whose_legs_do_not_balance(groups, make_player):
    require_postgres()
    player = make_player(balance=100)
    wallet, _ = player_accounts_ensure(user=player)
    before = wallet_balances(user=player).available
    with pytest.raises(IntegrityError, match="does not balance"):
        with transaction.atomic():
            txn = Transaction.objects.create(idempotency_key="unbalanced", fingerprint="-", kind="bet")
            Leg.objects.create(transaction=txn, account=wallet, side="C", amount=50)
    assert wallet_balances(user=player).available == before
    assert not Transaction.objects.filter(idempotency_key="unbalanced").exists()


@pytest.mark.django_db(transaction=True)
def test_postgres_refuses_to_delete_ledger_rows_or_write_a_balance(groups, make_player):
    require_postgres()
    player = make_player(balance=100)
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        Leg.objects.all().delete()
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM wallets_transaction")
    with pytest.raises(DatabaseError, match="only by inserting ledger legs"), transaction.atomic():
        Account.objects.filter(owner=player).update(balance=1_000_000)
    assert wallet_balances(user=player).available == 100


def test_every_ledger_guard_trigger_exists_after_the_migrations(db):
    """A table rebuild (SQLite alters tables by copying them) must not lose a guard."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")
            expected = {
                "wallets_leg_apply",
                "wallets_leg_balanced",
                "wallets_transaction_balanced",
                "wallets_leg_append_only",
                "wallets_transaction_append_only",
                "wallets_account_balance_guard",
                "wallets_ledgerseal_append_only",
            }
        else:
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
            expected = {
                "wallets_leg_apply",
                "wallets_leg_no_update",
                "wallets_transaction_no_update",
                "wallets_ledgerseal_no_update",
            }
        assert expected <= {row[0] for row in cursor.fetchall()}


def test_a_batch_of_postings_lands_whole_each_leg_on_its_own_transaction(make_player):
    """``ledger_post_many``: the whole batch in one call of ``ledger_insert`` on PostgreSQL
    (two INSERTs elsewhere), whatever its size; each leg on its transaction, in order, each
    MAC true, balances moved."""
    from django.test.utils import CaptureQueriesContext

    from wallets.integrity import mac_of
    from wallets.services import Entry, ledger_post_many

    players = [make_player(balance=1_000) for _ in range(3)]
    accounts = [player_accounts_ensure(user=p) for p in players]
    entries = [
        Entry(
            kind="bet", idempotency_key=f"batch:{i}", postings=[(wallet, -(100 + i)), (in_play, 100 + i)], memo=f"m{i}"
        )
        for i, (wallet, in_play) in enumerate(accounts)
    ]
    with transaction.atomic(), CaptureQueriesContext(connection) as captured:
        posted = ledger_post_many(entries)
    writes = [q["sql"] for q in captured.captured_queries if q["sql"].startswith(("INSERT", "SELECT ledger_insert("))]
    assert len(writes) == (1 if connection.vendor == "postgresql" else 2), writes
    assert [t.idempotency_key for t in posted] == ["batch:0", "batch:1", "batch:2"]
    for i, (txn, (wallet, in_play)) in enumerate(zip(posted, accounts)):
        stored = Transaction.objects.get(pk=txn.pk)
        assert stored.idempotency_key == f"batch:{i}" and stored.memo == f"m{i}" and stored.mac == txn.mac
        legs = list(stored.legs.order_by("id"))
        assert {(leg.account_id, leg.signed_amount) for leg in legs} == {(wallet.pk, -(100 + i)), (in_play.pk, 100 + i)}
        assert stored.mac == mac_of(stored, legs)
    assert [Account.objects.get(pk=w.pk).balance for w, _ in accounts] == [900, 899, 898]
    assert ledger_total() == 0
