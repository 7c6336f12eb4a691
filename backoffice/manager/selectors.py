"""What the managers' pages and API both read: a table's live hand (with its bets) and
the audit trail with its filters."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from casino.models import AuditEntry
from tables.models import Hand, Table
from tables.selectors import table_live_hand


def live_hand_of(table: Table) -> Hand | None:
    """The table's live hand with its number of bets (``bets``)."""
    hand = table_live_hand(table=table)
    if hand is not None:
        hand.bets = hand.hand_seats.count()
    return hand


def audit_entries(*, object_type: str = "", object_id: str = "", action: str = "", actor: str = "") -> QuerySet[AuditEntry]:
    """The audit trail, newest first; each filter given (``backoffice.manager.forms.AuditFilterForm``)
    narrows it: the object's type and id, the action, the actor's username."""
    filters = Q()
    for field, value in (("object_type", object_type), ("object_id", object_id), ("action", action)):
        if value:
            filters &= Q(**{field: value})
    if actor:
        filters &= Q(actor__username=actor)
    return AuditEntry.objects.select_related("actor").order_by("-id").filter(filters)
