"""The step's read functions loaded again from ``0005_step_reads.sql``, which now writes
them in PL/pgSQL (PostgreSQL keeps a PL/pgSQL function's plans for the session, where a
SQL function's statements are planned at every call), runs the two entry points on
generic plans and builds their document as json text. The entry points keep their names,
arguments and document; going back leaves the functions as they are."""

from pathlib import Path

from django.db import migrations

SQL = Path(__file__).with_name("0005_step_reads.sql").read_text()


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(SQL, params=None)  # its % are SQL's, not placeholders


class Migration(migrations.Migration):
    dependencies = [("tables", "0007_hand_settled_at_index")]

    operations = [migrations.RunPython(create, migrations.RunPython.noop)]
