"""The database guards the ledger, so that no code path can break it.

On both vendors:
- an AFTER INSERT trigger on legs moves the account's balance (credits minus debits),
  so a balance can only change by a leg, and the CHECK on ``wallets_account`` refuses a
  negative balance for floored accounts;
- legs and transactions cannot be updated.
On PostgreSQL also:
- a deferred constraint trigger checks at COMMIT that each transaction's legs sum to
  zero and that it has two legs or more;
- legs and transactions cannot be deleted;
- ``wallets_account.balance`` cannot be written except by the leg trigger.
(SQLite, the laptop default, has no deferred triggers; Python checks the sum there, and
deletes stay possible because Django's test flush deletes rows one table at a time.)
"""

from django.db import migrations

POSTGRES_FORWARD = r"""
CREATE OR REPLACE FUNCTION wallets_leg_apply() RETURNS trigger AS $$
BEGIN
    UPDATE wallets_account
       SET balance = balance + CASE WHEN NEW.side = 'C' THEN NEW.amount ELSE -NEW.amount END
     WHERE id = NEW.account_id;
    RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER wallets_leg_apply AFTER INSERT ON wallets_leg
    FOR EACH ROW EXECUTE FUNCTION wallets_leg_apply();

CREATE OR REPLACE FUNCTION wallets_transaction_balanced() RETURNS trigger AS $$
DECLARE
    txn_id bigint;
    total bigint;
    legs integer;
BEGIN
    IF TG_TABLE_NAME = 'wallets_leg' THEN txn_id := NEW.transaction_id; ELSE txn_id := NEW.id; END IF;
    SELECT COALESCE(SUM(CASE WHEN side = 'C' THEN amount ELSE -amount END), 0), COUNT(*)
      INTO total, legs FROM wallets_leg WHERE transaction_id = txn_id;
    IF total <> 0 OR legs < 2 THEN
        RAISE EXCEPTION 'ledger transaction % does not balance (sum %, % legs)', txn_id, total, legs
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END $$ LANGUAGE plpgsql;
CREATE CONSTRAINT TRIGGER wallets_leg_balanced AFTER INSERT ON wallets_leg
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION wallets_transaction_balanced();
CREATE CONSTRAINT TRIGGER wallets_transaction_balanced AFTER INSERT ON wallets_transaction
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION wallets_transaction_balanced();

CREATE OR REPLACE FUNCTION wallets_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the ledger is append-only: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END $$ LANGUAGE plpgsql;
CREATE TRIGGER wallets_leg_append_only BEFORE UPDATE OR DELETE ON wallets_leg
    FOR EACH ROW EXECUTE FUNCTION wallets_append_only();
CREATE TRIGGER wallets_transaction_append_only BEFORE UPDATE OR DELETE ON wallets_transaction
    FOR EACH ROW EXECUTE FUNCTION wallets_append_only();

CREATE OR REPLACE FUNCTION wallets_account_balance_guard() RETURNS trigger AS $$
BEGIN
    IF NEW.balance IS DISTINCT FROM OLD.balance AND pg_trigger_depth() < 2 THEN
        RAISE EXCEPTION 'wallets_account.balance changes only by inserting ledger legs'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER wallets_account_balance_guard BEFORE UPDATE ON wallets_account
    FOR EACH ROW EXECUTE FUNCTION wallets_account_balance_guard();
"""

POSTGRES_REVERSE = r"""
DROP TRIGGER IF EXISTS wallets_account_balance_guard ON wallets_account;
DROP TRIGGER IF EXISTS wallets_transaction_append_only ON wallets_transaction;
DROP TRIGGER IF EXISTS wallets_leg_append_only ON wallets_leg;
DROP TRIGGER IF EXISTS wallets_transaction_balanced ON wallets_transaction;
DROP TRIGGER IF EXISTS wallets_leg_balanced ON wallets_leg;
DROP TRIGGER IF EXISTS wallets_leg_apply ON wallets_leg;
DROP FUNCTION IF EXISTS wallets_account_balance_guard();
DROP FUNCTION IF EXISTS wallets_append_only();
DROP FUNCTION IF EXISTS wallets_transaction_balanced();
DROP FUNCTION IF EXISTS wallets_leg_apply();
"""

SQLITE_FORWARD = [
    """CREATE TRIGGER wallets_leg_apply AFTER INSERT ON wallets_leg BEGIN
         UPDATE wallets_account
            SET balance = balance + (CASE WHEN NEW.side = 'C' THEN NEW.amount ELSE -NEW.amount END)
          WHERE id = NEW.account_id;
       END""",
    """CREATE TRIGGER wallets_leg_no_update BEFORE UPDATE ON wallets_leg BEGIN
         SELECT RAISE(ABORT, 'the ledger is append-only: UPDATE on wallets_leg refused');
       END""",
    """CREATE TRIGGER wallets_transaction_no_update BEFORE UPDATE ON wallets_transaction BEGIN
         SELECT RAISE(ABORT, 'the ledger is append-only: UPDATE on wallets_transaction refused');
       END""",
]
SQLITE_REVERSE = [
    "DROP TRIGGER IF EXISTS wallets_transaction_no_update",
    "DROP TRIGGER IF EXISTS wallets_leg_no_update",
    "DROP TRIGGER IF EXISTS wallets_leg_apply",
]


def forward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_FORWARD, params=None)
    elif vendor == "sqlite":
        for statement in SQLITE_FORWARD:
            schema_editor.execute(statement, params=None)
    else:
        raise RuntimeError(f"no ledger triggers for database vendor {vendor}")


def reverse(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    statements = [POSTGRES_REVERSE] if vendor == "postgresql" else SQLITE_REVERSE
    for statement in statements:
        schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [("wallets", "0001_initial")]
    operations = [migrations.RunPython(forward, reverse)]
