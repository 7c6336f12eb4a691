"""The staff's player search by any part of a name or an e-mail address (``icontains``:
``UPPER(column) LIKE UPPER('%…%')``) read every user of the casino. On PostgreSQL,
trigram indexes on exactly those expressions answer it from the index (``pg_trgm``, a
trusted extension: the database's owner may create it), in a plan made for the search's
text (a plan for any text cannot use them). SQLite, the laptop default, keeps the scan."""

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations

INDEXES = {
    "auth_user_username_trgm": "username",
    "auth_user_email_trgm": "email",
}


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, column in INDEXES.items():
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON auth_user USING gin (UPPER({column}::text) gin_trgm_ops)"
        )


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0004_policy"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        TrigramExtension(),
        migrations.RunPython(create, drop),
    ]
