"""The words of a player's statement lines.

The ledger knows each transaction's kind and memo. The app whose transactions they are
(the tables: a hand's bets and settlements) may say them in a player's words: it
registers a describer when it starts (``statement_describer_register``, from its app
config), so the wallets need nothing of it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from wallets.models import Transaction

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
    for describer in _DESCRIBERS:
        words.update(describer(transactions, user))
    return words
