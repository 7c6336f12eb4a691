"""Row locks on accounts, always taken the same way so that writers never deadlock.

Order: every account by primary key, except the shared jackpot accounts, which come
last (also by primary key). They are the hot rows shared by all tables, so they are held
for the shortest time, and one global order means two transactions can never wait on
each other in a cycle.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.db.models import QuerySet

from wallets.models import Account
from wallets.selectors import WalletBalances

_SHARED_KINDS = (Account.Kind.JACKPOT_METER, Account.Kind.JACKPOT_RESERVE)


def accounts_lock(accounts: Iterable[Account]) -> dict[int, Account]:
    """Lock the accounts (``SELECT … FOR UPDATE``) in the global order; return fresh rows by id.

    Must run inside ``transaction.atomic()``. Locking a row twice in one transaction is free.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("accounts_lock() needs an open transaction")
    by_id = {account.pk: account for account in accounts}
    locked: dict[int, Account] = {}
    # One statement for the ordinary accounts, then one for the shared ones; each locks
    # its rows in primary-key order (ORDER BY before FOR UPDATE).
    for shared in (False, True):
        batch = [pk for pk, account in by_id.items() if (account.kind in _SHARED_KINDS) is shared]
        if batch:
            for account in Account.objects.select_for_update().filter(pk__in=batch).order_by("pk"):
                locked[account.pk] = account
    return locked


def player_accounts_for_update(owners, account_ids) -> QuerySet:
    """The players' wallet and in-play accounts (``owners``: their ids, or a query of them)
    and the ordinary ``account_ids``, ``FOR UPDATE`` in primary-key order: the query of
    ``player_accounts_lock`` and of a step's read under its table's lock (``tables.locks``),
    built into ``PlayerAccounts`` by ``player_accounts_of``.

    The rows are found by key, however many accounts the casino holds: their ids are
    one ``UNION`` (the players' accounts, the others), which PostgreSQL joins by index.
    As ``owner IN (…) OR pk IN (…)`` it could only test every account of the casino
    against the owners (a subquery under an ``OR``), at every step."""
    players = Account.objects.filter(
        owner_id__in=owners, kind__in=[Account.Kind.PLAYER_WALLET, Account.Kind.PLAYER_IN_PLAY]
    )
    ids = players.order_by().values("pk").union(Account.objects.filter(pk__in=account_ids).order_by().values("pk"))
    return Account.objects.select_for_update().filter(pk__in=ids).order_by("pk")


def player_accounts_lock(*, player_ids: Iterable[int], account_ids: Iterable[int] = ()) -> PlayerAccounts:
    """Lock the players' wallet and in-play accounts and the ordinary ``account_ids`` in one statement.

    For a step that will move money for several players (a deal, a settlement): taking
    every ordinary account it needs at once, before any shared one, keeps the global
    order even when other tables lock the same players.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("player_accounts_lock() needs an open transaction")
    extra = list(account_ids)
    return player_accounts_of(list(player_accounts_for_update(sorted(player_ids), extra)), extra)


def player_accounts_of(rows: list[Account], account_ids: Iterable[int]) -> PlayerAccounts:
    """The rows ``player_accounts_for_update`` locked."""
    extra = set(account_ids)
    if any(a.kind in _SHARED_KINDS for a in rows if a.pk in extra):
        raise ValueError("lock the shared jackpot accounts after the ordinary ones")
    return PlayerAccounts(rows)


def shared_accounts_lock(account_ids: Iterable[int], held: dict[int, Account]) -> list[Account]:
    """Lock shared jackpot accounts known by id (last, after the ordinary ones: see above).

    ``held``: the accounts this transaction holds already, by id; the ones not in it are
    locked in one statement and added to it. Returns the accounts in the order asked.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("shared_accounts_lock() needs an open transaction")
    ids = list(account_ids)
    missing = sorted(pk for pk in ids if pk not in held)
    if missing:
        for account in Account.objects.select_for_update().filter(pk__in=missing).order_by("pk"):
            if account.kind not in _SHARED_KINDS:
                raise ValueError(f"account {account.pk} is not a shared jackpot account")
            held[account.pk] = account
    return [held[pk] for pk in ids]


class PlayerAccounts:
    """Locked accounts, found by player and kind, or by id."""

    def __init__(self, rows: list[Account]):
        self.by_id = {a.pk: a for a in rows}
        self._by_player = {(a.owner_id, a.kind): a for a in rows if a.owner_id is not None}

    def wallet(self, player_id: int) -> Account:
        return self._by_player[(player_id, Account.Kind.PLAYER_WALLET)]

    def in_play(self, player_id: int) -> Account:
        return self._by_player[(player_id, Account.Kind.PLAYER_IN_PLAY)]

    def balances(self, player_id: int) -> WalletBalances:
        """The player's balances in these rows: what the locking transaction has posted to
        them so far (``ledger_post_many`` keeps the rows it is given true)."""
        return WalletBalances(available=self.wallet(player_id).balance, in_play=self.in_play(player_id).balance)
