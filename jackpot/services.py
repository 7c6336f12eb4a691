"""Jackpot arithmetic, in one place (SPEC A6).

- Contribution: of the jackpot bets a hand takes, ``meter_share_bp`` goes to the meter,
  ``reserve_share_bp`` to the reset reserve (each rounded down to the cent), the rest
  (with those remainders) to the house. One ledger transaction per hand.
- Fixed prizes are paid by the house. A percentage prize is paid from the meter, then the
  meter is reset to the seed, funded first from the reserve and then by the house, each
  step its own ledger transaction. Wins are paid in the order their settlements commit:
  the meter row is locked, so a second winner sees the meter after the first reset.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.db import transaction as db_transaction
from django.dispatch import Signal
from django.utils.translation import gettext

from casino.audit import audit_record, config_apply, snapshot
from casino.cents import format_cents
from casino.game.evaluator import Category
from casino.game.paytables import DEFAULT_JACKPOT_SCHEDULE, JackpotSchedule, jackpot_prize
from casino.http.errors import Conflict, Translated, ValidationError, reason_of
from casino.http.validation import (
    config_cents,
    config_changes,
    config_get,
    config_int,
    config_name,
    config_name_free,
    required,
)
from casino.models import IDEMPOTENCY_KEY_MAX
from casino.money import MAX_AMOUNT_CENTS
from jackpot.models import (
    BASIS_POINTS,
    DEFAULT_BET_AMOUNT,
    DEFAULT_METER_SHARE_BP,
    DEFAULT_RESERVE_SHARE_BP,
    DEFAULT_SEED_AMOUNT,
    JackpotHit,
    JackpotPool,
)
from wallets.locks import accounts_lock, shared_accounts_lock
from wallets.models import Account, Transaction
from wallets.services import Entry, account_get_or_create, house_bankroll, ledger_post, ledger_post_many


def pool_schedule(pool: JackpotPool) -> JackpotSchedule:
    return JackpotSchedule.from_dict(pool.schedule)


@dataclass(frozen=True)
class PoolRules:
    """The rules a hand's jackpot bets are taken and paid by, copied when the hand opens.

    The chip price is copied beside them (``Hand.jackpot_bet_amount``). The split and the
    payout schedule belong to the bet (SPEC A6: a bet is paid by the schedule it was placed
    under, and its contribution is split as announced when it was placed).

    The seed does not: it belongs to the pool's present state. It is a property of the one
    shared meter, not of a bet: SPEC A6 resets the meter "to the pool's seed value" and says
    "the meter never goes below the seed value". A hand resetting the meter to the seed it
    opened under would leave the meter below a seed raised since (or refill it above a seed
    lowered since, at the house's cost, for nobody's bet). So a reset always uses the pool's
    seed as it stands when the hand settles (``pool_update`` locks the pool's tables, as a
    settlement does, so the two never overlap), and a seed change needs no hand to end.
    """

    meter_share_bp: int
    reserve_share_bp: int
    schedule: JackpotSchedule

    @classmethod
    def of_pool(cls, pool: JackpotPool) -> PoolRules:
        return cls(
            meter_share_bp=pool.meter_share_bp,
            reserve_share_bp=pool.reserve_share_bp,
            schedule=pool_schedule(pool),
        )

    @classmethod
    def from_dict(cls, data: Mapping) -> PoolRules:
        return cls(
            meter_share_bp=int(data["meter_share_bp"]),
            reserve_share_bp=int(data["reserve_share_bp"]),
            schedule=JackpotSchedule.from_dict(data["schedule"]),
        )

    def to_dict(self) -> dict:
        return {
            "meter_share_bp": self.meter_share_bp,
            "reserve_share_bp": self.reserve_share_bp,
            "schedule": self.schedule.to_dict(),
        }


def hand_pool_rules(*, hand, pool: JackpotPool) -> PoolRules:
    """The rules ``hand`` plays its jackpot bets by: its own copy.

    Hands opened before the copy existed (``jackpot_rules`` null; the migration filled
    every hand then in play) can only have been settled already; for them the pool's."""
    if hand.jackpot_rules is None:
        return PoolRules.of_pool(pool)
    return PoolRules.from_dict(hand.jackpot_rules)


