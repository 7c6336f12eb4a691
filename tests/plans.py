"""What a read costs in the plan PostgreSQL keeps for any values (its generic plan, which a
PL/pgSQL function's statements settle on after a few calls): the rows a call read from
one table, counted by PostgreSQL itself."""

from __future__ import annotations

from collections.abc import Callable

from django.db import connection, transaction


def rows_read(table: str) -> int:
    """Rows of ``table`` this transaction has read so far (sequential and by index)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) FROM pg_stat_xact_user_tables"
            " WHERE relname = %s",
            [table],
        )
        return cursor.fetchone()[0]


def read_in_any_plan(read: Callable[[], object], table: str) -> tuple[object, int]:
    """``read()`` three times in one transaction in PostgreSQL's plan for any values; what
    it returned the third time and the rows of ``table`` it read then."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        for _ in range(3):
            before = rows_read(table)
            got = read()
        return got, rows_read(table) - before
