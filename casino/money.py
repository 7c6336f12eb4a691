"""Money as integer cents: parsing what people type, formatting what they read.

Every amount inside the system is an ``int`` of minor units (cents). What a person types
or an API client sends becomes cents here and only here (``to_cents``), from one shape
only: a plain ASCII decimal string, ``^[0-9]+(\\.[0-9]{1,2})?$`` ("5", "12.5", "12.50");
in German (the active language, ``de``) the decimal comma too ("12,50"), never both signs
nor a thousands separator ("1.234,50", "1,000": which is meant is not clear, refused).
Anything else is refused with ``amount_invalid`` before any arithmetic, so nothing can
overflow or be rounded: exponents ("1e3"), separators ("1_000", "1,00"), signs ("+5",
"-5"), surrounding spaces, non-ASCII digits (Arabic-Indic, full-width, superscripts),
a third decimal and every non-string (JSON numbers, floats, bools, null, lists), even an
``int``: inside the code amounts are already cents, so an ``int`` here would be a
question of units that the API settles by documenting strings.
"""

from __future__ import annotations

import re

from django.utils.text import capfirst
from django.utils.translation import get_language, gettext

from casino.cents import CENTS_PER_UNIT, format_cents, parse_cents
from casino.http.errors import Translated, ValidationError

# Far above any real stake or balance, far below a 64-bit column: a typo cannot overflow.
MAX_AMOUNT_CENTS = 10**13
AMOUNT_PATTERN = re.compile(r"[0-9]+(\.[0-9]{1,2})?", re.ASCII)
# The languages that write a decimal comma: what their readers type, what they read.
COMMA_LANGUAGES = frozenset({"de"})
AMOUNT_PATTERN_COMMA = re.compile(r"[0-9]+([.,][0-9]{1,2})?", re.ASCII)


def decimal_comma() -> bool:
    """Whether the active language writes ``12,50`` (German) rather than ``12.50``."""
    return (get_language() or "en").split("-")[0] in COMMA_LANGUAGES


_MAX_DIGITS = len(str(MAX_AMOUNT_CENTS // CENTS_PER_UNIT))


def to_cents(value: object, *, field: str = "amount", allow_zero: bool = False) -> int:
    """Parse an amount typed or sent by a person: a plain decimal string of units.

    ``amount_invalid`` for anything but ``^[0-9]+(\\.[0-9]{1,2})?$`` (in German also
    ``[.,]`` as the decimal sign); then
    ``amount_not_positive`` for zero (unless ``allow_zero``) and ``amount_too_large``
    above ``MAX_AMOUNT_CENTS``. Every refusal names the field in ``extra``.
    """
    extra = {"field": field}
    comma = decimal_comma()
    name = capfirst(gettext(field))  # the field's name in the reader's language (``extra`` keeps it as sent)
    pattern = AMOUNT_PATTERN_COMMA if comma else AMOUNT_PATTERN
    if type(value) is not str or pattern.fullmatch(value) is None:
        raise ValidationError(
            Translated(
                gettext(
                    '%(field)s must be an amount such as "%(example)s": digits, at most two decimals, nothing else.'
                )
                % {"field": name, "example": "12,50" if comma else "12.50"}
            ),
            code="amount_invalid",
            extra=extra,
        )
    units, _, fraction = value.replace(",", ".").partition(".")
    if len(units.lstrip("0")) > _MAX_DIGITS:  # before any arithmetic: "9" * 5000 is cheap to refuse
        raise ValidationError(
            Translated(gettext("%(field)s is too large.") % {"field": name}), code="amount_too_large", extra=extra
        )
    cents = int(units) * CENTS_PER_UNIT + int(fraction.ljust(2, "0") or 0)
    if cents == 0 and not allow_zero:
        raise ValidationError(
            Translated(gettext("%(field)s must be more than zero.") % {"field": name}),
            code="amount_not_positive",
            extra=extra,
        )
    if cents > MAX_AMOUNT_CENTS:
        raise ValidationError(
            Translated(gettext("%(field)s is too large.") % {"field": name}), code="amount_too_large", extra=extra
        )
    return cents


CURRENCY_SYMBOLS = {"EUR": "\u20ac", "USD": "$", "GBP": "\u00a3"}


def currency_symbol() -> str:
    """The house currency's sign (``CASINO_CURRENCY``): ``"\u20ac"``; an unknown code and a space."""
    from django.conf import settings

    code = settings.CASINO_CURRENCY
    return CURRENCY_SYMBOLS.get(code, f"{code} ")


def money(amount: int | str | None, *, signed: bool = False) -> str:
    """What a person reads, in the active language: ``125000`` (or ``"1250.00"``) ->
    ``"\u20ac1,250.00"`` in English, ``"1.250,00\u00a0\u20ac"`` in German; ``None`` -> ``""``.

    ``signed``: ``"+\u20ac2.00"`` / ``"\u2212\u20ac2.00"`` (a true minus sign, as is every negative
    amount); zero has no sign. Built on :func:`format_cents`, the one formatter. (static/js/
    common.js's ``Casino.money`` writes the same for the pages' scripts.)
    """
    if amount is None:
        return ""
    cents = parse_cents(amount) if isinstance(amount, str) else int(amount)
    units, _, fraction = format_cents(abs(cents)).partition(".")
    if decimal_comma():
        text = f"{int(units):,}".replace(",", ".") + f",{fraction}\u00a0{currency_symbol().strip()}"
    else:
        text = f"{currency_symbol()}{int(units):,}.{fraction}"
    if cents < 0:
        return f"\u2212{text}"
    return f"+{text}" if signed and cents > 0 else text
