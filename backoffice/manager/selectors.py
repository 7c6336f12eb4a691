"""What the managers' pages and API both read: a table's live hand (with its bets) and
the audit trail with its filters."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from casino.models import AuditEntry
from casino.validation import parse_text
from tables.models import Hand, Table


def live_hand_of(table: Table) -> Hand | None:
    return table.hands.live().annotate(bets=Count("hand_seats")).first()


def audit_entries(*, params) -> QuerySet[AuditEntry]:
    """The audit trail, newest first, filtered by ``object_type``, ``object_id``, ``action``, ``actor``."""
    query = AuditEntry.objects.select_related("actor").order_by("-id")
    filters = Q()
    for field in ("object_type", "object_id", "action"):
        value = parse_text(params.get(field), field=field, max_length=150)
        if value:
            filters &= Q(**{field: value})
    actor = parse_text(params.get("actor"), field="actor", max_length=150)
    if actor:
        filters &= Q(actor__username=actor)
    return query.filter(filters)
