"""A player whose time-out rule fires is sat out: not dealt the next hand, shown
sitting out, back with "I'm back" (poker_sit_in); a table of only absent players stops."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from casino.http.errors import ApplicationError
from casino.live.deadlines import sweep_deadlines
from casino.stud.engine import TIMEOUT_KINDS
from poker import replay, services
from poker.models import PokerHand, PokerSeat, PokerTable
from poker.selectors import poker_table_view
from poker.services import poker_hand_cancel, poker_hand_start, poker_sit, poker_sit_in
from tests.poker.helpers import play_out, seats_of
from wallets.selectors import wallet_balances

pytestmark = pytest.mark.django_db


def hold(table):
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))


def pause_over(table):
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() - timedelta(seconds=1))


def seat_up(table, players):
    hold(table)
    for user in players:
        poker_sit(user=user, table_id=table.pk)


def time_out_to_act(hand) -> int:
    """Let the deadline of the player to act pass and the sweeper apply the time-out; their user id."""
    hand.refresh_from_db()
    seat = replay.hand_state(hand).to_act
    PokerHand.objects.filter(pk=hand.pk).update(decision_deadline=timezone.now() - timedelta(seconds=1))
    assert sweep_deadlines() >= 1
    hand.refresh_from_db()
    assert hand.actions[-1][0] == seat and hand.actions[-1][1] in TIMEOUT_KINDS
    return next(s["user_id"] for s in hand.seats if s["seat"] == seat)


def finish(hand, players):
    hand.refresh_from_db()
    if hand.is_live:
        play_out(hand, seats_of(hand, players), strategy="calling_station")
    hand.refresh_from_db()
    assert not hand.is_live


def test_a_timed_out_player_is_sat_out_and_not_dealt_the_next_hand(make_player, poker_table):
    players = [make_player() for _ in range(3)]
    seat_up(poker_table, players)
    hand = poker_hand_start(table_id=poker_table.pk)
    absent = time_out_to_act(hand)
    seat = PokerSeat.objects.get(player_id=absent)
    assert seat.sitting_out and not seat.auto_ante
    absent_user = next(u for u in players if u.pk == absent)
    view = poker_table_view(table=poker_table, user=absent_user)
    assert view["you"]["sitting_out"] is True
    assert next(r for r in view["seats"] if r["seat"] == seat.number)["sitting_out"] is True
    spectator = poker_table_view(table=poker_table, user=None)
    assert next(r for r in spectator["seats"] if r["seat"] == seat.number)["sitting_out"] is True
    finish(hand, players)

    pause_over(poker_table)
    sweep_deadlines()
    following = PokerHand.objects.get(table=poker_table, state=PokerHand.State.LIVE)
    assert following.number == hand.number + 1
    assert absent not in {s["user_id"] for s in following.seats}
    assert {s["user_id"] for s in following.seats} == {u.pk for u in players} - {absent}
    assert PokerSeat.objects.get(player_id=absent).hands_sat_out == 1
    finish(following, players)
    call_command("reconcile_poker")


def test_a_player_who_acts_in_time_stays_dealt_in(make_player, poker_table):
    players = [make_player() for _ in range(2)]
    seat_up(poker_table, players)
    hand = poker_hand_start(table_id=poker_table.pk)
    finish(hand, players)
    assert not any(s.sitting_out for s in PokerSeat.objects.filter(table=poker_table))
    pause_over(poker_table)
    sweep_deadlines()
    following = PokerHand.objects.get(table=poker_table, state=PokerHand.State.LIVE)
    assert {s["user_id"] for s in following.seats} == {u.pk for u in players}


def test_sit_in_brings_a_timed_out_player_back(make_player, poker_table):
    players = [make_player() for _ in range(2)]
    seat_up(poker_table, players)
    hand = poker_hand_start(table_id=poker_table.pk)
    absent = time_out_to_act(hand)
    finish(hand, players)
    # Two players, one of them away: no hand starts after the pause; the table waits.
    pause_over(poker_table)
    sweep_deadlines()
    assert not PokerHand.objects.filter(table=poker_table, state=PokerHand.State.LIVE).exists()
    assert PokerTable.objects.get(pk=poker_table.pk).next_hand_at is None

    back = next(u for u in players if u.pk == absent)
    seat = poker_sit_in(user=back, table_id=poker_table.pk)
    assert not seat.sitting_out and seat.hands_sat_out == 0
    assert poker_table_view(table=poker_table, user=back)["you"]["sitting_out"] is False
    # "I'm back" with the pause over deals the next hand at once, with the player in it.
    following = PokerHand.objects.get(table=poker_table, state=PokerHand.State.LIVE)
    assert following.number == hand.number + 1
    assert absent in {s["user_id"] for s in following.seats}
    finish(following, players)
    call_command("reconcile_poker")


def test_a_table_of_only_absent_players_stops_dealing(make_player, poker_table):
    players = [make_player() for _ in range(2)]
    seat_up(poker_table, players)
    hand = poker_hand_start(table_id=poker_table.pk)
    timed_out = set()
    for _ in range(50):  # nobody acts: every step is a time-out until the hand ends
        hand.refresh_from_db()
        if not hand.is_live:
            break
        timed_out.add(time_out_to_act(hand))
    hand.refresh_from_db()
    assert not hand.is_live
    # Whoever was not asked to act before the hand ended (a fold ends it) is still in;
    # a second hand, if one is dealt, times them out too.
    for _ in range(3):
        pause_over(poker_table)
        sweep_deadlines()
        live = PokerHand.objects.filter(table=poker_table, state=PokerHand.State.LIVE).first()
        if live is None:
            break
        for _ in range(50):
            live.refresh_from_db()
            if not live.is_live:
                break
            timed_out.add(time_out_to_act(live))
    assert timed_out, "somebody timed out"
    assert not PokerHand.objects.filter(table=poker_table, state=PokerHand.State.LIVE).exists()
    count = PokerHand.objects.filter(table=poker_table).count()
    assert PokerTable.objects.get(pk=poker_table.pk).next_hand_at is None
    # Time goes by; the sweeper runs again and again: no hand is dealt.
    for _ in range(3):
        pause_over(poker_table)
        sweep_deadlines()
    assert PokerHand.objects.filter(table=poker_table).count() == count
    assert not PokerHand.objects.filter(table=poker_table, state=PokerHand.State.LIVE).exists()
    with pytest.raises(ApplicationError) as refused:
        poker_hand_start(table_id=poker_table.pk)
    assert refused.value.code == "not_enough_players"
    call_command("reconcile_poker")


def test_sat_out_twenty_hands_after_a_time_out_stands_the_player_up(make_player, poker_table):
    players = [make_player() for _ in range(3)]
    seat_up(poker_table, players)
    hand = poker_hand_start(table_id=poker_table.pk)
    absent = time_out_to_act(hand)
    absent_user = next(u for u in players if u.pk == absent)
    finish(hand, players)
    stack = PokerSeat.objects.get(player_id=absent).stack
    wallet_before = wallet_balances(user=absent_user).available
    for number in range(services.SIT_OUT_LIMIT):
        assert PokerSeat.objects.get(player_id=absent).hands_sat_out == number
        hold(poker_table)
        following = poker_hand_start(table_id=poker_table.pk)
        assert absent not in {s["user_id"] for s in following.seats}
        # Each hand dealt without them counts; cancelled, it leaves the others' stacks as they were.
        poker_hand_cancel(hand_id=following.pk, reason="test")
    assert not PokerSeat.objects.filter(player_id=absent).exists()
    assert wallet_balances(user=absent_user).available == wallet_before + stack
    call_command("reconcile_poker")
