"""make run's demo data opens one poker table of each game with demo players seated."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from poker.models import PokerHand, PokerSeat, PokerTable
from poker.services import poker_hand_expire, poker_sit, poker_table_create

pytestmark = pytest.mark.django_db


def test_the_demo_opens_every_game_and_seats_players_once():
    call_command("load_demo")
    call_command("load_demo")  # again: nothing twice
    tables = {t.preset for t in PokerTable.objects.all()}
    assert tables == {"seven_stud/2-4", "seven_stud/1-3", "five_stud/1-2", "soko/2-4"}
    for table in PokerTable.objects.all():
        assert table.seats.count() == 2
    assert PokerSeat.objects.filter(player__username="erin").count() == 2
    # The Caribbean demo players keep their whole balance: nobody bought in for them.
    assert not PokerSeat.objects.filter(player__username__in=["alice", "bob", "carol", "dave"]).exists()
    call_command("reconcile_poker")


def _ten_minutes_of_deadlines() -> None:
    """What ``make run``'s deadlines do over ten minutes at tables where nobody plays: each
    turn's deadline (time to act, then the time bank) and each pause before the next hand
    runs out in turn; 15 of them take at least 15 × 40 s."""
    for _ in range(15):
        past = timezone.now() - timedelta(seconds=1)
        PokerHand.objects.filter(state=PokerHand.State.LIVE).update(decision_deadline=past)
        PokerTable.objects.exclude(next_hand_at=None).update(next_hand_at=past)
        for table in PokerTable.objects.all():
            last = PokerHand.objects.filter(table=table).order_by("-number").first()
            if last is not None:
                poker_hand_expire(last.pk)


def test_a_newcomer_after_ten_minutes_finds_the_regulars_with_their_time_banks(make_player):
    call_command("load_demo")
    table = PokerTable.objects.get(preset="seven_stud/2-4")
    _ten_minutes_of_deadlines()
    regulars = list(table.seats.order_by("number"))
    assert [(s.player.username, s.time_bank_ms, s.auto_ante, s.hands_sat_out) for s in regulars] == [
        ("erin", 30_000, True, 0),
        ("frank", 30_000, True, 0),
    ]
    # alone, the regulars were dealt nothing: no hand timed them out, nothing sat them out
    assert not PokerHand.objects.exists()

    newcomer = make_player(username="newcomer")
    poker_sit(user=newcomer, table_id=table.pk)
    hand = PokerHand.objects.get(table=table, state=PokerHand.State.LIVE)
    assert sorted(s["player"] for s in hand.seats) == ["erin", "frank", "newcomer"]
    assert hand.decision_deadline == hand.turn_started_at + timedelta(seconds=table.act_seconds + 30)  # a full bank
    call_command("reconcile_poker")


def test_players_who_are_not_regulars_play_alone_as_before(make_player):
    table = poker_table_create(name="Two players", game="seven_stud", preset="2-4", actor=None)
    for name in ("ann", "ben"):
        poker_sit(user=make_player(username=name), table_id=table.pk)
    assert PokerHand.objects.filter(table=table, state=PokerHand.State.LIVE).count() == 1
