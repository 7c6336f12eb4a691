"""Reading money: balances and statements."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from datetime import timezone as dt_timezone

from django.db.models import Case, F, QuerySet, Sum, When

from casino.db import Prepared
from wallets.models import Account, Leg, Transaction


SIGNED_SUM = Sum(Case(When(side=Leg.Side.CREDIT, then=F("amount")), default=-F("amount")))
"""Credits minus debits of a set of legs."""


@dataclass(frozen=True)
class WalletBalances:
    available: int
    in_play: int

    @property
    def total(self) -> int:
        return self.available + self.in_play


_PLAYER_ACCOUNTS = Prepared(  # read at every nudge of a live table: compiled once (casino.db)
    lambda owner_id: Account.objects.filter(
        owner_id=owner_id, kind__in=[Account.Kind.PLAYER_WALLET, Account.Kind.PLAYER_IN_PLAY]
    ).only("id", "kind", "balance")
)


def wallet_balances(*, user) -> WalletBalances:
    balances = {account.kind: account.balance for account in _PLAYER_ACCOUNTS.all(owner_id=user.pk)}
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


@dataclass(frozen=True)
class CashReport:
    cashier: str
    day: date
    opening: int
    deposits: int
    withdrawals: int
    reversals: int
    closing: int


def cash_report(*, day: date, cashier=None) -> list[CashReport]:
    """The cash in each drawer for a day (UTC): opening, deposits, withdrawals, reversals, closing.

    A drawer is an asset account, so the cash it holds is the negative of its balance.
    """
    start = datetime.combine(day, time.min, tzinfo=dt_timezone.utc)
    end = start + timedelta(days=1)
    drawers = Account.objects.filter(kind=Account.Kind.CASHIER_CASH).select_related("owner").order_by("code")
    if cashier is not None:
        drawers = drawers.filter(owner=cashier)
    reports = []
    for drawer in drawers:
        legs = Leg.objects.filter(account=drawer)
        opening = -(legs.filter(transaction__created_at__lt=start).aggregate(t=SIGNED_SUM)["t"] or 0)
        day_legs = legs.filter(transaction__created_at__gte=start, transaction__created_at__lt=end)
        by_kind = dict(day_legs.values_list("transaction__kind").annotate(t=SIGNED_SUM).order_by())
        deposits = -by_kind.get(Transaction.Kind.DEPOSIT, 0)
        withdrawals = by_kind.get(Transaction.Kind.WITHDRAWAL, 0)
        reversals = -by_kind.get(Transaction.Kind.REVERSAL, 0)
        reports.append(
            CashReport(
                cashier=drawer.owner.get_username() if drawer.owner else drawer.code,
                day=day,
                opening=opening,
                deposits=deposits,
                withdrawals=withdrawals,
                reversals=reversals,
                closing=opening + deposits - withdrawals + reversals,
            )
        )
    return reports


def player_search(*, query: str, limit: int = 20):
    """Players by username, e-mail or id, for the cashier's desk."""
    from django.contrib.auth import get_user_model
    from django.db.models import Q

    from casino.roles import PLAYER
    from casino.validation import is_ascii_digits

    users = get_user_model().objects.filter(groups__name=PLAYER, is_active=True)
    query = query.strip()
    if not query:
        return users.none()
    condition = Q(username__icontains=query) | Q(email__icontains=query)
    if is_ascii_digits(query):  # not str.isdigit(): "²" is a digit to it, and no int()
        condition |= Q(pk=int(query))
    return users.filter(condition).order_by("username")[:limit]
