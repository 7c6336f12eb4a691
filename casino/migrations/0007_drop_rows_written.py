"""The steps write with the ORM, each statement checked where it runs: the row-count check
made for writes sent with their COMMIT is no longer called, and goes. (Back to 0006 it
stays gone: nothing calls it.)"""

from django.db import migrations


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP FUNCTION IF EXISTS casino_rows_written(bigint, integer)")


class Migration(migrations.Migration):
    dependencies = [("casino", "0006_rows_written")]

    operations = [migrations.RunPython(drop, migrations.RunPython.noop)]
