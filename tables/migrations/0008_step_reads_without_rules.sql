-- A Caribbean dealer step's read on PostgreSQL without the table's rules (its tier, pay
-- table and jackpot pool): a hand carries copies of what its steps play by (antes, pay
-- table, jackpot rules), and the steps that need the rows themselves (opening a hand,
-- the jackpot's postings) read them then (tables.services.steps.table_rules). The rest
-- as in 0005_step_reads.sql: the same locks in the same order.

DROP FUNCTION IF EXISTS caribbean_table_rules(tables_table);

-- hand_lock: the hand p_hand (of the table p_table, when given), its table, its seats,
-- their players' names, and their money. NULL: no such hand.
CREATE OR REPLACE FUNCTION caribbean_hand_lock(p_hand bigint, p_table bigint) RETURNS text
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    t tables_table;
    h tables_hand;
    seats jsonb;
BEGIN
    SELECT * INTO t FROM tables_table
    WHERE id = (SELECT table_id FROM tables_hand WHERE id = p_hand AND (p_table IS NULL OR table_id = p_table))
    FOR UPDATE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    SELECT * INTO h FROM tables_hand WHERE id = p_hand FOR UPDATE;
    seats := caribbean_hand_seats(h.id);
    RETURN (jsonb_build_object(
        'table', to_jsonb(t),
        'hand', to_jsonb(h),
        'seats', seats,
        'players', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', u.id, 'username', u.username)), '[]')
                    FROM auth_user u WHERE u.id IN (SELECT player_id FROM tables_handseat WHERE hand_id = h.id)),
        'money', caribbean_money_lock(
            ARRAY(SELECT (s ->> 'player_id')::bigint FROM jsonb_array_elements(seats) s), t.house_account_id
        )
    ))::text;
END
$$;

-- live_hand_lock: the table p_table with its seats, its live hand (one at most:
-- hand_one_live_per_table) and that hand's seats, the money of everybody at the table or
-- in the hand, and p_player's stake facts (wallets.responsible.stake_facts: read, not
-- locked). NULL: no such table.
CREATE OR REPLACE FUNCTION caribbean_live_hand_lock(p_table bigint, p_player bigint) RETURNS text
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    t tables_table;
    h tables_hand;
    seats jsonb := '[]';
BEGIN
    SELECT * INTO t FROM tables_table WHERE id = p_table FOR UPDATE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    SELECT * INTO h FROM tables_hand
    WHERE table_id = p_table AND state IN ('betting', 'decisions')
    ORDER BY id DESC LIMIT 1
    FOR UPDATE;
    IF FOUND THEN
        seats := caribbean_hand_seats(h.id);
    END IF;
    RETURN (jsonb_build_object(
        'table', to_jsonb(t),
        'table_seats', (SELECT coalesce(jsonb_agg(to_jsonb(s) ORDER BY s.number), '[]') FROM tables_seat s WHERE s.table_id = p_table),
        'hand', CASE WHEN h.id IS NULL THEN NULL ELSE to_jsonb(h) END,
        'seats', seats,
        'money', caribbean_money_lock(
            ARRAY(SELECT player_id FROM tables_seat WHERE table_id = p_table
                  UNION SELECT (s ->> 'player_id')::bigint FROM jsonb_array_elements(seats) s),
            t.house_account_id
        ),
        'protection', (SELECT to_jsonb(p) FROM wallets_playerprotection p WHERE p.player_id = p_player),
        'loss_limits', (SELECT coalesce(jsonb_agg(to_jsonb(l) ORDER BY l.id), '[]')
                        FROM wallets_gaminglimit l WHERE l.player_id = p_player AND l.kind = 'loss')
    ))::text;
END
$$;
