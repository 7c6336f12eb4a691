"""Managers' configuration of tables and pay tables, and how rule changes reach the tables.

Every change runs in one transaction with its audit entry (who, when, before, after). Bad
input is refused with a stable code before anything is written (``casino.http.validation``).
The rules a hand plays by (limits, pay table, jackpot chip) are copied into the hand when
it opens, so a change never reaches a hand in play: the table's tier, pay table, pool and
timeout rule cannot change while its live hand holds a bet, and a live hand that holds
none yet takes the new rules at once. A limit tier's new bounds (``wallets.tiers``) and a
jackpot pool's new rules (``jackpot.services.pool_update``) reach the tables through the
receivers at the end of this module, in the changing transaction.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.db import transaction as db_transaction
from django.db.models import F
from django.dispatch import receiver
from django.utils.translation import gettext

from casino.audit import audit_record, config_apply, snapshot
from casino.game.paytables import PayTable as CorePayTable
from casino.game.rules import MIN_TIME_TO_ACT_SECONDS
from casino.http.errors import Conflict, Translated, ValidationError, reason_of
from casino.http.validation import config_changes, config_get, config_int, config_name, config_name_free, required
from jackpot.models import JackpotPool
from jackpot.services import HAND_RULE_FIELDS, PoolRules, pool_rules_changed, pool_rules_changing
from tables import events
from tables.locks import table_lock, tables_lock
from tables.models import Hand, PayTable, Table
from tables.selectors import pool_hands_on_previous_rules, table_live_hand
from tables.services.hands import hand_cancel, hand_open_next
from tables.services.steps import step, table_rules, touch
from wallets.models import Account, LimitTier
from wallets.services import account_get_or_create
from wallets.tiers import tier_limits_changed


def paytable_save(*, name: str, table: CorePayTable) -> PayTable:
    """Store a pay table after validating it (whole cents, higher hands never pay less)."""
    try:
        table.validate()
    except ValueError as exc:
        raise ValidationError(
            Translated(gettext("The pay table is not valid: %(problem)s") % {"problem": reason_of(exc)}),
            code="paytable_invalid",
        ) from None
    paytable, _ = PayTable.objects.update_or_create(name=name, defaults={"data": table.to_dict()})
    return paytable


def table_create(*, name: str, tier: LimitTier, paytable: PayTable, pool: JackpotPool) -> Table:
    with db_transaction.atomic():
        house = account_get_or_create(code=f"house:table:{name}", kind=Account.Kind.HOUSE, name=f"House at {name}")
        return Table.objects.create(name=name, tier=tier, paytable=paytable, pool=pool, house_account=house)


TABLE_NAME_MAX = 80
PAYTABLE_NAME_MAX = 40
MAX_ODDS = 1000
# Inclusive bounds of the time bank and the sit-out rule, per field.
TIMEBANK_LIMITS = {
    "bet_seconds": (MIN_TIME_TO_ACT_SECONDS, 600),
    "decision_seconds": (MIN_TIME_TO_ACT_SECONDS, 600),
    "extension_seconds": (0, 600),
    "sit_out_limit": (1, 100),
}
PAIR_TIMEOUT_ACTIONS = ("fold", "raise")
TABLE_FIELDS = frozenset({"name", "tier", "paytable", "pool", "pair_timeout_action", *TIMEBANK_LIMITS})
# Fields that change how a hand is played: they wait until the live hand is over.
TABLE_RULE_FIELDS = frozenset({"tier", "paytable", "pool", "pair_timeout_action"})


def _timebank(values: Mapping) -> dict:
    cleaned = {}
    for field, (low, high) in TIMEBANK_LIMITS.items():
        if field in values:
            cleaned[field] = config_int(values[field], field=field, low=low, high=high)
    if "pair_timeout_action" in values:
        action = values["pair_timeout_action"]
        required(action, "pair_timeout_action")
        if action not in PAIR_TIMEOUT_ACTIONS:
            raise ValidationError(
                "pair_timeout_action is 'fold' or 'raise'.",
                code="field_invalid",
                extra={"field": "pair_timeout_action", "choices": list(PAIR_TIMEOUT_ACTIONS)},
            )
        cleaned["pair_timeout_action"] = action
    return cleaned


def _name_free(model, name: str, *, exclude_pk=None, account_code: str | None = None) -> None:
    """A renamed table's accounts keep the old name: a new one may not take it."""
    also_taken = (lambda: Account.objects.filter(code=account_code).exists()) if account_code is not None else None
    config_name_free(model, name, exclude_pk=exclude_pk, also_taken=also_taken)


def _has_bets(hand: Hand) -> bool:
    return hand.hand_seats.exists()


