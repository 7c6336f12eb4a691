"""make run's demo data opens one poker table of each game with demo players seated."""

import pytest
from django.core.management import call_command

from poker.models import PokerSeat, PokerTable

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