def pool_create(
    *,
    name: str,
    seed_amount: int = DEFAULT_SEED_AMOUNT,
    bet_amount: int = DEFAULT_BET_AMOUNT,
    meter_share_bp: int = DEFAULT_METER_SHARE_BP,
    reserve_share_bp: int = DEFAULT_RESERVE_SHARE_BP,
    schedule: JackpotSchedule = DEFAULT_JACKPOT_SCHEDULE,
    actor=None,
) -> JackpotPool:
    """Create a pool and fund its meter with the seed from the house bankroll."""
    if seed_amount <= 0 or bet_amount <= 0:
        raise ValidationError("Seed and bet must be positive amounts.", code="pool_invalid")
    if meter_share_bp < 0 or reserve_share_bp < 0 or meter_share_bp + reserve_share_bp > BASIS_POINTS:
        raise ValidationError("Meter and reserve shares must be between 0 and 100 % together.", code="pool_invalid")
    with db_transaction.atomic():
        pool = JackpotPool(
            name=name,
            seed_amount=seed_amount,
            bet_amount=bet_amount,
            meter_share_bp=meter_share_bp,
            reserve_share_bp=reserve_share_bp,
            schedule=schedule.to_dict(),
        )
        pool.meter_account = account_get_or_create(
            code=f"jackpot:{name}:meter", kind=Account.Kind.JACKPOT_METER, name=f"Jackpot meter {name}"
        )
        pool.reserve_account = account_get_or_create(
            code=f"jackpot:{name}:reserve", kind=Account.Kind.JACKPOT_RESERVE, name=f"Jackpot reserve {name}"
        )
        pool.save()
        ledger_post(
            kind=Transaction.Kind.JACKPOT_FUNDING,
            idempotency_key=f"jackpot:{pool.pk}:seed",
            postings=[(house_bankroll(), -seed_amount), (pool.meter_account, seed_amount)],
            memo=f"Seed of jackpot {name}",
            actor=actor,
        )
    return pool


def contribution_split(*, pool: JackpotPool, total: int, rules: PoolRules | None = None) -> tuple[int, int, int]:
    """(meter, reserve, house) shares of ``total`` cents of jackpot bets; they add up exactly.

    ``rules``: the hand's (``hand_pool_rules``); without them, the pool's present rules."""
    rules = rules or PoolRules.of_pool(pool)
    meter = total * rules.meter_share_bp // BASIS_POINTS
    reserve = total * rules.reserve_share_bp // BASIS_POINTS
    return meter, reserve, total - meter - reserve


def jackpot_contribute(
    *,
    pool: JackpotPool,
    bets: Sequence[tuple[Account, int]],
    house_account: Account,
    idempotency_key: str,
    table_ref: int | None = None,
    hand_ref: int | None = None,
    game: str = "",
    locked: Mapping[int, Account] | None = None,
    fresh: bool = False,
    rules: PoolRules | None = None,
) -> Transaction | None:
    """Take a hand's jackpot bets from the players' money in play into the pool.

    Split by ``rules``, the hand's (``hand_pool_rules``); without them, by the pool's.
    ``locked`` and ``fresh`` as for ``wallets.services.ledger_post_many``; the shared meter
    and reserve are locked here, last."""
    total = sum(amount for _, amount in bets)
    if total == 0:
        return None
    meter, reserve, house = contribution_split(pool=pool, total=total, rules=rules)
    held = dict(locked or {})
    held.update(accounts_lock(a for a, _ in [*bets, (house_account, 0)] if a.pk not in held))
    meter_account, reserve_account = shared_accounts_lock([pool.meter_account_id, pool.reserve_account_id], held)
    postings = [(account, -amount) for account, amount in bets]
    postings += [(meter_account, meter), (reserve_account, reserve), (house_account, house)]
    entry = Entry(
        kind=Transaction.Kind.JACKPOT_CONTRIBUTION,
        idempotency_key=idempotency_key,
        postings=postings,
        memo=f"{len(bets)} jackpot bet(s) to {pool.name}",
        table_ref=table_ref,
        hand_ref=hand_ref,
        game=game,
    )
    return ledger_post_many([entry], locked=held, fresh=fresh)[0]


