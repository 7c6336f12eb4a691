"""Reading money: balances and statements."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Case, F, QuerySet, Sum, When

from wallets.models import Account, Leg


SIGNED_SUM = Sum(Case(When(side=Leg.Side.CREDIT, then=F("amount")), default=-F("amount")))
"""Credits minus debits of a set of legs."""


@dataclass(frozen=True)
class WalletBalances:
    available: int
    in_play: int

    @property
    def total(self) -> int:
        return self.available + self.in_play


def wallet_balances(*, user) -> WalletBalances:
    balances = dict(
        Account.objects.filter(
            owner=user, kind__in=[Account.Kind.PLAYER_WALLET, Account.Kind.PLAYER_IN_PLAY]
        ).values_list("kind", "balance")
    )
    return WalletBalances(
        available=balances.get(Account.Kind.PLAYER_WALLET, 0), in_play=balances.get(Account.Kind.PLAYER_IN_PLAY, 0)
    )


def wallet_statement(*, user) -> QuerySet[Leg]:
    """Every movement of the player's available money, newest first."""
    return (
        Leg.objects.filter(account__owner=user, account__kind=Account.Kind.PLAYER_WALLET)
        .select_related("transaction")
        .order_by("-id")
    )


def account_balance_from_legs(*, account: Account) -> int:
    """The balance recomputed from the ledger alone (for reconciliation)."""
    return Leg.objects.filter(account=account).aggregate(total=SIGNED_SUM)["total"] or 0
