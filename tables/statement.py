"""A hand's lines on a player's statement, in the player's words (``wallets.statement``).

Each Caribbean line is worded from its facts, the transaction's kind and the player's seat
in its hand, with amounts as the reader writes them; the memo the ledger keeps (English,
part of the sealed record) is not shown. A bet without the jackpot chip is "Ante placed,
raise held" / "Ante €0.50, raise €1.00 held" ("Ante 0,50 €, Raise 1,00 € gehalten"); a
settlement's "Seat 1: dealer_not_qualified" reads "Seat 1: dealer did not qualify"; a fold
"Fold: the held raise returns to the wallet"; a cancelled hand "Hand cancelled: table
closed"; a jackpot prize "Royal flush jackpot prize from Main pool". A line whose seat is
not the reader's keeps the ledger's words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from django.utils.translation import gettext, gettext_lazy

from casino.game.rules import raise_of
from casino.money import money
from casino.templatetags.casino_tags import category_label
from tables.models import HandSeat
from tables.presentation import OUTCOME_LABELS, in_sentence
from wallets.models import Transaction
from wallets.statement import kind_label

_HAND_KINDS = (
    Transaction.Kind.BET,
    Transaction.Kind.HOLD_RELEASE,
    Transaction.Kind.SETTLEMENT,
    Transaction.Kind.REFUND,
    Transaction.Kind.JACKPOT_PRIZE,
)
# Why a hand was cancelled, as ``tables.services`` writes it into the refund's memo.
_CANCEL_REASONS = {"table closed": gettext_lazy("table closed")}
_CANCELLED = re.compile(r"^Hand cancelled: (.*)$", re.DOTALL)
_PRIZE_POOL = re.compile(r" jackpot prize from (.+)$", re.DOTALL)


def hand_statement_words(transactions: Sequence[Transaction], user) -> dict[int, tuple[str, str]]:
    mine = [
        t for t in transactions if t.kind in _HAND_KINDS and t.hand_ref and t.game in (Transaction.Game.CARIBBEAN, "")
    ]
    if not mine:
        return {}
    seats = {
        hs.hand_id: hs
        for hs in HandSeat.objects.filter(player=user, hand_id__in={t.hand_ref for t in mine}).only(
            "hand_id", "seat_number", "ante", "jackpot_bet", "outcome", "category"
        )
    }
    words = {}
    for txn in mine:
        seat = seats.get(txn.hand_ref)
        if seat is not None:
            words[txn.pk] = _hand_line(txn, seat)
    return words


def _hand_line(txn: Transaction, seat: HandSeat) -> tuple[str, str]:
    """(what, details) of one of the player's Caribbean transactions, from its kind and seat."""
    what, details = kind_label(txn.kind), txn.memo
    if txn.kind == Transaction.Kind.BET:
        amounts = {"ante": money(seat.ante), "chip": money(seat.jackpot_bet), "raise": money(raise_of(seat.ante))}
        if seat.jackpot_bet:
            what = gettext("Ante and jackpot chip placed, raise held")
            details = gettext("Ante %(ante)s, jackpot %(chip)s, raise %(raise)s held") % amounts
        else:
            what = gettext("Ante placed, raise held")
            details = gettext("Ante %(ante)s, raise %(raise)s held") % amounts
    elif txn.kind == Transaction.Kind.HOLD_RELEASE:
        details = gettext("Fold: the held raise returns to the wallet")
    elif txn.kind == Transaction.Kind.SETTLEMENT and seat.outcome in OUTCOME_LABELS:
        details = gettext("Seat %(seat)s: %(outcome)s") % {
            "seat": seat.seat_number,
            "outcome": in_sentence(OUTCOME_LABELS[seat.outcome]),
        }
    elif txn.kind == Transaction.Kind.REFUND:
        cancelled = _CANCELLED.match(txn.memo or "")
        if cancelled:
            reason = cancelled.group(1)
            details = gettext("Hand cancelled: %(reason)s") % {"reason": _CANCEL_REASONS.get(reason, reason)}
    elif txn.kind == Transaction.Kind.JACKPOT_PRIZE and seat.category:
        pool = _PRIZE_POOL.search(txn.memo or "")
        if pool:
            details = gettext("%(hand)s jackpot prize from %(pool)s") % {
                "hand": category_label(seat.category),
                "pool": pool.group(1),
            }
    return what, details
