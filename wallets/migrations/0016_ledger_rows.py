"""The whole ledger as one stream for its full verification on PostgreSQL (``ledger_rows()``
in ``0016_ledger_rows.sql``, beside this file), called by ``wallets.integrity``; SQLite
reads the same rows with the ORM and needs none."""

from pathlib import Path

from django.db import migrations

SQL = Path(__file__).with_suffix(".sql").read_text()


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(SQL, params=None)  # its % are SQL's, not placeholders


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP FUNCTION IF EXISTS ledger_rows()")


class Migration(migrations.Migration):
    dependencies = [("wallets", "0015_ledger_checkpoints")]

    operations = [migrations.RunPython(create, drop)]
