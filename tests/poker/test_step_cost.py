"""The cost of a poker action, bounded: the statements one step sends (bench/README.md).

A plain action (the hand goes on, the player acted within their time) is: the table's
lock, the hand's (one at most is live), the table's seats, one UPDATE of the hand's
changed fields, inside BEGIN/COMMIT. More statements than that is a regression of the
room's hot path.
"""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from casino.stud.bots import get_strategy
from poker import replay
from poker.models import PokerHand, PokerSeat, PokerTable
from poker.services import poker_act, poker_hand_start, poker_sit
from tests.poker.helpers import seats_of

pytestmark = pytest.mark.django_db

PLAIN_ACTION_SQL = 6  # BEGIN, table lock, hand lock, seats, hand UPDATE, COMMIT
# + the accounts' lock, the ledger's idempotency read, its transaction and legs, the players'
# hand rows, the table's pause; and one UPDATE per stack that moved
LAST_ACTION_SQL = 12


def _statements(queries) -> list[str]:
    return [q["sql"] for q in queries.captured_queries]


def _play(table, players, *, seed: int):
    """Play one hand through ``poker_act``; (statements, hand after) of every action."""
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))
    hand = poker_hand_start(table_id=table.pk)
    users = seats_of(hand, players)
    rng = random.Random(seed)
    choose = get_strategy("random_legal")
    steps = []
    while hand.is_live:
        state = replay.hand_state(hand)
        action = choose(state, rng)
        with CaptureQueriesContext(connection) as queries:
            hand = poker_act(
                user=users[state.to_act], table_id=table.pk, hand_id=hand.pk, action=action.kind, amount=action.to
            )
        steps.append((_statements(queries), hand))
    return steps


def test_a_plain_action_runs_six_statements_and_the_last_one_eleven(make_player, poker_table):
    players = [make_player() for _ in range(6)]
    PokerTable.objects.filter(pk=poker_table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))
    for user in players:
        poker_sit(user=user, table_id=poker_table.pk)
    for seed in range(2):
        steps = _play(poker_table, players, seed=seed)
        *plain, (last, ended) = steps
        assert plain
        for statements, _ in plain:
            assert len(statements) <= PLAIN_ACTION_SQL, statements
            # The hand's row: the changed fields only, never the seats, seeds or record again.
            updates = [s for s in statements if s.startswith("UPDATE") and "poker_pokerhand" in s]
            assert len(updates) == 1 and "server_seed" not in updates[0]
        assert ended.state == PokerHand.State.ENDED
        assert len(last) <= LAST_ACTION_SQL + len(players), [s[:60] for s in last]


def test_the_saved_fields_are_what_a_reread_hand_holds(make_player, poker_table):
    """Saving only the changed fields loses nothing: the row read back replays to the same
    state, and the stuck-hand clock (``updated_at``) moves at every action."""
    players = [make_player() for _ in range(3)]
    PokerTable.objects.filter(pk=poker_table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))
    for user in players:
        poker_sit(user=user, table_id=poker_table.pk)
    hand = poker_hand_start(table_id=poker_table.pk)
    users = seats_of(hand, players)
    stamp = PokerHand.objects.get(pk=hand.pk).updated_at
    state = replay.hand_state(hand)
    action = get_strategy("random_legal")(state, random.Random(3))
    poker_act(user=users[state.to_act], table_id=poker_table.pk, hand_id=hand.pk, action=action.kind, amount=action.to)
    row = PokerHand.objects.get(pk=hand.pk)
    assert row.updated_at > stamp
    assert row.version == 1 and row.actions == [[state.to_act, action.kind, action.to]]
    replay.forget_all()  # a restarted process: the state from the row alone
    rebuilt = replay.hand_state(row)
    assert rebuilt.to_act == row.to_act and row.decision_deadline is not None
    assert row.server_seed == hand.server_seed and row.seats == hand.seats


def test_an_action_past_the_turn_time_spends_the_time_bank(make_player, poker_table):
    """The seat is written only when it changes: a slow action still spends the time bank."""
    players = [make_player() for _ in range(2)]
    PokerTable.objects.filter(pk=poker_table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))
    for user in players:
        poker_sit(user=user, table_id=poker_table.pk)
    hand = poker_hand_start(table_id=poker_table.pk)
    users = seats_of(hand, players)
    to_act = hand.to_act
    bank = PokerSeat.objects.get(table=poker_table, number=to_act).time_bank_ms
    late = timezone.now() - timedelta(seconds=poker_table.act_seconds + 4)
    PokerHand.objects.filter(pk=hand.pk).update(turn_started_at=late)
    state = replay.hand_state(hand)
    action = get_strategy("random_legal")(state, random.Random(0))
    with CaptureQueriesContext(connection) as queries:
        poker_act(user=users[to_act], table_id=poker_table.pk, hand_id=hand.pk, action=action.kind, amount=action.to)
    spent = bank - PokerSeat.objects.get(table=poker_table, number=to_act).time_bank_ms
    assert 4_000 <= spent < 6_000
    assert any("poker_pokerseat" in s and s.startswith("UPDATE") for s in _statements(queries))


