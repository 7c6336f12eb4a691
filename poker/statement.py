"""The poker room's lines on a player's statement, in the player's words (``wallets.statement``).

"Poker buy-in or top-up" / "Buy-in at Seven Card Stud 2-4, seat 3" reads "Bought in at
Seven Card Stud 2-4" / "Seat 3"; a top-up "Topped up at …"; a cash-out "Cashed out from …"
with why ("Seat 3: left the table", "… stood up after sitting out 20 hands"); a hand's
settlement, on a statement that lists it, "Hand 4711 at …: won €3.50" (or lost, or even).
A hand is named by its id, as on the poker pages and in the PokerStars text
(docs/stud-hand-record.md): unique across the room, where the record's per-table number
is not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from django.utils.translation import gettext, gettext_lazy

from casino.money import money
from poker.models import PokerHand, PokerTable
from wallets.models import Leg, Transaction

_POKER_KINDS = (Transaction.Kind.POKER_BUY_IN, Transaction.Kind.POKER_CASH_OUT, Transaction.Kind.POKER_HAND)
_SEAT = re.compile(r", seat (\d+)(?: \((.+)\))?$")
_WHY = {
    "left": gettext_lazy("left the table"),
    "self-excluded": gettext_lazy("stood up (self-exclusion)"),
}


def _seat_and_why(memo: str) -> tuple[str | None, str | None]:
    match = _SEAT.search(memo or "")
    return (match.group(1), match.group(2)) if match else (None, None)


def _why(why: str | None) -> str | None:
    if why is None:
        return None
    if why in _WHY:
        return str(_WHY[why])
    if why.startswith("sat out "):
        return gettext("stood up after sitting out %(hands)s") % {"hands": why.removeprefix("sat out ")}
    return why


def _result(amount: int) -> str:
    if amount > 0:
        return gettext("won %(amount)s") % {"amount": money(amount)}
    if amount < 0:
        return gettext("lost %(amount)s") % {"amount": money(-amount)}
    return gettext("broke even")


def poker_statement_words(transactions: Sequence[Transaction], user) -> dict[int, tuple[str, str]]:
    mine = [t for t in transactions if t.kind in _POKER_KINDS]
    if not mine:
        return {}
    names = dict(PokerTable.objects.filter(pk__in={t.table_ref for t in mine if t.table_ref}).values_list("pk", "name"))
    hand_ids = {t.hand_ref for t in mine if t.kind == Transaction.Kind.POKER_HAND and t.hand_ref}
    hands = set(PokerHand.objects.filter(pk__in=hand_ids).values_list("pk", flat=True)) if hand_ids else set()
    results: dict[int, int] = {}
    if hand_ids:
        legs = Leg.objects.filter(
            transaction__in=[t for t in mine if t.hand_ref in hand_ids],
            account__owner=user,
        ).only("transaction_id", "side", "amount")
        for leg in legs:
            results[leg.transaction_id] = results.get(leg.transaction_id, 0) + leg.signed_amount
    words = {}
    for txn in mine:
        table = names.get(txn.table_ref)
        if table is None:  # not a table of this room any more: the ledger's own words stand
            continue
        seat, why = _seat_and_why(txn.memo)
        details = gettext("Seat %(seat)s") % {"seat": seat} if seat else ""
        if txn.kind == Transaction.Kind.POKER_BUY_IN:
            top_up = ":top_up:" in txn.idempotency_key
            what = (gettext("Topped up at %(table)s") if top_up else gettext("Bought in at %(table)s")) % {
                "table": table
            }
        elif txn.kind == Transaction.Kind.POKER_CASH_OUT:
            what = gettext("Cashed out from %(table)s") % {"table": table}
            if seat and why:
                details = gettext("Seat %(seat)s: %(outcome)s") % {"seat": seat, "outcome": _why(why)}
        else:
            if txn.hand_ref not in hands:
                continue
            what = gettext("Hand %(hand)s at %(table)s: %(result)s") % {
                "hand": txn.hand_ref,
                "table": table,
                "result": _result(results.get(txn.pk, 0)),
            }
            details = gettext("Pots and rake settled")
        words[txn.pk] = (what, details)
    return words
