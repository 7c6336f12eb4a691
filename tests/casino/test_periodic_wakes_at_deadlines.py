"""Without countdown tasks (``make run``), the periodic loop is the only trigger of every
game's deadlines: it wakes at the soonest one coming up, so a clock that reaches 0 is acted
on then, not at the loop's next round."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.db import connections
from django.utils import timezone

from casino.live import deadlines
from casino.live import periodic as periodic_module
from casino.live.periodic import Periodic, start_in_server, stop_in_server
from poker import replay
from poker.models import PokerHand, PokerTable
from poker.services import poker_sit
from tables.models import Hand
from tables.services.hands import hand_bet
from tables.services.seats import table_sit
from tests.factories import PokerTableFactory


@pytest.fixture(autouse=True)
def _fresh_poker_state():
    replay.forget_all()
    yield
    replay.forget_all()


@pytest.fixture
def poker_table(db):
    return PokerTableFactory(game="seven_stud", preset="2-4")


def _betting_hand(table, make_player) -> Hand:
    """One of two players has bet: the betting window is open."""
    early, late = make_player(), make_player()
    for player in (early, late):
        table_sit(user=player, table_id=table.pk)
    hand_bet(user=early, table_id=table.pk, ante=100, jackpot=False)
    return Hand.objects.get(table=table, state=Hand.State.BETTING)


def _live_poker_hand(poker_table, make_player) -> PokerHand:
    for _ in range(2):
        poker_sit(user=make_player(), table_id=poker_table.pk)
    return PokerHand.objects.get(table=poker_table, state=PokerHand.State.LIVE)


def _deadline_in(model, pk: int, field: str, seconds: float) -> None:
    model.objects.filter(pk=pk).update(**{field: timezone.now() + timedelta(seconds=seconds)})


@pytest.mark.django_db
def test_the_soonest_deadline_of_any_game_is_found(table, make_player, poker_table):
    caribbean = _betting_hand(table, make_player)
    poker = _live_poker_hand(poker_table, make_player)
    _deadline_in(Hand, caribbean.pk, "betting_deadline", 3)
    _deadline_in(PokerHand, poker.pk, "decision_deadline", 2)
    now = timezone.now()

    soonest = deadlines.next_deadline(now, now + timedelta(seconds=10))
    assert soonest == PokerHand.objects.get(pk=poker.pk).decision_deadline

    _deadline_in(Hand, caribbean.pk, "betting_deadline", 1)
    soonest = deadlines.next_deadline(now, now + timedelta(seconds=10))
    assert soonest == Hand.objects.get(pk=caribbean.pk).betting_deadline

    assert deadlines.next_deadline(now, now + timedelta(seconds=0.5)) is None  # none that soon


@pytest.mark.django_db
def test_the_loop_waits_for_the_next_deadline_when_it_is_nearer_than_its_round(
    settings, table, make_player, poker_table
):
    settings.CASINO_TIMERS = "local"
    hand = _betting_hand(table, make_player)
    _live_poker_hand(poker_table, make_player)
    PokerHand.objects.update(decision_deadline=timezone.now() + timedelta(hours=1))
    periodic = Periodic()

    _deadline_in(Hand, hand.pk, "betting_deadline", 60)
    assert periodic.pause(0.5) == 0.5  # nothing within the round

    _deadline_in(Hand, hand.pk, "betting_deadline", 0.3)
    assert 0.2 <= periodic.pause(0.5) <= 0.31  # at the deadline, not at the round's end

    _deadline_in(Hand, hand.pk, "betting_deadline", 0.001)
    assert periodic.pause(0.5) >= periodic_module.SHORTEST_PAUSE  # never a busy loop

    settings.CASINO_TIMERS = "celery"  # the countdown tasks act at the deadlines
    _deadline_in(Hand, hand.pk, "betting_deadline", 0.3)
    assert periodic.pause(0.5) == 0.5


@pytest.mark.django_db
def test_a_round_runs_what_is_due_and_a_failing_search_keeps_the_round(
    settings, monkeypatch, table, make_player, caplog
):
    settings.CASINO_TIMERS = "local"
    hand = _betting_hand(table, make_player)
    Hand.objects.filter(pk=hand.pk).update(betting_deadline=timezone.now() - timedelta(seconds=1))

    def broken(now, until):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(deadlines, "next_deadline", broken)
    assert Periodic().run_round(0.5) == 0.5
    assert Hand.objects.get(pk=hand.pk).state == Hand.State.DECISIONS  # the due window was closed
    assert "finding the next deadline failed" in caplog.text


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_in_the_web_server_a_players_time_runs_out_at_zero_not_at_the_loops_next_round(settings, make_player):
    """Rounds 10 s apart: the clock's 1 s still ends the turn about when it reads 0."""
    settings.CASINO_TIMERS = "local"
    settings.CASINO_PERIODIC_IN_SERVER = True
    table = await database_sync_to_async(PokerTableFactory)(game="seven_stud", preset="2-4")
    await database_sync_to_async(PokerTable.objects.filter(pk=table.pk).update)(act_seconds=1, time_bank_seconds=0)
    players = [await database_sync_to_async(make_player)() for _ in range(2)]
    for user in players:
        await database_sync_to_async(poker_sit)(user=user, table_id=table.pk)
    hand = await database_sync_to_async(PokerHand.objects.get)(table=table, state=PokerHand.State.LIVE)
    assert hand.version == 0 and hand.decision_deadline is not None
    start_in_server(interval=10)
    try:
        loop = asyncio.get_running_loop()
        end = loop.time() + 8
        moved = None
        while loop.time() < end:
            moved = await database_sync_to_async(PokerHand.objects.filter(pk=hand.pk, version__gte=1).first)()
            if moved is not None:
                break
            await asyncio.sleep(0.05)
        acted_at = timezone.now()
    finally:
        await stop_in_server()
        await asyncio.get_running_loop().run_in_executor(periodic_module._THREAD, connections.close_all)
    assert moved is not None, "the time to act ran out and nobody acted on it before the loop's next round"
    late = (acted_at - hand.decision_deadline).total_seconds()
    assert late < 3, f"the time-out came {late:.2f} s after the clock read 0"
