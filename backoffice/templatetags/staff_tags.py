"""Template filters of the staff pages (beside ``casino_tags``' money, cards and words).

``{% load staff_tags %}``, then ``{{ names|item:txn.pk }}`` (a dict's value, none if
absent), ``{% for k, v in flows|sorted_items %}`` and
``{% if leg.account|is_player_account %}`` (a player's wallet or money in play, whose owner
the auditor's pages link to), ``{{ kind|transaction_kind_label }}`` (a transaction kind's words).
"""

from __future__ import annotations

from django import template

from tables.presentation import DECISION_LABELS, OUTCOME_LABELS
from wallets.models import Account
from wallets.statement import kind_label

register = template.Library()

PLAYER_ACCOUNT_KINDS = (Account.Kind.PLAYER_WALLET, Account.Kind.PLAYER_IN_PLAY)


@register.filter
def item(mapping, key):
    return (mapping or {}).get(key)


@register.filter
def sorted_items(mapping) -> list[tuple]:
    """A dict's ``(key, value)`` pairs by key, for a table in a stable order."""
    return sorted((mapping or {}).items())


@register.filter
def is_player_account(account: Account) -> bool:
    return account.kind in PLAYER_ACCOUNT_KINDS


@register.filter
def decision_label(decision: str | None) -> str:
    """A seat's decision in words ("Raised"); none yet -> ``"—"``."""
    return DECISION_LABELS.get(decision or "", "\u2014")


@register.filter
def outcome_label(outcome: str | None) -> str:
    """A seat's result in words ("Dealer did not qualify"); none yet -> ``"—"``."""
    return OUTCOME_LABELS.get(outcome or "", outcome or "\u2014")


@register.filter
def transaction_kind_label(kind: str) -> str:
    """A ledger transaction's kind in words ("Jackpot bets taken"), an unknown code as it is."""
    return kind_label(kind)
