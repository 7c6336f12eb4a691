"""Row locks on tables and hands, always taken in the same order, so that writers never deadlock.

Order: the table row, then its hand and the money (the players' accounts and the
table's house account), read with the hand's seats in one statement; the shared jackpot
accounts last (``wallets.locks``). Every dealer step, every configuration
change that reaches a table and every jackpot pool change that reaches its tables takes
its locks here. Each helper must run inside ``transaction.atomic()``.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Q, Subquery

from casino.db import Prepared, Together
from casino.errors import NotFound
from jackpot.models import JackpotPool
from tables.models import Hand, HandSeat, PayTable, Seat, Table
from wallets import responsible
from wallets.locks import PlayerAccounts, player_accounts_for_update, player_accounts_of
from wallets.models import LimitTier

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
# Once the table is locked, what a step reads of it and locks of its money, in one
# statement (casino.db.Together). Every writer of a hand, its seats or the table's seats
# holds the table's lock first, so none of these rows moves between the parts and the
# hand's lock never waits. The money is every ordinary account the step may touch: the
# wallets and money in play of everybody at the table (or in the hand) and the table's
# house account, whichever of them the step moves (the shared jackpot accounts are locked
# later, last). An account's lock may wait (a cashier, another table): ``FOR UPDATE``
# then returns the row as its holder committed it.
def _players_at(table_id: int):
    return Seat.objects.filter(table_id=table_id).order_by().values("player_id")


def _live_hand_of(table_id: int):
    return Subquery(Hand.objects.live().filter(table_id=table_id).order_by("-id").values("id")[:1])


# With them, what a deal and a settlement need of the table (``steps.table_rules``: its
# tier, pay table and pool, three rows by key, not locked) and the table's seats (whether
# the next hand opens), so that neither is a statement of its own.
_TABLE_PARTS = {
    "table_seats": lambda table_id: Seat.objects.filter(table_id=table_id).order_by("number"),
    "tier": lambda tier_id: LimitTier.objects.filter(pk=tier_id).order_by(),
    "paytable": lambda paytable_id: PayTable.objects.filter(pk=paytable_id).order_by(),
    "pool": lambda pool_id: JackpotPool.objects.filter(pk=pool_id).order_by(),
}
_HAND_AND_SEATS = Together(
    hand=lambda hand_id: Hand.objects.select_for_update().filter(pk=hand_id).order_by(),
    seats=lambda hand_id: HandSeat.objects.filter(hand_id=hand_id).order_by("seat_number"),
    # Their players' names, for the settlement's public event (built after the commit).
    players=lambda hand_id: get_user_model()
    .objects.filter(pk__in=HandSeat.objects.filter(hand_id=hand_id).values("player_id"))
    .only("id", get_user_model().USERNAME_FIELD)
    .order_by(),
    money=lambda hand_id, house_id: player_accounts_for_update(
        HandSeat.objects.filter(hand_id=hand_id).values("player_id"), [house_id]
    ),
    **_TABLE_PARTS,
)
# A bet's: also the betting player's responsible-gaming facts (``wallets.responsible``).
_LIVE_HAND_AND_SEATS = Together(
    **_TABLE_PARTS,
    hand=lambda table_id: Hand.objects.select_for_update().live().filter(table_id=table_id).order_by("-id"),
    seats=lambda table_id: HandSeat.objects.filter(hand_id=_live_hand_of(table_id)).order_by("seat_number"),
    money=lambda table_id, house_id: player_accounts_for_update(
        _players_at(table_id).union(HandSeat.objects.filter(hand_id=_live_hand_of(table_id)).order_by().values("player_id")),
        [house_id],
    ),
    **responsible.STAKE_FACT_PARTS,
)


def table_lock(table_id: int) -> Table:
    """Lock the table row alone (a join would be planned and built at every step): a
    hand step's one read then brings its tier, pay table, pool and seats (``_TABLE_PARTS``);
    ``tables.services.steps.table_rules`` loads the rules for any other step."""
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
        table = _TABLE_OF_HAND_FOR_UPDATE.first(hand_id=hand_id)
    else:
        table = _TABLE_OF_HAND_AT_FOR_UPDATE.first(hand_id=hand_id, table_id=at_table)
    if table is None:
        raise NotFound("No such hand.", code="hand_not_found")
    reads = _HAND_AND_SEATS.fetch(hand_id=hand_id, **_table_params(table))
    _table_read(table, reads)
    hand = reads["hand"][0]
    hand.table = table
    players = {user.pk: user for user in reads["players"]}
    for hand_seat in reads["seats"]:
        hand_seat.player = players[hand_seat.player_id]
    return hand, reads["seats"], player_accounts_of(reads["money"], [table.house_account_id])


def _table_params(table: Table) -> dict:
    return {
        "table_id": table.pk,
        "house_id": table.house_account_id,
        "tier_id": table.tier_id,
        "paytable_id": table.paytable_id,
        "pool_id": table.pool_id,
    }


def _table_read(table: Table, reads: dict) -> None:
    """What the step's read brought of its locked table: its rules and its seats."""
    table.tier, table.paytable, table.pool = reads["tier"][0], reads["paytable"][0], reads["pool"][0]
    table.seats_read = reads["table_seats"]


@dataclass
class LiveHand:
    """What ``live_hand_lock`` read of a locked table."""

    hand: Hand | None  # its live hand, locked
    seats: list[HandSeat]  # the hand's seats, by seat number
    table_seats: list[Seat]  # the table's seats, by number
    money: PlayerAccounts  # everybody's at the table or in the hand, and the house account's
    stake_facts: responsible.StakeFacts  # the acting player's


def live_hand_lock(table: Table, *, player_id: int) -> LiveHand:
    """The (locked) table's live hand, locked, with its seats, the table's seats, the money
    and ``player_id``'s stake facts, in one statement: the same order as ``hand_lock``."""
    reads = _LIVE_HAND_AND_SEATS.fetch(**_table_params(table), player_id=player_id)
    _table_read(table, reads)
    hand = reads["hand"][0] if reads["hand"] else None
    if hand is not None:
        hand.table = table
    return LiveHand(
        hand=hand,
        seats=reads["seats"] if hand is not None else [],
        table_seats=reads["table_seats"],
        money=player_accounts_of(reads["money"], [table.house_account_id]),
        stake_facts=responsible.StakeFacts.of(reads),
    )
