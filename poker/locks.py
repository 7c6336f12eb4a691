"""Row locks of the poker room, always taken in the same order, so that writers never deadlock.

Order: the poker table row, then its hand (with the table's seats, read in the next
statement), then the player's all-in allowance row (a time-out's), then the money
(``wallets.locks``: every account by primary key). A step locks one table and one hand,
and an allowance row only after them: two tables timing the same player out wait for that
row one after the other, never for each other's table. Each helper must run inside
``transaction.atomic()``.
"""

from __future__ import annotations

from poker.models import PokerAllowance


def allowance_lock(*, player_id: int) -> PokerAllowance:
    """Lock the player's allowance row (``SELECT … FOR UPDATE``). The row is created when
    the player is first dealt in; a hand dealt before then creates it here, and a second
    creator waits on its unique key, then reads the first one's row."""
    allowance, _ = PokerAllowance.objects.select_for_update().get_or_create(player_id=player_id)
    return allowance
