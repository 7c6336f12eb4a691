"""The configuration audit trail: every change by staff, who, when, before and after."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from django.db import models
from django.forms.models import model_to_dict
from django.utils.translation import gettext_noop

from casino.models import AuditEntry


def snapshot(obj: models.Model | None) -> dict | None:
    """The object's fields as plain values (foreign keys as ids), or None."""
    if obj is None:
        return None
    return {key: (value.pk if isinstance(value, models.Model) else value) for key, value in model_to_dict(obj).items()}


@dataclass(frozen=True)
class Change:
    """What setting values did to an object: its snapshots and the fields that differ (sorted)."""

    before: dict
    after: dict
    fields: list[str]


def config_apply(obj: models.Model, values: Mapping) -> Change:
    """The configuration services' update step: set ``values`` on ``obj`` (not saved) and
    say what changed, for ``save(update_fields=change.fields)`` and ``audit_record``."""
    before = snapshot(obj)
    for field, value in values.items():
        setattr(obj, field, value)
    after = snapshot(obj)
    return Change(before=before, after=after, fields=sorted(field for field in after if after[field] != before[field]))


# Every action the trail records, and (``OBJECT_WORDS``) every type of object it names: the
# audit log's filters offer these, read from here rather than from the whole trail.
AUDIT_ACTIONS = (
    "paytable.create",
    "paytable.update",
    "pool.create",
    "pool.top_up",
    "pool.update",
    "table.close",
    "table.create",
    "table.open",
    "table.update",
    "tier.create",
    "tier.update",
    "otp.device_confirmed",
    "otp.device_removed",
    "user.role",
)


# The words the audit log's filters show for them (``audit_action_words``, ``OBJECT_WORDS``),
# for the catalogs: the page translates them.
FILTER_WORDS = (
    gettext_noop("Pay table created"),
    gettext_noop("Pay table changed"),
    gettext_noop("Jackpot pool created"),
    gettext_noop("Jackpot pool topped up"),
    gettext_noop("Jackpot pool changed"),
    gettext_noop("Table closed"),
    gettext_noop("Table created"),
    gettext_noop("Table opened"),
    gettext_noop("Table changed"),
    gettext_noop("Limit tier created"),
    gettext_noop("Limit tier changed"),
    gettext_noop("Two-factor device confirmed"),
    gettext_noop("Two-factor device removed"),
    gettext_noop("User roles changed"),
    gettext_noop("Limit tier"),
    gettext_noop("Pay table"),
    gettext_noop("Table"),
    gettext_noop("Jackpot pool"),
    gettext_noop("User"),
    gettext_noop("Two-factor device"),
)


def audit_record(*, actor, action: str, obj: models.Model, before: dict | None, after: dict | None) -> AuditEntry:
    """Record a change; call it inside the transaction that makes the change. The action
    and the object's type are among those the audit log offers (``AUDIT_ACTIONS``,
    ``OBJECT_WORDS``): a new one is added there first."""
    if action not in AUDIT_ACTIONS or obj._meta.label not in OBJECT_WORDS:
        raise ValueError(f"The audit log does not know {action!r} on {obj._meta.label}: add it to casino.audit.")
    return AuditEntry.objects.create(
        actor=actor,
        action=action,
        object_type=obj._meta.label,
        object_id=str(obj.pk),
        before=before,
        after=after,
    )


# --- the entries in words (staff pages) ------------------------------------------------
# What the audit log shows a manager or an auditor: amounts in euros, pay tables and
# payout schedules as tables, names instead of ids. The stored entry stays as recorded
# (the API and the exports keep the raw values); this is presentation only.

OBJECT_WORDS = {
    "wallets.LimitTier": "Limit tier",
    "tables.PayTable": "Pay table",
    "tables.Table": "Table",
    "jackpot.JackpotPool": "Jackpot pool",
    "auth.User": "User",
    "otp_totp.TOTPDevice": "Two-factor device",
}
_ACTION_SUBJECT = {
    "tier": "Limit tier",
    "paytable": "Pay table",
    "table": "Table",
    "pool": "Jackpot pool",
    "user": "User",
    "otp": "Two-factor",
}
_ACTION_VERB = {
    "create": "created",
    "update": "changed",
    "open": "opened",
    "close": "closed",
    "top_up": "topped up",
    "role": "roles changed",
    "device_confirmed": "device confirmed",
}
_REFERENCES = {"tier": "wallets.LimitTier", "paytable": "tables.PayTable", "pool": "jackpot.JackpotPool"}
_ACCOUNTS = ("house_account", "meter_account", "reserve_account")