def test_an_older_cached_state_is_carried_forward_only_if_it_starts_the_stored_hand(
    make_player, poker_table, monkeypatch
):
    """Another process made the last steps: this one's cached state (older) is brought up by
    the stored actions it lacks, never used if its own actions are not the stored ones."""
    from dataclasses import replace

    from casino.stud.engine import Action

    players = [make_player() for _ in range(4)]
    PokerTable.objects.filter(pk=poker_table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))
    for user in players:
        poker_sit(user=user, table_id=poker_table.pk)
    hand = poker_hand_start(table_id=poker_table.pk)
    users = seats_of(hand, players)
    rng = random.Random(5)
    choose = get_strategy("random_legal")
    early = None
    for _ in range(4):
        state = replay.hand_state(hand)
        if hand.version == 1:
            early = state
        action = choose(state, rng)
        hand = poker_act(
            user=users[state.to_act], table_id=poker_table.pk, hand_id=hand.pk, action=action.kind, amount=action.to
        )
    assert hand.is_live and early is not None and hand.version == 4
    row = PokerHand.objects.get(pk=hand.pk)
    config = replay.table_config(poker_table)
    truth = replay._built(row, config)

    replay.forget_all()
    replay._put(row.pk, 1, early)
    with monkeypatch.context() as m:
        m.setattr(replay, "_built", lambda *a, **k: pytest.fail("replayed from the start"))
        assert replay.hand_state(row) == truth

    ((seat, first),) = early.actions
    forged = replace(early, actions=((seat, Action("fold" if first.kind != "fold" else "call")),))
    replay.forget_all()
    replay._put(row.pk, 1, forged)
    assert replay.hand_state(row) == truth  # replayed from the row, the forged state unused


def test_the_evaluators_tables_are_built_before_a_step_locks_anything(make_player, poker_table, monkeypatch):
    """Building them takes seconds once a process: never inside a step's transaction, where
    the table is locked (the first showdown of a process used to build them there)."""
    from casino.stud import evaluate

    monkeypatch.setattr(evaluate, "_PLAIN", {})
    monkeypatch.setattr(evaluate, "_PLAIN7", {})
    built_in_transaction = []
    real = evaluate._t.build_without_flush

    def build(size):
        built_in_transaction.append((size, len(connection.atomic_blocks) > outside))  # deeper than the test's own
        return real(size)

    monkeypatch.setattr(evaluate._t, "build_without_flush", build)
    players = [make_player(), make_player()]
    outside = len(connection.atomic_blocks)  # the test's own transaction (pytest-django)
    PokerTable.objects.filter(pk=poker_table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))
    for user in players:
        poker_sit(user=user, table_id=poker_table.pk)
    assert sorted(size for size, _ in built_in_transaction) == [5, 6, 7]
    assert not any(in_transaction for _, in_transaction in built_in_transaction), built_in_transaction
    hand = poker_hand_start(table_id=poker_table.pk)  # and a step after it builds nothing more
    assert len(built_in_transaction) == 3 and hand.is_live


def test_a_table_that_played_thousands_of_hands_finds_its_live_hand_alone(poker_table):
    """Whether the next hand may start reads the table's live hand by its one-live-hand
    index in any plan PostgreSQL keeps (with the state a parameter, it read every hand the
    table ever played)."""
    from django.db import connection as db

    from poker.services import poker_next_hand
    from tests.conftest import require_postgres
    from tests.plans import read_in_any_plan

    require_postgres()
    PokerHand.objects.bulk_create(
        PokerHand(
            table=poker_table,
            number=n,
            server_seed="0" * 64,
            commitment="0" * 64,
            client_seed="",
            seats=[],
            state="ended",
        )
        for n in range(1, 3001)
    )
    with db.cursor() as cursor:
        cursor.execute("ANALYZE poker_pokerhand")

    def after_the_pause():
        PokerTable.objects.filter(pk=poker_table.pk).update(next_hand_at=timezone.now() - timedelta(seconds=1))
        return poker_next_hand(table_id=poker_table.pk)

    started, hands_read = read_in_any_plan(after_the_pause, "poker_pokerhand")
    assert started is None  # nobody seated: no hand
    assert hands_read <= 2
