"""A step's write (on PostgreSQL one call of ``caribbean_hand_write``, elsewhere the ORM's
``save()``) stores every column of the hand and its seats: each field changed here,
whatever fields the models gain, reads back as it was set; a hand no longer at the
version its step read, or a seat that is gone, is refused and nothing is written."""

from __future__ import annotations

from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

import pytest
from django.db import DatabaseError, models, transaction

from tables.locks import hand_lock
from tables.models import Hand, HandSeat
from tables.services.hands import hand_bet
from tables.services.seats import table_sit
from tables.services.steps import touch

pytestmark = pytest.mark.django_db

_KEPT = {"id", "table", "hand", "nonce", "seat_number", "player", "state", "decision", "outcome"}  # keys, choices
_AT = datetime(2031, 5, 6, 7, 8, 9, 123456, tzinfo=dt_timezone.utc)


def _changed(obj) -> list[str]:
    """Give every field of ``obj`` but its keys and choices a new value; their names."""
    names = []
    for field in type(obj)._meta.concrete_fields:
        if field.name in _KEPT:
            continue
        value = getattr(obj, field.attname)
        if isinstance(field, models.DateTimeField):
            new = _AT + timedelta(minutes=len(names))
        elif isinstance(field, models.BooleanField):
            new = not value
        elif isinstance(field, models.IntegerField):
            new = (value or 0) + 7
        elif isinstance(field, models.JSONField):
            new = {"changed": [field.name, 1, None, True]}
        elif isinstance(field, (models.CharField, models.TextField)):
            new = "Zé%"[: field.max_length or 3]
        else:
            raise AssertionError(f"no new value for {field.name} ({type(field).__name__})")
        setattr(obj, field.attname, new)
        names.append(field.name)
    return names


def _stored(obj) -> dict:
    fresh = type(obj).objects.get(pk=obj.pk)
    return {f.attname: getattr(fresh, f.attname) for f in type(obj)._meta.concrete_fields}


def _as_set(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


@pytest.fixture
def bet_hand(table, make_player):
    players = [make_player(balance=10_000) for _ in range(3)]
    for player in players:
        table_sit(user=player, table_id=table.pk)
    for player in players[:2]:
        seat = hand_bet(user=player, table_id=table.pk, ante=100, jackpot=False)
    return seat.hand_id, players


def test_every_column_of_a_hand_and_its_seats_is_written_as_set(bet_hand):
    hand_id, players = bet_hand
    with transaction.atomic():
        hand, seats, _ = hand_lock(hand_id)
        hand_fields = [name for name in _changed(hand) if name != "version"]
        seat_fields = _changed(seats[0])
        new_seat = HandSeat(hand=hand, seat_number=3, player=players[2], client_seed="c", ante=100, history_at=_AT)
        new_fields = _changed(new_seat)
        touch(hand, *hand_fields, seats=[seats[0]], seat_fields=seat_fields, new_seat=new_seat)
    assert _stored(hand) == _as_set(hand) and hand.version == _stored(hand)["version"]
    assert _stored(seats[0]) == _as_set(seats[0])
    assert new_seat.pk is not None and _stored(new_seat) == _as_set(new_seat)
    assert {"bet_at", "cards", "net", "decision_deadline"} <= set(seat_fields) & set(new_fields)


def test_a_hand_that_moved_or_a_seat_that_is_gone_writes_nothing(bet_hand):
    hand_id, _ = bet_hand
    before = {
        "hand": _stored(Hand(pk=hand_id)),
        "seats": [_stored(s) for s in HandSeat.objects.filter(hand_id=hand_id)],
    }
    with pytest.raises(DatabaseError), transaction.atomic():
        hand, seats, _ = hand_lock(hand_id)
        Hand.objects.filter(pk=hand_id).update(version=hand.version + 10)  # moved under the step
        seats[0].net = 5
        touch(hand, "client_seed", seats=[seats[0]], seat_fields=["net"])
    with pytest.raises(DatabaseError), transaction.atomic():
        hand, seats, _ = hand_lock(hand_id)
        seats[0].pk = 10**9  # gone
        hand.client_seed = "changed"
        touch(hand, "client_seed", seats=[seats[0]], seat_fields=["net"])
    after = {"hand": _stored(Hand(pk=hand_id)), "seats": [_stored(s) for s in HandSeat.objects.filter(hand_id=hand_id)]}
    assert after == before
