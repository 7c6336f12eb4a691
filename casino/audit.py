"""The configuration audit trail: every change by staff, who, when, before and after."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from django.db import models
from django.forms.models import model_to_dict
from django.utils.translation import gettext, gettext_lazy, gettext_noop

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


# Every action the trail records (``AUDIT_ACTIONS``), and (``OBJECT_WORDS``) every type of
# object it names: the audit log's filters offer these, read from here rather than from the
# whole trail. Each action is one whole phrase for the catalogs (German orders its words
# otherwise); the pages translate it as they show it (``audit_action_words``).
ACTION_WORDS = {
    "paytable.create": gettext_noop("Pay table created"),
    "paytable.update": gettext_noop("Pay table changed"),
    "pool.create": gettext_noop("Jackpot pool created"),
    "pool.top_up": gettext_noop("Jackpot pool topped up"),
    "pool.update": gettext_noop("Jackpot pool changed"),
    "table.close": gettext_noop("Table closed"),
    "table.create": gettext_noop("Table created"),
    "table.open": gettext_noop("Table opened"),
    "table.update": gettext_noop("Table changed"),
    "tier.create": gettext_noop("Limit tier created"),
    "tier.update": gettext_noop("Limit tier changed"),
    "otp.device_confirmed": gettext_noop("Two-factor device confirmed"),
    "otp.device_removed": gettext_noop("Two-factor device removed"),
    "user.role": gettext_noop("User roles changed"),
    "poker_table.create": gettext_noop("Poker table created"),
    "poker_table.open": gettext_noop("Poker table opened"),
    "poker_table.close": gettext_noop("Poker table closed"),
}
AUDIT_ACTIONS = tuple(ACTION_WORDS)


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
    "wallets.LimitTier": gettext_noop("Limit tier"),
    "tables.PayTable": gettext_noop("Pay table"),
    "tables.Table": gettext_noop("Table"),
    "jackpot.JackpotPool": gettext_noop("Jackpot pool"),
    "auth.User": gettext_noop("User"),
    "otp_totp.TOTPDevice": gettext_noop("Two-factor device"),
    "poker.PokerTable": gettext_noop("Poker table"),
}
_REFERENCES = {"tier": "wallets.LimitTier", "paytable": "tables.PayTable", "pool": "jackpot.JackpotPool"}
_ACCOUNTS = ("house_account", "meter_account", "reserve_account")
# Each word is translated as the page is drawn, in its reader's language (``gettext``); the
# amounts and numbers are written as that language writes them (``casino.money``).


def _euros(value) -> str:
    from casino.money import money

    return money(value) if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _percent_of_bp(value) -> str:
    from casino.money import decimal_comma

    if not isinstance(value, int):
        return str(value)
    units, rest = divmod(value, 100)
    number = f"{units}.{rest:02d}".removesuffix(".00")
    return (number.replace(".", ",") if decimal_comma() else number) + " %"


def _seconds(value) -> str:
    return gettext("%(seconds)s s") % {"seconds": value} if isinstance(value, int) else str(value)


def _yes_no(value) -> str:
    return gettext("yes") if value is True else gettext("no") if value is False else str(value)


def _category(key: str) -> str:
    from casino.game.evaluator import Category

    try:
        return gettext(Category.from_key(key).label)
    except ValueError:
        return str(key)


def _odds(value) -> str:
    return gettext("push") if value is None else gettext("%(odds)s to 1") % {"odds": value}


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
    return _rows_table([gettext("Hand"), gettext("Dealer qualifies"), gettext("Dealer does not qualify")], rows)


def _schedule(value) -> str:
    """``{"percent_prizes": {key: %}, "fixed_prizes": {key: cents}}`` as a table of prizes."""
    if not isinstance(value, dict):
        return str(value)
    from casino.game.evaluator import Category

    percent, fixed = value.get("percent_prizes") or {}, value.get("fixed_prizes") or {}
    keys = [c.key for c in sorted(Category, reverse=True) if c.key in percent or c.key in fixed]
    rows = [
        [
            _category(k),
            gettext("%(percent)s %% of the meter") % {"percent": percent[k]} if k in percent else _euros(fixed[k]),
        ]
        for k in keys
    ]
    return _rows_table([gettext("Hand"), gettext("Jackpot prize")], rows)


def _quoted(name: str) -> str:
    """A name in the reader's quotation marks: “nassau”, „nassau“."""
    return gettext("“%(name)s”") % {"name": name}


