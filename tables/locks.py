"""Row locks on tables and hands, always taken in the same order, so that writers never deadlock.

Order: the table row, then its hand, then the money (the players' accounts and the
table's house account, ``wallets.locks``); the shared jackpot accounts last. Each step's
reads after the table's lock see what the lock's last holder committed, so nothing they
read moves while the step runs. Every dealer step, every configuration
change that reaches a table and every jackpot pool change that reaches its tables takes
its locks here. Each helper must run inside ``transaction.atomic()``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Subquery

from casino.db import model_from_json
from casino.http.errors import NotFound
from jackpot.models import JackpotPool
from tables.models import Hand, HandSeat, PayTable, Seat, Table
from wallets import responsible
from wallets.locks import PlayerAccounts, player_accounts_for_update, player_accounts_of
from wallets.models import Account, GamingLimit, LimitTier, PlayerProtection

# A hand's step reads in one of two ways, the same rows in the same order of locks: on
# PostgreSQL one call of a function of ``tables/migrations/0005_step_reads.sql`` (one
# round trip, where the ORM's queries are eight: a step's hot path); elsewhere (SQLite)
# those ORM queries. ``tests/tables/test_step_read_paths.py`` holds the two the same.


def _keys(*ids) -> bool:
    """Whether every id given could be a row's key (a 64-bit integer): any other finds nothing."""
    return all(i is None or (type(i) is int and -(2**63) <= i < 2**63) for i in ids)


def _function_read(function: str, *args) -> dict | None:
    """The JSON document a step-read function returns (None: nothing found)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {function}({', '.join(['%s'] * len(args))})", args)
        [document] = cursor.fetchone()
    return None if document is None else json.loads(document, parse_float=Decimal)


def _table_from(document: dict) -> Table:
    """The locked table of a function's read, with its rules, and its seats if it read them."""
    table = model_from_json(Table, document["table"])
    table.tier = model_from_json(LimitTier, document["tier"])
    table.paytable = model_from_json(PayTable, document["paytable"])
    table.pool = model_from_json(JackpotPool, document["pool"])
    if "table_seats" in document:
        table.seats_read = [model_from_json(Seat, row) for row in document["table_seats"]]
    return table


def _money_from(document: dict, table: Table) -> PlayerAccounts:
    return player_accounts_of([model_from_json(Account, row) for row in document["money"]], [table.house_account_id])


def _table_locked(tables, *, with_seats: bool) -> Table | None:
    """The ORM's read: lock the one table of ``tables``, then (statements of their own, whose
    snapshots are taken once the lock is granted) read its rules and its seats."""
    table = tables.select_for_update(of=("self",)).order_by("pk").first()
    if table is None:
        return None
    rules = Table.objects.select_related("tier", "paytable", "pool").order_by().get(pk=table.pk)
    table.tier, table.paytable, table.pool = rules.tier, rules.paytable, rules.pool
    if with_seats:
        table.seats_read = list(Seat.objects.filter(table_id=table.pk).order_by("number"))
    return table


def _money_locked(table: Table, player_ids) -> PlayerAccounts:
    """The ORM's read: the players' accounts and the table's house account, locked."""
    house = [table.house_account_id]
    return player_accounts_of(list(player_accounts_for_update(sorted(set(player_ids)), house)), house)


def table_lock(table_id: int) -> Table:
    """Lock the table row alone (a seat's or the configuration's change); a hand's step
    locks its table with its rules and seats instead (``live_hand_lock``, ``hand_lock``)."""
    table = Table.objects.select_for_update(of=("self",)).filter(pk=table_id).order_by("pk").first()
    if table is None:
        raise NotFound("No such table.", code="table_not_found")
    return table


def tables_lock(tables) -> list[Table]:
    """Lock several tables (a queryset or rows), by primary key: the order two writers share."""
    return list(Table.objects.select_for_update(of=("self",)).filter(pk__in=[t.pk for t in tables]).order_by("pk"))


