"""Betting rules of SPEC B3, hand-built from the rule texts: bring-in, completion, the cap,
the open pair rule, spread limit, short all-ins, and every kind of illegal action."""

from __future__ import annotations

from decimal import Decimal

import pytest

from casino.stud.engine import Action, SeatIn, StudError, apply, start_hand
from casino.stud.games import PRESETS, GameConfig, Limit, preset
from tests.stud.engine_rig import SEED, act, custom, deal, rig, seats_of

SEVEN = preset("seven_stud", "5-10")  # ante 0.50, bring-in 2, bets 5 / 10
FIVE = preset("five_stud", "5-10")
SPREAD = preset("seven_stud", "1-3")  # ante 0.25, bring-in 1, any bet 1-3 in 0.25s

THREE = {1: "Kh Qd 2c", 2: "Ah Ad 9s", 3: "7h 7d Ts"}


def actions_of(state, kind=None):
    return [e for e in state.events if e["type"] == "action" and (kind is None or e["action"] == kind)]


# --------------------------------------------------------------------------- presets


def test_presets_are_spec_b1s_table_for_every_game():
    assert len(PRESETS) == 10 * 3 + 2
    table = preset("seven_stud", "15-30")
    assert (table.buy_in, table.ante, table.bring_in, table.limit.small_bet, table.limit.big_bet) == (
        15000,
        200,
        700,
        1500,
        3000,
    )
    assert preset("soko", "2-4").limit == Limit.fixed(200, 400)
    spread = preset("seven_stud", "1-5")
    assert (spread.limit.kind, spread.limit.min_bet, spread.limit.max_bet, spread.limit.unit) == (
        "spread",
        100,
        500,
        25,
    )
    for config in PRESETS.values():
        config.validate()
        assert config.rake.percent == Decimal("5") and config.rake.cap == 300
    with pytest.raises(StudError) as err:
        preset("five_stud", "1-3")  # spread limit is seven_stud only
    assert err.value.code == "config_invalid"


@pytest.mark.parametrize(
    "change",
    [
        {"game": "razz"},
        {"bring_in": 500},  # not less than the small bet
        {"ante": -1},
        {"bring_in_rule": "middle"},
        {"max_seats": 9},
        {"buy_in": 0},
        {"limit": Limit.fixed(1000, 500)},
        {"limit": Limit.spread(100, 300, unit=30)},
    ],
)
def test_nonsense_tables_are_refused(change):
    fields = {
        "game": "seven_stud",
        "name": "x",
        "limit": Limit.fixed(500, 1000),
        "buy_in": 5000,
        "ante": 50,
        "bring_in": 200,
    }
    fields.update(change)
    with pytest.raises(StudError) as err:
        GameConfig(**fields).validate()
    assert err.value.code == "config_invalid"


def test_spread_limit_is_refused_for_five_card_games():
    config = GameConfig(game="soko", name="x", limit=Limit.spread(100, 300), buy_in=3000, ante=25, bring_in=100)
    with pytest.raises(StudError, match="Seven Card Stud only"):
        config.validate()


# --------------------------------------------------------------------------- bring-in


def test_lowest_door_card_brings_in_ties_by_suit_clubs_lowest():
    state = deal(SEVEN, [5000] * 3, {1: "Ah Kh 2d", 2: "Qh Qd 2c", 3: "Js Jd 2h"})
    assert state.to_act == state.bring_in_seat == 2
    legal = state.legal()
    assert legal.actions == {"bring_in", "complete"}
    assert legal.bring_in_amount == 200 and legal.complete_to == (500, 500)
    assert state.events[-2] == {"type": "street", "street": 3, "first_to_act": 2}


def test_highest_rule_brings_in_the_highest_door_card_spades_highest():
    config = custom(rule="highest")
    state = deal(config, [5000] * 3, {1: "2c 3c Ah", 2: "4c 5c As", 3: "6c 7c Kd"})
    assert state.to_act == 2


def test_antes_are_posted_and_a_short_stack_posts_what_it_has():
    state = deal(SEVEN, {1: 5000, 2: 30, 3: 5000}, THREE)
    antes = actions_of(state, "ante")
    assert [(a["seat"], a["amount"]) for a in antes] == [(1, "0.50"), (2, "0.30"), (3, "0.50")]
    assert state.player(2).stack == 0 and state.player(2).all_in
    # the lowest door card among players with chips brings in: seat 1's 2c
    assert state.to_act == 1


