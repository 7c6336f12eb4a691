-- A ledger posting's rows on PostgreSQL, one call: what wallets.services._insert_transactions
-- writes with two ORM INSERTs elsewhere (SQLite). The rules stay in Python (balance,
-- floors, keys, MACs: wallets.services.ledger_post_many); the database's own guards run
-- as for any insert: the balance trigger moves each account as its leg goes in, the CHECKs
-- refuse a floored balance below zero, the deferred trigger checks at COMMIT that each
-- transaction balances, the unique index refuses a key used twice.
--
-- txns: the transactions, each an object of its columns; legs: each leg's account_id, side
-- and amount with the idempotency key of its transaction (transaction_key), in order.
-- Returns [[id, idempotency_key], ...] of the transactions inserted. PL/pgSQL: PostgreSQL
-- keeps its plan for the session, where a SQL function's statement is planned at every call.
CREATE OR REPLACE FUNCTION ledger_insert(txns jsonb, legs jsonb) RETURNS text
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    inserted text;
BEGIN
    WITH txn AS (
        INSERT INTO wallets_transaction
            (idempotency_key, fingerprint, kind, memo, created_at, mac, actor_id, table_ref, hand_ref, game, reverses_id)
        SELECT idempotency_key, fingerprint, kind, memo, created_at, mac, actor_id, table_ref, hand_ref, game, reverses_id
        FROM jsonb_populate_recordset(NULL::wallets_transaction, txns)
        RETURNING id, idempotency_key
    ), leg AS (
        INSERT INTO wallets_leg (transaction_id, account_id, side, amount)
        SELECT txn.id, l.account_id, l.side, l.amount
        FROM ROWS FROM (jsonb_to_recordset(legs) AS (transaction_key text, account_id bigint, side text, amount bigint))
            WITH ORDINALITY AS l(transaction_key, account_id, side, amount, n)
        JOIN txn ON txn.idempotency_key = l.transaction_key
        ORDER BY l.n
    )
    SELECT coalesce(jsonb_agg(jsonb_build_array(id, idempotency_key)), '[]')::text INTO inserted FROM txn;
    RETURN inserted;
END
$$;
