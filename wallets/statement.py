"""The words of a player's statement lines.

The ledger knows each transaction's kind and memo. The app whose transactions they are
(the tables: a hand's bets and settlements) may say them in a player's words: it
registers a describer when it starts (``statement_describer_register``, from its app
config), so the wallets need nothing of it. The wallets word the cashier's desk's own
movements from the requests behind them: the memos the ledger keeps for them (English,
part of the sealed record) are not shown; a note the cashier typed is, as typed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from django.db.models import Q
from django.utils import formats, timezone
from django.utils.translation import gettext

from wallets.models import CashRequest, Transaction

# (the transactions of a statement page, the player) -> {transaction id: (what, details)}
Describer = Callable[[Sequence[Transaction], object], Mapping[int, tuple[str, str]]]

_DESCRIBERS: list[Describer] = []


def statement_describer_register(describer: Describer) -> Describer:
    """Add an app's words for its own transactions (once: a second registration is ignored)."""
    if describer not in _DESCRIBERS:
        _DESCRIBERS.append(describer)
    return describer


def kind_label(kind: str) -> str:
    return Transaction.Kind(kind).label if kind in Transaction.Kind.values else kind


def statement_words(transactions: Sequence[Transaction], *, user) -> dict[int, tuple[str, str]]:
    """What each line says: ``{transaction id: (what, details)}``; the kind's label and the
    memo unless an app's describer words its transaction otherwise."""
    words = {txn.pk: (kind_label(txn.kind), txn.memo) for txn in transactions}
    words.update(_desk_words(transactions))
    for describer in _DESCRIBERS:
        words.update(describer(transactions, user))
    return words


_DESK_MOVES = (Transaction.Kind.DEPOSIT, Transaction.Kind.WITHDRAWAL, Transaction.Kind.REVERSAL)
_DESK_HOLDS = (Transaction.Kind.DESK_HOLD, Transaction.Kind.DESK_RELEASE)


def _desk_words(transactions: Sequence[Transaction]) -> dict[int, tuple[str, str]]:
    """The desk's movements, holds and releases, worded from their requests: a deposit the
    player asked for by its request's time and reference, a reversal by what it undid and
    why, the cashier's note as typed, else where the money moved; a hold and its release by
    what they wait for and how it ended."""
    desk = [t for t in transactions if t.kind in _DESK_MOVES or t.kind in _DESK_HOLDS]
    if not desk:
        return {}
    keys = {t.pk: t.idempotency_key.removeprefix(CashRequest.RELEASE_KEY) for t in desk}
    releases = {int(keys[t.pk]): t.pk for t in desk if t.kind == Transaction.Kind.DESK_RELEASE and keys[t.pk].isdigit()}
    ids = [t.pk for t in desk]
    requests = CashRequest.objects.filter(
        Q(transaction_id__in=ids) | Q(hold_id__in=ids) | Q(pk__in=releases)
    ).select_related("deposit_request", "reverses")
    by_transaction = {}
    for request in requests:
        for txn_id in (request.transaction_id, request.hold_id, releases.get(request.pk)):
            if txn_id is not None:
                by_transaction[txn_id] = request
    words = {}
    for txn in desk:
        request = by_transaction.get(txn.pk)
        if txn.kind == Transaction.Kind.REVERSAL and request is None:
            continue  # not the desk's (a cancelled hand's jackpot bets): the ledger's words
        words[txn.pk] = (kind_label(txn.kind), _desk_details(txn, request))
    return words


def _desk_details(txn: Transaction, request: CashRequest | None) -> str:
    if request is None:
        return gettext("At the cashier's desk")
    if txn.kind == Transaction.Kind.DESK_HOLD:
        if request.kind == CashRequest.Kind.REVERSAL:
            return gettext("A reversal at the cashier's desk, waiting for approval")
        return gettext("A withdrawal at the cashier's desk, waiting for approval")
    if txn.kind == Transaction.Kind.DESK_RELEASE:
        if request.status == CashRequest.Status.REJECTED:
            return gettext("Rejected: back in the wallet")
        if request.kind == CashRequest.Kind.REVERSAL:
            return gettext("Approved: reversed")
        return gettext("Approved: paid out at the cashier's desk")
    if txn.kind == Transaction.Kind.REVERSAL and request.reverses is not None:
        return gettext("%(kind)s of %(when)s reversed: %(reason)s") % {
            "kind": kind_label(request.reverses.kind),
            "when": _when(request.reverses.created_at),
            "reason": request.memo,
        }
    deposit = getattr(request, "deposit_request", None)
    if deposit is not None:
        asked = _when(deposit.requested_at)
        if deposit.reference:
            return gettext("Deposit request of %(asked)s, reference %(reference)s") % {
                "asked": asked,
                "reference": deposit.reference,
            }
        return gettext("Deposit request of %(asked)s") % {"asked": asked}
    return request.memo or gettext("At the cashier's desk")


def _when(at) -> str:
    return formats.date_format(timezone.localtime(at), "SHORT_DATETIME_FORMAT")
