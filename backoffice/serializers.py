"""Output fields every staff API shares: amounts and percentages as decimal strings.

A serializer reads integer cents from a model or a selector's result and ``Cents`` writes
them with ``casino.cents.format_cents`` (never a JSON number, never a float), so the
schema at ``/api/schema/`` says exactly what is sent.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from casino.cents import format_cents


@extend_schema_field({"type": "string", "pattern": r"^-?[0-9]+\.[0-9]{2}$", "example": "2.50"})
class Cents(serializers.Field):
    """Integer cents out as a decimal string (``casino.cents.format_cents``)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("help_text", 'A decimal string in the deployment\'s currency, e.g. "2.50".')
        kwargs["read_only"] = True
        super().__init__(**kwargs)

    def to_representation(self, value: int) -> str:
        return format_cents(value)


@extend_schema_field(OpenApiTypes.STR)
class Percent(serializers.Field):
    """A ``Decimal`` percentage out as its decimal string (``"97.40"``)."""

    def __init__(self, **kwargs):
        kwargs["read_only"] = True
        super().__init__(**kwargs)

    def to_representation(self, value) -> str:
        return str(value)


class BlankAsNull(serializers.CharField):
    """A blank choice (a decision not taken yet) out as null."""

    def to_representation(self, value) -> str | None:
        return value or None
