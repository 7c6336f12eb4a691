"""Property tests (hypothesis): chips are conserved after every action; ``legal()`` offers
exactly what ``apply`` accepts; replaying a record rebuilds the same record."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from casino.stud.engine import (
    ACTION_KINDS,
    TIMEOUT_KINDS,
    Action,
    StudError,
    apply,
    cents,
    hand_record,
    replay,
    start_hand,
)
from casino.stud.games import PRESETS, RakeRule
from tests.stud.engine_rig import SEED, seats_of

KEYS = sorted(PRESETS)


@st.composite
def tables(draw):
    config = PRESETS[draw(st.sampled_from(KEYS))]
    rake = RakeRule(
        percent=Decimal(draw(st.sampled_from(["0", "2.5", "5", "10"]))),
        cap=draw(st.sampled_from([0, 300, 10**6])),
        no_first_round=draw(st.booleans()),
    )
    config = dataclasses.replace(config, rake=rake, bring_in_rule=draw(st.sampled_from(["lowest", "highest"])))
    players = draw(st.integers(2, 8))
    unit = config.bring_in
    stack = st.one_of(
        st.just(config.buy_in),
        st.integers(1, config.ante + 2 * unit),  # all in from the ante or the bring-in
        st.integers(1, config.buy_in * 2),
    )
    stacks = draw(st.lists(stack, min_size=players, max_size=players))
    seats = draw(st.lists(st.integers(1, 8), min_size=players, max_size=players, unique=True))
    allowance = {seat: draw(st.booleans()) for seat in seats}
    nonce = draw(st.integers(0, 10**6))
    return config, dict(zip(seats, stacks)), allowance, nonce


def offered(legal, kind, to):
    """What the Legal value says about (kind, to), read only from its fields and sizes()."""
    if kind in TIMEOUT_KINDS:
        return to is None
    if kind not in legal.actions:
        return False
    if kind in ("complete", "bet", "raise"):
        return to in legal.sizes(kind)
    if kind == "all_in":
        return to is None or to == legal.all_in_to
    return to is None


def probes(legal, draw_int):
    """(kind, to) pairs to try: every offered size, and sizes inside and outside the ranges."""
    out = []
    for kind in sorted(ACTION_KINDS):
        out.append((kind, None))
        span = legal.range_of(kind) if kind in ("complete", "bet", "raise") else None
        values = {1, 25, 100, 500, 1000, draw_int}
        if span:
            low, high = span
            values |= {
                low,
                high,
                low - 1,
                high + 1,
                low + 1,
                high - 1,
                low + legal.step,
                high + legal.step,
                (low + high) // 2,
            }
            values |= set(legal.sizes(kind))
        if legal.all_in_to is not None:
            values |= {legal.all_in_to, legal.all_in_to + 1}
        out.extend((kind, v) for v in sorted(values) if v is not None)
    return out


def play(data, config, stacks, allowance, nonce, *, probe: bool):
    state, _ = start_hand(
        config=config, seats=seats_of(stacks), server_seed=SEED, nonce=nonce, all_in_allowance=allowance
    )
    total = sum(stacks.values())
    assert sum(p.stack for p in state.players) + state.pot + state.rake == total
    steps = 0
    while not state.is_over:
        legal = state.legal()
        me = state.player(state.to_act)
        assert me.can_act
        if probe:
            for kind, to in probes(legal, data.draw(st.integers(0, 4000), label="to")):
                try:
                    apply(state, state.to_act, Action(kind, to))
                    accepted = True
                except StudError as err:
                    assert err.code and err.message
                    accepted = False
                assert accepted == offered(legal, kind, to), (kind, to, legal)
            for other in state.players:
                if other.seat != state.to_act:
                    try:
                        apply(state, other.seat, Action("check"))
                        raise AssertionError("a seat acted out of turn")
                    except StudError as err:
                        assert err.code == "not_your_turn"
        choices = [(k, None) for k in sorted(legal.actions) if k not in ("complete", "bet", "raise")]
        choices += [(k, to) for k in ("complete", "bet", "raise") for to in legal.sizes(k)]
        choices.append(("timeout", None))
        kind, to = data.draw(st.sampled_from(choices), label="action")
        before = me.stack
        state, events = apply(state, state.to_act, Action(kind, to))
        acted = events[0]
        assert acted["type"] == "action" and acted["seat"] == me.seat
        if not state.is_over and not any(e["type"] == "return" for e in events):
            assert state.player(me.seat).stack == before - cents(acted["amount"])
        assert sum(p.stack for p in state.players) + state.pot + state.rake == total
        steps += 1
        assert steps < 500
    assert state.pot == 0 and state.to_act is None
    assert sum(p.stack for p in state.players) + state.rake == total
    assert sum(state.net.values()) == -state.rake
    assert state.rake <= config.rake.cap
    return state


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), data=st.data())
def test_legal_is_exactly_what_apply_accepts_and_chips_are_conserved(table, data):
    play(data, *table, probe=True)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), data=st.data())
def test_replaying_a_record_rebuilds_the_same_record(table, data):
    state = play(data, *table, probe=False)
    record = hand_record(state)
    assert hand_record(replay(record)) == record
