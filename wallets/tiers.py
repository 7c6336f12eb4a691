"""Limit tiers: the ante bounds a table plays by, configured by managers (validated, audited).

A tier's tables copy its bounds into each hand when it opens. A change of the bounds is
announced in its transaction by ``tier_limits_changed`` (the tables app refreshes the
open hands that hold no bet yet), so this module needs nothing of the tables.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.db import transaction as db_transaction
from django.dispatch import Signal

from casino.audit import audit_record, config_apply, snapshot
from casino.cents import format_cents
from casino.http.errors import ValidationError
from casino.http.validation import config_cents, config_changes, config_get, config_name, config_name_free
from wallets.models import LimitTier

TIER_NAME_MAX = 60

# Sent inside the changing transaction with ``tier``, once its new bounds are saved.
tier_limits_changed = Signal()


def _tier_bounds(min_ante: int, max_ante: int) -> None:
    if min_ante > max_ante:
        raise ValidationError(
            "The minimum ante must not be above the maximum.",
            code="tier_invalid",
            extra={"min_ante": format_cents(min_ante), "max_ante": format_cents(max_ante)},
        )


def tier_create(*, actor, name, min_ante, max_ante) -> LimitTier:
    name = config_name(name, max_length=TIER_NAME_MAX)
    min_ante = config_cents(min_ante, field="min_ante")
    max_ante = config_cents(max_ante, field="max_ante")
    _tier_bounds(min_ante, max_ante)
    with db_transaction.atomic():
        config_name_free(LimitTier, name)
        tier = LimitTier.objects.create(name=name, min_ante=min_ante, max_ante=max_ante)
        audit_record(actor=actor, action="tier.create", obj=tier, before=None, after=snapshot(tier))
        return tier


def tier_update(*, actor, tier_id: int, changes: Mapping) -> LimitTier:
    """Rename a tier or move its ante bounds; its tables' next hands (and empty live ones) use them."""
    changes = config_changes(changes, {"name", "min_ante", "max_ante"})
    cleaned = {}
    if "name" in changes:
        cleaned["name"] = config_name(changes["name"], max_length=TIER_NAME_MAX)
    for field in ("min_ante", "max_ante"):
        if field in changes:
            cleaned[field] = config_cents(changes[field], field=field)
    with db_transaction.atomic():
        tier = config_get(LimitTier, tier_id, field="tier", code="tier_not_found", what="limit tier", lock=True)
        change = config_apply(tier, cleaned)
        _tier_bounds(tier.min_ante, tier.max_ante)
        if "name" in cleaned:
            config_name_free(LimitTier, tier.name, exclude_pk=tier.pk)
        if not change.fields:
            return tier
        tier.save(update_fields=change.fields)
        audit_record(actor=actor, action="tier.update", obj=tier, before=change.before, after=change.after)
        if {"min_ante", "max_ante"} & set(change.fields):
            tier_limits_changed.send(sender=LimitTier, tier=tier)
        return tier
