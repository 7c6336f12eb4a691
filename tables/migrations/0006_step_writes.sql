-- A Caribbean dealer step's write on PostgreSQL, one call: what tables.services.steps
-- writes with the ORM elsewhere (SQLite): the hand's change, its seats' changes, and a new
-- seat (a bet). The rules stay in Python; this only writes the rows it is given. The
-- step's postings are the ledger's own call (wallets: ledger_insert).
--
-- changes: {"hand": {"id", "version_read", <column>: <value>, ...},
--           "seats": [{"id", <column>: <value>, ...}, ...],
--           "new_seat": {<every column but id>} or null}
-- Each row keeps every column the change does not name (jsonb_populate_record over the
-- row itself). The hand is written only at the version its step read; a hand or seat not
-- found is an error (the table's lock makes either a bug). Returns the new seat's id.
CREATE OR REPLACE FUNCTION caribbean_hand_write(changes jsonb) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    seat jsonb;
    new_id bigint;
BEGIN
    UPDATE tables_hand AS t SET
        (table_id, nonce, state, version, server_seed, commitment, client_seed, paytable_name, paytable_data,
         min_ante, max_ante, jackpot_bet_amount, jackpot_rules, dealer_cards, dealer_strength, dealer_category,
         dealer_qualified, opened_at, betting_deadline, dealt_at, decision_deadline, settled_at)
      = (SELECT n.table_id, n.nonce, n.state, n.version, n.server_seed, n.commitment, n.client_seed, n.paytable_name,
                n.paytable_data, n.min_ante, n.max_ante, n.jackpot_bet_amount, n.jackpot_rules, n.dealer_cards,
                n.dealer_strength, n.dealer_category, n.dealer_qualified, n.opened_at, n.betting_deadline, n.dealt_at,
                n.decision_deadline, n.settled_at
         FROM jsonb_populate_record(t, changes -> 'hand') AS n)
    WHERE t.id = (changes #>> '{hand,id}')::bigint AND t.version = (changes #>> '{hand,version_read}')::bigint;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'hand % is no longer at version %', changes #>> '{hand,id}', changes #>> '{hand,version_read}'
            USING ERRCODE = 'no_data_found';
    END IF;

    FOR seat IN SELECT value FROM jsonb_array_elements(changes -> 'seats') LOOP
        UPDATE tables_handseat AS s SET
            (hand_id, seat_number, player_id, client_seed, ante, jackpot_bet, raise_amount, decision, decided_by_timeout,
             decision_deadline, extension_used, cards, strength, category, outcome, paytable_line, ante_return,
             raise_return, jackpot_win, net, bet_at, history_at)
          = (SELECT n.hand_id, n.seat_number, n.player_id, n.client_seed, n.ante, n.jackpot_bet, n.raise_amount,
                    n.decision, n.decided_by_timeout, n.decision_deadline, n.extension_used, n.cards, n.strength,
                    n.category, n.outcome, n.paytable_line, n.ante_return, n.raise_return, n.jackpot_win, n.net,
                    n.bet_at, n.history_at
             FROM jsonb_populate_record(s, seat) AS n)
        WHERE s.id = (seat ->> 'id')::bigint;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'seat % not found', seat ->> 'id' USING ERRCODE = 'no_data_found';
        END IF;
    END LOOP;

    IF jsonb_typeof(changes -> 'new_seat') = 'object' THEN
        INSERT INTO tables_handseat
            (hand_id, seat_number, player_id, client_seed, ante, jackpot_bet, raise_amount, decision, decided_by_timeout,
             decision_deadline, extension_used, cards, strength, category, outcome, paytable_line, ante_return,
             raise_return, jackpot_win, net, bet_at, history_at)
        SELECT hand_id, seat_number, player_id, client_seed, ante, jackpot_bet, raise_amount, decision, decided_by_timeout,
               decision_deadline, extension_used, cards, strength, category, outcome, paytable_line, ante_return,
               raise_return, jackpot_win, net, bet_at, history_at
        FROM jsonb_populate_record(NULL::tables_handseat, changes -> 'new_seat')
        RETURNING id INTO new_id;
    END IF;
    RETURN new_id;
END
$$;
