"""Nobody has to press Deal: a poker table with two players ready deals its first hand, and
every later one, by itself, and under ``make run`` the web server's periodic loop enforces
its deadlines, as Celery's countdowns and sweep do at scale.

The first hand is dealt by the step that makes two players ready (the second buy-in, a
sit-in, a top-up, the table's opening), in that step's transaction; each later hand by the
deadline sweeper once the pause after the last one is over.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.core.management import call_command
from django.db import connections
from django.utils import timezone

from casino.http.errors import ApplicationError
from casino.live import periodic as periodic_module
from casino.live.periodic import Periodic, start_in_server, stop_in_server
from casino.stud.engine import TIMEOUT_KINDS
from poker import services
from poker.models import PokerHand, PokerSeat, PokerTable
from poker.services import poker_sit, poker_sit_in, poker_table_close, poker_table_open


def _live(table) -> PokerHand | None:
    return PokerHand.objects.filter(table=table, state=PokerHand.State.LIVE).first()


def _deadline_passes(hand) -> None:
    PokerHand.objects.filter(pk=hand.pk).update(decision_deadline=timezone.now() - timedelta(seconds=1))


def _pause_over(table) -> None:
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() - timedelta(seconds=1))


@pytest.mark.django_db
def test_the_second_buy_in_deals_the_first_hand_and_the_periodic_loop_plays_on(make_player, poker_table):
    alice, bob = make_player(), make_player()
    poker_sit(user=alice, table_id=poker_table.pk)
    assert _live(poker_table) is None  # one player: nothing to deal
    poker_sit(user=bob, table_id=poker_table.pk)
    first = _live(poker_table)
    assert first is not None and first.number == 1 and first.decision_deadline is not None
    periodic = Periodic()
    periodic.run_due()  # the deadline is not reached: nothing happens
    assert PokerHand.objects.get(pk=first.pk).version == 0
    # Nobody acts: the loop's sweeper times out each player to act until the hand ends.
    for _ in range(20):
        hand = PokerHand.objects.get(pk=first.pk)
        if not hand.is_live:
            break
        _deadline_passes(hand)
        periodic.run_due()
    hand = PokerHand.objects.get(pk=first.pk)
    assert hand.state == PokerHand.State.ENDED and {a[1] for a in hand.actions} <= TIMEOUT_KINDS
    # Both are back; the pause passes; the loop deals the second hand with nobody pressing anything.
    assert PokerTable.objects.get(pk=poker_table.pk).next_hand_at == hand.ended_at + services.HAND_PAUSE
    PokerTable.objects.filter(pk=poker_table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))
    for user in (alice, bob):
        poker_sit_in(user=user, table_id=poker_table.pk)
    assert _live(poker_table) is None  # still within the pause
    _pause_over(poker_table)
    periodic.run_due()
    second = _live(poker_table)
    assert second is not None and second.number == 2
    call_command("reconcile_poker")


@pytest.mark.django_db
def test_a_table_opened_with_players_seated_deals_at_once_and_a_closed_one_never(make_player, poker_table):
    alice, bob = make_player(), make_player()
    poker_sit(user=alice, table_id=poker_table.pk)
    poker_table_close(actor=None, table_id=poker_table.pk)
    with pytest.raises(ApplicationError) as refused:
        poker_sit(user=bob, table_id=poker_table.pk)
    assert refused.value.code == "table_closed"
    poker_table_open(actor=None, table_id=poker_table.pk)
    assert _live(poker_table) is None  # one player seated
    poker_sit(user=bob, table_id=poker_table.pk)
    hand = _live(poker_table)
    assert hand is not None
    # Closed during the hand: the hand plays to its end, the sweeper deals no next one.
    poker_table_close(actor=None, table_id=poker_table.pk)
    periodic = Periodic()
    for _ in range(20):
        hand.refresh_from_db()
        if not hand.is_live:
            break
        _deadline_passes(hand)
        periodic.run_due()
    assert not PokerHand.objects.get(pk=hand.pk).is_live
    for user in (alice, bob):
        poker_sit_in(user=user, table_id=poker_table.pk)
    _pause_over(poker_table)
    periodic.run_due()
    assert _live(poker_table) is None and PokerSeat.objects.filter(table=poker_table).count() == 2
    # The manager opens it: the two seated players are dealt in at once.
    poker_table_open(actor=None, table_id=poker_table.pk)
    assert _live(poker_table) is not None
    call_command("reconcile_poker")


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_in_the_web_server_the_periodic_loop_times_out_a_player_with_no_other_process(
    settings, make_player, make_poker_table
):
    """``make run``: no Celery, no countdown task; the server's own loop enforces the clock."""
    settings.CASINO_TIMERS = "local"
    settings.CASINO_PERIODIC_IN_SERVER = True
    table = await database_sync_to_async(make_poker_table)()
    await database_sync_to_async(PokerTable.objects.filter(pk=table.pk).update)(act_seconds=1, time_bank_seconds=0)
    players = [await database_sync_to_async(make_player)() for _ in range(2)]
    for user in players:
        await database_sync_to_async(poker_sit)(user=user, table_id=table.pk)
    hand = await database_sync_to_async(_live)(table)
    assert hand is not None and hand.version == 0
    start_in_server(interval=0.2)
    try:
        loop = asyncio.get_running_loop()
        end = loop.time() + 15
        moved = None
        while loop.time() < end:
            moved = await database_sync_to_async(PokerHand.objects.filter(pk=hand.pk, version__gte=1).first)()
            if moved is not None:
                break
            await asyncio.sleep(0.1)
    finally:
        await stop_in_server()
        # The loop's own thread keeps a connection: close it, or the test database stays in use.
        await asyncio.get_running_loop().run_in_executor(periodic_module._THREAD, connections.close_all)
    assert moved is not None, "the server's loop did not enforce the time to act"
    assert moved.actions[0][0] == hand.to_act and moved.actions[0][1] in TIMEOUT_KINDS