def test_bring_in_may_not_check_or_fold():
    state = deal(SEVEN, [5000] * 3, THREE)
    for kind, code in (("check", "check_not_allowed"), ("fold", "fold_not_allowed")):
        with pytest.raises(StudError) as err:
            apply(state, 1, Action(kind))
        assert err.value.code == code


# --------------------------------------------------------------------------- completion and the cap


def test_completion_is_not_a_raise_three_raises_follow_then_the_cap():
    state = deal(SEVEN, [5000] * 3, THREE)
    state = act(state, "1 bring_in", "2 complete 500", "3 raise 1000", "1 raise 1500", "2 raise 2000")
    assert state.raises == 3
    legal = state.legal()
    assert state.to_act == 3 and legal.actions == {"call", "fold"} and legal.raise_to is None
    before = state
    with pytest.raises(StudError) as err:
        apply(state, 3, Action("raise", 2500))
    assert err.value.code == "raise_cap_reached"
    assert state == before
    state = act(state, "3 call", "1 call")
    assert state.street == 4


def test_after_a_bring_in_the_next_player_calls_or_completes_not_raises():
    state = act(deal(SEVEN, [5000] * 3, THREE), "1 bring_in")
    legal = state.legal()
    assert legal.actions == {"call", "fold", "complete"}
    assert legal.call_amount == 200 and legal.complete_to == (500, 500)
    with pytest.raises(StudError):
        apply(state, 2, Action("raise", 700))


def test_no_cap_heads_up():
    state = deal(SEVEN, [20000] * 2, {1: "Kh Qd 2c", 2: "Ah Ad 9s"})
    state = act(state, "1 bring_in", "2 complete 500")
    for n, seat in enumerate([1, 2, 1, 2, 1, 2], start=1):
        state = act(state, f"{seat} raise {500 + 500 * n}")
    assert state.raises == 6 and "raise" in state.legal().actions


def test_cap_lifts_when_a_fold_leaves_two_players():
    state = deal(SEVEN, [20000] * 3, THREE)
    state = act(
        state,
        "1 bring_in",
        "2 complete 500",
        "3 raise 1000",
        "1 fold",
        "2 raise 1500",
        "3 raise 2000",
        "2 raise 2500",
        "3 raise 3000",
    )
    assert state.raises == 5 and "raise" in state.legal().actions


def test_check_raise_is_allowed():
    state = deal(SEVEN, [5000] * 3, {1: "Kh Qd 2c 3d", 2: "Ah Ad 9s 8h", 3: "7h 7d Ts 4c"})
    state = act(state, "1 bring_in", "2 call", "3 call")
    assert state.street == 4 and state.to_act == 3  # T4 showing beats 9-8 and 2-3
    state = act(state, "3 check", "1 bet 500", "2 call", "3 raise 1000")
    assert state.level == 1000 and state.to_act == 1


# --------------------------------------------------------------------------- fixed sizes and the open pair rule


def test_fixed_limit_street_sizes_seven_stud():
    hands = {1: "Kh Qd 2c 3d 4h 8c 9d", 2: "Ah Ad 9s 8h 5s 6s Jc"}
    state = act(deal(SEVEN, [20000] * 2, hands), "1 bring_in", "2 call")
    sizes = {}
    while not state.is_over:
        legal = state.legal()
        if "bet" in legal.actions:
            sizes[state.street] = legal.sizes("bet")
            state = act(state, f"{state.to_act} bet {legal.bet_to[0]}")
        else:
            state = act(state, f"{state.to_act} call")
    assert sizes == {4: (500,), 5: (1000,), 6: (1000,), 7: (1000,)}


def test_open_pair_on_fourth_street_allows_small_or_big_then_big_only():
    hands = {1: "Kh Qd 2c 5d", 2: "Ah Ad 9s 9h"}
    state = act(deal(SEVEN, [20000] * 2, hands), "1 bring_in", "2 call")
    assert state.street == 4 and state.to_act == 2  # the open pair acts first
    legal = state.legal()
    assert legal.bet_to == (500, 1000) and legal.sizes("bet") == (500, 1000) and legal.step == 500
    state = act(state, "2 bet 500")
    assert state.legal().sizes("raise") == (1000, 1500)
    state = act(state, "1 raise 1500")  # a big raise: from now on, big only
    assert state.legal().sizes("raise") == (2500,)
    with pytest.raises(StudError) as err:
        apply(state, 2, Action("raise", 2000))
    assert err.value.code == "bet_size_invalid"


