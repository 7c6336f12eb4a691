"""Reading money: balances, statements, the cash report, and the ledger as the auditors
filter it (``LedgerFilters``: newest first for the browser; ``wallets.reports`` turns the
same filters into export rows)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta
from datetime import timezone as dt_timezone
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Case, F, Max, Prefetch, Q, QuerySet, Sum, When
from django.utils import timezone

from casino.cents import format_cents
from casino.http.errors import NotFound
from casino.keyset import KeysetPage, keyset_page, one_value
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

    def as_json(self) -> dict:
        """What a live table's page shows of the wallet (the websocket's ``wallet`` message)."""
        return {"available": format_cents(self.available), "in_play": format_cents(self.in_play)}


def _wallet_of(balance_by_kind: dict) -> WalletBalances:
    return WalletBalances(
        available=balance_by_kind.get(Account.Kind.PLAYER_WALLET, 0),
        in_play=balance_by_kind.get(Account.Kind.PLAYER_IN_PLAY, 0),
    )


def wallet_balances(*, user) -> WalletBalances:
    rows = Account.objects.filter(owner_id=user.pk, kind__in=[Account.Kind.PLAYER_WALLET, Account.Kind.PLAYER_IN_PLAY])
    return _wallet_of(dict(rows.values_list("kind", "balance")))


def desk_held(*, user) -> int:
    """What the player's desk movements waiting for approval hold (out of the wallet,
    still theirs), in cents."""
    return (
        Account.objects.filter(owner_id=user.pk, kind=Account.Kind.DESK_HELD).values_list("balance", flat=True).first()
        or 0
    )


def wallet_live_view(*, user, known: WalletBalances | None = None) -> dict:
    """A live table's ``wallet`` message: ``known``, the balances the player's own step
    left in the rows it locked, else read now."""
    return (known if known is not None else wallet_balances(user=user)).as_json()


def wallets_balances(*, user_ids: list[int]) -> dict[int, WalletBalances]:
    """``wallet_balances`` of several players, in one statement (a settlement's nudges)."""
    found: dict[int, dict] = {user_id: {} for user_id in user_ids}
    rows = Account.objects.filter(
        owner_id__in=user_ids, kind__in=[Account.Kind.PLAYER_WALLET, Account.Kind.PLAYER_IN_PLAY]
    ).values_list("owner_id", "kind", "balance")
    for owner_id, kind, balance in rows:
        found[owner_id][kind] = balance
    return {user_id: _wallet_of(balance_by_kind) for user_id, balance_by_kind in found.items()}


def _wallet_id(user) -> int | None:
    return Account.objects.filter(owner=user, kind=Account.Kind.PLAYER_WALLET).values_list("pk", flat=True).first()


def wallet_statement(*, user) -> QuerySet[Leg]:
    """Every movement of the player's available money, newest first: a range of the legs'
    (account, id) index. The wallet's id is read first, so that PostgreSQL plans for this
    wallet's own number of legs (joined to the accounts, or by a sub-select, it planned
    blind: it walked the whole ledger back for a page, 0.6 s at 2.4 million legs, or read
    every leg of a wallet to sort them), then written as a range of one value
    (``casino.keyset.one_value``)."""
    wallet = _wallet_id(user)
    if wallet is None:
        return Leg.objects.none()
    return (
        Leg.objects.filter(one_value("account_id", wallet)).select_related("transaction").order_by("-account_id", "-id")
    )


def wallet_statement_page(*, user, limit: int, before: int | None = None, after: int | None = None) -> KeysetPage:
    """A page of ``wallet_statement`` by cursor (``casino.keyset``): the newest ``limit``
    legs, those older than leg ``before`` or those newer than leg ``after``; a range of the
    legs' (account, id) index, however long the player's history (no count)."""
    wallet = _wallet_id(user)
    if wallet is None:
        return KeysetPage(rows=[], newer=None, older=None)
    rows = Leg.objects.select_related("transaction")
    return keyset_page(rows, key=("id",), fixed={"account_id": wallet}, limit=limit, before=before, after=after)


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


def player_search(*, query: str, limit: int = 20) -> list:
    """Players by username, e-mail or id, for the cashier's desk."""
    from django.contrib.auth import get_user_model
    from django.db.models import Q

    from casino.access.roles import PLAYER
    from casino.http.validation import is_ascii_digits

    users = get_user_model().objects.filter(groups__name=PLAYER, is_active=True)
    query = query.strip()
    if not query:
        return []
    condition = Q(username__icontains=query) | Q(email__icontains=query)
    if is_ascii_digits(query):  # not str.isdigit(): "²" is a digit to it, and no int()
        condition |= Q(pk=int(query))
    return list(users.filter(condition).order_by("username")[:limit])  # the trigram indexes (casino 0005)


# --- the ledger, as the auditors filter it ----------------------------------------------


@dataclass(frozen=True)
class LedgerFilters:
    """The auditors' filters. Dates are whole days (inclusive) in the site's time zone.

    ``player`` selects every transaction that touches one of the player's accounts, with
    all its legs (the counter-legs too), so that a filtered slice still balances.
    ``game`` (``Transaction.Game``) says whose table and hand ``table_id`` and ``hand_id``
    are: Caribbean Stud's and the poker room's ids overlap (the auditors' forms require it
    with them).
    """

    date_from: date | None = None
    date_to: date | None = None
    player: Any = None  # a User
    game: str | None = None
    table_id: int | None = None
    hand_id: int | None = None
    kind: str | None = None

    def describe(self) -> dict:
        """The filters as plain JSON values, as the manifest and the API state them."""
        return {
            "date_from": self.date_from.isoformat() if self.date_from else None,
            "date_to": self.date_to.isoformat() if self.date_to else None,
            "time_zone": timezone.get_current_timezone_name(),
            "player": {"id": self.player.pk, "username": self.player.get_username()} if self.player else None,
            "game": self.game,
            "table": self.table_id,
            "hand": self.hand_id,
            "kind": self.kind,
        }

    @classmethod
    def from_description(cls, data: dict) -> LedgerFilters:
        """Inverse of ``describe`` (a task re-reads its job's filters with this)."""
        player = None
        if data.get("player"):
            player = get_user_model().objects.filter(pk=data["player"]["id"]).first()
            if player is None:
                raise NotFound("The player of this export no longer exists.", code="player_not_found")
        return cls(
            date_from=date.fromisoformat(data["date_from"]) if data.get("date_from") else None,
            date_to=date.fromisoformat(data["date_to"]) if data.get("date_to") else None,
            player=player,
            game=data.get("game"),
            table_id=data.get("table"),
            hand_id=data.get("hand"),
            kind=data.get("kind"),
        )


def day_start(day: date) -> datetime:
    """Midnight at the start of ``day`` in the site's time zone."""
    return timezone.make_aware(datetime.combine(day, time.min), timezone.get_current_timezone())


def _transaction_q(filters: LedgerFilters, prefix: str = "") -> Q:
    """The filters as a ``Q`` on transactions, or on legs with ``prefix="transaction__"``."""
    q = Q()
    if filters.date_from:
        q &= Q(**{f"{prefix}created_at__gte": day_start(filters.date_from)})
    if filters.date_to:
        q &= Q(**{f"{prefix}created_at__lt": day_start(filters.date_to + timedelta(days=1))})
    if filters.game:
        q &= Q(**{f"{prefix}game": filters.game})
    if filters.table_id is not None:
        q &= Q(**{f"{prefix}table_ref": filters.table_id})
    if filters.hand_id is not None:
        q &= Q(**{f"{prefix}hand_ref": filters.hand_id})
    if filters.kind:
        q &= Q(**{f"{prefix}kind": filters.kind})
    if filters.player is not None:
        touched = Leg.objects.filter(account__owner=filters.player).values("transaction_id")
        q &= Q(**{f"{prefix}id__in": touched})
    return q


def ledger_transactions(*, filters: LedgerFilters) -> QuerySet[Transaction]:
    """Transactions matching ``filters``, newest first, each with its legs and seal."""
    legs = Leg.objects.select_related("account", "account__owner").order_by("id")
    return (
        Transaction.objects.filter(_transaction_q(filters))
        .select_related("actor", "seal")
        .prefetch_related(Prefetch("legs", queryset=legs))
        .order_by("-id")
    )


def ledger_upto() -> int:
    """The highest transaction id now: an export's snapshot reads nothing above it."""
    return Transaction.objects.aggregate(upto=Max("id"))["upto"] or 0


# --- the ledger a page at a time (keyset) ------------------------------------------------


@dataclass(frozen=True)
class LedgerPage:
    """A page of ``ledger_transactions``, newest first, and the cursors of its neighbours:
    ``newer`` (read the page above with ``after=newer``) and ``older`` (``before=older``),
    None where there is nothing more. No count: counting every matching transaction cost
    more than the page, and more with every day the casino plays."""

    rows: list[Transaction]
    newer: int | None
    older: int | None


def _without_player(filters: LedgerFilters) -> LedgerFilters:
    return replace(filters, player=None)


def _player_transaction_ids(
    *, player, matching: QuerySet, below: int | None, above: int | None, wanted: int
) -> list[int]:
    """The ids of the first ``wanted`` transactions of ``matching`` that touch one of the
    player's accounts, from ``below`` down (or from ``above`` up), found on the legs'
    (account, transaction) index a batch at a time: per account, the next ids in order,
    merged (the union is complete down to the highest of the accounts' last ids)."""
    accounts = list(Account.objects.filter(owner=player).values_list("pk", flat=True))
    descending = above is None
    found: list[int] = []
    batch = max(wanted, 100)
    while len(found) < wanted:
        ids: set[int] = set()
        bound: int | None = None  # how far the union is complete
        exhausted = True
        for account_id in accounts:
            legs = Leg.objects.filter(account_id=account_id)
            if below is not None:
                legs = legs.filter(transaction_id__lt=below)
            if above is not None:
                legs = legs.filter(transaction_id__gt=above)
            order = "-transaction_id" if descending else "transaction_id"
            # Planned for the account (the connection sends its values in the SQL): in a plan
            # for any account, PostgreSQL walked the whole ledger backwards on the
            # transaction index for an account with few legs.
            got = list(legs.order_by(order).values_list("transaction_id", flat=True)[:batch])
            ids.update(got)
            if len(got) == batch:
                exhausted = False
                last = got[-1]
                bound = last if bound is None else (max(bound, last) if descending else min(bound, last))
        if not exhausted:
            ids = {i for i in ids if (i >= bound if descending else i <= bound)}
        if ids:
            found += sorted(matching.filter(id__in=ids).values_list("id", flat=True), reverse=descending)
        if exhausted:
            break
        if descending:
            below = bound
        else:
            above = bound
        batch = min(batch * 4, 10_000)
    return found[:wanted]


def ledger_page(
    *, filters: LedgerFilters, limit: int, before: int | None = None, after: int | None = None
) -> LedgerPage:
    """``limit`` transactions matching ``filters``, newest first: the newest (no cursor),
    those just older than transaction ``before``, or those just newer than ``after``.

    Each read is an index range of the page's size on the filter's index (by kind, by a
    game's table or hand, by day; by a player: ``_player_transaction_ids``), however long
    the ledger."""
    matching = Transaction.objects.filter(_transaction_q(_without_player(filters)))
    descending = after is None  # one cursor at a time (the API refuses both)
    if filters.player is not None:
        ids = _player_transaction_ids(
            player=filters.player,
            matching=matching,
            below=before,
            above=None if descending else after,
            wanted=limit + 1,
        )
    else:
        bounded = matching
        if before is not None:
            bounded = bounded.filter(id__lt=before)
        if not descending:
            bounded = bounded.filter(id__gt=after)
        ids = list(bounded.order_by("-id" if descending else "id").values_list("id", flat=True)[: limit + 1])
    more = len(ids) > limit
    ids = ids[:limit]
    rows = list(ledger_transactions(filters=LedgerFilters()).filter(id__in=ids)) if ids else []
    if descending:
        newer = rows[0].pk if rows and before is not None else None
        older = rows[-1].pk if more else None
    else:
        newer = rows[0].pk if more else None
        older = rows[-1].pk if rows else None
    return LedgerPage(rows=rows, newer=newer, older=older)