def _reference(label: str):
    def show(value) -> str:
        from django.apps import apps

        if value is None:
            return "—"
        obj = apps.get_model(label).objects.filter(pk=value).first()
        return _quoted(obj.name) if obj is not None else gettext("#%(id)s (deleted)") % {"id": value}

    return show


def _account(value) -> str:
    from django.apps import apps

    account = apps.get_model("wallets", "Account").objects.filter(pk=value).first() if value is not None else None
    return account.name if account is not None else "—"


def _timeout_action(value) -> str:
    return {"fold": gettext("fold"), "raise": gettext("raise")}.get(value, str(value))


def _roles(value) -> str:
    if not isinstance(value, list):
        return str(value)
    from casino.templatetags.casino_tags import role_label

    return ", ".join(role_label(role) for role in value)


def _poker_game(value) -> str:
    from django.apps import apps

    return apps.get_model("poker", "PokerTable")(game=value).get_game_display()


def _poker_preset(value) -> str:
    """``"seven_stud/2-4"`` -> ``"2-4"``; a manager-made table's empty preset -> ``"custom"``."""
    if not value:
        return gettext("custom")
    return str(value).partition("/")[2] or str(value)


def _poker_state(value) -> str:
    return {"open": gettext("Open"), "closed": gettext("Closed")}.get(value, str(value))


def _rake_rule(value) -> str:
    """``{"percent": "5", "cap": "3.00", "no_first_round": true}`` -> ``"5 %, at most €3.00"``."""
    from casino.money import decimal_comma, money

    if not isinstance(value, dict):
        return str(value)
    percent = str(value.get("percent", "0"))
    try:
        cap = money(value.get("cap", "0.00"))
    except (TypeError, ValueError):
        cap = str(value.get("cap"))
    words = {"percent": percent.replace(".", ",") if decimal_comma() else percent, "cap": cap}
    if value.get("no_first_round", True):
        return gettext("%(percent)s %%, at most %(cap)s") % words
    return gettext("%(percent)s %%, at most %(cap)s, the first round too") % words


def _hands_on_previous_rules(value) -> str:
    if not isinstance(value, list) or not all(isinstance(h, dict) for h in value):
        return str(value)
    hands = [gettext("hand #%(hand)s at %(table)s") % {"hand": h["hand"], "table": h["table_name"]} for h in value]
    return ", ".join(hands) or gettext("none")


