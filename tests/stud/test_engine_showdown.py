"""SPEC B3 time-outs, B4 showdown and pots, B1 rake: hand-built scenarios."""

from __future__ import annotations

from casino.stud.engine import Action, apply, hand_record, public_view, replay, start_hand
from casino.stud.games import Limit, RakeRule, preset
from tests.stud.engine_rig import NO_RAKE, SEED, act, custom, deal, rig, seats_of

SEVEN = preset("seven_stud", "5-10")
FIVE = preset("five_stud", "5-10")
SOKO = preset("soko", "2-4")


def check_down(state):
    """Everyone calls or checks to the end."""
    while not state.is_over:
        legal = state.legal()
        kind = "check" if "check" in legal.actions else "call" if "call" in legal.actions else "bring_in"
        state, _ = apply(state, state.to_act, Action(kind))
    return state


def events(state, kind):
    return [e for e in state.events if e["type"] == kind]


# --------------------------------------------------------------------------- side pots and the odd cent

SIDE_HANDS = {
    1: "Ah Kc Ad 9d 5h",  # pair of aces, K 9 5
    2: "Qh Qd 7c 6d 3s",  # pair of queens
    3: "As Ks Ac 9h 5c",  # pair of aces, K 9 5: ties seat 1
    4: "Jh Jd 8c 4d 3h",  # pair of jacks
    5: "4c 2c",  # the bring-in, folds
}
SIDE_STACKS = {1: 126, 2: 328, 3: 530, 4: 5000, 5: 5000}


def side_pot_hand(rake):
    config = custom("five_stud", small=1000, big=2000, ante=25, bring_in=50, rake=rake)
    state = deal(config, SIDE_STACKS, SIDE_HANDS)
    assert state.to_act == 5
    return act(state, "5 bring_in", "1 all_in", "2 all_in", "3 all_in", "4 call", "5 fold")


def test_three_way_all_in_two_side_pots_and_the_odd_cent_to_the_lowest_seat():
    state = side_pot_hand(NO_RAKE)
    assert state.is_over and state.street == 5  # dealt out: nobody left to bet
    record = hand_record(state)
    assert [(p["amount"], p["eligible"]) for p in record["pots"]] == [
        ("5.79", [1, 2, 3, 4]),
        ("6.06", [2, 3, 4]),
        ("4.04", [3, 4]),
    ]
    main, side1, side2 = record["pots"]
    assert main["winners"] == [1, 3] and main["shares"] == {"1": "2.90", "3": "2.89"}
    assert side1["shares"] == {"3": "6.06"} and side2["shares"] == {"3": "4.04"}
    assert record["net"] == {"1": "1.64", "2": "-3.28", "3": "7.69", "4": "-5.30", "5": "-0.75"}
    assert record["rake"] == "0.00"
    assert sum(p.stack for p in state.players) == sum(SIDE_STACKS.values())


def test_rake_comes_from_the_main_pot_first():
    state = side_pot_hand(RakeRule())
    record = hand_record(state)
    assert record["rake"] == "0.79"  # 5 % of 15.89, rounded down
    main = record["pots"][0]
    assert main["rake"] == "0.79" and main["shares"] == {"1": "2.50", "3": "2.50"}
    assert [p["rake"] for p in record["pots"][1:]] == ["0.00", "0.00"]
    assert events(state, "rake") == [{"type": "rake", "amount": "0.79"}]
    assert sum(p.stack for p in state.players) + state.rake == sum(SIDE_STACKS.values())


def test_auto_muck_at_showdown_losers_after_a_better_hand_are_mucked():
    state = side_pot_hand(NO_RAKE)
    assert events(state, "showdown")[0]["order"] == [1, 2, 3, 4]
    shown = {h["seat"]: h["shown"] for h in state.showdown}
    # seat 2's queens lose the main pot to seat 1's aces but are the first hand shown for
    # side pot 1; seat 4's jacks lose every pot they are in to the hands already shown
    assert shown == {1: True, 2: True, 3: True, 4: False}
    record = hand_record(state)
    mucked = next(h for h in record["showdown"] if h["seat"] == 4)
    assert mucked["cards"] == ["Jh", "Jd", "8c", "4d", "3h"] and mucked["category"] == "one_pair"
    public = public_view(state)
    assert {"seat": 4, "shown": False} in public["showdown"]
    assert "Jh" not in str(public["showdown"])


