"""The generic validators of request input: integers (ids, limits, minutes), text, bodies,
and the configuration fields managers send (names, bounded numbers, amounts, changes).

One parser for every whole number a request carries: ASCII digits only. ``str.isdigit()``
is true for ``"²"``, ``"٣"`` and ``"５"`` and ``int()`` takes some of those and ``" 5\\n"``
too; here every such value is refused with a stable code before it reaches a query.
Amounts of money have their own parser (``casino.money``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from django.utils.translation import gettext, gettext_noop
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from casino.http.errors import Conflict, NotFound, Translated, ValidationError
from casino.money import MAX_AMOUNT_CENTS

# Every integer column an id or a count is compared with is at most a PostgreSQL bigint.
DB_INT_MAX = 2**63 - 1
_ASCII_DIGITS = re.compile(r"[0-9]{1,19}")


def is_ascii_digits(text: Any) -> bool:
    """True for a non-empty string of ``0``-``9`` only (no sign, space, or other script)."""
    return isinstance(text, str) and _ASCII_DIGITS.fullmatch(text) is not None


def parse_int(
    raw: Any,
    *,
    field: str,
    minimum: int = 0,
    maximum: int = DB_INT_MAX,
    code: str | None = None,
) -> int:
    """A whole number from a query string, a form or a JSON body, within ``minimum..maximum``.

    Accepts a JSON integer (not a boolean) or a string of ASCII digits; anything else, or a
    value out of range, is a ``ValidationError`` with ``code`` (default ``<field>_invalid``)
    and the bounds in ``extra``.
    """
    code = code or f"{field}_invalid"
    extra = {"field": field, "min": minimum, "max": maximum}
    if isinstance(raw, int) and not isinstance(raw, bool):
        value = raw
    elif is_ascii_digits(raw):
        value = int(raw)
    else:
        raise ValidationError(
            Translated(gettext("'%(field)s' is a whole number written with the digits 0-9.") % {"field": field}),
            code=code,
            extra=extra,
        )
    if not minimum <= value <= maximum:
        raise ValidationError(
            Translated(
                gettext("'%(field)s' is from %(minimum)s to %(maximum)s.")
                % {"field": field, "minimum": minimum, "maximum": maximum}
            ),
            code=code,
            extra=extra,
        )
    return value


def parse_optional_int(raw: Any, *, field: str, **bounds) -> int | None:
    """``parse_int`` for an optional query parameter: absent or empty is ``None``."""
    if raw is None or raw == "":
        return None
    return parse_int(raw, field=field, **bounds)


def parse_text(raw: Any, *, field: str, max_length: int = 200) -> str:
    """A search or filter text: stripped, without NUL characters (which PostgreSQL refuses)."""
    if raw is None:
        return ""
    if not isinstance(raw, str):
        raise ValidationError(
            Translated(gettext("'%(field)s' is text.") % {"field": field}),
            code=f"{field}_invalid",
            extra={"field": field},
        )
    if "\x00" in raw:
        raise ValidationError(
            Translated(gettext("'%(field)s' may not contain NUL characters.") % {"field": field}),
            code=f"{field}_invalid",
            extra={"field": field},
        )
    text = raw.strip()
    if len(text) > max_length:
        raise ValidationError(
            Translated(
                gettext("'%(field)s' has at most %(max_length)s characters.")
                % {"field": field, "max_length": max_length}
            ),
            code=f"{field}_invalid",
            extra={"field": field},
        )
    return text


def request_object(data: Any) -> Any:
    """A request body must be a JSON object (or a form): a list, string or number is refused."""
    if hasattr(data, "keys") and hasattr(data, "get"):
        return data
    raise ValidationError("The request body is a JSON object.", code="body_not_object")


def known_fields(data: Any, allowed) -> Any:
    """A request body that names ``allowed`` fields only: an object (``body_not_object``), and
    a field the endpoint does not take refused (``unknown_field``), not ignored: a misspelt
    optional field would otherwise change what the request does (a bet without its jackpot
    chip, a desk deposit without its memo)."""
    data = request_object(data)
    unknown = sorted(str(name) for name in set(data) - set(allowed))
    if unknown:
        raise ValidationError(
            Translated(gettext("Unknown field(s): %(fields)s.") % {"fields": ", ".join(unknown)}),
            code="unknown_field",
            extra={"fields": unknown, "allowed": sorted(allowed)},
        )
    return data


def no_fields(data: Any) -> None:
    """The body of a request that takes nothing but its URL (a fold, a leave, an approval):
    none, or an empty object. A field is refused (``known_fields`` with none allowed), not
    ignored: ``{"hand_id": 7}`` sent to hand 8's fold is refused, not taken as hand 8's fold."""
    known_fields(data, ())


class StrictInput(serializers.Serializer):
    """A request body's serializer that takes its own fields and no other (``known_fields``)."""

    def to_internal_value(self, data):
        return super().to_internal_value(known_fields(data, self.fields))


def input_of(serializer_class: type[serializers.Serializer], data, **options) -> dict:
    """``data`` (a request's body) through ``serializer_class``: its validated values."""
    serializer = serializer_class(data=data, **options)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


# --- configuration fields: JSON values as the manager's API and forms send them -------------


def required(value, field: str) -> None:
    """A value the request must carry (``None`` is absent)."""
    if value is None:
        raise ValidationError(
            Translated(gettext("%(field)s is required.") % {"field": field}),
            code="field_required",
            extra={"field": field},
        )


def has_unseen_characters(text: str) -> bool:
    """Whether ``text`` holds a control or format character (NUL, which PostgreSQL refuses
    in text; a zero-width space or a right-to-left override, which make two names look
    alike): none belongs in a name people read."""
    return any(unicodedata.category(ch) in ("Cc", "Cf") for ch in text)