FIELD_WORDS: dict[str, tuple[str, object]] = {
    "name": (gettext_lazy("Name"), str),
    "min_ante": (gettext_lazy("Lowest ante"), _euros),
    "max_ante": (gettext_lazy("Highest ante"), _euros),
    "tier": (gettext_lazy("Limit tier"), _reference(_REFERENCES["tier"])),
    "paytable": (gettext_lazy("Pay table"), _reference(_REFERENCES["paytable"])),
    "pool": (gettext_lazy("Jackpot pool"), _reference(_REFERENCES["pool"])),
    "house_account": (gettext_lazy("House account"), _account),
    "meter_account": (gettext_lazy("Meter account"), _account),
    "reserve_account": (gettext_lazy("Reset reserve account"), _account),
    "is_open": (gettext_lazy("Open"), _yes_no),
    "is_active": (gettext_lazy("Active"), _yes_no),
    "next_nonce": (gettext_lazy("Next hand number"), str),
    "bet_seconds": (gettext_lazy("Betting window"), _seconds),
    "decision_seconds": (gettext_lazy("Time to fold or raise"), _seconds),
    "extension_seconds": (gettext_lazy("Extra time with a pair or better"), _seconds),
    "pair_timeout_action": (gettext_lazy("When that extra time runs out"), _timeout_action),
    "sit_out_limit": (gettext_lazy("Rounds sat out before standing up"), str),
    "seed_amount": (gettext_lazy("Meter after a reset"), _euros),
    "bet_amount": (gettext_lazy("Jackpot chip"), _euros),
    "meter_share_bp": (gettext_lazy("Share of each chip to the meter"), _percent_of_bp),
    "reserve_share_bp": (gettext_lazy("Share of each chip to the reset reserve"), _percent_of_bp),
    "schedule": (gettext_lazy("Payout schedule"), _schedule),
    "data": (gettext_lazy("Pays on the raise"), _paytable),
    "meter": (gettext_lazy("Meter"), _euros),
    "amount": (gettext_lazy("Amount"), _euros),
    "transaction": (gettext_lazy("Ledger transaction"), lambda v: f"#{v}"),
    "groups": (gettext_lazy("Roles"), _roles),
    "is_staff": (gettext_lazy("Admin site access"), _yes_no),
    "is_superuser": (gettext_lazy("Superuser"), _yes_no),
    "user": (gettext_lazy("User"), str),
    "device": (gettext_lazy("Device"), str),
    "confirmed": (gettext_lazy("Confirmed"), _yes_no),
    # A poker table (poker.services): its game, stakes preset, seats, state and rake rule.
    "game": (gettext_lazy("Game"), _poker_game),
    "preset": (gettext_lazy("Preset"), _poker_preset),
    "max_seats": (gettext_lazy("Seats"), str),
    "state": (gettext_lazy("State"), _poker_state),
    "rake_rule": (gettext_lazy("Rake rule"), _rake_rule),
    # A pool change: the hands in play that keep the rules they opened under (jackpot.services).
    "hands_on_previous_rules": (gettext_lazy("Hands still on the previous rules"), _hands_on_previous_rules),
}
HIDDEN_FIELDS = ("id",)


def _show(field: str, value) -> str:
    if value is None:
        return "—"
    label_and_show = FIELD_WORDS.get(field)
    if label_and_show is None:
        return str(value)
    return label_and_show[1](value)


def _field_label(field: str) -> str:
    """The field's words in the reader's language; a field the log has no words for, as recorded."""
    label_and_show = FIELD_WORDS.get(field)
    return str(label_and_show[0]) if label_and_show is not None else field.replace("_", " ").capitalize()


def audit_action_words(action: str) -> str:
    """``"tier.update"`` -> ``"Limit tier changed"`` in the reader's language; an action the
    log no longer records, as it was recorded."""
    return gettext(ACTION_WORDS[action]) if action in ACTION_WORDS else action


def audit_object_words(entry: AuditEntry) -> str:
    """``"Limit tier “€0.50 – €10”"``: the kind of object and its name (its id when it has none)."""
    from django.apps import apps

    kind = gettext(OBJECT_WORDS[entry.object_type]) if entry.object_type in OBJECT_WORDS else None
    kind = kind or entry.object_type.rpartition(".")[2]
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
    if name:
        return gettext("%(kind)s “%(name)s”") % {"kind": kind, "name": name}
    return gettext("%(kind)s #%(id)s") % {"kind": kind, "id": entry.object_id}


def audit_entry_words(entry: AuditEntry) -> dict:
    """An entry as staff read it, in their language: action, object and each changed field,
    before and after."""
    before, after = entry.before or {}, entry.after or {}
    if not isinstance(before, dict) or not isinstance(after, dict):
        changes = [{"field": gettext("Value"), "before": str(entry.before), "after": str(entry.after)}]
    else:
        fields = [f for f in dict.fromkeys([*before, *after]) if f not in HIDDEN_FIELDS]
        changes = [
            {
                "field": _field_label(f),
                "before": _show(f, before.get(f)) if f in before else None,
                "after": _show(f, after.get(f)) if f in after else None,
            }
            for f in fields
            if before.get(f) != after.get(f)
        ]
    return {
        "action": audit_action_words(entry.action),
        "object": audit_object_words(entry),
        "who": entry.actor.get_username() if entry.actor_id else gettext("the system"),
        "created": entry.before is None,
        "changes": changes,
    }
