"""A Caribbean dealer step's read as PostgreSQL functions (``0005_step_reads.sql``, beside
this file): the table's lock, the hand's, the money's and what the step reads with them,
in one call (``tables.locks``). SQLite, the laptop default, reads with the ORM and needs
none."""

from pathlib import Path

from django.db import migrations

SQL = (Path(__file__).with_suffix(".sql")).read_text()
FUNCTIONS = (
    "caribbean_live_hand_lock(bigint, bigint)",
    "caribbean_hand_lock(bigint, bigint)",
    "caribbean_hand_seats(bigint)",
    "caribbean_money_lock(bigint[], bigint)",
    "caribbean_table_rules(tables_table)",
)


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(SQL, params=None)  # its % are SQL's, not placeholders


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for function in FUNCTIONS:
            schema_editor.execute(f"DROP FUNCTION IF EXISTS {function}")


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0004_handseat_indexes"),
        ("wallets", "0011_transaction_game"),
        ("jackpot", "0001_initial"),
    ]

    operations = [migrations.RunPython(create, drop)]
