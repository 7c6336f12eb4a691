"""SPEC §0 / B2 dealing: the fair deck in deal order, burns, deck exhaustion with the
reshuffle continuing the HMAC stream and the community card; records, replay and views."""

from __future__ import annotations

import json

import pytest

from casino.game.cards import card_from_str, cards_from_str
from casino.game.fair import commitment_of, shuffled_deck, uniform_below, word_stream
from casino.stud.engine import (
    Action,
    StudError,
    apply,
    hand_record,
    player_view,
    public_view,
    replay,
    start_hand,
    verify_record,
)
from casino.stud.games import preset
from tests.stud.engine_rig import SEED, act, deal, seats_of

SEVEN = preset("seven_stud", "5-10")
FIVE = preset("five_stud", "5-10")


def call_down(state):
    while not state.is_over:
        legal = state.legal()
        kind = next(k for k in ("check", "call", "bring_in") if k in legal.actions)
        state, _ = apply(state, state.to_act, Action(kind))
    return state


def cards_out(state):
    """Every card that left the deck, in order (deals and burns), as the record lists them."""
    return [card_from_str(e["card"]) for e in state.events if e["type"] in ("deal", "burn")]


@pytest.mark.parametrize("config, players", [(FIVE, 8), (preset("soko", "1-2"), 5), (SEVEN, 6)])
def test_cards_come_from_the_fair_deck_in_order_with_burns_and_no_burn_before_the_first_deal(config, players):
    state = call_down(deal(config, [config.buy_in] * players, nonce=7))
    deck = shuffled_deck(SEED, state.client_seed, 7)
    assert state.client_seed == ":".join(f"client{s}" for s in range(1, players + 1))
    assert state.commitment == commitment_of(SEED)
    assert cards_out(state) == deck[: len(cards_out(state))]
    first = config.first_street
    kinds = [e["type"] for e in state.events if e["type"] in ("deal", "burn")]
    assert kinds[: first * players] == ["deal"] * (first * players)  # no burn before the first deal
    assert kinds.count("burn") == config.last_street - first
    # the first deal goes round the seats one card at a time, seat 1 first
    assert [e["seat"] for e in state.events if e["type"] == "deal"][:players] == list(range(1, players + 1))


def test_seven_stud_up_and_down_cards():
    state = call_down(deal(SEVEN, [5000] * 2, nonce=3))
    ups = [(e["street"], e["up"]) for e in state.events if e["type"] == "deal" and e["seat"] == 1]
    assert ups == [(3, False), (3, False), (3, True), (4, True), (5, True), (6, True), (7, False)]
    assert len(state.up_cards(1)) == 4 and len(state.down_cards(1)) == 3


def _words_of_shuffle(server_seed, client_seed, nonce):
    """Independent count of the words the deck's shuffle consumes (rejections included)."""
    words = word_stream(server_seed, client_seed, nonce)
    used = 0
    for i in range(51, 0, -1):
        limit = 2**32 - 2**32 % (i + 1)
        while True:
            used += 1
            if next(words) < limit:
                break
    return used


def test_seven_players_to_the_river_reshuffle_the_pool_continuing_the_stream():
    state = call_down(deal(SEVEN, [5000] * 7, nonce=11))
    deck = shuffled_deck(SEED, state.client_seed, 11)
    burns = [card_from_str(e["card"]) for e in state.events if e["type"] == "burn"]
    assert len(burns) == 3  # no burn before the river: it comes from the pool
    reshuffle = [e for e in state.events if e["type"] == "reshuffle"]
    assert reshuffle == [{"type": "reshuffle", "pool_size": 10}]  # 7 left + 3 burns
    pool = deck[45:] + burns
    words = word_stream(SEED, state.client_seed, 11)
    for _ in range(_words_of_shuffle(SEED, state.client_seed, 11)):
        next(words)
    for i in range(len(pool) - 1, 0, -1):
        j = uniform_below(words, i + 1)
        pool[i], pool[j] = pool[j], pool[i]
    rivers = [e for e in state.events if e["type"] == "deal" and e["street"] == 7]
    assert [(e["seat"], card_from_str(e["card"]), e["up"]) for e in rivers] == [
        (seat, pool[seat - 1], False) for seat in range(1, 8)
    ]
    assert len({c for p in state.players for c in p.cards}) == 49  # no card twice


def test_eight_players_to_the_river_share_one_community_card():
    state = call_down(deal(SEVEN, [5000] * 8, nonce=5))
    assert [e["pool_size"] for e in state.events if e["type"] == "reshuffle"] == [4]  # 1 left + 3 burns
    community = [e for e in state.events if e["type"] == "community"]
    assert len(community) == 1
    card = card_from_str(community[0]["card"])
    deck = shuffled_deck(SEED, state.client_seed, 5)
    burns = [card_from_str(e["card"]) for e in state.events if e["type"] == "burn"]
    assert card in [deck[51], *burns]
    assert all(len(p.cards) == 6 for p in state.players)
    record = hand_record(state)
    assert record["community"] == community[0]["card"]
    for hand in record["showdown"]:
        assert set(cards_from_str(hand["best_five"])) <= set(cards_from_str(hand["cards"])) | {card}


