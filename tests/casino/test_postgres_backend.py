"""casino.postgres: Django's backend, with psycopg's C timestamp loader: the same values."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import connection, transaction

from tests.conftest import require_postgres
from wallets.models import Transaction

pytestmark = pytest.mark.django_db(transaction=True)


def test_timestamps_read_back_as_the_aware_utc_values_django_reads(make_player):
    require_postgres()
    from django.db.backends.postgresql.psycopg_any import register_tzloader

    make_player(balance=1_000)  # a deposit: a transaction with its timestamp
    with transaction.atomic(), connection.cursor() as cursor:  # one now()
        cursor.execute("SELECT created_at, now(), TIMESTAMPTZ '2026-03-29 01:30:00+01' FROM wallets_transaction")
        ours = cursor.fetchall()
        assert cursor.adapters.get_loader(1184, 0).__module__.startswith("psycopg")  # not Django's loader
        register_tzloader(connection.timezone, cursor)  # Django's own loader, on this cursor only
        cursor.execute("SELECT created_at, now(), TIMESTAMPTZ '2026-03-29 01:30:00+01' FROM wallets_transaction")
        theirs = cursor.fetchall()
    assert ours == theirs and ours
    for row in ours:
        assert all(value.tzinfo is not None and value.utcoffset().total_seconds() == 0 for value in row)
    assert ours[0][2] == datetime(2026, 3, 29, 0, 30, tzinfo=UTC)
    assert Transaction.objects.get().created_at == ours[0][0]  # through the ORM too


def test_server_side_cursors_still_stream_rows(make_player):
    require_postgres()
    for _ in range(3):
        make_player(balance=500)
    with transaction.atomic():
        streamed = [t.created_at for t in Transaction.objects.order_by("pk").iterator(chunk_size=1)]
    assert streamed == list(Transaction.objects.order_by("pk").values_list("created_at", flat=True))
    assert len(streamed) == 3 and all(value.tzinfo is not None for value in streamed)