def _euros(value) -> str:
    from casino.money import money

    return money(value) if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _percent_of_bp(value) -> str:
    if not isinstance(value, int):
        return str(value)
    units, rest = divmod(value, 100)
    return f"{units}.{rest:02d} %".replace(".00 %", " %")


def _seconds(value) -> str:
    return f"{value} s" if isinstance(value, int) else str(value)


def _yes_no(value) -> str:
    return "yes" if value is True else "no" if value is False else str(value)


def _category(key: str) -> str:
    from casino.game.evaluator import Category

    try:
        return Category.from_key(key).label
    except ValueError:
        return str(key)


def _odds(value) -> str:
    return "push" if value is None else f"{value} to 1"


def _rows_table(headers: list[str], rows: list[list[str]]) -> str:
    from django.utils.html import format_html, format_html_join

    head = format_html_join("", '<th scope="col">{}</th>', ((h,) for h in headers))
    body = format_html_join(
        "", "<tr>{}</tr>", ((format_html_join("", "<td>{}</td>", ((cell,) for cell in row)),) for row in rows)
    )
    return format_html("<table><thead><tr>{}</tr></thead><tbody>{}</tbody></table>", head, body)


def _paytable(value) -> str:
    """``{"name", "qualified": {key: odds}, "not_qualified": {...}}`` as a three-column table."""
    if not isinstance(value, dict) or not isinstance(value.get("qualified"), dict):
        return str(value)
    from casino.game.evaluator import Category

    qualified, not_qualified = value.get("qualified") or {}, value.get("not_qualified") or {}
    keys = [c.key for c in sorted(Category, reverse=True) if c.key in qualified or c.key in not_qualified]
    rows = [[_category(k), _odds(qualified.get(k)), _odds(not_qualified.get(k))] for k in keys]
    return _rows_table(["Hand", "Dealer qualifies", "Dealer does not qualify"], rows)


def _schedule(value) -> str:
    """``{"percent_prizes": {key: %}, "fixed_prizes": {key: cents}}`` as a table of prizes."""
    if not isinstance(value, dict):
        return str(value)
    from casino.game.evaluator import Category

    percent, fixed = value.get("percent_prizes") or {}, value.get("fixed_prizes") or {}
    keys = [c.key for c in sorted(Category, reverse=True) if c.key in percent or c.key in fixed]
    rows = [[_category(k), f"{percent[k]} % of the meter" if k in percent else _euros(fixed[k])] for k in keys]
    return _rows_table(["Hand", "Jackpot prize"], rows)


def _reference(label: str):
    def show(value) -> str:
        from django.apps import apps

        if value is None:
            return "—"
        obj = apps.get_model(label).objects.filter(pk=value).first()
        return f"“{obj.name}”" if obj is not None else f"#{value} (deleted)"

    return show


def _account(value) -> str:
    from django.apps import apps

    account = apps.get_model("wallets", "Account").objects.filter(pk=value).first() if value is not None else None
    return account.name if account is not None else "—"


