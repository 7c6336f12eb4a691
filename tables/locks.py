"""Row locks on tables and hands, always taken in the same order, so that writers never deadlock.

Order: the table row, then its hand and the money (the players' accounts and the
table's house account), read with the hand's seats in the next statement; the shared jackpot
accounts last (``wallets.locks``). Every dealer step, every configuration
change that reaches a table and every jackpot pool change that reaches its tables takes
its locks here. Each helper must run inside ``transaction.atomic()``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import QuerySet, Subquery

from casino.db import Prepared, Together
from casino.errors import NotFound
from jackpot.models import JackpotPool
from tables.models import Hand, HandSeat, PayTable, Seat, Table
from wallets import responsible
from wallets.locks import PlayerAccounts, player_accounts_for_update, player_accounts_of
from wallets.models import LimitTier

# The queries every step runs, compiled once (casino.db). The table lock: OF self and its
# own ordering, since the model's ordering joins the tier, and FOR UPDATE
# would lock that row too, making every table of a tier wait for each other.
_TABLE_FOR_UPDATE = Prepared(lambda pk: Table.objects.select_for_update(of=("self",)).filter(pk=pk).order_by("pk"))
# A step's read: the table's lock, then in one statement what it reads of the table and
# locks of its money (casino.db.Together), both in one round trip, the first statement of
# the step's transaction. Every writer of a hand, its seats or the table's seats holds
# the table's lock first, and the second statement's snapshot is taken once the lock is
# granted, so none of these rows moves between the parts and the hand's lock never waits.
# The money is every ordinary account the step may touch: the wallets and money in play
# of everybody at the table (or in the hand) and the table's house account, whichever of
# them the step moves (the shared jackpot accounts are locked later, last). An account's
# lock may wait (a cashier, another table): ``FOR UPDATE`` then returns the row as its
# holder committed it. Each part finds its rows from the step's ids alone (the table's
# own columns by a subquery of its row), since both statements go out together.
def _of(rows: Callable[..., QuerySet], build: Callable[[QuerySet], QuerySet]) -> Callable[..., QuerySet]:
    """A part built on ``rows(**ids)`` (a query of one row or none), taking the same ids."""

    def part(**ids) -> QuerySet:
        return build(rows(**ids))

    part.__signature__ = inspect.signature(rows)
    return part


def _column(rows: QuerySet, name: str) -> Subquery:
    """The one value of ``name`` of ``rows`` (no ordering: a table's own joins its tier)."""
    return Subquery(rows.order_by().values(name))


def _table_parts(table: Callable[..., QuerySet]) -> dict:
    """The table's row ``table(**ids)`` finds, locked, then (the next statement) what a
    deal and a settlement need of it (``steps.table_rules``: its tier, pay table and pool,
    not locked) and its seats (whether the next hand opens), so that neither is a
    statement of its own."""
    return {
        "table": _of(table, lambda t: t.select_for_update(of=("self",)).order_by("pk")),
        "table_seats": _of(table, lambda t: Seat.objects.filter(table_id=_column(t, "pk")).order_by("number")),
        "tier": _of(table, lambda t: LimitTier.objects.filter(pk=_column(t, "tier_id")).order_by()),
        "paytable": _of(table, lambda t: PayTable.objects.filter(pk=_column(t, "paytable_id")).order_by()),
        "pool": _of(table, lambda t: JackpotPool.objects.filter(pk=_column(t, "pool_id")).order_by()),
    }


def _hand_and_seats(hand: Callable[..., QuerySet]) -> Together:
    """A step's read of the hand ``hand(**ids)`` finds: its table, the hand, its seats,
    their players and the money."""

    def table(**ids) -> QuerySet:
        return Table.objects.filter(pk=_column(hand(**ids), "table_id"))

    table.__signature__ = inspect.signature(hand)

    def players(h: QuerySet) -> QuerySet:
        return HandSeat.objects.filter(hand_id=_column(h, "pk")).order_by().values("player_id")

    return Together(
        first="table",
        **_table_parts(table),
        hand=_of(hand, lambda h: h.select_for_update().order_by()),
        seats=_of(hand, lambda h: HandSeat.objects.filter(hand_id=_column(h, "pk")).order_by("seat_number")),
        # Their players' names, for the settlement's public event (built after the commit).
        players=_of(
            hand,
            lambda h: get_user_model().objects.filter(pk__in=players(h)).only("id", get_user_model().USERNAME_FIELD).order_by(),
        ),
        money=_of(
            hand,
            lambda h: player_accounts_for_update(
                players(h), Table.objects.filter(pk=_column(h, "table_id")).order_by().values("house_account_id")
            ),
        ),
    )


_HAND_AND_SEATS = _hand_and_seats(lambda hand_id: Hand.objects.filter(pk=hand_id))
_HAND_AT_TABLE_AND_SEATS = _hand_and_seats(lambda hand_id, table_id: Hand.objects.filter(pk=hand_id, table_id=table_id))


def _players_at(table_id: int):
    return Seat.objects.filter(table_id=table_id).order_by().values("player_id")


def _live_hand_of(table_id: int):
    return Subquery(Hand.objects.live().filter(table_id=table_id).order_by("-id").values("id")[:1])


# A bet's: the table's live hand, and the betting player's responsible-gaming facts
# (``wallets.responsible``).
_LIVE_HAND_AND_SEATS = Together(
    first="table",
    **_table_parts(lambda table_id: Table.objects.filter(pk=table_id)),
    hand=lambda table_id: Hand.objects.select_for_update().live().filter(table_id=table_id).order_by("-id"),
    seats=lambda table_id: HandSeat.objects.filter(hand_id=_live_hand_of(table_id)).order_by("seat_number"),
    money=lambda table_id: player_accounts_for_update(
        _players_at(table_id).union(HandSeat.objects.filter(hand_id=_live_hand_of(table_id)).order_by().values("player_id")),
        Table.objects.filter(pk=table_id).order_by().values("house_account_id"),
    ),
    **responsible.STAKE_FACT_PARTS,
)


def table_lock(table_id: int) -> Table:
    """Lock the table row alone (a join would be planned and built at every step);
    ``tables.services.steps.table_rules`` loads its rules when a step needs them. A hand's
    step locks its table with its read instead (``live_hand_lock``, ``hand_lock``)."""
    table = _TABLE_FOR_UPDATE.first(pk=table_id)
    if table is None:
        raise NotFound("No such table.", code="table_not_found")
    return table


def tables_lock(tables) -> list[Table]:
    """Lock several tables (a queryset or rows), by primary key: the order two writers share."""
    return list(Table.objects.select_for_update(of=("self",)).filter(pk__in=[t.pk for t in tables]).order_by("pk"))


def hand_lock(hand_id: int, *, at_table: int | None = None) -> tuple[Hand, list[HandSeat], PlayerAccounts]:
    """Lock the hand's table, the hand, then its money: the one order every writer follows.

    Returns the hand, its seats (by seat number; the step's one copy of them, which it
    changes and saves) and the locked accounts of every player of the hand and of the
    table's house account; ``hand.table`` holds its rules and its ``seats_read``. With
    ``at_table``, a hand of another table is not found (and nothing of that table is
    locked).
    """
    if at_table is None:
        reads = _HAND_AND_SEATS.fetch(hand_id=hand_id)
    else:
        reads = _HAND_AT_TABLE_AND_SEATS.fetch(hand_id=hand_id, table_id=at_table)
    if not reads["table"]:
        raise NotFound("No such hand.", code="hand_not_found")
    table = _table_read(reads)
    hand = reads["hand"][0]
    hand.table = table
    players = {user.pk: user for user in reads["players"]}
    for hand_seat in reads["seats"]:
        hand_seat.player = players[hand_seat.player_id]
    return hand, reads["seats"], player_accounts_of(reads["money"], [table.house_account_id])


def _table_read(reads: dict) -> Table:
    """The locked table of a step's read, with its rules and its seats."""
    [table] = reads["table"]
    table.tier, table.paytable, table.pool = reads["tier"][0], reads["paytable"][0], reads["pool"][0]
    table.seats_read = reads["table_seats"]
    return table


@dataclass
class LiveHand:
    """What ``live_hand_lock`` read of a table."""

    table: Table  # locked, with its rules and its seats (``hand_lock``)
    hand: Hand | None  # its live hand, locked
    seats: list[HandSeat]  # the hand's seats, by seat number
    table_seats: list[Seat]  # the table's seats, by number
    money: PlayerAccounts  # everybody's at the table or in the hand, and the house account's
    stake_facts: responsible.StakeFacts  # the acting player's


def live_hand_lock(table_id: int, *, player_id: int) -> LiveHand:
    """Lock the table, then read its live hand, locked, with its seats, the table's seats,
    the money and ``player_id``'s stake facts: the same order as ``hand_lock``."""
    reads = _LIVE_HAND_AND_SEATS.fetch(table_id=table_id, player_id=player_id)
    if not reads["table"]:
        raise NotFound("No such table.", code="table_not_found")
    table = _table_read(reads)
    hand = reads["hand"][0] if reads["hand"] else None
    if hand is not None:
        hand.table = table
    return LiveHand(
        table=table,
        hand=hand,
        seats=reads["seats"] if hand is not None else [],
        table_seats=reads["table_seats"],
        money=player_accounts_of(reads["money"], [table.house_account_id]),
        stake_facts=responsible.StakeFacts.of(reads),
    )
