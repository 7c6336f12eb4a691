"""casino.db.Prepared: the ORM's query, compiled once, gives what the ORM gives."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from casino.db import Prepared
from tables.models import Hand, Table
from tables.services.seats import table_sit
from wallets.models import Account

pytestmark = pytest.mark.django_db(transaction=True)

HANDS_OF_TABLE = Prepared(lambda table_id: Hand.objects.filter(table_id=table_id).order_by("id"))
ACCOUNTS = Prepared(lambda ids: Account.objects.filter(pk__in=ids).order_by("pk"))
TABLE_FOR_UPDATE = Prepared(lambda pk: Table.objects.select_for_update(of=("self",)).filter(pk=pk).order_by("pk"))


def _fields(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


def test_rows_are_the_models_the_orm_builds_with_every_value_converted(table, make_player):
    table_sit(user=make_player(), table_id=table.pk)  # opens a hand: datetimes, JSON, text
    ours = HANDS_OF_TABLE.all(table_id=table.pk)
    theirs = list(Hand.objects.filter(table_id=table.pk).order_by("id"))
    assert ours and [_fields(h) for h in ours] == [_fields(h) for h in theirs]
    assert isinstance(ours[0].paytable_data, dict) and ours[0].opened_at.tzinfo is not None
    assert not ours[0]._state.adding and ours[0]._state.db == "default"
    assert HANDS_OF_TABLE.all(table_id=table.pk + 1000) == []


def test_lists_of_any_length_and_the_sql_is_built_once_per_shape(make_player):
    players = [make_player() for _ in range(3)]
    ids = sorted(Account.objects.filter(owner__in=players).values_list("pk", flat=True))
    assert [a.pk for a in ACCOUNTS.all(ids=ids[:2])] == ids[:2]
    assert [a.pk for a in ACCOUNTS.all(ids=ids)] == ids
    with CaptureQueriesContext(connection) as captured:
        assert [a.pk for a in ACCOUNTS.all(ids=ids[2:4])] == ids[2:4]
    assert len(captured.captured_queries) == 1
    assert ACCOUNTS.all(ids=ids[2:4])[0].balance == Account.objects.get(pk=ids[2]).balance


def test_a_locking_query_runs_inside_the_transaction(table):
    with transaction.atomic():
        with CaptureQueriesContext(connection) as captured:
            locked = TABLE_FOR_UPDATE.first(pk=table.pk)
    assert locked.pk == table.pk and locked.name == table.name
    if connection.vendor == "postgresql":
        assert 'FOR UPDATE OF "tables_table"' in captured.captured_queries[0]["sql"]
    with transaction.atomic():
        assert TABLE_FOR_UPDATE.first(pk=table.pk + 1000) is None


@pytest.mark.parametrize("bad", ["7", 7.0, None, [1, "2"], True])
def test_parameters_are_ids_only(bad):
    with pytest.raises(TypeError):
        HANDS_OF_TABLE.all(table_id=bad)


def test_joined_queries_are_refused(table):
    joined = Prepared(lambda pk: Table.objects.select_related("tier").filter(pk=pk))
    with pytest.raises(ValueError, match="select_related"):
        joined.all(pk=table.pk)
