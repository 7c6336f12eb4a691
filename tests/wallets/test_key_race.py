"""Two postings under one idempotency key that race without an account in common: the
later one meets the key's unique index and is refused as a reuse of the key, with its
whole transaction rolled back (it was a database error, a 500)."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, transaction

from casino.http.errors import Conflict
from jackpot.selectors import ledger_total
from tests.conftest import require_postgres
from wallets.models import Account, Transaction
from wallets.selectors import account_balance_from_legs
from wallets.services import ledger_post, player_accounts_ensure

pytestmark = pytest.mark.django_db(transaction=True)


def _backends_waiting_on_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]


def test_a_key_raced_for_other_accounts_is_refused_as_reused_and_changes_nothing(make_player):
    require_postgres()
    first, second = make_player(balance=10_000), make_player(balance=10_000)
    first_wallet, first_play = player_accounts_ensure(user=first)
    second_wallet, second_play = player_accounts_ensure(user=second)
    posted, go = threading.Event(), threading.Event()
    outcome: dict = {}

    def post_and_hold() -> None:
        try:
            with transaction.atomic():
                ledger_post(kind="bet", idempotency_key="raced", postings=[(first_wallet, -500), (first_play, 500)])
                posted.set()
                go.wait(20)
        finally:
            connection.close()

    def post_the_same_key() -> None:
        try:
            with transaction.atomic():
                ledger_post(kind="bet", idempotency_key="raced", postings=[(second_wallet, -700), (second_play, 700)])
                outcome["posted"] = True
        except Exception as exc:  # noqa: BLE001 - asserted below
            outcome["error"] = exc
        finally:
            connection.close()

    holder = threading.Thread(target=post_and_hold, daemon=True)
    holder.start()
    assert posted.wait(20)
    racer = threading.Thread(target=post_the_same_key, daemon=True)
    racer.start()
    deadline = time.monotonic() + 20  # the racer saw no row under the key and waits at its index
    while _backends_waiting_on_a_lock() < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    waited = _backends_waiting_on_a_lock() >= 1
    go.set()
    holder.join(20)
    racer.join(20)

    assert waited, "the racer never waited at the key's index"
    error = outcome.get("error")
    assert isinstance(error, Conflict) and error.code == "idempotency_key_reused", repr(error)
    assert error.extra == {"idempotency_key": "raced"}
    txn = Transaction.objects.get(idempotency_key="raced")
    assert {leg.account_id for leg in txn.legs.all()} == {first_wallet.pk, first_play.pk}
    for account, balance in ((first_wallet, 9_500), (first_play, 500), (second_wallet, 10_000), (second_play, 0)):
        assert Account.objects.get(pk=account.pk).balance == balance == account_balance_from_legs(account=account)
    assert ledger_total() == 0
