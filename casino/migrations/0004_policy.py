"""The authorisation policy: the permission-only model ``Policy`` (no table) and the
grants of ``casino.access.policy.GRANTS`` to the role groups (created here if missing).

A later change of ``ACTIONS`` or ``GRANTS`` adds a migration that runs ``roles_install``
again."""

from django.db import migrations, models

from casino.access.policy import roles_install


def install(apps, schema_editor):
    roles_install(apps=apps)


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0003_idempotency_body"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.CreateModel(
            name="Policy",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
            ],
            options={
                "managed": False,
                "default_permissions": (),
                "permissions": [
                    ("play", "Play at the tables: sit down, bet, decide, use the wallet"),
                    ("hand_read_any", "Read any hand, not only one's own"),
                    ("cash_desk", "Serve players at the cashier's desk: find them, open their page"),
                    ("cash_deposit", "Deposit a player's cash, complete or reject a deposit request"),
                    ("cash_withdraw", "Pay out a player's withdrawal"),
                    ("cash_reverse", "Reverse a deposit or a withdrawal"),
                    ("cash_approve", "Approve or reject a desk movement above the threshold (the second pair of eyes)"),
                    ("cash_report", "Read the cash desk's report"),
                    ("config_read", "Read the configuration: tiers, pay tables, tables, pools, their audit log"),
                    ("config_change", "Change the configuration: tiers, pay tables, tables, pools"),
                    ("audit_read", "Audit: hands, ledger, reports, exports"),
                    ("admin_site", "Use the Django admin (with is_staff)"),
                    ("account_two_factor", "Work here: a staff account, which signs in with two-factor"),
                ],
            },
        ),
        migrations.RunPython(install, migrations.RunPython.noop),
    ]
