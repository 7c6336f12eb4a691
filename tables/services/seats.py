"""Sitting down at a table and standing up (between hands only)."""

from __future__ import annotations

import re

from casino import policy
from casino.errors import Conflict, ValidationError
from casino.game import fair
from casino.game.rules import MAX_SEATS
from tables import events
from tables.locks import table_lock
from tables.models import Seat
from tables.services.hands import hand_open
from tables.services.steps import step
from wallets import responsible
from wallets.services import player_accounts_ensure

CLIENT_SEED_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def table_sit(*, user, table_id: int, seat_number: int | None = None, client_seed: str | None = None) -> Seat:
    policy.require(user, "play")
    if client_seed is not None and not CLIENT_SEED_RE.match(client_seed):
        raise ValidationError(
            "A client seed is 1 to 64 letters, digits, '-' or '_'.", code="client_seed_invalid"
        )
    if seat_number is not None and not (isinstance(seat_number, int) and 1 <= seat_number <= MAX_SEATS):
        raise ValidationError(f"Seats are numbered 1 to {MAX_SEATS}.", code="seat_invalid")
    responsible.guard_play(player=user)
    player_accounts_ensure(user=user)
    with step():
        table = table_lock(table_id)
        if not table.is_open:
            raise Conflict("This table is closed.", code="table_closed")
        taken = dict(table.seats.values_list("number", "player_id"))
        if user.pk in taken.values():
            raise Conflict("You already sit at this table.", code="already_seated")
        free = [n for n in range(1, MAX_SEATS + 1) if n not in taken]
        if not free:
            raise Conflict("All four seats are taken.", code="table_full")
        if seat_number is None:
            seat_number = free[0]
        elif seat_number in taken:
            raise Conflict(f"Seat {seat_number} is taken.", code="seat_taken", extra={"free_seats": free})
        seat = Seat.objects.create(
            table=table, number=seat_number, player=user, client_seed=client_seed or fair.new_client_seed()
        )
        if table.hands.live().first() is None:
            hand_open(table=table)
        events.seat_changed(table, seat_number)
        return seat


def table_leave(*, user, table_id: int) -> None:
    """Stand up between hands; never with money in play at this table."""
    with step():
        table = table_lock(table_id)
        seat = table.seats.filter(player=user).first()
        if seat is None:
            raise Conflict("You do not sit at this table.", code="not_seated")
        hand = table.hands.live().first()
        if hand is not None and hand.hand_seats.filter(player=user).exists():
            raise Conflict("You have a bet in the current hand; leave when it is settled.", code="money_in_play")
        seat.delete()
        events.seat_changed(table, seat.number)
