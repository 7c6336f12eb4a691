"""A leg's account is found by the (account, id) index alone: the index of the account
by itself served no read the pair does not, and was one more entry written with every
leg, at every bet. Only the index goes: the foreign key stays as it is (Django would
drop and add it again, checking every leg of the ledger under the table's lock).

On PostgreSQL the pattern index Django adds beside a unique text column goes too, for
the transactions' idempotency key: it serves ``LIKE 'prefix%'`` searches, which nothing
makes of a key, and was one more entry written with every transaction."""

import django.db.models.deletion
from django.db import migrations, models

KEY_PATTERN_INDEX = "wallets_transaction_idempotency_key_f673681e_like"


def drop_key_pattern_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f'DROP INDEX IF EXISTS "{KEY_PATTERN_INDEX}"')


def restore_key_pattern_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f'CREATE INDEX "{KEY_PATTERN_INDEX}" ON "wallets_transaction" ("idempotency_key" varchar_pattern_ops)'
        )


class Migration(migrations.Migration):
    dependencies = [
        ("wallets", "0009_bet_kind_label"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="leg",
                    name="account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="legs",
                        to="wallets.account",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    'DROP INDEX IF EXISTS "wallets_leg_account_id_6572183a"',
                    'CREATE INDEX "wallets_leg_account_id_6572183a" ON "wallets_leg" ("account_id")',
                ),
            ],
        ),
        migrations.RunPython(drop_key_pattern_index, restore_key_pattern_index),
    ]
