"""What a query reads in the plan PostgreSQL keeps for any values of a prepared statement
(its generic plan): the rows a call read from one table, counted by PostgreSQL itself."""

from __future__ import annotations

from collections.abc import Callable

from django.db import connection, transaction


def rows_read(table: str) -> int:
    """Rows of ``table`` this transaction has read so far (sequential and by index)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) FROM pg_stat_xact_user_tables WHERE relname = %s",
            [table],
        )
        return cursor.fetchone()[0]


def read_in_any_plan(read: Callable[[], object], table: str) -> tuple[object, int]:
    """``read()`` three times in one transaction in PostgreSQL's plan for any values (the
    third runs the statements psycopg prepared, ``prepare_threshold`` 2); what it returned
    the third time and the rows of ``table`` it read then."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        for _ in range(3):
            before = rows_read(table)
            got = read()
        return got, rows_read(table) - before


def step_read_in_any_plan(read: Callable[[], object], table: str) -> tuple[object, int]:
    """``read_in_any_plan`` for a step's read, which opens its transaction (its statements
    go with the ``BEGIN``, prepared by the session: ``casino.db.opening_message``): three
    runs, each a transaction of its own. The counts a transaction sees are its session's
    not yet reported, so each run starts once they have been (when the session goes idle
    after ``pg_stat_force_next_flush``)."""
    with connection.cursor() as cursor:
        cursor.execute("SET plan_cache_mode = force_generic_plan")
    try:
        for _ in range(3):
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_stat_force_next_flush()")
            with transaction.atomic():
                got = read()
                read_rows = rows_read(table)
        return got, read_rows
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET plan_cache_mode")
