"""What the managers' pages and API both read: a table's live hand (with its bets) and
the audit trail with its filters."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.db.models import Count, Q, QuerySet, Subquery

from casino.keyset import KeysetPage, keyset_page
from casino.models import AuditEntry
from tables.models import Hand, Table


def live_hands_of(tables: Iterable[Table]) -> dict[int, Hand | None]:
    """Each table's live hand (``None`` if it has none) with its number of bets (``bets``),
    by table id, in one query however many tables the casino runs."""
    tables = {table.pk: table for table in tables}
    found = {table_id: None for table_id in tables}
    for hand in Hand.objects.live().filter(table_id__in=list(tables)).annotate(bets=Count("hand_seats")).order_by():
        hand.table = tables[hand.table_id]
        found[hand.table_id] = hand
    return found


def live_hand_of(table: Table) -> Hand | None:
    """The table's live hand with its number of bets (``bets``)."""
    return live_hands_of([table])[table.pk]


def audit_entries(
    *, object_type: str = "", object_id: str = "", action: str = "", actor: str = ""
) -> QuerySet[AuditEntry]:
    """The audit trail, newest first; each filter given (``backoffice.manager.forms.AuditFilterForm``)
    narrows it: the object's type and id, the action, the actor's username (found first, so
    that the actor's index is read)."""
    filters = Q()
    for field, value in (("object_type", object_type), ("object_id", object_id), ("action", action)):
        if value:
            filters &= Q(**{field: value})
    if actor:
        filters &= Q(actor_id=Subquery(get_user_model().objects.filter(username=actor).values("pk")[:1]))
    return AuditEntry.objects.select_related("actor").order_by("-id").filter(filters)


def audit_page(
    *,
    limit: int,
    before: int | None = None,
    after: int | None = None,
    object_type: str = "",
    object_id: str = "",
    action: str = "",
    actor: str = "",
) -> KeysetPage:
    """A page of ``audit_entries`` by cursor (``casino.keyset``): the newest ``limit``
    entries, those older than entry ``before`` or those newer than entry ``after``; a range
    of the entries' id index, or of the index of the filter given (object, action, actor),
    however long the trail (no count)."""
    given = {"object_type": object_type, "object_id": object_id, "action": action, "actor_id": actor}
    return keyset_page(
        audit_entries(object_type=object_type, object_id=object_id, action=action, actor=actor),
        key=("id",),
        fixed=[name for name, value in given.items() if value],
        limit=limit,
        before=before,
        after=after,
    )