def _refresh_open_hand(table: Table) -> Hand | None:
    """Give a (locked) table's live hand the table's current rules, if nobody has bet yet."""
    hand = table.hands.select_for_update().filter(state=Hand.State.BETTING).first()
    if hand is None or _has_bets(hand):
        return None
    table_rules(table)
    hand.paytable_name = table.paytable.name
    hand.paytable_data = table.paytable.data
    hand.min_ante = table.tier.min_ante
    hand.max_ante = table.tier.max_ante
    hand.jackpot_bet_amount = table.pool.bet_amount
    hand.jackpot_rules = PoolRules.of_pool(table.pool).to_dict()
    touch(hand, "paytable_name", "paytable_data", "min_ante", "max_ante", "jackpot_bet_amount", "jackpot_rules")
    events.hand_opened(hand)  # the table hears the new limits
    return hand


def hands_refresh(tables) -> None:
    """Give each table's open hand without bets its table's current rules (tables by id)."""
    for table_id in sorted(t.pk for t in tables):
        _refresh_open_hand(table_lock(table_id))


def _core_paytable(name: str, qualified, not_qualified) -> CorePayTable:
    for field, column in (("qualified", qualified), ("not_qualified", not_qualified)):
        required(column, field)
        if not isinstance(column, Mapping):
            raise ValidationError(
                Translated(gettext("%(field)s must be an object of hand categories to odds.") % {"field": field}),
                code="field_invalid",
                extra={"field": field},
            )
        for key, odds in column.items():
            if isinstance(odds, int) and not isinstance(odds, bool) and odds > MAX_ODDS:
                raise ValidationError(
                    Translated(
                        gettext("%(field)s: %(category)s pays %(odds)s to 1, more than %(max)s to 1.")
                        % {"field": field, "category": key, "odds": odds, "max": MAX_ODDS}
                    ),
                    code="value_out_of_range",
                    extra={"field": field, "category": str(key), "min": 0, "max": MAX_ODDS},
                )
    try:
        return CorePayTable.from_dict(
            {"name": name, "qualified": dict(qualified), "not_qualified": dict(not_qualified)}
        )
    except ValueError as exc:
        raise ValidationError(
            Translated(
                gettext(
                    "%(problem)s. Odds are whole numbers 'N to 1' (so every payout is whole cents), "
                    "and a higher hand never pays less."
                )
                % {"problem": reason_of(exc)}
            ),
            code="paytable_invalid",
        ) from None


def paytable_create(*, actor, name, qualified, not_qualified) -> PayTable:
    """A new pay table: odds "N to 1" per hand category, validated by the game core."""
    name = config_name(name, max_length=PAYTABLE_NAME_MAX)
    core = _core_paytable(name, qualified, not_qualified)
    with db_transaction.atomic():
        _name_free(PayTable, name)
        paytable = PayTable.objects.create(name=name, data=core.to_dict())
        audit_record(actor=actor, action="paytable.create", obj=paytable, before=None, after=snapshot(paytable))
        return paytable


def paytable_update(*, actor, paytable_id: int, changes: Mapping) -> PayTable:
    """Change a pay table; its tables' next hands (and empty live ones) pay by it."""
    changes = config_changes(changes, {"name", "qualified", "not_qualified"})
    with step():
        paytable = config_get(
            PayTable, paytable_id, field="paytable", code="paytable_not_found", what="pay table", lock=True
        )
        before = snapshot(paytable)
        name = config_name(changes["name"], max_length=PAYTABLE_NAME_MAX) if "name" in changes else paytable.name
        columns = {column: changes.get(column, paytable.data[column]) for column in ("qualified", "not_qualified")}
        core = _core_paytable(name, columns["qualified"], columns["not_qualified"])
        if name != paytable.name:
            _name_free(PayTable, name, exclude_pk=paytable.pk)
        paytable.name = name
        paytable.data = core.to_dict()
        after = snapshot(paytable)
        if after == before:
            return paytable
        paytable.save(update_fields=["name", "data"])
        audit_record(actor=actor, action="paytable.update", obj=paytable, before=before, after=after)
        hands_refresh(paytable.tables.all())
        return paytable


def table_add(*, actor, name, tier_id, paytable_id, pool_id, timebank: Mapping | None = None) -> Table:
    """A new table (open), with its house account; time bank defaults from SPEC A4."""
    name = config_name(name, max_length=TABLE_NAME_MAX)
    if timebank:
        timebank = config_changes(timebank, {"pair_timeout_action", *TIMEBANK_LIMITS})
    options = _timebank(timebank or {})
    with db_transaction.atomic():
        tier = config_get(LimitTier, tier_id, field="tier", code="tier_not_found", what="limit tier")
        paytable = config_get(PayTable, paytable_id, field="paytable", code="paytable_not_found", what="pay table")
        pool = config_get(JackpotPool, pool_id, field="pool", code="pool_not_found", what="jackpot pool")
        _name_free(Table, name, account_code=f"house:table:{name}")
        table = table_create(name=name, tier=tier, paytable=paytable, pool=pool)
        if options:
            for field, value in options.items():
                setattr(table, field, value)
            table.save(update_fields=list(options))
        audit_record(actor=actor, action="table.create", obj=table, before=None, after=snapshot(table))
        return table


