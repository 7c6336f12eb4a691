"""A player's money that another app holds for them in the ledger: their chips at the
poker tables.

The player's wallet page shows it beside the wallet and counts it in their total; the
cashier's page of the player shows it beside the balance that can be withdrawn. The app
that holds it registers a reader when it starts (``holdings_reader_register``, from its
app config), so the wallets need nothing of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Holding:
    """Money held at one place: what the page calls it, in cents, and where it is."""

    label: str
    amount: int
    url: str


Reader = Callable[[object], list[Holding]]  # (the player) -> what is held for them

_READERS: list[Reader] = []


def holdings_reader_register(reader: Reader) -> Reader:
    """Add an app's reader of what it holds for a player (once: a second registration is ignored)."""
    if reader not in _READERS:
        _READERS.append(reader)
    return reader


def player_holdings(*, user) -> list[Holding]:
    return [holding for reader in _READERS for holding in reader(user)]
