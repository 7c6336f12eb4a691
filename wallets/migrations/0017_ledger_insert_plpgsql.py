"""``ledger_insert`` loaded again from ``0012_ledger_insert.sql``, which now writes it in
PL/pgSQL: PostgreSQL keeps a PL/pgSQL function's plan for the session, where a SQL
function's statement is planned at every call. Same name, arguments and result; going
back leaves it as it is."""

from pathlib import Path

from django.db import migrations

SQL = Path(__file__).with_name("0012_ledger_insert.sql").read_text()


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(SQL, params=None)  # its % are SQL's, not placeholders


class Migration(migrations.Migration):
    dependencies = [("wallets", "0016_ledger_rows")]

    operations = [migrations.RunPython(create, migrations.RunPython.noop)]
