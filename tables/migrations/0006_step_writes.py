"""A Caribbean dealer step's write as a PostgreSQL function (``0006_step_writes.sql``,
beside this file): the hand's change, its seats' and a new seat's, in one call
(``tables.services.steps``). SQLite, the laptop default, writes with the ORM."""

from pathlib import Path

from django.db import migrations

SQL = Path(__file__).with_suffix(".sql").read_text()


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(SQL, params=None)  # its % are PL/pgSQL's, not placeholders


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP FUNCTION IF EXISTS caribbean_hand_write(jsonb)")


class Migration(migrations.Migration):
    dependencies = [("tables", "0005_step_reads")]

    operations = [migrations.RunPython(create, drop)]
