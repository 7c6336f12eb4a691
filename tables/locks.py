"""Row locks on tables and hands, always taken in the same order, so that writers never deadlock.

Order: the table row, then its hand, then the hand's seats are read, then the money
(``wallets.locks``: the players' accounts and the table's house account in one
statement, the shared jackpot accounts last). Every dealer step, every configuration
change that reaches a table and every jackpot pool change that reaches its tables takes
its locks here. Each helper must run inside ``transaction.atomic()``.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db.models import Q, Subquery

from casino.db import Prepared, Together
from casino.errors import NotFound
from tables.models import Hand, HandSeat, Seat, Table
from wallets.locks import PlayerAccounts, player_accounts_lock

# The queries every step runs, compiled once per connection (casino.db). The table lock:
# OF self and its own ordering, since the model's ordering joins the tier, and FOR UPDATE
# would lock that row too, making every table of a tier wait for each other.
_TABLE_FOR_UPDATE = Prepared(lambda pk: Table.objects.select_for_update(of=("self",)).filter(pk=pk).order_by("pk"))
# A hand's table, locked by the hand's id in one statement (a hand never changes table).
_TABLE_OF_HAND_FOR_UPDATE = Prepared(
    lambda hand_id: Table.objects.select_for_update(of=("self",))
    .filter(pk=Subquery(Hand.objects.filter(pk=hand_id).values("table_id")))
    .order_by("pk")
)
_TABLE_OF_HAND_AT_FOR_UPDATE = Prepared(
    lambda hand_id, table_id: Table.objects.select_for_update(of=("self",))
    .filter(Q(pk=Subquery(Hand.objects.filter(pk=hand_id).values("table_id"))), pk=table_id)
    .order_by("pk")
)
_LIVE_HAND_FOR_UPDATE = Prepared(
    lambda table_id: Hand.objects.select_for_update().live().filter(table_id=table_id).order_by("-id")
)
_HAND_SEATS = Prepared(lambda hand_id: HandSeat.objects.filter(hand_id=hand_id).order_by("seat_number"))
# Once the table is locked, what the step reads of it in one statement (casino.db.Together):
# every writer of a hand, its seats or the table's seats holds the table's lock first, so
# none of these rows moves between the parts, and the hand's lock never waits.
_HAND_AND_SEATS = Together(
    hand=lambda hand_id: Hand.objects.select_for_update().filter(pk=hand_id).order_by(),
    seats=lambda hand_id: HandSeat.objects.filter(hand_id=hand_id).order_by("seat_number"),
)
_LIVE_HAND_AND_SEATS = Together(
    table_seats=lambda table_id: Seat.objects.filter(table_id=table_id).order_by("number"),
    hand=lambda table_id: Hand.objects.select_for_update().live().filter(table_id=table_id).order_by("-id"),
    seats=lambda table_id: HandSeat.objects.filter(
        hand_id=Subquery(Hand.objects.live().filter(table_id=table_id).order_by("-id").values("id")[:1])
    ).order_by("seat_number"),
)


def table_lock(table_id: int) -> Table:
    """Lock the table row alone (a join would be planned and built at every step);
    ``tables.services.steps.table_rules`` loads its tier, pay table and pool for the steps
    that need them."""
    table = _TABLE_FOR_UPDATE.first(pk=table_id)
    if table is None:
        raise NotFound("No such table.", code="table_not_found")
    return table


def tables_lock(tables) -> list[Table]:
    """Lock several tables (a queryset or rows), by primary key: the order two writers share."""
    return list(Table.objects.select_for_update(of=("self",)).filter(pk__in=[t.pk for t in tables]).order_by("pk"))


def table_money_lock(table: Table, player_ids: set[int]) -> PlayerAccounts:
    """Lock, in one statement, every ordinary account this table's step may touch.

    The players' wallets and money in play and the table's house account; the shared
    jackpot accounts are locked later, last. Postings pass ``money.by_id`` to the ledger,
    which then neither locks these rows again nor loses track of their balances. A step
    that moves nobody's money (``player_ids`` empty: a raise that does not settle) locks
    none and costs no statement.
    """
    if not player_ids:
        return PlayerAccounts([])
    return player_accounts_lock(player_ids=player_ids, account_ids=[table.house_account_id])


def _every_player(seats: list[HandSeat]) -> set[int]:
    return {s.player_id for s in seats}


def hand_lock(
    hand_id: int, *, at_table: int | None = None, money_of: Callable[[list[HandSeat]], set[int]] = _every_player
) -> tuple[Hand, list[HandSeat], PlayerAccounts]:
    """Lock the hand's table, the hand, then its money: the one order every writer follows.

    Returns the hand, its seats (by seat number; the step's one copy of them, which it
    changes and saves) and the locked accounts of the players ``money_of(seats)`` names
    (by default every player of the hand). With ``at_table``, a hand of another table is
    not found (and nothing of that table is locked).
    """
    if at_table is None:
        table = _TABLE_OF_HAND_FOR_UPDATE.first(hand_id=hand_id)
    else:
        table = _TABLE_OF_HAND_AT_FOR_UPDATE.first(hand_id=hand_id, table_id=at_table)
    if table is None:
        raise NotFound("No such hand.", code="hand_not_found")
    reads = _HAND_AND_SEATS.fetch(hand_id=hand_id)
    return hand_money_lock(table, reads["hand"][0], reads["seats"], money_of=money_of)


def hand_lock_of(
    table: Table, hand: Hand, *, money_of: Callable[[list[HandSeat]], set[int]] = _every_player
) -> tuple[Hand, list[HandSeat], PlayerAccounts]:
    """``hand_lock`` for a locked table and its locked hand: the seats, then the money."""
    return hand_money_lock(table, hand, _HAND_SEATS.all(hand_id=hand.pk), money_of=money_of)


def hand_money_lock(
    table: Table, hand: Hand, seats: list[HandSeat], *, money_of: Callable[[list[HandSeat]], set[int]] = _every_player
) -> tuple[Hand, list[HandSeat], PlayerAccounts]:
    """The last of ``hand_lock``: the money of the locked hand's players ``money_of`` names."""
    hand.table = table
    return hand, seats, table_money_lock(table, money_of(seats))


def hand_seats_of(hand: Hand) -> list[HandSeat]:
    """The (locked) hand's seats, by seat number."""
    return _HAND_SEATS.all(hand_id=hand.pk)


def live_hand_lock(table: Table) -> Hand | None:
    """The (locked) table's live hand, locked: the same order as ``hand_lock``."""
    return _LIVE_HAND_FOR_UPDATE.first(table_id=table.pk)


def live_hand_lock_with_seats(table: Table) -> tuple[Hand | None, list[HandSeat], list[Seat]]:
    """``live_hand_lock`` with the hand's seats (by seat number) and the table's seats (by
    number), in one statement."""
    reads = _LIVE_HAND_AND_SEATS.fetch(table_id=table.pk)
    hand = reads["hand"][0] if reads["hand"] else None
    return hand, reads["seats"] if hand is not None else [], reads["table_seats"]
