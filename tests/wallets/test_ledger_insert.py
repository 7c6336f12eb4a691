"""A posting's rows are stored as posted, every column (on PostgreSQL one call of
``ledger_insert``, elsewhere the ORM's two INSERTs): the transaction as built, its MAC
true, its legs in order; a reversal with all its references too."""

from __future__ import annotations

import pytest
from django.db import transaction

from jackpot.selectors import ledger_total
from wallets.integrity import mac_of
from wallets.models import Transaction
from wallets.services import Entry, ledger_post_many, player_accounts_ensure, transaction_reverse

pytestmark = pytest.mark.django_db


def _columns(txn: Transaction) -> dict:
    return {f.attname: getattr(txn, f.attname) for f in Transaction._meta.concrete_fields}


def test_every_column_of_a_posting_and_its_reversal_is_stored_as_posted(make_player, cashier):
    player = make_player(balance=1_000)
    wallet, in_play = player_accounts_ensure(user=player)
    entry = Entry(
        kind=Transaction.Kind.BET,
        idempotency_key="insert:1",
        postings=[(wallet, -250), (in_play, 250)],
        memo="Ante €2.50 – «held»",
        actor=cashier,
        table_ref=12,
        hand_ref=34,
        game=Transaction.Game.CARIBBEAN,
    )
    with transaction.atomic():
        [posted] = ledger_post_many([entry])
    stored = Transaction.objects.get(pk=posted.pk)
    assert _columns(stored) == _columns(posted)
    assert [(leg.account_id, leg.signed_amount) for leg in stored.legs.order_by("id")] == [
        (wallet.pk, -250),
        (in_play.pk, 250),
    ]
    assert stored.mac == mac_of(stored, list(stored.legs.order_by("id")))

    reversal = transaction_reverse(original=stored, actor=cashier, idempotency_key="insert:1:undo", reason="test")
    again = Transaction.objects.get(pk=reversal.pk)
    assert _columns(again) == _columns(reversal)
    assert (again.reverses_id, again.table_ref, again.hand_ref, again.game) == (stored.pk, 12, 34, stored.game)
    assert wallet.__class__.objects.get(pk=wallet.pk).balance == 1_000 and ledger_total() == 0
