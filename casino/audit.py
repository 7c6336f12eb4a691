"""The configuration audit trail: every change by staff, who, when, before and after."""

from __future__ import annotations

from django.db import models
from django.forms.models import model_to_dict

from casino.models import AuditEntry


def snapshot(obj: models.Model | None) -> dict | None:
    """The object's fields as plain values (foreign keys as ids), or None."""
    if obj is None:
        return None
    return {key: (value.pk if isinstance(value, models.Model) else value) for key, value in model_to_dict(obj).items()}


def audit_record(*, actor, action: str, obj: models.Model, before: dict | None, after: dict | None) -> AuditEntry:
    """Record a change; call it inside the transaction that makes the change."""
    return AuditEntry.objects.create(
        actor=actor,
        action=action,
        object_type=obj._meta.label,
        object_id=str(obj.pk),
        before=before,
        after=after,
    )
