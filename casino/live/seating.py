"""Taking a seat: the checks every table of the house makes alike, a Caribbean table
(``tables.services.seats.table_sit``) and a poker table (``poker.services.poker_sit``).

What is asked (before any lock): the client seed's form and the seat's number. What the
table says (under its row lock, from its seats as ``{number: player_id}``): one seat per
player (``already_seated``), a free seat (``table_full``, in the table's own words), the
seat asked for free (``seat_taken``, with the free ones), or the lowest free seat.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext

from casino.http.errors import Conflict, Translated, ValidationError

CLIENT_SEED_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def sit_request_check(*, client_seed, seat_number, max_seats: int) -> None:
    """Refuse a malformed client seed (``client_seed_invalid``) or seat number (``seat_invalid``)."""
    if client_seed is not None and (not isinstance(client_seed, str) or not CLIENT_SEED_RE.fullmatch(client_seed)):
        raise ValidationError("A client seed is 1 to 64 letters, digits, '-' or '_'.", code="client_seed_invalid")
    if seat_number is not None and (
        isinstance(seat_number, bool) or not isinstance(seat_number, int) or not 1 <= seat_number <= max_seats
    ):
        raise ValidationError(
            Translated(gettext("Seats are numbered 1 to %(seats)s.") % {"seats": max_seats}), code="seat_invalid"
        )


def free_seats(*, taken: dict[int, int], player_id: int, seats: int, full: str) -> list[int]:
    """The free seat numbers of a table of ``seats``; refuses a player already seated there
    and a full table (``full``: the refusal's words)."""
    if player_id in taken.values():
        raise Conflict("You already sit at this table.", code="already_seated")
    free = [n for n in range(1, seats + 1) if n not in taken]
    if not free:
        raise Conflict(full, code="table_full")
    return free


def seat_choose(*, seat_number: int | None, taken: dict[int, int], free: list[int], seats: int) -> int:
    """The seat asked for if it is free, else the lowest free one when none was asked."""
    if seat_number is None:
        return free[0]
    if seat_number > seats:
        raise ValidationError(
            Translated(gettext("This table has seats 1 to %(seats)s.") % {"seats": seats}), code="seat_invalid"
        )
    if seat_number in taken:
        raise Conflict(
            Translated(gettext("Seat %(seat)s is taken.") % {"seat": seat_number}),
            code="seat_taken",
            extra={"free_seats": free},
        )
    return seat_number