def table_update(*, actor, table_id: int, changes: Mapping) -> Table:
    """Change a table. Tier, pay table, pool and the timeout rule wait for the live hand.

    While the live hand holds a bet those are refused (``hand_in_progress``); a live hand
    without bets takes them at once. The name and the timers may change at any time: a
    timer applies from the next deadline set.
    """
    changes = config_changes(changes, TABLE_FIELDS)
    cleaned = _timebank(changes)
    if "name" in changes:
        cleaned["name"] = config_name(changes["name"], max_length=TABLE_NAME_MAX)
    with step():
        table = table_lock(table_id)
        lookups = {
            "tier": (LimitTier, "tier_not_found", "limit tier"),
            "paytable": (PayTable, "paytable_not_found", "pay table"),
            "pool": (JackpotPool, "pool_not_found", "jackpot pool"),
        }
        for field, (model, code, what) in lookups.items():
            if field in changes:
                cleaned[field] = config_get(model, changes[field], field=field, code=code, what=what)
        change = config_apply(table, cleaned)
        before, after, changed = change.before, change.after, change.fields
        if not changed:
            return table
        if "name" in changed:
            _name_free(Table, table.name, exclude_pk=table.pk)
        if TABLE_RULE_FIELDS & set(changed):
            hand = table_live_hand(table=table)
            if hand is not None and _has_bets(hand):
                raise Conflict(
                    "A hand is in play at this table: its tier, pay table, pool and timeout rule can change "
                    "when the hand is over.",
                    code="hand_in_progress",
                    extra={"hand": hand.pk, "fields": sorted(TABLE_RULE_FIELDS & set(changed))},
                )
        table.save(update_fields=changed)
        audit_record(actor=actor, action="table.update", obj=table, before=before, after=after)
        if TABLE_RULE_FIELDS & set(changed):
            _refresh_open_hand(table)
        return table


def table_open(*, actor, table_id: int) -> Table:
    """Open a table for play (again); players still seated get a hand at once."""
    with step():
        table = table_lock(table_id)
        if table.is_open:
            return table
        before = snapshot(table)
        table.is_open = True
        table.save(update_fields=["is_open"])
        audit_record(actor=actor, action="table.open", obj=table, before=before, after=snapshot(table))
        hand_open_next(table)
        return table


def table_close(*, actor, table_id: int) -> Table:
    """Close a table: no new seat, no new hand. A hand in play is played to its end.

    A live hand with bets goes on (its betting window and time bank run as usual) and is
    the table's last; one without bets is cancelled now and the seated players stand up.
    Closing a closed table again stands up anyone still seated once its last hand is over.
    """
    with step():
        table = table_lock(table_id)
        before = snapshot(table)
        was_open = table.is_open
        if was_open:
            table.is_open = False
            table.save(update_fields=["is_open"])
        hand = table_live_hand(table=table)
        if hand is not None and not _has_bets(hand):
            hand_cancel(hand_id=hand.pk, reason="table closed", actor=actor)
            hand = None
        stood_up = []
        if hand is None:
            for seat in table.seats.order_by("number"):
                stood_up.append(seat.number)
                seat.delete()
                events.seat_changed(table, seat.number)
        table.hand_in_progress = hand.pk if hand is not None else None
        if was_open or stood_up:
            after = snapshot(table) | {"hand_in_progress": table.hand_in_progress, "stood_up": stood_up}
            audit_record(actor=actor, action="table.close", obj=table, before=before, after=after)
        return table


# --- rule changes of other apps that reach the tables --------------------------------------


@receiver(tier_limits_changed, dispatch_uid="tables.tier_limits_changed")
def _tier_limits_changed(sender, *, tier: LimitTier, **kwargs) -> None:
    """A tier's new ante bounds: its tables' open hands without bets take them at once."""
    with step():
        hands_refresh(tier.tables.all())


@receiver(pool_rules_changing, dispatch_uid="tables.pool_rules_changing")
def _pool_rules_changing(sender, *, pool: JackpotPool, **kwargs) -> None:
    """Lock the pool's tables before the pool (a hand's own order: table, hand, accounts):
    no hand of the pool opens, deals or settles while its rules change."""
    tables_lock(pool.tables.all())


@receiver(pool_rules_changed, dispatch_uid="tables.pool_rules_changed")
def _pool_rules_changed(sender, *, pool: JackpotPool, changed: frozenset[str], **kwargs) -> list[dict] | None:
    """Hands still taking bets without a jackpot chip take the pool's new rules at once; a
    hand with a chip keeps its own (the chip was placed under them). Returns the hands
    left on the previous rules (``tables.selectors.pool_hands_on_previous_rules``)."""
    if not HAND_RULE_FIELDS & changed:
        return None
    tables = pool.tables.all()
    with_chips = Hand.objects.live().with_jackpot_chips().filter(table__in=tables)
    Hand.objects.filter(table__in=tables, state=Hand.State.BETTING).exclude(pk__in=with_chips.values("pk")).update(
        jackpot_bet_amount=pool.bet_amount,
        jackpot_rules=PoolRules.of_pool(pool).to_dict(),
        version=F("version") + 1,
    )
    return pool_hands_on_previous_rules(pool=pool)