@dataclass(frozen=True)
class JackpotAward:
    category: str
    kind: str
    amount: int
    hit: JackpotHit


def jackpot_award(
    *,
    pool: JackpotPool,
    category: Category,
    player_id: int,
    wallet: Account,
    house_account: Account,
    idempotency_key: str,
    table_ref: int | None = None,
    hand_ref: int | None = None,
    game: str = "",
    seat_number: int | None = None,
    locked: Mapping[int, Account] | None = None,
    rules: PoolRules | None = None,
) -> JackpotAward | None:
    """Pay the jackpot prize for ``category`` to ``wallet``, if the schedule pays one.

    The schedule is the hand's (``rules``, from ``hand_pool_rules``; without them the
    pool's); the meter is reset to the pool's present seed (see ``PoolRules``).

    Runs inside the caller's transaction. Locks the wallet and house account, then the
    meter and reserve (``wallets.locks`` order), reads the meter under the lock, pays,
    and resets the meter to the seed when a percentage prize took it below.
    ``locked``: ordinary accounts the caller holds already (``wallets.services.ledger_post_many``).
    """
    prize = jackpot_prize((rules or PoolRules.of_pool(pool)).schedule, category)
    if prize is None:
        return None
    locked = dict(locked or {})
    locked.update(accounts_lock(a for a in (wallet, house_account) if a.pk not in locked))
    meter_account, reserve_account = shared_accounts_lock([pool.meter_account_id, pool.reserve_account_id], locked)
    meter_before = meter_account.balance
    refs = {"table_ref": table_ref, "hand_ref": hand_ref}
    in_game = {**refs, "game": game}
    if prize.kind == "percent":
        amount = meter_before * prize.value // 100
        source = meter_account
    else:
        amount = prize.value
        source = house_account
    prize_txn = ledger_post(
        kind=Transaction.Kind.JACKPOT_PRIZE,
        idempotency_key=idempotency_key,
        postings=[(source, -amount), (wallet, amount)],
        memo=f"{category.label} jackpot prize from {pool.name}",
        locked=locked,
        **in_game,
    )
    meter_after = meter_before - amount if source is meter_account else meter_before
    shortfall = pool.seed_amount - meter_after
    if shortfall > 0:
        from_reserve = min(shortfall, reserve_account.balance)
        if from_reserve:
            ledger_post(
                kind=Transaction.Kind.JACKPOT_RESET,
                idempotency_key=f"{idempotency_key}:reset:reserve",
                postings=[(reserve_account, -from_reserve), (meter_account, from_reserve)],
                memo=f"Reset of {pool.name} to its seed, from the reserve",
                locked=locked,
                **in_game,
            )
        if shortfall > from_reserve:
            ledger_post(
                kind=Transaction.Kind.JACKPOT_RESET,
                idempotency_key=f"{idempotency_key}:reset:house",
                postings=[(house_account, -(shortfall - from_reserve)), (meter_account, shortfall - from_reserve)],
                memo=f"Reset of {pool.name} to its seed, from the house",
                locked=locked,
                **in_game,
            )
        meter_after = pool.seed_amount
    hit, _ = JackpotHit.objects.get_or_create(
        prize_transaction=prize_txn,
        defaults={
            "pool": pool,
            "player_id": player_id,
            "category": category.key,
            "kind": prize.kind,
            "amount": amount,
            "meter_before": meter_before,
            "meter_after": meter_after,
            "seat_number": seat_number,
            **refs,
        },
    )
    return JackpotAward(category=category.key, kind=prize.kind, amount=hit.amount, hit=hit)


def pool_top_up(*, pool: JackpotPool, amount: int, actor, idempotency_key: str) -> Transaction:
    """A manager adds house money to the meter."""
    if amount <= 0:
        raise ValidationError("A top-up must be a positive amount.", code="amount_not_positive")
    with db_transaction.atomic():
        return ledger_post(
            kind=Transaction.Kind.JACKPOT_FUNDING,
            idempotency_key=f"jackpot:{pool.pk}:top_up:{idempotency_key}",
            postings=[(house_bankroll(), -amount), (pool.meter_account, amount)],
            memo=f"Top-up of {pool.name}",
            actor=actor,
        )


# --- configuration by managers: validated, audited -----------------------------------------