def hand_lock(hand_id: int, *, at_table: int | None = None) -> tuple[Hand, list[HandSeat], PlayerAccounts]:
    """Lock the hand's table, the hand, then its money: the one order every writer follows.

    Returns the hand, its seats (by seat number, with their players; the step's one copy
    of them, which it changes and saves) and the locked accounts of every player of the
    hand and of the table's house account; ``hand.table`` is the locked table with its
    rules (its seats read when a step needs them). With ``at_table``, a hand of another
    table is not found (and nothing of that table is locked).
    """
    read = hand_read_by_function if connection.vendor == "postgresql" else hand_read_by_orm
    found = read(hand_id, at_table) if _keys(hand_id, at_table) else None
    if found is None:
        raise NotFound("No such hand.", code="hand_not_found")
    return found


def hand_read_by_function(hand_id: int, at_table: int | None):
    document = _function_read("caribbean_hand_lock", hand_id, at_table)
    if document is None:
        return None
    table = _table_from(document)
    hand = model_from_json(Hand, document["hand"])
    hand.table = table
    seats = [model_from_json(HandSeat, row) for row in document["seats"]]
    names = {row["id"]: row["username"] for row in document["players"]}  # the settlement's event names them
    for seat in seats:
        seat.player = get_user_model().from_db(
            connection.alias, ["id", "username"], [seat.player_id, names[seat.player_id]]
        )
    return hand, seats, _money_from(document, table)


def hand_read_by_orm(hand_id: int, at_table: int | None):
    hands = Hand.objects.filter(pk=hand_id)
    if at_table is not None:
        hands = hands.filter(table_id=at_table)
    table = _table_locked(Table.objects.filter(pk=Subquery(hands.values("table_id"))), with_seats=False)
    if table is None:
        return None
    hand = Hand.objects.select_for_update().get(pk=hand_id)
    hand.table = table
    seats = list(HandSeat.objects.filter(hand_id=hand_id).select_related("player").order_by("seat_number"))
    return hand, seats, _money_locked(table, [s.player_id for s in seats])


@dataclass
class LiveHand:
    """What ``live_hand_lock`` read of a table."""

    table: Table  # locked, with its rules and its seats (``seats_read``)
    hand: Hand | None  # its live hand, locked
    seats: list[HandSeat]  # the hand's seats, by seat number
    table_seats: list[Seat]  # the table's seats, by number
    money: PlayerAccounts  # everybody's at the table or in the hand, and the house account's
    stake_facts: responsible.StakeFacts  # the acting player's


def live_hand_lock(table_id: int, *, player_id: int) -> LiveHand:
    """Lock the table, then its live hand (one at most: ``hand_one_live_per_table``), read
    its seats, then lock the money and read ``player_id``'s stake facts: the same order as
    ``hand_lock``."""
    read = live_hand_read_by_function if connection.vendor == "postgresql" else live_hand_read_by_orm
    found = read(table_id, player_id) if _keys(table_id, player_id) else None
    if found is None:
        raise NotFound("No such table.", code="table_not_found")
    return found


def live_hand_read_by_function(table_id: int, player_id: int) -> LiveHand | None:
    document = _function_read("caribbean_live_hand_lock", table_id, player_id)
    if document is None:
        return None
    table = _table_from(document)
    hand = model_from_json(Hand, document["hand"])
    if hand is not None:
        hand.table = table
    return LiveHand(
        table=table,
        hand=hand,
        seats=[model_from_json(HandSeat, row) for row in document["seats"]],
        table_seats=table.seats_read,
        money=_money_from(document, table),
        stake_facts=responsible.StakeFacts(
            model_from_json(PlayerProtection, document["protection"]),
            [model_from_json(GamingLimit, row) for row in document["loss_limits"]],
        ),
    )


def live_hand_read_by_orm(table_id: int, player_id: int) -> LiveHand | None:
    table = _table_locked(Table.objects.filter(pk=table_id), with_seats=True)
    if table is None:
        return None
    hand = Hand.objects.select_for_update().live().filter(table_id=table_id).order_by("-id").first()
    seats = []
    if hand is not None:
        hand.table = table
        seats = list(HandSeat.objects.filter(hand_id=hand.pk).order_by("seat_number"))
    return LiveHand(
        table=table,
        hand=hand,
        seats=seats,
        table_seats=table.seats_read,
        money=_money_locked(table, [s.player_id for s in table.seats_read] + [s.player_id for s in seats]),
        stake_facts=responsible.stake_facts(player_id=player_id),
    )
