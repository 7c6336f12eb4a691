"""The once-a-day all-in allowance is one per player across every table (SPEC B3, B4): a
time-out facing a bet spends it at one table, and the player's time-outs at every other
table within 24 hours fold, however close together they come."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from poker import replay
from poker.models import PokerAllowance, PokerHand, PokerTable
from poker.selectors import poker_table_view
from poker.services import poker_hand_start, poker_sit, poker_sit_in, poker_timeout
from tests.conftest import require_postgres, run_together

# Seven card stud, two players: seat 1's door card (the deck's fifth card) is the 2c, the
# lowest, so seat 1 brings in and acts first, facing the forced bring-in (no free check).
DECK = list(range(52))
DECK[0], DECK[4] = DECK[4], DECK[0]


def _table_with(make_poker_table, frank, other):
    table = make_poker_table()
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))
    poker_sit(user=frank, table_id=table.pk)  # seat 1
    poker_sit(user=other, table_id=table.pk)
    return table


def _deal_to_frank(table) -> PokerHand:
    hand = poker_hand_start(table_id=table.pk, deck=DECK)
    assert hand.to_act == 1
    return hand


def _time_out(hand: PokerHand, now):
    PokerHand.objects.filter(pk=hand.pk).update(decision_deadline=now - timedelta(seconds=1))
    return poker_timeout(hand_id=hand.pk, version=hand.version, now=now)


def _timeout_of_seat_1(hand: PokerHand) -> str:
    hand.refresh_from_db()
    [label] = [
        e["action"]
        for e in replay.hand_state(hand).events
        if e["type"] == "action" and e["seat"] == 1 and e["action"].startswith("timeout")
    ]
    return label


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_two_tables_timing_the_same_player_out_at_once_grant_the_allowance_once(make_player, make_poker_table):
    require_postgres()
    frank, alice, bob = make_player(username="frank"), make_player(), make_player()
    tables = [_table_with(make_poker_table, frank, alice), _table_with(make_poker_table, frank, bob)]
    hands = [_deal_to_frank(table) for table in tables]
    now = timezone.now()
    for hand in hands:
        PokerHand.objects.filter(pk=hand.pk).update(decision_deadline=now - timedelta(seconds=1))

    connection.close()  # each thread takes its own connection
    _, errors = run_together(*[lambda h=h: poker_timeout(hand_id=h.pk, version=0, now=now) for h in hands])
    assert errors == [None, None], errors

    labels = sorted(_timeout_of_seat_1(hand) for hand in hands)
    assert labels == ["timeout_all_in", "timeout_fold"]
    protected = hands[[_timeout_of_seat_1(h) for h in hands].index("timeout_all_in")]
    folded = hands[1 - hands.index(protected)]
    protected.refresh_from_db()
    folded.refresh_from_db()
    assert protected.is_live and folded.state == PokerHand.State.ENDED
    assert PokerAllowance.objects.get(player=frank).used_at == now
    for table in tables:
        assert poker_table_view(table=table, user=frank)["you"]["all_in_allowance_left"] is False


@pytest.mark.django_db
def test_protected_at_one_table_a_player_folds_at_another_until_a_day_has_passed(make_player, make_poker_table):
    frank, alice, bob = make_player(username="frank"), make_player(), make_player()
    first = _table_with(make_poker_table, frank, alice)
    second = _table_with(make_poker_table, frank, bob)
    one, two = _deal_to_frank(first), _deal_to_frank(second)  # both dealt while the allowance is left
    t0 = timezone.now()

    _time_out(one, t0)
    assert _timeout_of_seat_1(one) == "timeout_all_in"
    assert poker_table_view(table=second, user=frank)["you"]["all_in_allowance_left"] is False

    _time_out(two, t0 + timedelta(seconds=4))  # 4 s later, at the other table: spent, so a fold
    assert _timeout_of_seat_1(two) == "timeout_fold"
    two.refresh_from_db()
    assert two.state == PokerHand.State.ENDED
    assert PokerAllowance.objects.get(player=frank).used_at == t0  # the fold spent nothing

    # A day later the allowance is back: the next time-out facing a bet is protected again.
    poker_sit_in(user=frank, table_id=second.pk)
    three = _deal_to_frank(second)
    later = t0 + timedelta(hours=24, seconds=1)
    _time_out(three, later)
    assert _timeout_of_seat_1(three) == "timeout_all_in"
    assert PokerAllowance.objects.get(player=frank).used_at == later


@pytest.mark.django_db
def test_a_hand_replayed_from_its_row_keeps_the_fold_of_a_spent_allowance(make_player, make_poker_table):
    """The decision is in the hand's actions: a restarted server (no cached state) rebuilds
    the same fold, and the hand's record replays to it too."""
    frank, alice, bob = make_player(username="frank"), make_player(), make_player()
    first = _table_with(make_poker_table, frank, alice)
    second = _table_with(make_poker_table, frank, bob)
    one, two = _deal_to_frank(first), _deal_to_frank(second)
    t0 = timezone.now()
    _time_out(one, t0)
    _time_out(two, t0 + timedelta(seconds=4))
    replay.forget_all()
    assert _timeout_of_seat_1(one) == "timeout_all_in"
    assert _timeout_of_seat_1(two) == "timeout_fold"
    one.refresh_from_db()
    assert one.actions[0] == [1, "timeout_all_in", None]