def test_no_open_pair_means_the_small_bet_only_on_fourth_street():
    hands = {1: "Kh Qd 2c 5d", 2: "Ah Ad 9s 8h"}
    state = act(deal(SEVEN, [20000] * 2, hands), "1 bring_in", "2 call")
    assert state.legal().sizes("bet") == (500,)
    with pytest.raises(StudError) as err:
        apply(state, state.to_act, Action("bet", 1000))
    assert err.value.code == "bet_size_invalid"


def test_open_pair_on_five_studs_third_card_then_big_bets():
    hands = {1: "Kh 2c 5d 7s 8s", 2: "Ah 9s 9h Td Jd"}
    state = act(deal(FIVE, [20000] * 2, hands), "1 bring_in", "2 call")
    assert state.street == 3 and state.legal().sizes("bet") == (500, 1000)
    state = act(state, "2 check", "1 check")
    assert state.street == 4 and state.legal().sizes("bet") == (1000,)


# --------------------------------------------------------------------------- spread limit


def test_spread_limit_units_and_min_raise_is_the_previous_bet_or_raise():
    state = deal(SPREAD, [3000] * 2, {1: "Kh Qd 2c", 2: "Ah Ad 9s"})
    legal = state.legal()
    assert legal.complete_to == (125, 300) and legal.step == 25
    state = act(state, "1 bring_in")
    assert state.legal().complete_to == (125, 300)
    with pytest.raises(StudError) as err:
        apply(state, 2, Action("complete", 210))  # not a whole number of 0.25 chips
    assert err.value.code == "bet_size_invalid"
    state = act(state, "2 complete 200")
    assert state.legal().raise_to == (400, 500)  # at least the previous bet (2), at most 3
    state = act(state, "1 raise 450")  # a raise of 2.50
    assert state.legal().raise_to == (700, 750)
    assert len(state.legal().sizes("raise")) == 3
    state = act(state, "2 call")
    assert state.street == 4 and state.legal().bet_to == (100, 300)  # no open pair rule in spread


# --------------------------------------------------------------------------- all-in and reopening


def test_short_all_in_raise_does_not_reopen_raising_for_players_who_acted():
    state = deal(SEVEN, {1: 5000, 2: 5000, 3: 750}, THREE)  # seat 3 has 7.00 after the ante
    state = act(state, "1 bring_in", "2 complete 500")
    legal = state.legal()
    assert "all_in" in legal.actions and legal.all_in_to == 700 and legal.raise_to is None
    state = act(state, "3 all_in", "1 call")  # seat 1 acted before the completion: it may still raise
    legal = state.legal()
    assert state.to_act == 2 and legal.actions == {"call", "fold"} and legal.call_amount == 200
    with pytest.raises(StudError) as err:
        apply(state, 2, Action("raise", 1700))
    assert err.value.code == "raise_not_reopened"


def test_full_all_in_raise_reopens():
    state = deal(SEVEN, {1: 5000, 2: 5000, 3: 1050}, THREE)
    state = act(state, "1 bring_in", "2 complete 500", "3 all_in", "1 call")
    assert state.legal().raise_to == (1500, 1500)


def test_a_call_for_more_than_the_stack_is_an_all_in():
    state = deal(SEVEN, {1: 5000, 2: 5000, 3: 350}, THREE)
    state = act(state, "1 bring_in", "2 complete 500")
    legal = state.legal()
    assert legal.actions == {"fold", "all_in"} and legal.all_in_to == 300
    with pytest.raises(StudError) as err:
        apply(state, 3, Action("call"))
    assert err.value.code == "stack_too_small"
    state = act(state, "3 all_in")
    assert state.player(3).stack == 0 and state.level == 500


# --------------------------------------------------------------------------- folding, turns, illegal actions


def test_a_fold_when_a_check_is_free_is_refused():
    state = act(deal(SEVEN, [5000] * 3, THREE), "1 bring_in", "2 call", "3 call")
    before = state
    with pytest.raises(StudError) as err:
        apply(state, state.to_act, Action("fold"))
    assert err.value.code == "fold_not_allowed"
    assert state == before and "fold" not in state.legal().actions


