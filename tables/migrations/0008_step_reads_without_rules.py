"""A Caribbean dealer step's read without the table's rules (``0008_step_reads_without_rules.sql``,
beside this file): the steps that need the tier, pay table or pool read them then. SQLite
reads with the ORM and needs none."""

from pathlib import Path

from django.db import migrations

SQL = Path(__file__).with_suffix(".sql").read_text()
BEFORE = (Path(__file__).parent / "0005_step_reads.sql").read_text()


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(SQL, params=None)  # its % are SQL's, not placeholders


def restore(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BEFORE, params=None)


class Migration(migrations.Migration):
    dependencies = [("tables", "0007_hand_settled_at_index")]

    operations = [migrations.RunPython(create, restore)]