POOL_NAME_MAX = 80
# The pool's rules: what a jackpot bet costs, how it is split and what it wins.
POOL_RULE_FIELDS = frozenset({"seed_amount", "bet_amount", "meter_share_bp", "reserve_share_bp", "schedule"})
POOL_FIELDS = frozenset({"name", *POOL_RULE_FIELDS})
TOP_UP_KEY_MAX = IDEMPOTENCY_KEY_MAX - 50  # room for the "jackpot:<pool id>:top_up:" prefix


# A change of a pool's rules, in its transaction (the tables app receives both): before
# the pool row is locked (so that its tables are locked first, in a hand's own lock order)
# and once it is saved, with the fields ``changed`` (a receiver may return the hands left
# on the previous rules, which the audit entry lists).
pool_rules_changing = Signal()
pool_rules_changed = Signal()


def pool_schedule_parse(schedule) -> JackpotSchedule:
    """``{"percent_prizes": {category: percent}, "fixed_prizes": {category: cents}}``, validated."""
    required(schedule, "schedule")
    if not isinstance(schedule, Mapping):
        raise ValidationError("schedule must be an object.", code="field_invalid", extra={"field": "schedule"})
    fixed = schedule.get("fixed_prizes")
    if isinstance(fixed, Mapping):
        for key, cents in fixed.items():
            if isinstance(cents, int) and not isinstance(cents, bool) and cents > MAX_AMOUNT_CENTS:
                raise ValidationError(
                    Translated(gettext("schedule: the %(category)s prize is too large.") % {"category": key}),
                    code="amount_too_large",
                    extra={"field": "schedule"},
                )
    try:
        return JackpotSchedule.from_dict(schedule)
    except ValueError as exc:
        raise ValidationError(
            Translated(
                gettext(
                    "%(problem)s. Percent prizes are whole percent of the meter (1 to 100), fixed prizes whole cents, "
                    "and a higher hand never wins less."
                )
                % {"problem": reason_of(exc)}
            ),
            code="schedule_invalid",
        ) from None


def _pool_shares(meter_share_bp: int, reserve_share_bp: int) -> None:
    if meter_share_bp + reserve_share_bp > BASIS_POINTS:
        raise ValidationError(
            "The meter and reserve shares add up to more than 100 % (10000 basis points).",
            code="shares_invalid",
            extra={"meter_share_bp": meter_share_bp, "reserve_share_bp": reserve_share_bp, "max_total": BASIS_POINTS},
        )


def _pool_clean(values: Mapping) -> dict:
    cleaned = {}
    if "name" in values:
        cleaned["name"] = config_name(values["name"], max_length=POOL_NAME_MAX)
    for field in ("seed_amount", "bet_amount"):
        if field in values:
            cleaned[field] = config_cents(values[field], field=field)
    for field in ("meter_share_bp", "reserve_share_bp"):
        if field in values:
            cleaned[field] = config_int(values[field], field=field, low=0, high=BASIS_POINTS)
    if "schedule" in values:
        cleaned["schedule"] = pool_schedule_parse(values["schedule"]).to_dict()
    return cleaned


def pool_add(
    *,
    actor,
    name,
    seed_amount,
    bet_amount,
    meter_share_bp,
    reserve_share_bp,
    schedule,
) -> JackpotPool:
    """A new pool, its meter funded with the seed from the house bankroll (audited)."""
    values = _pool_clean(
        {
            "name": name,
            "seed_amount": seed_amount,
            "bet_amount": bet_amount,
            "meter_share_bp": meter_share_bp,
            "reserve_share_bp": reserve_share_bp,
            "schedule": schedule,
        }
    )
    _pool_shares(values["meter_share_bp"], values["reserve_share_bp"])
    with db_transaction.atomic():
        name = values["name"]
        config_name_free(
            JackpotPool,
            name,
            also_taken=lambda: Account.objects.filter(
                code__in=[f"jackpot:{name}:meter", f"jackpot:{name}:reserve"]
            ).exists(),
        )
        pool = pool_create(
            name=values["name"],
            seed_amount=values["seed_amount"],
            bet_amount=values["bet_amount"],
            meter_share_bp=values["meter_share_bp"],
            reserve_share_bp=values["reserve_share_bp"],
            schedule=JackpotSchedule.from_dict(values["schedule"]),
            actor=actor,
        )
        audit_record(actor=actor, action="pool.create", obj=pool, before=None, after=snapshot(pool))
        return pool


