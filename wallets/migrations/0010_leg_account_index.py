"""A leg's account is found by the (account, id) index alone: the index of the account
by itself served no read the pair does not, and was one more entry written with every
leg, at every bet. Only the index goes: the foreign key stays as it is (Django would
drop and add it again, checking every leg of the ledger under the table's lock)."""

import django.db.models.deletion
from django.db import migrations, models


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
                        db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name="legs", to="wallets.account"
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
    ]
