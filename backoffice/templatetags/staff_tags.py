"""Template filters of the staff pages (beside ``casino_tags``' money, cards and words).

``{% load staff_tags %}``, then ``{{ names|item:txn.table_ref }}`` (a dict's value, none if
absent) and ``{% if leg.account|is_player_account %}`` (a player's wallet or money in play,
whose owner the auditor's pages link to).
"""

from __future__ import annotations

from django import template

from wallets.models import Account

register = template.Library()

PLAYER_ACCOUNT_KINDS = (Account.Kind.PLAYER_WALLET, Account.Kind.PLAYER_IN_PLAY)


@register.filter
def item(mapping, key):
    return (mapping or {}).get(key)


@register.filter
def is_player_account(account: Account) -> bool:
    return account.kind in PLAYER_ACCOUNT_KINDS