# Per-pot showdown (SPEC B4): seat 1 is all-in short, so the side pots are the deeper
# stacks' only. A hand shows when it wins or ties a pot its player is in against the hands
# shown so far in that pot; the hands still to come never count.

SHORT_STACKS = {1: 300, 2: 800, 3: 5000}
SHORT_ALL_IN = ("2 bring_in", "3 complete 1000", "1 all_in", "2 all_in")  # seat 3's excess comes back


def per_pot_hand(hands, stacks=SHORT_STACKS, script=SHORT_ALL_IN):
    config = custom("five_stud", small=1000, big=2000, ante=25, bring_in=50, rake=NO_RAKE)
    state = check_down(act(deal(config, stacks, hands), *script))
    record = hand_record(state)
    shown = {h["seat"]: h["shown"] for h in events(state, "showdown")[0]["hands"]}
    return events(state, "showdown")[0]["order"], shown, [(p["eligible"], p["winners"]) for p in record["pots"]]


def test_a_side_pot_hand_shows_when_nothing_in_that_pot_is_shown_yet_though_a_later_hand_beats_it():
    order, shown, pots = per_pot_hand(
        {
            1: "2s Ks Kc 9h 5d",  # kings: shown first, win the main pot
            2: "Qc 3d Jh Jd 4c",  # jacks: lose the main pot, but nobody in the side pot has shown
            3: "Tc 8d Qs Qh 6h",  # queens: beat the jacks shown in the side pot
        }
    )
    assert order == [1, 2, 3]
    assert pots == [([1, 2, 3], [1]), ([2, 3], [3])]
    assert shown == {1: True, 2: True, 3: True}


def test_a_hand_beaten_in_every_pot_it_is_in_by_what_was_shown_is_mucked():
    order, shown, pots = per_pot_hand(
        {
            1: "2s Ks Kc 9h 5d",  # kings
            2: "Qc 3d Jh Jd 4c",  # jacks: first in the side pot
            3: "Tc 8d 9s 9c 6h",  # nines: lose the main pot to the kings, the side pot to the jacks
        }
    )
    assert order == [1, 2, 3]
    assert pots == [([1, 2, 3], [1]), ([2, 3], [2])]
    assert shown == {1: True, 2: True, 3: False}


def test_a_tie_in_a_side_pot_is_shown():
    order, shown, pots = per_pot_hand(
        {
            1: "2s Ks Kc 9h 5d",  # kings
            2: "Qc 3d Jh Jd 4c",  # jacks, Q 4 3
            3: "Qd 3h Js Jc 4s",  # the same jacks: ties the side pot
        }
    )
    assert pots == [([1, 2, 3], [1]), ([2, 3], [2, 3])]
    assert shown == {1: True, 2: True, 3: True}


def test_the_short_stack_shows_when_its_hand_wins_the_main_pot_after_the_side_pot_winner_showed():
    # seats 2 and 3 play on with deep stacks and check down: seat 2 shows first
    stacks = {1: 300, 2: 5000, 3: 5000}
    order, shown, pots = per_pot_hand(
        {
            1: "Kc Ks 9h 5d 2s",  # kings: lose to nothing shown in the main pot, its only pot
            2: "Qc 3d Qd 7h 4c",  # queens: win the side pot
            3: "Jc 8d Js Th 6h",  # jacks: beaten by the queens in both pots
        },
        stacks,
        ("2 bring_in", "3 complete 1000", "1 all_in", "2 call"),
    )
    assert order == [2, 3, 1]
    assert pots == [([1, 2, 3], [1]), ([2, 3], [2])]
    assert shown == {2: True, 3: False, 1: True}


def test_two_side_pots_each_get_their_first_hand_shown():
    order, shown, pots = per_pot_hand(
        {
            1: "2s Ks Kc 9h 5d",  # kings: the main pot
            2: "Qc 3d 7h 7d 4c",  # sevens: first in side pot 1, win it
            3: "Jc 8d 5s 5h Th",  # fives: lose side pot 1 to the sevens, first in side pot 2, win it
            4: "Ac 6c 4h 4s 2d",
        },  # fours: beaten in all three pots by what was shown
        {1: 300, 2: 800, 3: 1500, 4: 5000},
        ("2 bring_in", "3 complete 1000", "4 call", "1 all_in", "2 all_in", "3 all_in", "4 call"),
    )
    assert order == [1, 2, 3, 4]
    assert pots == [([1, 2, 3, 4], [1]), ([2, 3, 4], [2]), ([3, 4], [3])]
    assert shown == {1: True, 2: True, 3: True, 4: False}


