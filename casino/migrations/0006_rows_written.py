"""A check that a write changed every row it was given, made by PostgreSQL itself.

``casino.db.rows_save`` updates rows it was given (the hand, its seats) and refuses a
write that missed one of them, as ``save(update_fields=…)`` does. A write sent with its
transaction's ``COMMIT`` (``rows_save(with_commit=True)``) is committed before Python
sees its row counts, so the statement checks them: ``casino_rows_written(written,
expected)`` returns ``written``, and raises (SQLSTATE P0002, no_data_found) when it is
not ``expected``, which ends the message before its ``COMMIT``. SQLite, the laptop
default, writes row by row with the ORM and needs none.
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION casino_rows_written(written bigint, expected integer) RETURNS bigint AS $$
BEGIN
    IF written <> expected THEN
        RAISE EXCEPTION 'Save with update_fields did not affect % of the rows.', expected - written
            USING ERRCODE = 'no_data_found';
    END IF;
    RETURN written;
END $$ LANGUAGE plpgsql
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)  # its % are PL/pgSQL's, not placeholders


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP FUNCTION IF EXISTS casino_rows_written(bigint, integer)")


class Migration(migrations.Migration):
    dependencies = [("casino", "0005_player_search_trigrams")]

    operations = [migrations.RunPython(create, drop)]
