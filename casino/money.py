"""Money as integer cents: parsing what people type, formatting what they read.

Every amount inside the system is an ``int`` of minor units (cents). Text and JSON
numbers become cents here and only here, exactly (``Decimal``), or are refused with a
stable error code; nothing is ever rounded.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from casino.errors import ValidationError

CENTS_PER_UNIT = 100
# Far above any real stake or balance, far below a 64-bit column: a typo cannot overflow.
MAX_AMOUNT_CENTS = 10**13


def to_cents(value: object, *, field: str = "amount", allow_zero: bool = False) -> int:
    """Parse a positive amount (or zero) given as a decimal string, ``Decimal`` or ``int`` of units."""
    if isinstance(value, bool) or value is None or isinstance(value, float):
        raise ValidationError(
            f"{field} must be a decimal string such as \"12.50\".", code="amount_invalid", extra={"field": field}
        )
    try:
        amount = Decimal(value) if isinstance(value, (Decimal, int)) else Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        raise ValidationError(f"{field} is not a number.", code="amount_invalid", extra={"field": field}) from None
    if not amount.is_finite():
        raise ValidationError(f"{field} is not a number.", code="amount_invalid", extra={"field": field})
    if amount < 0 or (amount == 0 and not allow_zero):
        raise ValidationError(f"{field} must be more than zero.", code="amount_not_positive", extra={"field": field})
    cents = amount * CENTS_PER_UNIT
    if cents > MAX_AMOUNT_CENTS:
        raise ValidationError(f"{field} is too large.", code="amount_too_large", extra={"field": field})
    if cents != cents.to_integral_value():
        raise ValidationError(
            f"{field} must be a whole number of cents.", code="amount_not_whole_cents", extra={"field": field}
        )
    return int(cents)


def format_cents(cents: int) -> str:
    """``1250`` -> ``"12.50"``; negative amounts keep their sign."""
    sign = "-" if cents < 0 else ""
    units, rest = divmod(abs(int(cents)), CENTS_PER_UNIT)
    return f"{sign}{units}.{rest:02d}"


def cents_to_decimal(cents: int) -> Decimal:
    return (Decimal(int(cents)) / CENTS_PER_UNIT).quantize(Decimal("0.01"))
