"""MACs for transactions written before 0003, and the append-only guard on the seals.

On SQLite, 0003 rebuilt ``wallets_transaction`` (SQLite alters a table by copying it),
which drops its triggers: the no-update guard is created again here.
"""

from django.db import migrations

SQLITE_NO_UPDATE = """CREATE TRIGGER IF NOT EXISTS wallets_transaction_no_update
BEFORE UPDATE ON wallets_transaction BEGIN
    SELECT RAISE(ABORT, 'the ledger is append-only: UPDATE on wallets_transaction refused');
END"""


def backfill_macs(apps, schema_editor):
    from wallets.integrity import transaction_mac

    Transaction = apps.get_model("wallets", "Transaction")
    Leg = apps.get_model("wallets", "Leg")
    old = list(Transaction.objects.filter(mac=""))
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute("ALTER TABLE wallets_transaction DISABLE TRIGGER wallets_transaction_append_only")
    else:
        schema_editor.execute("DROP TRIGGER IF EXISTS wallets_transaction_no_update")
    for txn in old:
        legs = Leg.objects.filter(transaction_id=txn.pk).values_list("account_id", "side", "amount")
        mac = transaction_mac(
            idempotency_key=txn.idempotency_key,
            kind=txn.kind,
            memo=txn.memo,
            created_at=txn.created_at,
            actor_id=txn.actor_id,
            table_ref=txn.table_ref,
            hand_ref=txn.hand_ref,
            reverses_id=txn.reverses_id,
            legs=list(legs),
        )
        Transaction.objects.filter(pk=txn.pk).update(mac=mac)
    if vendor == "postgresql":
        schema_editor.execute("ALTER TABLE wallets_transaction ENABLE TRIGGER wallets_transaction_append_only")
    else:
        schema_editor.execute(SQLITE_NO_UPDATE, params=None)


def guard_seals(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            "CREATE TRIGGER wallets_ledgerseal_append_only BEFORE UPDATE OR DELETE ON wallets_ledgerseal "
            "FOR EACH ROW EXECUTE FUNCTION wallets_append_only()",
            params=None,
        )
    else:
        schema_editor.execute(
            "CREATE TRIGGER wallets_ledgerseal_no_update BEFORE UPDATE ON wallets_ledgerseal BEGIN "
            "SELECT RAISE(ABORT, 'the ledger is append-only: UPDATE on wallets_ledgerseal refused'); END",
            params=None,
        )


def unguard_seals(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP TRIGGER IF EXISTS wallets_ledgerseal_append_only ON wallets_ledgerseal")
    else:
        schema_editor.execute("DROP TRIGGER IF EXISTS wallets_ledgerseal_no_update")


class Migration(migrations.Migration):
    dependencies = [("wallets", "0003_ledger_integrity")]
    operations = [
        migrations.RunPython(backfill_macs, migrations.RunPython.noop),
        migrations.RunPython(guard_seals, unguard_seals),
    ]