@pytest.mark.parametrize(
    "seat_offset, action, code",
    [
        (1, Action("bring_in"), "not_your_turn"),
        (0, Action("check"), "check_not_allowed"),
        (0, Action("fold"), "fold_not_allowed"),
        (0, Action("complete", 400), "bet_size_invalid"),
        (0, Action("complete"), "bet_size_invalid"),
        (0, Action("bet", 500), "action_invalid"),
        (0, Action("raise", 1000), "action_invalid"),
        (0, Action("dance"), "action_invalid"),
        (0, Action("bring_in", 200), "action_invalid"),
        (0, Action("timeout", 5), "action_invalid"),
    ],
)
def test_illegal_actions_raise_their_code_and_change_nothing(seat_offset, action, code):
    state = deal(SEVEN, [5000] * 3, THREE)
    before = state
    with pytest.raises(StudError) as err:
        apply(state, state.to_act + seat_offset, action)
    assert err.value.code == code and err.value.message
    assert state == before and state.events == before.events


def test_illegal_actions_facing_a_bet_and_after_the_hand():
    state = act(deal(SEVEN, [5000] * 3, THREE), "1 bring_in", "2 complete 500")
    for action, code in (
        (Action("check"), "check_not_allowed"),
        (Action("call", 500), "action_invalid"),
        (Action("raise", 900), "bet_size_invalid"),
        (Action("all_in"), "action_invalid"),
    ):
        with pytest.raises(StudError) as err:
            apply(state, 3, action)
        assert err.value.code == code
    over = act(state, "3 fold", "1 fold")
    assert over.is_over and over.to_act is None
    with pytest.raises(StudError) as err:
        apply(over, 2, Action("check"))
    assert err.value.code == "hand_over"
    with pytest.raises(StudError) as err:
        over.legal()
    assert err.value.code == "hand_over"


def test_a_hand_needs_two_players_with_chips_in_distinct_seats():
    def start(seats):
        return start_hand(config=SEVEN, seats=seats, server_seed=SEED, nonce=1)

    with pytest.raises(StudError) as err:
        start(seats_of([5000]))
    assert err.value.code == "not_enough_players"
    with pytest.raises(StudError) as err:
        start(seats_of({1: 5000, 2: 0}))
    assert err.value.code == "stack_too_small"
    with pytest.raises(StudError) as err:
        start([SeatIn(1, "a", 5000, "x"), SeatIn(1, "b", 5000, "y")])
    assert err.value.code == "seats_invalid"
    with pytest.raises(StudError) as err:
        start(seats_of({1: 5000, 9: 5000}))
    assert err.value.code == "seats_invalid"
    with pytest.raises(StudError) as err:
        start_hand(config=SEVEN, seats=seats_of([5000] * 2), server_seed="nothex", nonce=1)
    assert err.value.code == "seed_invalid"
    with pytest.raises(StudError) as err:
        start_hand(config=SEVEN, seats=seats_of([5000] * 2), server_seed=SEED, nonce=1, deck=[0] * 52)
    assert err.value.code == "deck_invalid"


def test_rig_helper_deals_what_it_says():
    deck = rig("seven_stud", THREE)
    state = deal(SEVEN, [5000] * 3, THREE)
    assert state.player(2).cards == tuple(deck[i] for i in (1, 4, 7))


def test_facing_an_all_in_with_nobody_else_to_act_only_call_or_fold():
    state = deal(SEVEN, {1: 5000, 2: 5000, 3: 5000}, THREE)
    state = act(state, "1 bring_in", "2 fold", "3 complete 500")
    assert "raise" in state.legal().actions  # heads-up, both with chips: raising is open
    short = deal(SEVEN, {1: 5000, 2: 5000, 3: 450}, THREE)  # seat 3: 4.00 after the ante
    short = act(short, "1 bring_in", "2 fold", "3 all_in")
    legal = short.legal()
    assert short.to_act == 1 and legal.actions == {"call", "fold"} and legal.call_amount == 200
    short = act(short, "1 call")
    assert short.is_over  # nobody left to bet: dealt out to the showdown
    assert [e["first_to_act"] for e in short.events if e["type"] == "street"] == [1, None, None, None, None]


def test_no_raise_that_nobody_could_call():
    # After the antes: seat 1 has 1.50, seat 3 has 1.30. Seat 1 brings in all-in for 1.50:
    # seat 3 could not put in more than that, so seat 2 may only call or fold (a completion
    # would come straight back uncalled).
    state = deal(SEVEN, {1: 200, 2: 5000, 3: 180}, THREE)
    state = act(state, "1 bring_in")
    legal = state.legal()
    assert state.to_act == 2 and legal.actions == {"call", "fold"} and legal.call_amount == 150
