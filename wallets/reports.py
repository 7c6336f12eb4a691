"""The ledger as export rows: one tuple per leg, oldest first, up to a snapshot's last
transaction, with the auditors' filters (``wallets.selectors.LedgerFilters``). Read by
the exports (``backoffice.exports``); nothing here writes a row."""

from __future__ import annotations

from django.db.models import CharField, Func, QuerySet

from wallets.models import Leg
from wallets.selectors import LedgerFilters, _transaction_q


class UtcIsoText(Func):
    """A datetime as ISO 8601 text in UTC with microseconds, written by the database:
    ``2026-01-02T03:04:05.000006+00:00``, exactly ``datetime.isoformat(timespec="microseconds")``
    of the UTC value (the form the transaction's MAC hashes). Cheaper than a ``datetime``
    per row parsed by the driver and formatted again in Python."""

    output_field = CharField()

    def as_sql(self, compiler, connection, **extra):
        raise NotImplementedError(f"UtcIsoText has no SQL for {connection.vendor}")

    def as_postgresql(self, compiler, connection, **extra):
        template = "to_char(%(expressions)s AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"')"
        return super().as_sql(compiler, connection, template=template, **extra)

    def as_sqlite(self, compiler, connection, **extra):
        # SQLite holds UTC as "YYYY-MM-DD HH:MM:SS[.ffffff]"; the fraction is absent when zero.
        template = "(replace(substr(%(expressions)s || '.000000', 1, 26), ' ', 'T') || '+00:00')"
        return super().as_sql(compiler, connection, template=template, **extra)


EXPORT_FIELDS = (
    "transaction_id",
    "id",
    "time",
    "transaction__kind",
    "account__code",
    "account__kind",
    "account__owner__username",
    "side",
    "amount",
    "transaction__game",
    "transaction__table_ref",
    "transaction__hand_ref",
    "transaction__memo",
    "transaction__mac",
)


def ledger_export_rows(*, filters: LedgerFilters, upto: int) -> QuerySet:
    """One tuple per leg (``EXPORT_FIELDS``), oldest transaction first, legs in id order.

    Only transactions up to ``upto``: the ledger is append-only, so the snapshot never
    changes under a running export. Iterate it with ``.iterator(chunk_size=…)`` (a
    server-side cursor on PostgreSQL) so that memory stays flat.
    """
    return (
        Leg.objects.filter(_transaction_q(filters, prefix="transaction__"), transaction_id__lte=upto)
        .annotate(time=UtcIsoText("transaction__created_at"))
        .order_by("transaction_id", "id")
        .values_list(*EXPORT_FIELDS)
    )


def ledger_export_count(*, filters: LedgerFilters, upto: int) -> int:
    return Leg.objects.filter(_transaction_q(filters, prefix="transaction__"), transaction_id__lte=upto).count()
