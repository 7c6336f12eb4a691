"""Row locks on accounts, always taken the same way so that writers never deadlock.

Order: every account by primary key, except the shared jackpot accounts, which come
last (also by primary key). They are the hot rows shared by all tables, so they are held
for the shortest time, and one global order means two transactions can never wait on
each other in a cycle.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from wallets.models import Account

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
