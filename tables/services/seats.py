"""Sitting down at a table and standing up (between hands only); the checks of a sit are
every table's (``casino.live.seating``)."""

from __future__ import annotations

from django.utils.translation import gettext

from casino.access import policy
from casino.game import fair
from casino.game.names import number_word
from casino.game.rules import MAX_SEATS
from casino.http.errors import Conflict, Translated
from casino.live import seating
from tables import events
from tables.locks import table_lock
from tables.models import Seat
from tables.selectors import table_live_hand
from tables.services.hands import hand_open
from tables.services.steps import step
from wallets import responsible
from wallets.services import player_accounts_ensure


def _full() -> str:
    """ "All four seats are taken.", in the reader's language."""
    return Translated(gettext("All %(seats)s seats are taken.") % {"seats": gettext(number_word(MAX_SEATS))})


def table_sit(*, user, table_id: int, seat_number: int | None = None, client_seed: str | None = None) -> Seat:
    policy.require(user, "play")
    seating.sit_request_check(client_seed=client_seed, seat_number=seat_number, max_seats=MAX_SEATS)
    responsible.guard_play(player=user)
    player_accounts_ensure(user=user)
    with step():
        table = table_lock(table_id)
        if not table.is_open:
            raise Conflict("This table is closed.", code="table_closed")
        taken = dict(table.seats.values_list("number", "player_id"))
        free = seating.free_seats(taken=taken, player_id=user.pk, seats=MAX_SEATS, full=_full())
        seat_number = seating.seat_choose(seat_number=seat_number, taken=taken, free=free, seats=MAX_SEATS)
        seat = Seat.objects.create(
            table=table, number=seat_number, player=user, client_seed=client_seed or fair.new_client_seed()
        )
        if table_live_hand(table=table) is None:
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
        hand = table_live_hand(table=table)
        if hand is not None and hand.hand_seats.filter(player=user).exists():
            raise Conflict("You have a bet in the current hand; leave when it is settled.", code="money_in_play")
        seat.delete()
        events.seat_changed(table, seat.number)
