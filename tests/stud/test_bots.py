"""The bots choose only among what the engine offers, repeat under a seed, and play their style."""

from __future__ import annotations

import hashlib
import random
from collections import Counter

import pytest

from casino.stud.bots import STRATEGIES, aggressive, calling_station, get_strategy, random_legal, tight
from casino.stud.engine import SeatIn, apply, hand_record, start_hand
from casino.stud.games import preset

TABLES = [("seven_stud", "5-10"), ("five_stud", "5-10"), ("soko", "2-4"), ("seven_stud", "1-3")]


def _seats(config, players: int, stacks=None) -> list[SeatIn]:
    return [
        SeatIn(seat=s, player=f"p{s}", stack=(stacks[s - 1] if stacks else config.buy_in), client_seed=f"c{s}")
        for s in range(1, players + 1)
    ]


def _play(config, players, strategy_of, hand, rng, stacks=None, watch=None):
    seed = hashlib.sha256(f"bots:{config.game}:{config.name}:{hand}".encode()).hexdigest()
    state, _ = start_hand(config=config, seats=_seats(config, players, stacks), server_seed=seed, nonce=hand)
    while not state.is_over:
        seat = state.to_act
        legal = state.legal()
        action = strategy_of(seat)(state, rng)
        assert legal.allows(action), (action, legal)
        if watch is not None:
            watch(state, legal, action)
        state, _ = apply(state, seat, action)
    return state


@pytest.mark.parametrize("name", sorted(STRATEGIES))
@pytest.mark.parametrize("game,table", TABLES)
def test_every_choice_is_legal_and_every_hand_finishes(name, game, table):
    config = preset(game, table)
    rng = random.Random(5)
    strategy = STRATEGIES[name]
    for hand in range(40):
        players = 2 + hand % 7
        stacks = [rng.randrange(config.ante + 1, config.buy_in + 1) for _ in range(players)]
        state = _play(config, players, lambda seat: strategy, hand, rng, stacks=stacks)
        assert state.is_over
        chips = sum(state.stacks.values()) + state.rake
        assert chips == sum(stacks)


def test_a_seeded_generator_gives_the_same_hand_twice():
    config = preset("seven_stud", "1-3")
    records = [hand_record(_play(config, 6, lambda seat: random_legal, 3, random.Random(42))) for _ in range(2)]
    assert records[0] == records[1]
    other = hand_record(_play(config, 6, lambda seat: random_legal, 3, random.Random(43)))
    assert other["events"] != records[0]["events"]


def test_calling_station_never_raises_and_never_folds_while_it_can_call():
    seen = Counter()

    def watch(state, legal, action):
        seen[action.kind] += 1
        assert action.kind not in ("complete", "bet", "raise")
        if action.kind == "fold":
            pytest.fail(f"calling station folded with {sorted(legal.actions)}")

    config = preset("seven_stud", "5-10")
    rng = random.Random(1)
    for hand in range(30):
        _play(config, 4, lambda seat: calling_station, hand, rng, watch=watch)
    assert set(seen) <= {"check", "call", "bring_in", "all_in"} and seen["call"] > 0 and seen["check"] > 0
    assert seen["bring_in"] == 30


def test_aggressive_raises_whenever_it_may_and_with_the_largest_size():
    raised = 0

    def watch(state, legal, action):
        nonlocal raised
        for kind in ("raise", "bet", "complete"):
            if kind in legal.actions:
                assert action.kind == kind and action.to == legal.sizes(kind)[-1]
                raised += 1
                return
        assert action.kind in ("check", "call", "bring_in", "all_in")

    config = preset("five_stud", "5-10")
    rng = random.Random(2)
    for hand in range(20):
        _play(config, 3, lambda seat: aggressive, hand, rng, watch=watch)
    assert raised > 20


def test_tight_folds_junk_facing_a_bet_and_pushes_trips():
    folds = pushes = 0

    def watch(state, legal, action):
        nonlocal folds, pushes
        if state.to_act != 1:
            return
        ranks = Counter(card >> 2 for card in state.player(1).cards)
        if action.kind == "fold":
            folds += 1
            assert max(ranks.values()) == 1, "tight folded a pair"
            assert "check" not in legal.actions
        if max(ranks.values()) >= 3 and legal.actions & {"raise", "bet", "complete"}:
            assert action.kind in ("raise", "bet", "complete")
            pushes += 1

    config = preset("seven_stud", "5-10")
    rng = random.Random(3)
    for hand in range(150):
        _play(config, 5, lambda seat: tight if seat == 1 else aggressive, hand, rng, watch=watch)
    assert folds > 10
    assert pushes > 0


def test_random_legal_explores_every_kind_of_action():
    kinds = Counter()

    def watch(state, legal, action):
        kinds[action.kind] += 1

    config = preset("seven_stud", "1-3")
    rng = random.Random(4)
    for hand in range(60):
        _play(config, 4, lambda seat: random_legal, hand, rng, watch=watch)
    assert {"bring_in", "complete", "bet", "raise", "call", "check", "fold"} <= set(kinds)


def test_an_unknown_strategy_names_the_choices():
    with pytest.raises(ValueError, match="calling_station, tight, aggressive, random_legal"):
        get_strategy("maniac")
