-- A Caribbean dealer step's read on PostgreSQL, one function call: what tables.locks
-- (hand_lock, live_hand_lock) reads with ORM queries elsewhere (SQLite). The rules stay
-- in Python; these only lock and read.
--
-- The locks are taken in the one order of tables.locks: the table row first; then, in
-- statements whose snapshots are taken once that lock is granted (so they see what the
-- lock's last holder committed), the hand, then the money: the players' wallets and
-- money in play and the table's house account, by primary key (wallets.locks). Rows come
-- back as JSON objects of their columns, one document, built into models by tables.locks.
--
-- What keeps a read cheap: every function is PL/pgSQL, whose plans PostgreSQL keeps for
-- the session (a SQL function's statements are planned again at every call); the two
-- entry points run on generic plans (plan_cache_mode: their arguments are keys, and the
-- planner would otherwise plan the money's lock and the document afresh at every call, a
-- custom plan estimated cheaper for the few players given, which costs more than running
-- it); the document is json, text as it is built (jsonb's binary form, concatenated and
-- then written out as text, cost a third of the read).

-- The helpers return json; a definition returning jsonb is dropped first (CREATE OR
-- REPLACE cannot change a function's result type), and so is caribbean_table_rules: each
-- document reads the table's rules itself, at its top level (a json object is not merged
-- into another without being parsed again), where tables.locks of every release reads them.
DROP FUNCTION IF EXISTS caribbean_table_rules(tables_table);
DROP FUNCTION IF EXISTS caribbean_money_lock(bigint[], bigint);
DROP FUNCTION IF EXISTS caribbean_hand_seats(bigint);

-- The players' wallet and money-in-play accounts and the house account, locked in
-- primary-key order (wallets.locks.player_accounts_for_update).
CREATE OR REPLACE FUNCTION caribbean_money_lock(players bigint[], house bigint) RETURNS json
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    accounts json;
BEGIN
    SELECT coalesce(json_agg(to_json(a) ORDER BY a.id), '[]') INTO accounts
    FROM (
        SELECT * FROM wallets_account
        WHERE id IN (
            SELECT id FROM wallets_account
            WHERE owner_id = ANY (players) AND kind IN ('player_wallet', 'player_in_play')
            UNION SELECT house
        )
        ORDER BY id
        FOR UPDATE
    ) a;
    RETURN accounts;
END
$$;

-- A hand's seats by seat number.
CREATE OR REPLACE FUNCTION caribbean_hand_seats(hand bigint) RETURNS json
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT coalesce(json_agg(to_json(s) ORDER BY s.seat_number), '[]') FROM tables_handseat s WHERE s.hand_id = hand);
END
$$;

-- hand_lock: the hand p_hand (of the table p_table, when given), its table and its rules
-- (its tier, pay table and jackpot pool: read, not locked; a change of them locks the
-- table first), its seats, their players' names, and their money. NULL: no such hand.
CREATE OR REPLACE FUNCTION caribbean_hand_lock(p_hand bigint, p_table bigint) RETURNS text
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    t tables_table;
    h tables_hand;
    seats json;
BEGIN
    SELECT * INTO t FROM tables_table
    WHERE id = (SELECT table_id FROM tables_hand WHERE id = p_hand AND (p_table IS NULL OR table_id = p_table))
    FOR UPDATE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    SELECT * INTO h FROM tables_hand WHERE id = p_hand FOR UPDATE;
    seats := caribbean_hand_seats(h.id);
    RETURN json_build_object(
        'tier', (SELECT to_json(x) FROM wallets_limittier x WHERE x.id = t.tier_id),
        'paytable', (SELECT to_json(x) FROM tables_paytable x WHERE x.id = t.paytable_id),
        'pool', (SELECT to_json(x) FROM jackpot_jackpotpool x WHERE x.id = t.pool_id),
        'table', to_json(t),
        'hand', to_json(h),
        'seats', seats,
        'players', (SELECT coalesce(json_agg(json_build_object('id', u.id, 'username', u.username)), '[]')
                    FROM auth_user u WHERE u.id IN (SELECT player_id FROM tables_handseat WHERE hand_id = h.id)),
        'money', caribbean_money_lock(
            ARRAY(SELECT (s ->> 'player_id')::bigint FROM json_array_elements(seats) s), t.house_account_id
        )
    )::text;
END
$$;

-- live_hand_lock: the table p_table with its rules and seats, its live hand (one at most:
-- hand_one_live_per_table) and that hand's seats, the money of everybody at the table or
-- in the hand, and p_player's stake facts (wallets.responsible.stake_facts: read, not
-- locked). NULL: no such table.
CREATE OR REPLACE FUNCTION caribbean_live_hand_lock(p_table bigint, p_player bigint) RETURNS text
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    t tables_table;
    h tables_hand;
    seats json := '[]';
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
    RETURN json_build_object(
        'tier', (SELECT to_json(x) FROM wallets_limittier x WHERE x.id = t.tier_id),
        'paytable', (SELECT to_json(x) FROM tables_paytable x WHERE x.id = t.paytable_id),
        'pool', (SELECT to_json(x) FROM jackpot_jackpotpool x WHERE x.id = t.pool_id),
        'table', to_json(t),
        'table_seats', (SELECT coalesce(json_agg(to_json(s) ORDER BY s.number), '[]') FROM tables_seat s WHERE s.table_id = p_table),
        'hand', CASE WHEN h.id IS NULL THEN NULL ELSE to_json(h) END,
        'seats', seats,
        'money', caribbean_money_lock(
            ARRAY(SELECT player_id FROM tables_seat WHERE table_id = p_table
                  UNION SELECT (s ->> 'player_id')::bigint FROM json_array_elements(seats) s),
            t.house_account_id
        ),
        'protection', (SELECT to_json(p) FROM wallets_playerprotection p WHERE p.player_id = p_player),
        'loss_limits', (SELECT coalesce(json_agg(to_json(l) ORDER BY l.id), '[]')
                        FROM wallets_gaminglimit l WHERE l.player_id = p_player AND l.kind = 'loss')
    )::text;
END
$$;
