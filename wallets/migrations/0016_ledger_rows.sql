-- The whole ledger for its full verification on PostgreSQL (wallets.integrity.ledger_check),
-- as one stream: each transaction in id order with its seal and its legs, the three tables
-- each read once in index order and merged (no sort), so that rows flow to the check while
-- it computes. SQLite and the routine checks read the same rows with the ORM
-- (wallets.integrity._ledger_rows). Python checks every rule: the MACs, the chain, the
-- balances; the database only lays the rows out.
--
-- legs: the transaction's legs as its MAC's text of them, sorted as the MAC sorts them
-- ([account,"side",amount],...; a side is 'C' or 'D', a CHECK says so), or NULL without legs;
-- legs_count: how many; legs_balance: credits minus debits. A leg of a deleted transaction
-- is not here: the check finds it by counting the legs.
CREATE OR REPLACE FUNCTION ledger_rows() RETURNS TABLE (
    id bigint, idempotency_key text, kind text, memo text, mac_time text,
    actor_id bigint, table_ref bigint, hand_ref bigint, reverses_id bigint, mac text,
    seal_seq bigint, seal_prev_hash text, seal_hash text,
    legs text, legs_count bigint, legs_balance bigint)
LANGUAGE sql STABLE AS $$
    SELECT t.id, t.idempotency_key, t.kind, t.memo,
           to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"'),
           t.actor_id, t.table_ref, t.hand_ref, t.reverses_id, t.mac, s.seq, s.prev_hash, s.hash,
           l.legs, coalesce(l.legs_count, 0), coalesce(l.legs_balance, 0)
    FROM wallets_transaction t
    LEFT JOIN wallets_ledgerseal s ON s.transaction_id = t.id
    LEFT JOIN (
        SELECT transaction_id,
               string_agg('[' || account_id || ',"' || side || '",' || amount || ']', ','
                          ORDER BY account_id, side, amount) AS legs,
               count(*) AS legs_count,
               sum(CASE side WHEN 'C' THEN amount ELSE -amount END)::bigint AS legs_balance
        FROM wallets_leg
        GROUP BY transaction_id
    ) l ON l.transaction_id = t.id
    ORDER BY t.id
$$;