def test_a_player_who_chose_always_show_shows_a_losing_hand():
    config = custom("five_stud", small=1000, big=2000, ante=25, bring_in=50, rake=NO_RAKE)
    state, _ = start_hand(
        config=config,
        seats=seats_of(SIDE_STACKS),
        server_seed=SEED,
        nonce=1,
        deck=rig("five_stud", SIDE_HANDS),
        always_show={2},
    )
    state = act(state, "5 bring_in", "1 all_in", "2 all_in", "3 all_in", "4 call", "5 fold")
    assert {h["seat"]: h["shown"] for h in state.showdown} == {1: True, 2: True, 3: True, 4: False}
    record = hand_record(state)
    assert [s["always_show"] for s in record["seats"]] == [False, True, False, False, False]
    assert hand_record(replay(record)) == record


# --------------------------------------------------------------------------- showdown order

ORDER_HANDS = {
    1: "Ah 9d 4s 7c Jd",  # ace high
    2: "Kc 2h 5d 8s Qh",  # king high, the bring-in
    3: "3d Th Ts 6c 6d",  # two pair showing
}


def test_showdown_order_after_a_check_around_starts_with_the_first_to_act():
    state = deal(FIVE, [5000] * 3, ORDER_HANDS)
    state = check_down(act(state, "2 bring_in", "3 call", "1 call"))
    last_street = [e for e in events(state, "street") if e["street"] == 5][0]
    assert last_street["first_to_act"] == 3
    showdown = events(state, "showdown")[0]
    assert showdown["order"] == [3, 1, 2]
    assert [(h["seat"], h["shown"], h["category"]) for h in showdown["hands"]] == [
        (3, True, "two_pair"),
        (1, False, "high_card"),
        (2, False, "high_card"),
    ]
    assert hand_record(state)["pots"][0]["winners"] == [3]


def test_showdown_order_starts_with_the_last_bettor_of_the_final_round():
    state = deal(FIVE, [5000] * 3, ORDER_HANDS)
    state = act(state, "2 bring_in", "3 call", "1 call")
    while state.street < 5:
        state = act(state, f"{state.to_act} check")
    state = act(state, "3 check", "1 bet 1000", "2 call", "3 call")
    showdown = events(state, "showdown")[0]
    assert showdown["order"] == [1, 2, 3]
    assert [h["shown"] for h in showdown["hands"]] == [True, False, True]


def test_soko_four_flush_beats_four_straight_beats_a_pair():
    hands = {1: "2h 7h 9h Kh 4c", 2: "5c 6d 7s 8c Kd", 3: "Ac Ad 3s Jd Qs"}
    state = deal(SOKO, [5000] * 3, hands)
    assert state.to_act == 2  # 6d is the lowest door card
    state = check_down(act(state, "2 bring_in", "3 call", "1 call"))
    categories = {h["seat"]: h["category"] for h in state.showdown}
    assert categories == {1: "four_flush", 2: "four_straight", 3: "one_pair"}
    assert hand_record(state)["pots"][0]["winners"] == [1]
    # without seat 1, the four-straight beats the aces
    state = deal(SOKO, [5000] * 3, {**hands, 1: "2h 7h"})
    state = check_down(act(state, "2 bring_in", "3 call", "1 fold"))
    assert {h["seat"]: h["category"] for h in state.showdown} == {2: "four_straight", 3: "one_pair"}
    assert hand_record(state)["pots"][0]["winners"] == [2]


def test_a_hand_nobody_calls_is_won_without_showing_and_the_bet_goes_back_first():
    state = deal(SEVEN, [5000] * 3, {1: "Kh Qd 2c", 2: "Ah Ad 9s", 3: "7h 7d Ts"})
    state = act(state, "1 bring_in", "2 complete 500", "3 fold", "1 fold")
    assert state.is_over and state.showdown == ()
    tail = [e for e in state.events if e["type"] in ("return", "award", "rake", "end")]
    assert tail == [
        {"type": "return", "seat": 2, "amount": "3.00"},
        {"type": "award", "pot": 0, "seat": 2, "amount": "5.50"},  # 3 antes, the bring-in, its call
        {"type": "end"},
    ]
    assert state.rake == 0  # ended in the first betting round
    assert hand_record(state)["net"] == {"1": "-2.50", "2": "3.00", "3": "-0.50"}


