"""A ledger posting's rows as one PostgreSQL function (``0012_ledger_insert.sql``, beside
this file), called by ``wallets.services`` on PostgreSQL; SQLite, the laptop default,
inserts with the ORM and needs none."""

from pathlib import Path

from django.db import migrations

SQL = Path(__file__).with_suffix(".sql").read_text()


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(SQL, params=None)  # its % are SQL's, not placeholders


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP FUNCTION IF EXISTS ledger_insert(jsonb, jsonb)")


class Migration(migrations.Migration):
    dependencies = [("wallets", "0011_transaction_game")]

    operations = [migrations.RunPython(create, drop)]
