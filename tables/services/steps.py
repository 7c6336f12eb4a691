"""What every dealer step shares: one transaction with its events outbox, and the
small writes and reads the steps repeat."""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import contextmanager

from django.db import DatabaseError, connection
from django.db import transaction as db_transaction

from casino.db import model_to_json
from casino.game.paytables import PayTable as CorePayTable
from casino.game.rules import SeatResult, settle_seat
from casino.live.outbox import outbox
from tables.models import Hand, HandSeat, Table
from wallets.locks import PlayerAccounts
from wallets.services import Entry, ledger_post_many


@contextmanager
def step():
    """One dealer step: one transaction; its events go out after commit, in one batch."""
    with db_transaction.atomic(), outbox():
        yield


def table_rules(table: Table) -> Table:
    """Load the (locked) table's tier, pay table and jackpot pool in one query, once (a
    hand's step locks its table with them: ``tables.locks``)."""
    if not Table._meta.get_field("pool").is_cached(table):
        row = Table.objects.select_related("tier", "paytable", "pool").order_by().get(pk=table.pk)
        table.tier, table.paytable, table.pool = row.tier, row.paytable, row.pool
    return table


def hand_paytable(hand: Hand) -> CorePayTable:
    return CorePayTable.from_dict(hand.paytable_data)


def seat_settled(hand: Hand, hand_seat: HandSeat, paytable: CorePayTable | None = None) -> SeatResult:
    """A seat's settlement by the rules (SPEC A5, A6) from what its hand holds: the ante, the
    decision, both hands' strengths and the hand's pay table. The dealer's settlement and
    the auditors' recheck both settle a seat here."""
    return settle_seat(
        ante=hand_seat.ante,
        raised=hand_seat.decision == HandSeat.Decision.RAISE,
        player_strength=hand_seat.strength,
        dealer_strength=hand.dealer_strength,
        paytable=paytable or hand_paytable(hand),
    )


def touch(
    hand: Hand,
    *fields: str,
    seats: list[HandSeat] = (),
    seat_fields: list[str] = (),
    new_seat: HandSeat | None = None,
    post: Sequence[Entry] = (),
    money: PlayerAccounts | None = None,
) -> None:
    """Save a public change of the hand (its public ``version`` moves; never for a private
    one): ``fields`` of the hand, ``seat_fields`` of ``seats``, ``new_seat`` inserted, and
    the step's postings ``post`` against its locked ``money`` (each key used once per hand
    and state, which the hand's lock proves: ``ledger_post_many``'s ``fresh``)."""
    hand.version += 1
    if connection.vendor == "postgresql":
        _write_by_function(hand, fields, seats, seat_fields, new_seat)
    else:
        hand.save_version(*fields)
        for seat in seats:
            seat.save(update_fields=seat_fields)
        if new_seat is not None:
            new_seat.save(force_insert=True)
    if post:
        ledger_post_many(post, locked=money.by_id, fresh=True)


def _write_by_function(hand: Hand, fields, seats: list[HandSeat], seat_fields, new_seat: HandSeat | None) -> None:
    """``touch``'s rows on PostgreSQL, one call of ``caribbean_hand_write``
    (``tables/migrations/0006_step_writes.sql``: a step's hot path; what the ORM writes
    elsewhere, ``tests/tables/test_step_write_paths.py``)."""
    if hand.version_read is None:
        raise DatabaseError(f"hand {hand.pk} was not read from the database")
    changes = {
        "hand": {"id": hand.pk, "version_read": hand.version_read, **model_to_json(hand, ("version", *fields))},
        "seats": [{"id": seat.pk, **model_to_json(seat, seat_fields)} for seat in seats],
        "new_seat": None,
    }
    if new_seat is not None:
        columns = [f.name for f in HandSeat._meta.concrete_fields if not f.primary_key]
        changes["new_seat"] = model_to_json(new_seat, columns, add=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT caribbean_hand_write(%s::jsonb)", [json.dumps(changes)])
        [new_id] = cursor.fetchone()
    hand.version_read = hand.version
    if new_seat is not None:
        new_seat.pk = new_id
