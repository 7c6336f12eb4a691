"""Responsible gaming, in one place: limits, self-exclusion, reality checks, and the guards
that the money services call before a deposit or a stake.

- Deposit and loss limits per day, week and month (rolling 24 hours, 7 and 30 days); all
  of them apply, so the lowest headroom wins.
- A player may lower a limit (or set a new one) at once; a raise, or removing a limit,
  takes effect after ``RAISE_DELAY``.
- Self-exclusion for six months or more, effective at once, never shortened: no seat, no
  bet, no deposit (withdrawals stay possible).
- Losses are read from the ledger: the wallet's net movement from play in the window,
  money still in play counting as lost, so that an open hand cannot be used to overrun.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext, gettext_noop

from casino.cents import format_cents
from casino.http.errors import Conflict, Translated, ValidationError
from casino.money import MAX_AMOUNT_CENTS, money
from wallets.models import Account, GamingLimit, Leg, PlayerProtection, Transaction

RAISE_DELAY = timedelta(hours=24)
MIN_EXCLUSION_MONTHS = 6
DAYS_PER_MONTH = 30
WINDOWS = {
    GamingLimit.Period.DAY: timedelta(days=1),
    GamingLimit.Period.WEEK: timedelta(days=7),
    GamingLimit.Period.MONTH: timedelta(days=DAYS_PER_MONTH),
}
PLAY_KINDS = (
    Transaction.Kind.BET,
    Transaction.Kind.HOLD_RELEASE,
    Transaction.Kind.SETTLEMENT,
    Transaction.Kind.JACKPOT_PRIZE,
    Transaction.Kind.REFUND,
    # A poker buy-in leaves the wallet for the table (lost until it comes back), a cash-out returns.
    Transaction.Kind.POKER_BUY_IN,
    Transaction.Kind.POKER_CASH_OUT,
)
REALITY_CHECK_MINUTES = (15, 30, 45, 60, 90, 120)


def effective_limit(limit: GamingLimit, now: datetime | None = None) -> int | None:
    """The amount in force now: a pending raise counts once its time has come."""
    now = now or timezone.now()
    if limit.pending_from is not None and limit.pending_from <= now:
        return limit.pending_amount
    return limit.amount


def limit_set(*, player, kind: str, period: str, amount: int | None) -> GamingLimit:
    """Set a limit; lower at once, raise (or remove) after ``RAISE_DELAY``."""
    if kind not in GamingLimit.Kind.values or period not in GamingLimit.Period.values:
        raise ValidationError("Unknown kind or period of limit.", code="limit_invalid")
    if amount is not None and (type(amount) is not int or not 0 <= amount <= MAX_AMOUNT_CENTS):
        raise ValidationError("A limit is an amount of zero or more.", code="limit_invalid")
    now = timezone.now()
    with transaction.atomic():
        limit, _ = GamingLimit.objects.select_for_update().get_or_create(player=player, kind=kind, period=period)
        current = effective_limit(limit, now)
        lowering = amount is not None and (current is None or amount <= current)
        if lowering:
            limit.amount, limit.pending_amount, limit.pending_from = amount, None, None
        elif amount != current:
            limit.amount = current
            limit.pending_amount, limit.pending_from = amount, now + RAISE_DELAY
        limit.save()
        return limit


def self_exclude(*, player, months: int) -> PlayerProtection:
    if type(months) is not int or months < MIN_EXCLUSION_MONTHS or months > 120:
        raise ValidationError(
            Translated(
                gettext("Self-exclusion lasts %(min)s to %(max)s months.") % {"min": MIN_EXCLUSION_MONTHS, "max": 120}
            ),
            code="exclusion_invalid",
        )
    with transaction.atomic():
        protection, _ = PlayerProtection.objects.select_for_update().get_or_create(player=player)
        until = timezone.now() + timedelta(days=DAYS_PER_MONTH * months)
        if protection.excluded_until is None or protection.excluded_until < until:
            protection.excluded_until = until
        protection.save()
        return protection


def reality_check_set(*, player, minutes: int | None) -> PlayerProtection:
    if minutes is not None and minutes not in REALITY_CHECK_MINUTES:
        raise ValidationError(
            Translated(
                gettext("A reality check comes every %(minutes)s minutes, or never.")
                % {"minutes": ", ".join(map(str, REALITY_CHECK_MINUTES))}
            ),
            code="reality_check_invalid",
        )
    protection, _ = PlayerProtection.objects.get_or_create(player=player)
    protection.reality_check_minutes = minutes
    protection.save(update_fields=["reality_check_minutes", "updated_at"])
    return protection


# --- reading ----------------------------------------------------------------------------


def excluded_until(*, player) -> datetime | None:
    protection = PlayerProtection.objects.filter(player_id=player.pk).only("id", "excluded_until").first()
    until = protection.excluded_until if protection is not None else None
    return until if until is not None and until > timezone.now() else None


def _wallet_flow(player, *, since: datetime, kinds) -> int:
    total = (
        Leg.objects.filter(
            account__owner=player,
            account__kind=Account.Kind.PLAYER_WALLET,
            transaction__kind__in=kinds,
            transaction__created_at__gte=since,
        )
        .values_list("side")
        .annotate(total=Sum("amount"))
        .order_by()
    )
    return sum(amount if side == Leg.Side.CREDIT else -amount for side, amount in total)


def deposited_since(player, since: datetime) -> int:
    return _wallet_flow(player, since=since, kinds=[Transaction.Kind.DEPOSIT])


def play_result_since(player, since: datetime) -> int:
    """Net won (positive) or lost from play since ``since``; money in play counts as spent."""
    return _wallet_flow(player, since=since, kinds=PLAY_KINDS)


def lost_since(player, since: datetime) -> int:
    """Net loss from play (money still in play counts as lost); 0 when ahead."""
    return max(0, -play_result_since(player, since))


@dataclass(frozen=True)
class LimitStatus:
    kind: str
    period: str
    amount: int | None
    used: int
    pending_amount: int | None
    pending_from: datetime | None

    @property
    def remaining(self) -> int | None:
        return None if self.amount is None else max(0, self.amount - self.used)


def limits_status(*, player) -> list[LimitStatus]:
    now = timezone.now()
    statuses = []
    for limit in GamingLimit.objects.filter(player=player).order_by("kind", "period"):
        since = now - WINDOWS[limit.period]
        used = deposited_since(player, since) if limit.kind == GamingLimit.Kind.DEPOSIT else lost_since(player, since)
        amount = effective_limit(limit, now)
        pending = limit.pending_from is not None and limit.pending_from > now
        statuses.append(
            LimitStatus(
                kind=limit.kind,
                period=limit.period,
                amount=amount,
                used=used,
                pending_amount=limit.pending_amount if pending else None,
                pending_from=limit.pending_from if pending else None,
            )
        )
    return statuses


# --- guards, called by the money services -------------------------------------------------


# What a self-exclusion refuses, by the guard that refuses it.
EXCLUDED_MESSAGES = {
    "playing": gettext_noop("You excluded yourself from play until %(until)s; playing is not possible."),
    "betting": gettext_noop("You excluded yourself from play until %(until)s; betting is not possible."),
    "a deposit": gettext_noop("You excluded yourself from play until %(until)s; a deposit is not possible."),
}


def _refuse_if_excluded(player, what: str) -> None:
    until = excluded_until(player=player)
    if until is not None:
        raise Conflict(
            Translated(
                gettext(EXCLUDED_MESSAGES[what])
                % {"until": date_format(timezone.localtime(until), "DATE_FORMAT")}  # as the limits page says it
            ),
            code="self_excluded",
            extra={"until": until.isoformat()},
        )


def guard_play(*, player) -> None:
    """Taking a seat."""
    _refuse_if_excluded(player, "playing")


@dataclass(frozen=True)
class StakeFacts:
    """What every bet asks first: the player's protection row and loss limits. Neither is
    held by a lock: a self-exclusion or a limit committed while a bet runs applies from
    the next bet."""

    protection: PlayerProtection | None
    loss_limits: list[GamingLimit]


def stake_facts(*, player_id: int) -> StakeFacts:
    return StakeFacts(
        PlayerProtection.objects.filter(player_id=player_id).order_by("pk").first(),
        list(GamingLimit.objects.filter(player_id=player_id, kind=GamingLimit.Kind.LOSS).order_by("pk")),
    )


def guard_stake(*, player, stake: int, facts: StakeFacts | None = None) -> None:
    """Before money is staked: ``stake`` is the most this bet can lose (ante, chip, raise).
    ``facts``: the player's, read with the step's other reads (else read here)."""
    facts = stake_facts(player_id=player.pk) if facts is None else facts
    until = facts.protection.excluded_until if facts.protection is not None else None
    if until is not None and until > timezone.now():
        _refuse_if_excluded(player, "betting")
    if facts.loss_limits:
        _guard(player, GamingLimit.Kind.LOSS, stake, lost_since, "loss_limit_reached", "loss", limits=facts.loss_limits)


def guard_deposit(*, player, amount: int) -> None:
    _refuse_if_excluded(player, "a deposit")
    _guard(player, GamingLimit.Kind.DEPOSIT, amount, deposited_since, "deposit_limit_reached", "deposit")


# A limit's refusal, by the limit's noun.
LIMIT_MESSAGES = {
    "loss": gettext_noop("This would pass your loss limit of %(limit)s %(period)s (%(left)s left)."),
    "deposit": gettext_noop("This would pass your deposit limit of %(limit)s %(period)s (%(left)s left)."),
}


def _guard(player, kind: str, amount: int, used_since, code: str, noun: str, limits=None) -> None:
    now = timezone.now()
    for limit in GamingLimit.objects.filter(player=player, kind=kind).order_by("pk") if limits is None else limits:
        cap = effective_limit(limit, now)
        if cap is None:
            continue
        used = used_since(player, now - WINDOWS[limit.period])
        if used + amount > cap:
            raise Conflict(
                Translated(
                    gettext(LIMIT_MESSAGES[noun])
                    % {
                        "limit": money(cap),
                        "period": GamingLimit.Period(limit.period).label,
                        "left": money(max(0, cap - used)),
                    }
                ),
                code=code,
                extra={
                    "period": limit.period,
                    "limit": format_cents(cap),
                    "remaining": format_cents(max(0, cap - used)),
                },
            )