def test_rake_is_never_taken_on_the_uncalled_bet():
    state = deal(SEVEN, [5000] * 2, {1: "Kh Qd 2c 5d", 2: "Ah Ad 9s 9h"})
    state = act(state, "1 bring_in", "2 complete 500", "1 call", "2 bet 1000", "1 fold")
    # the pot is 2 antes + 2 x 5.00 = 11.00 once the 10.00 bet is back: rake 0.55
    assert [e for e in state.events if e["type"] == "return"] == [{"type": "return", "seat": 2, "amount": "10.00"}]
    assert state.rake == 55
    assert hand_record(state)["net"] == {"1": "-5.50", "2": "4.95"}


def test_rake_is_capped_per_hand():
    config = preset("seven_stud", "10-20")
    state = deal(config, [20000] * 2, {1: "Kh Qd 2c 5d 6h 8c 9s", 2: "Ah Ad 9d Th Jc 3s 4s"})
    state = act(state, "1 bring_in", "2 complete 1000", "1 call")
    for _ in range(4):
        state = act(state, f"{state.to_act} bet {state.legal().bet_to[0]}")
        state = act(state, f"{state.to_act} call")
    assert state.is_over and state.rake == 300
    assert sum(p.stack for p in state.players) == 40000 - 300


# --------------------------------------------------------------------------- time-outs


def test_timeout_checks_when_a_check_is_free():
    state = act(
        deal(SEVEN, [5000] * 3, {1: "Kh Qd 2c", 2: "Ah Ad 9s", 3: "7h 7d Ts"}), "1 bring_in", "2 call", "3 call"
    )
    seat = state.to_act
    state, evs = apply(state, seat, Action("timeout"))
    assert evs[0]["action"] == "timeout_check" and not state.player(seat).folded
    assert state.allowance_used == frozenset()


def test_timeout_facing_a_bet_with_an_allowance_is_all_in_protection():
    hands = {1: "Kh Qd 2c 3d 4h 5s 6c", 2: "Ah Ad 9s 8h Tc Jc Qc", 3: "7h 7d Ts 4c 8s Js 2s"}
    state = act(deal(SEVEN, [5000] * 3, hands), "1 bring_in", "2 call", "3 call")
    assert state.to_act == 3
    state = act(state, "3 bet 500")
    state, evs = apply(state, 1, Action("timeout"))
    assert evs[0]["action"] == "timeout_all_in" and evs[0]["amount"] == "0.00"
    assert state.player(1).protected and not state.player(1).folded and state.allowance_used == {1}
    state = check_down(act(state, "2 call"))
    record = hand_record(state)
    # seat 1 paid 2.50 and is eligible for the 7.50 main pot only; 2 and 3 play for the rest
    assert record["pots"][0]["amount"] == "7.50" and record["pots"][0]["eligible"] == [1, 2, 3]
    assert record["pots"][1]["eligible"] == [2, 3]
    assert any(e["action"] == "timeout_all_in" for e in record["events"] if e["type"] == "action")


def test_timeout_without_an_allowance_folds():
    state = deal(SEVEN, [5000] * 3, {1: "Kh Qd 2c", 2: "Ah Ad 9s", 3: "7h 7d Ts"}, allowance={1: True})
    state = act(state, "1 bring_in")
    state, evs = apply(state, 2, Action("timeout"))
    assert evs[0]["action"] == "timeout_fold" and state.player(2).folded


def test_a_second_timeout_in_the_same_hand_folds():
    state = act(deal(SEVEN, [5000] * 3, {1: "Kh Qd 2c", 2: "Ah Ad 9s", 3: "7h 7d Ts"}), "1 bring_in")
    state, _ = apply(state, 2, Action("timeout"))
    assert state.player(2).protected
    state = act(state, "3 complete 500")
    assert state.to_act == 1  # the protected seat is skipped
    state, _ = apply(state, 1, Action("timeout"))
    assert state.player(1).protected
    assert state.allowance_used == {1, 2}


def test_spread_limit_hand_to_showdown_conserves_chips():
    config = custom(limit=Limit.spread(100, 300), ante=25, bring_in=100)
    state = deal(config, [3000] * 3, {1: "Kh Qd 2c", 2: "Ah Ad 9s", 3: "7h 7d Ts"})
    state = act(state, "1 bring_in", "2 complete 300", "3 raise 600", "1 call", "2 call")
    state = check_down(state)
    assert state.is_over and sum(p.stack for p in state.players) + state.rake == 9000
