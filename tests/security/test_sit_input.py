"""A sit's input is checked alike at a Caribbean table and a poker table (one home,
``casino.live.seating``): a malformed client seed or seat number gets its stable code and
nothing is created, whichever table refuses it."""

from __future__ import annotations

import pytest

from casino.http.errors import ApplicationError
from poker import replay
from poker.models import PokerSeat
from poker.services import poker_sit
from tables.models import Seat
from tables.services.seats import table_sit
from tests.factories import PokerTableFactory
from wallets.models import Transaction

pytestmark = pytest.mark.django_db

BAD = [
    ({"client_seed": "abc\n"}, "client_seed_invalid"),  # "$" alone would let a trailing newline through
    ({"client_seed": "x" * 65}, "client_seed_invalid"),
    ({"client_seed": "no spaces"}, "client_seed_invalid"),
    ({"client_seed": 42}, "client_seed_invalid"),
    ({"seat_number": True}, "seat_invalid"),
    ({"seat_number": 0}, "seat_invalid"),
    ({"seat_number": "1"}, "seat_invalid"),
]


@pytest.fixture
def tables(table):
    replay.forget_all()
    yield {
        "caribbean": (table_sit, table.pk),
        "poker": (poker_sit, PokerTableFactory(game="seven_stud", preset="2-4").pk),
    }
    replay.forget_all()


@pytest.mark.parametrize("kind", ["caribbean", "poker"])
@pytest.mark.parametrize(
    ("bad", "code"), BAD, ids=[f"{k}={v!r}" for (k, v), _ in ((next(iter(b.items())), c) for b, c in BAD)]
)
def test_a_malformed_sit_is_refused_alike_and_creates_nothing(kind, bad, code, tables, make_player):
    sit, table_id = tables[kind]
    player = make_player()
    before = (Seat.objects.count(), PokerSeat.objects.count(), Transaction.objects.count())
    with pytest.raises(ApplicationError) as refused:
        sit(user=player, table_id=table_id, **bad)
    assert refused.value.code == code
    assert (Seat.objects.count(), PokerSeat.objects.count(), Transaction.objects.count()) == before


@pytest.mark.parametrize("kind", ["caribbean", "poker"])
def test_one_seat_per_player_and_a_seat_taken_names_the_free_ones(kind, tables, make_player):
    sit, table_id = tables[kind]
    alice, bob = make_player(), make_player()
    assert sit(user=alice, table_id=table_id, seat_number=2).number == 2
    with pytest.raises(ApplicationError) as again:
        sit(user=alice, table_id=table_id)
    assert again.value.code == "already_seated"
    with pytest.raises(ApplicationError) as taken:
        sit(user=bob, table_id=table_id, seat_number=2)
    assert taken.value.code == "seat_taken" and taken.value.extra["free_seats"][:2] == [1, 3]
    assert sit(user=bob, table_id=table_id).number == 1  # the lowest free seat
