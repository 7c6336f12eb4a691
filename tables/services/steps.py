"""What every dealer step shares: one transaction with its events outbox, and the
small writes and reads the steps repeat."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager

from django.db import transaction as db_transaction

from casino.db import Prepared, rows_save
from casino.game.paytables import PayTable as CorePayTable
from casino.live.outbox import outbox
from tables.models import Hand, HandSeat, Table
from wallets.locks import PlayerAccounts
from wallets.services import Entry, ledger_post_many


@contextmanager
def step():
    """One dealer step: one transaction; its events go out after commit, in one batch."""
    with db_transaction.atomic(), outbox():
        yield


# Its own ordering: the model's joins the tier again.
_TABLE_RULES = Prepared(lambda pk: Table.objects.select_related("tier", "paytable", "pool").filter(pk=pk).order_by("pk"))


def table_rules(table: Table) -> Table:
    """Load the (locked) table's tier, pay table and jackpot pool in one query, once."""
    if not Table._meta.get_field("pool").is_cached(table):
        row = _TABLE_RULES.first(pk=table.pk)
        table.tier, table.paytable, table.pool = row.tier, row.paytable, row.pool
    return table


def hand_paytable(hand: Hand) -> CorePayTable:
    return CorePayTable.from_dict(hand.paytable_data)


def touch(
    hand: Hand,
    *fields: str,
    seats: list[HandSeat] = (),
    seat_fields: list[str] = (),
    new_seat: HandSeat | None = None,
    post: Sequence[Entry] = (),
    money: PlayerAccounts | None = None,
) -> None:
    """Save a public change of the hand: its public ``version`` moves (never for a private
    one). In the same statement: ``seat_fields`` of ``seats``, ``new_seat`` inserted, and
    the step's postings ``post`` against its locked ``money`` (each key used once per hand
    and state, which the hand's lock proves: ``ledger_post_many``'s ``fresh``).

    The statement goes with the step's COMMIT when no other follows it (``rows_save``'s
    ``with_commit``): ``new_seat``'s ``pk`` is set once the step has committed."""
    hand.version += 1
    save = {"insert": new_seat, "update": [([hand], ["version", *fields]), (seats, seat_fields)], "with_commit": True}
    if post:
        ledger_post_many(post, locked=money.by_id, fresh=True, save=save)
    else:
        rows_save(**save)