FIELD_WORDS: dict[str, tuple[str, object]] = {
    "name": ("Name", str),
    "min_ante": ("Lowest ante", _euros),
    "max_ante": ("Highest ante", _euros),
    "tier": ("Limit tier", _reference(_REFERENCES["tier"])),
    "paytable": ("Pay table", _reference(_REFERENCES["paytable"])),
    "pool": ("Jackpot pool", _reference(_REFERENCES["pool"])),
    "house_account": ("House account", _account),
    "meter_account": ("Meter account", _account),
    "reserve_account": ("Reset reserve account", _account),
    "is_open": ("Open", _yes_no),
    "is_active": ("Active", _yes_no),
    "next_nonce": ("Next hand number", str),
    "bet_seconds": ("Betting window", _seconds),
    "decision_seconds": ("Time to fold or raise", _seconds),
    "extension_seconds": ("Extra time with a pair or better", _seconds),
    "pair_timeout_action": (
        "When that extra time runs out",
        lambda v: {"fold": "fold", "raise": "raise"}.get(v, str(v)),
    ),
    "sit_out_limit": ("Rounds sat out before standing up", str),
    "seed_amount": ("Meter after a reset", _euros),
    "bet_amount": ("Jackpot chip", _euros),
    "meter_share_bp": ("Share of each chip to the meter", _percent_of_bp),
    "reserve_share_bp": ("Share of each chip to the reset reserve", _percent_of_bp),
    "schedule": ("Payout schedule", _schedule),
    "data": ("Pays on the raise", _paytable),
    "meter": ("Meter", _euros),
    "amount": ("Amount", _euros),
    "transaction": ("Ledger transaction", lambda v: f"#{v}"),
    "groups": ("Roles", lambda v: ", ".join(v) if isinstance(v, list) else str(v)),
    "is_staff": ("Admin site access", _yes_no),
    "is_superuser": ("Superuser", _yes_no),
    "user": ("User", str),
    "device": ("Device", str),
    "confirmed": ("Confirmed", _yes_no),
    # A pool change: the hands in play that keep the rules they opened under (jackpot.services).
    "hands_on_previous_rules": (
        "Hands still on the previous rules",
        lambda v: (
            ", ".join(f"hand #{h['hand']} at {h['table_name']}" for h in v) or "none"
            if isinstance(v, list) and all(isinstance(h, dict) for h in v)
            else str(v)
        ),
    ),
}
HIDDEN_FIELDS = ("id",)


def _show(field: str, value) -> str:
    if value is None:
        return "—"
    label_and_show = FIELD_WORDS.get(field)
    if label_and_show is None:
        return str(value)
    return label_and_show[1](value)


def audit_action_words(action: str) -> str:
    """``"tier.update"`` -> ``"Limit tier changed"``."""
    subject, _, verb = action.partition(".")
    subject_word = _ACTION_SUBJECT.get(subject, subject.replace("_", " ").capitalize())
    return f"{subject_word} {_ACTION_VERB.get(verb, verb.replace('_', ' '))}".strip()


def audit_object_words(entry: AuditEntry) -> str:
    """``"Limit tier “€0.50 – €10”"``: the kind of object and its name (its id when it has none)."""
    from django.apps import apps

    kind = OBJECT_WORDS.get(entry.object_type, entry.object_type.rpartition(".")[2])
    name = None
    for snap in (entry.after, entry.before):
        if isinstance(snap, dict) and isinstance(snap.get("name"), str):
            name = snap["name"]
            break
    if name is None:
        try:
            obj = apps.get_model(entry.object_type).objects.filter(pk=entry.object_id).first()
        except (LookupError, ValueError):
            obj = None
        if obj is not None:
            name = getattr(obj, "name", None) or (obj.get_username() if hasattr(obj, "get_username") else None)
    return f"{kind} “{name}”" if name else f"{kind} #{entry.object_id}"


def audit_entry_words(entry: AuditEntry) -> dict:
    """An entry as staff read it: action, object and each changed field, before and after."""
    before, after = entry.before or {}, entry.after or {}
    if not isinstance(before, dict) or not isinstance(after, dict):
        changes = [{"field": "Value", "before": str(entry.before), "after": str(entry.after)}]
    else:
        fields = [f for f in dict.fromkeys([*before, *after]) if f not in HIDDEN_FIELDS]
        changes = [
            {
                "field": FIELD_WORDS.get(f, (f.replace("_", " ").capitalize(), None))[0],
                "before": _show(f, before.get(f)) if f in before else None,
                "after": _show(f, after.get(f)) if f in after else None,
            }
            for f in fields
            if before.get(f) != after.get(f)
        ]
    return {
        "action": audit_action_words(entry.action),
        "object": audit_object_words(entry),
        "who": entry.actor.get_username() if entry.actor_id else "the system",
        "created": entry.before is None,
        "changes": changes,
    }