def config_name(value, *, field: str = "name", max_length: int) -> str:
    """A display name: text, spaces collapsed, 1 to ``max_length`` characters, none unseen."""
    required(value, field)
    if not isinstance(value, str):
        raise ValidationError(
            Translated(gettext("%(field)s must be text.") % {"field": field}),
            code="field_invalid",
            extra={"field": field},
        )
    name = " ".join(value.split())
    if has_unseen_characters(name):
        raise ValidationError(
            Translated(gettext("%(field)s may not contain control or invisible characters.") % {"field": field}),
            code="field_invalid",
            extra={"field": field},
        )
    if not name:
        raise ValidationError(
            Translated(gettext("%(field)s must not be blank.") % {"field": field}),
            code="field_required",
            extra={"field": field},
        )
    if len(name) > max_length:
        raise ValidationError(
            Translated(
                gettext("%(field)s is at most %(max_length)s characters.") % {"field": field, "max_length": max_length}
            ),
            code="value_too_long",
            extra={"field": field, "max_length": max_length},
        )
    return name


def config_int(value, *, field: str, low: int, high: int) -> int:
    """A whole number within ``low..high`` (not a bool, not a string, not a float)."""
    required(value, field)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(
            Translated(gettext("%(field)s must be a whole number.") % {"field": field}),
            code="field_invalid",
            extra={"field": field},
        )
    if not low <= value <= high:
        raise ValidationError(
            Translated(
                gettext("%(field)s must be between %(low)s and %(high)s.") % {"field": field, "low": low, "high": high}
            ),
            code="value_out_of_range",
            extra={"field": field, "min": low, "max": high},
        )
    return value


def config_cents(value, *, field: str) -> int:
    """A positive amount in int cents (the API and forms parse text with ``casino.money.to_cents``)."""
    required(value, field)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(
            Translated(gettext("%(field)s must be an amount in cents.") % {"field": field}),
            code="amount_invalid",
            extra={"field": field},
        )
    if value <= 0:
        raise ValidationError(
            Translated(gettext("%(field)s must be more than zero.") % {"field": field}),
            code="amount_not_positive",
            extra={"field": field},
        )
    if value > MAX_AMOUNT_CENTS:
        raise ValidationError(
            Translated(gettext("%(field)s is too large.") % {"field": field}),
            code="amount_too_large",
            extra={"field": field},
        )
    return value


def config_changes(changes, allowed: frozenset[str] | set[str]) -> dict:
    """The fields of an update: a mapping, known fields only, at least one."""
    if not isinstance(changes, Mapping):
        raise ValidationError("The changes must be an object of fields.", code="field_invalid", extra={"field": "body"})
    known_fields(changes, allowed)
    if not changes:
        raise ValidationError("Nothing to change: name at least one field.", code="nothing_to_change")
    return dict(changes)


# The things ``config_get`` names (its ``what``), for the catalogs.
CONFIG_THINGS = (gettext_noop("pay table"), gettext_noop("limit tier"), gettext_noop("jackpot pool"))


def config_get(model, pk, *, field: str, code: str, what: str, lock: bool = False):
    """The row of ``model`` a request names by id (locked with ``lock``), or ``NotFound`` with ``code``."""
    required(pk, field)
    if isinstance(pk, bool) or not isinstance(pk, int):
        raise ValidationError(
            Translated(gettext("%(field)s must be the id of a %(what)s.") % {"field": field, "what": gettext(what)}),
            code="field_invalid",
            extra={"field": field},
        )
    query = model.objects.select_for_update(of=("self",)) if lock else model.objects
    obj = query.filter(pk=pk).first()
    if obj is None:
        raise NotFound(code=code, extra={"field": field, "id": pk})  # "No such pay table.": the code's message
    return obj


def config_name_free(model, name: str, *, exclude_pk=None, also_taken: Callable[[], bool] | None = None) -> None:
    """Refuse a display name another row of ``model`` has, in any case (``name_taken``:
    "NASSAU" beside "Nassau" would read as the same table); ``also_taken`` tells whether
    something else holds it (the accounts named after a renamed row)."""
    taken = model.objects.filter(name__iexact=name).exclude(pk=exclude_pk).exists()
    if taken or (also_taken is not None and also_taken()):
        raise Conflict(
            Translated(gettext("The name %(name)s is already taken.") % {"name": repr(name)}),
            code="name_taken",
            extra={"field": "name"},
        )


@extend_schema_field(OpenApiTypes.INT)
class StrictIntegerField(serializers.IntegerField):
    """``IntegerField`` through ``parse_int``: ASCII digits or a JSON integer, nothing else."""

    def to_internal_value(self, data):
        minimum = self.min_value if self.min_value is not None else -DB_INT_MAX
        maximum = self.max_value if self.max_value is not None else DB_INT_MAX
        if isinstance(data, str) and data.startswith("-") and minimum < 0 and is_ascii_digits(data[1:]):
            value = -int(data[1:])
        elif isinstance(data, int) and not isinstance(data, bool):
            value = data
        elif is_ascii_digits(data):
            value = int(data)
        else:
            self.fail("invalid")
        if value < minimum:
            self.fail("min_value", min_value=minimum)
        if value > maximum:
            self.fail("max_value", max_value=maximum)
        return value


class IdConverter:
    """``<id:…>`` in a URL: ASCII digits that fit a bigint column (at most 18 of them).

    Django's ``<int:…>`` takes any number of digits, and an id beyond the database's
    integer then fails in the query (a 500); here it does not match, so it is a 404.
    """

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value) -> str:
        return str(int(value))
