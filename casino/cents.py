"""Amounts the code writes and reads back: integer cents as plain decimal text ("12.50",
"-0.05"), the shape of every amount in a hand record, an event, an API answer and an
export. Pure Python: the game engines write their records with it, ``casino.money``
parses what people type and formats what they read on top of it."""

from __future__ import annotations

import re

CENTS_PER_UNIT = 100
WIRE_PATTERN = re.compile(r"-?[0-9]+(\.[0-9]{1,2})?", re.ASCII)


def format_cents(cents: int) -> str:
    """``1250`` -> ``"12.50"``; negative amounts keep their sign."""
    sign = "-" if cents < 0 else ""
    units, rest = divmod(abs(int(cents)), CENTS_PER_UNIT)
    return f"{sign}{units}.{rest:02d}"


def parse_cents(amount: str | None) -> int:
    """The inverse of :func:`format_cents`, exactly (no float): ``"12.50"`` -> ``1250``,
    ``"-1.05"`` -> ``-105``; ``None`` or ``""`` (no amount) -> ``0``. For amounts the code
    itself wrote (a selector's or an event's decimal string), not for what people type
    (that is ``casino.money.to_cents``): anything else raises ``ValueError``."""
    if not amount:
        return 0
    if type(amount) is not str or WIRE_PATTERN.fullmatch(amount) is None:
        raise ValueError(f"not an amount written by format_cents: {amount!r}")
    negative = amount.startswith("-")
    units, _, fraction = amount.lstrip("-").partition(".")
    cents = int(units) * CENTS_PER_UNIT + int(fraction.ljust(2, "0") or 0)
    return -cents if negative else cents