# The rules a hand copies when it opens (the seed stays the pool's: see ``PoolRules``).
HAND_RULE_FIELDS = frozenset({"bet_amount", "meter_share_bp", "reserve_share_bp", "schedule"})


def pool_update(*, actor, pool_id: int, changes: Mapping) -> JackpotPool:
    """Change a pool's name or rules.

    A change of the rules is accepted at once and reaches each of the pool's tables from its
    next hand: a hand that holds jackpot chips keeps the chip price, split and schedule it
    opened under (``Hand.jackpot_rules``) and settles by them; a hand still taking bets with
    no jackpot chip yet takes the new ones at once (the tables' receivers of
    ``pool_rules_changing`` and ``pool_rules_changed``). The seed is the pool's present state
    and applies to the next reset (``PoolRules``); it cannot rise above the meter
    (``seed_above_meter``: top up first). The audit entry lists, under
    ``hands_on_previous_rules``, the hands still playing by the rules before the change.
    """
    changes = config_changes(changes, POOL_FIELDS)
    cleaned = _pool_clean(changes)
    with db_transaction.atomic():
        pool = config_get(JackpotPool, pool_id, field="pool", code="pool_not_found", what="jackpot pool")
        if POOL_RULE_FIELDS & set(cleaned):
            # The pool's tables first (a hand's own lock order: table, hand, accounts), then its
            # meter: no hand of the pool opens, deals or settles while the rules change.
            pool_rules_changing.send(sender=JackpotPool, pool=pool)
        pool = JackpotPool.objects.select_for_update().get(pk=pool.pk)
        change = config_apply(pool, cleaned)
        before, after, changed = change.before, change.after, change.fields
        if not changed:
            return pool
        if "name" in changed:
            config_name_free(JackpotPool, pool.name, exclude_pk=pool.pk)
        _pool_shares(pool.meter_share_bp, pool.reserve_share_bp)
        if "seed_amount" in changed:
            meter = accounts_lock([pool.meter_account])[pool.meter_account_id].balance
            if pool.seed_amount > meter:
                raise Conflict(
                    "The seed cannot be above the meter, which never goes below its seed: top the meter up first.",
                    code="seed_above_meter",
                    extra={"meter": format_cents(meter), "seed_amount": format_cents(pool.seed_amount)},
                )
        pool.save(update_fields=changed)
        if POOL_RULE_FIELDS & set(changed):
            for _receiver, hands in pool_rules_changed.send(sender=JackpotPool, pool=pool, changed=frozenset(changed)):
                if hands is not None:
                    after.setdefault("hands_on_previous_rules", []).extend(hands)
        audit_record(actor=actor, action="pool.update", obj=pool, before=before, after=after)
        return pool


def pool_manual_top_up(*, actor, pool_id: int, amount, idempotency_key) -> Transaction:
    """A manager's top-up of the meter from the house bankroll: one ledger transaction, audited.

    A retry with the same key returns the first transaction and records nothing twice.
    """
    amount = config_cents(amount, field="amount")
    required(idempotency_key, "idempotency_key")
    if not isinstance(idempotency_key, str) or not re.fullmatch(r"[\x21-\x7e]{1,%d}" % TOP_UP_KEY_MAX, idempotency_key):
        raise ValidationError(
            Translated(
                gettext("The idempotency key is 1 to %(max)s visible ASCII characters.") % {"max": TOP_UP_KEY_MAX}
            ),
            code="idempotency_key_invalid",
        )
    with db_transaction.atomic():
        pool = config_get(JackpotPool, pool_id, field="pool", code="pool_not_found", what="jackpot pool")
        txn = pool_top_up(pool=pool, amount=amount, actor=actor, idempotency_key=idempotency_key)
        if txn.replayed:
            return txn
        meter = Account.objects.get(pk=pool.meter_account_id).balance
        audit_record(
            actor=actor,
            action="pool.top_up",
            obj=pool,
            before={"meter": meter - amount},
            after={"meter": meter, "amount": amount, "transaction": txn.pk},
        )
        return txn
