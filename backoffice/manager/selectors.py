"""What the managers' pages and API both read: a table's live hand (with its bets) and
the audit trail with its filters."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.db.models import Count, Q, QuerySet

from casino.keyset import KeysetPage, keyset_page, one_value
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
) -> tuple[QuerySet[AuditEntry], tuple[str, ...]]:
    """The audit trail, newest first; each filter given (``backoffice.manager.forms.AuditFilterForm``)
    narrows it: the object's type and id, the action, the actor's username. With the columns
    of the index that leads the read (the first filter given of: the object, the actor, the
    action, the type), to order by before the id.

    That filter is written as a range of one value (``>= v AND <= v``), the others as
    equalities: with an equality alone, PostgreSQL may walk the primary key back from the
    newest entry and keep the filter's (it takes them to be spread evenly through the
    trail), reading every newer entry of other kinds; a range is no such constant, so the
    order comes from the filter's own (…, id) index."""
    actor_id = None
    if actor:
        actor_id = get_user_model().objects.filter(username=actor).values_list("pk", flat=True).first()
        if actor_id is None:
            return AuditEntry.objects.none(), ()
    given = {"object_type": object_type, "object_id": object_id, "action": action, "actor_id": actor_id}
    if object_type and object_id:
        lead: tuple[str, ...] = ("object_type", "object_id")
    else:
        lead = next(((name,) for name in ("actor_id", "action", "object_type") if given[name]), ())
    filters = Q()
    for field, value in given.items():
        if value:
            filters &= one_value(field, value) if field in lead else Q(**{field: value})
    rows = AuditEntry.objects.select_related("actor").filter(filters)
    return rows.order_by(*(f"-{name}" for name in lead), "-id"), lead


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
    of the entries' id index, or of the index of the filter given (object, actor, action,
    type), however long the trail (no count)."""
    rows, lead = audit_entries(object_type=object_type, object_id=object_id, action=action, actor=actor)
    # By the lead filter's columns and the id as one row value: the cursor's bound starts the
    # range of that filter's index (with ``id < cursor`` alone, PostgreSQL may walk the
    # primary key from the cursor instead); an entry the filters leave out is no cursor.
    return keyset_page(rows, key=(*lead, "id"), as_row=bool(lead), limit=limit, before=before, after=after)
