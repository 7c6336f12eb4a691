"""Money as integer cents: parsing what people type, formatting what they read.

Every amount inside the system is an ``int`` of minor units (cents). What a person types
or an API client sends becomes cents here and only here (``to_cents``), from one shape
only: a plain ASCII decimal string, ``^[0-9]+(\\.[0-9]{1,2})?$`` ("5", "12.5", "12.50").
Anything else is refused with ``amount_invalid`` before any arithmetic, so nothing can
overflow or be rounded: exponents ("1e3"), separators ("1_000", "1,00"), signs ("+5",
"-5"), surrounding spaces, non-ASCII digits (Arabic-Indic, full-width, superscripts),
a third decimal and every non-string (JSON numbers, floats, bools, null, lists), even an
``int``: inside the code amounts are already cents, so an ``int`` here would be a
question of units that the API settles by documenting strings.
"""

from __future__ import annotations

import re
from decimal import Decimal

from casino.errors import ValidationError

CENTS_PER_UNIT = 100
# Far above any real stake or balance, far below a 64-bit column: a typo cannot overflow.
MAX_AMOUNT_CENTS = 10**13
AMOUNT_PATTERN = re.compile(r"[0-9]+(\.[0-9]{1,2})?", re.ASCII)
_MAX_DIGITS = len(str(MAX_AMOUNT_CENTS // CENTS_PER_UNIT))


def to_cents(value: object, *, field: str = "amount", allow_zero: bool = False) -> int:
    """Parse an amount typed or sent by a person: a plain decimal string of units.

    ``amount_invalid`` for anything but ``^[0-9]+(\\.[0-9]{1,2})?$``; then
    ``amount_not_positive`` for zero (unless ``allow_zero``) and ``amount_too_large``
    above ``MAX_AMOUNT_CENTS``. Every refusal names the field in ``extra``.
    """
    extra = {"field": field}
    if type(value) is not str or AMOUNT_PATTERN.fullmatch(value) is None:
        raise ValidationError(
            f'{field} must be an amount such as "12.50": digits, at most two decimals, nothing else.',
            code="amount_invalid",
            extra=extra,
        )
    units, _, fraction = value.partition(".")
    if len(units.lstrip("0")) > _MAX_DIGITS:  # before any arithmetic: "9" * 5000 is cheap to refuse
        raise ValidationError(f"{field} is too large.", code="amount_too_large", extra=extra)
    cents = int(units) * CENTS_PER_UNIT + int(fraction.ljust(2, "0") or 0)
    if cents == 0 and not allow_zero:
        raise ValidationError(f"{field} must be more than zero.", code="amount_not_positive", extra=extra)
    if cents > MAX_AMOUNT_CENTS:
        raise ValidationError(f"{field} is too large.", code="amount_too_large", extra=extra)
    return cents


def format_cents(cents: int) -> str:
    """``1250`` -> ``"12.50"``; negative amounts keep their sign."""
    sign = "-" if cents < 0 else ""
    units, rest = divmod(abs(int(cents)), CENTS_PER_UNIT)
    return f"{sign}{units}.{rest:02d}"


def cents_to_decimal(cents: int) -> Decimal:
    return (Decimal(int(cents)) / CENTS_PER_UNIT).quantize(Decimal("0.01"))