@pytest.fixture
def celery_hand(make_player, poker_table, settings, monkeypatch, django_capture_on_commit_callbacks):
    """Countdown tasks on (each one sent recorded as ((game, hand), eta)), two players sat
    down and their first hand live: ``(hand, players, sent)``."""
    from casino.live import tasks

    settings.CASINO_TIMERS = "celery"
    sent = []
    monkeypatch.setattr(tasks.hand_deadline, "apply_async", lambda args, eta: sent.append((tuple(args), eta)))
    players = [make_player(), make_player()]
    with django_capture_on_commit_callbacks(execute=True):
        for user in players:
            poker_sit(user=user, table_id=poker_table.pk)
    return _live(poker_table), players, sent


@pytest.mark.django_db
def test_on_celery_the_pause_after_a_hand_gets_its_countdown_task(
    celery_hand, poker_table, django_capture_on_commit_callbacks
):
    """Not only beat's sweeper (up to a beat late): the hand's end asks for the next hand's start at its time."""
    from tests.poker.helpers import play_out, seats_of

    hand, players, asked = celery_hand
    with django_capture_on_commit_callbacks(execute=True):
        play_out(hand, seats_of(hand, players))
    poker_table.refresh_from_db()
    assert poker_table.next_hand_at is not None
    assert (("poker", hand.pk), poker_table.next_hand_at) in asked


@pytest.mark.django_db
def test_on_celery_a_turn_still_waiting_gets_its_countdown_from_the_sweep_shortly_before(celery_hand):
    """A turn's time is too far off for its step to send a countdown (most players act in
    time); the sweep that runs shortly before it sends one, once, if the turn still waits."""
    from casino.live.deadlines import sweep_deadlines

    hand, _players, asked = celery_hand
    at = hand.decision_deadline
    assert at - timezone.now() > timedelta(seconds=5) and asked == []
    sweep_deadlines(now=at - timedelta(seconds=5))
    assert asked == []
    sweep_deadlines(now=at - timedelta(seconds=2))
    sweep_deadlines(now=at - timedelta(seconds=1))
    assert asked == [(("poker", hand.pk), at)]