def test_eight_players_four_of_them_to_the_river_take_their_rivers_from_the_pool():
    state = deal(SEVEN, [5000] * 8, nonce=9)
    seen_folds = 0
    while not state.is_over:
        legal = state.legal()
        if state.street == 6 and "fold" not in legal.actions and "bet" in legal.actions and seen_folds == 0:
            state = act(state, f"{state.to_act} bet {legal.bet_to[0]}")
            for _ in range(4):
                state = act(state, f"{state.to_act} fold")
                seen_folds += 1
            continue
        kind = next(k for k in ("check", "call", "bring_in") if k in legal.actions)
        state, _ = apply(state, state.to_act, Action(kind))
    assert seen_folds == 4
    assert [e["pool_size"] for e in state.events if e["type"] == "reshuffle"] == [4]
    assert not [e for e in state.events if e["type"] == "community"]
    rivers = [e for e in state.events if e["type"] == "deal" and e["street"] == 7]
    assert len(rivers) == 4
    folded_cards = {c for p in state.players if p.folded for c in p.cards}
    assert not folded_cards & {card_from_str(e["card"]) for e in rivers}  # folded cards are never reused


def test_five_card_stud_eight_players_never_exhaust_the_deck():
    state = call_down(deal(FIVE, [5000] * 8, nonce=2))
    assert not [e for e in state.events if e["type"] in ("reshuffle", "community")]
    assert state.pos == 8 * 5 + 3


# --------------------------------------------------------------------------- record, replay, views


def test_the_record_replays_to_the_same_record_and_is_json():
    state = deal(SEVEN, [5000] * 4, nonce=21)
    state = act(state, f"{state.to_act} bring_in")
    state = call_down(state)
    record = hand_record(state)
    assert json.loads(json.dumps(record)) == record
    assert record["dealt_from_seeds"] is True and "deck" not in record
    assert hand_record(replay(record)) == record
    for key in (
        "game",
        "table",
        "limit",
        "ante",
        "bring_in",
        "bring_in_rule",
        "rake_rule",
        "server_seed",
        "commitment",
        "client_seed",
        "nonce",
        "seats",
        "events",
        "showdown",
        "pots",
        "rake",
        "net",
    ):
        assert key in record
    assert record["limit"] == {"type": "fixed", "small_bet": "5.00", "big_bet": "10.00"}
    assert record["seats"][0] == {
        "seat": 1,
        "player": "player1",
        "stack": "50.00",
        "client_seed": "client1",
        "all_in_allowance": True,
        "always_show": False,
    }


def test_a_forged_record_is_caught_by_its_replay():
    state = call_down(deal(SEVEN, [5000] * 3, nonce=8))
    record = hand_record(state)
    assert verify_record(record) == state
    for forge in (
        lambda r: r["net"].update({"1": "99.00"}),
        lambda r: r["events"][5].update({"card": "2c" if r["events"][5]["card"] != "2c" else "3c"}),
        lambda r: r["pots"][0].update({"amount": "0.01"}),
        lambda r: r.update({"commitment": "0" * 64}),
    ):
        forged = json.loads(json.dumps(record))
        forge(forged)
        with pytest.raises(StudError) as err:
            verify_record(forged)
        assert err.value.code == "record_mismatch"


def test_a_rigged_deck_is_said_in_the_record_and_replays():
    state = deal(SEVEN, [5000] * 2, {1: "Kh Qd 2c", 2: "Ah Ad 9s"})
    state = call_down(state)
    record = hand_record(state)
    assert record["dealt_from_seeds"] is False and len(record["deck"]) == 52
    assert hand_record(replay(record)) == record


def test_an_unfinished_hand_replays_to_where_it_stopped():
    state = act(
        deal(SEVEN, [5000] * 3, nonce=4),
    )
    state = act(state, f"{state.to_act} bring_in")
    state = act(state, f"{state.to_act} complete 500")
    rebuilt = replay(hand_record(state))
    assert rebuilt == state
    assert rebuilt.legal() == state.legal()


def test_views_show_down_cards_to_their_owner_only_and_the_seed_once_over():
    state = deal(SEVEN, [5000] * 3, {1: "Kh Qd 2c", 2: "Ah Ad 9s", 3: "7h 7d Ts"})
    public = public_view(state)
    assert "server_seed" not in public and public["commitment"] == commitment_of(SEED)
    dump = json.dumps(public)
    for hidden in ("Kh", "Qd", "Ah", "Ad", "7h", "7d"):
        assert hidden not in dump
    mine = player_view(state, 1)
    assert mine["seats"][0]["down"] == ["Kh", "Qd"] and "down" not in mine["seats"][1]
    assert "Ah" not in json.dumps(mine) and mine["legal"]["actions"] == ["bring_in", "complete"]
    assert public["seats"][1]["up"] == ["9s"]
    over = call_down(state)
    assert public_view(over)["server_seed"] == SEED
    assert not [e for e in public_view(over)["events"] if e["type"] == "burn" and e["card"]]


def test_same_seeds_same_hand_other_nonce_other_deck():
    a = call_down(deal(SEVEN, [5000] * 3, nonce=1))
    b = call_down(deal(SEVEN, [5000] * 3, nonce=1))
    c = call_down(deal(SEVEN, [5000] * 3, nonce=2))
    assert hand_record(a) == hand_record(b) and cards_out(a) != cards_out(c)
    start_hand(config=SEVEN, seats=seats_of([5000, 5000]), server_seed=SEED, nonce=1)


def test_a_record_without_per_seat_client_seeds_replays_from_the_hands_client_seed():
    state = call_down(deal(SEVEN, [5000] * 3, nonce=12))
    record = hand_record(state)
    for seat in record["seats"]:
        del seat["client_seed"]
    assert replay(record) == state
