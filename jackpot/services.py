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

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction as db_transaction

from casino.errors import ValidationError
from casino.game.evaluator import Category
from casino.game.paytables import DEFAULT_JACKPOT_SCHEDULE, JackpotSchedule, jackpot_prize
from jackpot.models import JackpotHit, JackpotPool
from wallets.locks import accounts_lock
from wallets.models import Account, Transaction
from wallets.services import account_get_or_create, house_bankroll, ledger_post

BASIS_POINTS = 10_000


def pool_schedule(pool: JackpotPool) -> JackpotSchedule:
    return JackpotSchedule.from_dict(pool.schedule)


def pool_create(
    *,
    name: str,
    seed_amount: int = 1_000_000,
    bet_amount: int = 50,
    meter_share_bp: int = 7000,
    reserve_share_bp: int = 1000,
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


def contribution_split(*, pool: JackpotPool, total: int) -> tuple[int, int, int]:
    """(meter, reserve, house) shares of ``total`` cents of jackpot bets; they add up exactly."""
    meter = total * pool.meter_share_bp // BASIS_POINTS
    reserve = total * pool.reserve_share_bp // BASIS_POINTS
    return meter, reserve, total - meter - reserve


def jackpot_contribute(
    *,
    pool: JackpotPool,
    bets: Sequence[tuple[Account, int]],
    house_account: Account,
    idempotency_key: str,
    table_ref: int | None = None,
    hand_ref: int | None = None,
) -> Transaction | None:
    """Take a hand's jackpot bets from the players' money in play into the pool."""
    total = sum(amount for _, amount in bets)
    if total == 0:
        return None
    meter, reserve, house = contribution_split(pool=pool, total=total)
    postings = [(account, -amount) for account, amount in bets]
    postings += [(pool.meter_account, meter), (pool.reserve_account, reserve), (house_account, house)]
    return ledger_post(
        kind=Transaction.Kind.JACKPOT_CONTRIBUTION,
        idempotency_key=idempotency_key,
        postings=postings,
        memo=f"{len(bets)} jackpot bet(s) to {pool.name}",
        table_ref=table_ref,
        hand_ref=hand_ref,
    )


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
    player,
    wallet: Account,
    house_account: Account,
    idempotency_key: str,
    table_ref: int | None = None,
    hand_ref: int | None = None,
    seat_number: int | None = None,
) -> JackpotAward | None:
    """Pay the jackpot prize for ``category`` to ``wallet``, if the schedule pays one.

    Runs inside the caller's transaction. Locks the wallet and house account, then the
    meter and reserve (``wallets.locks`` order), reads the meter under the lock, pays,
    and resets the meter to the seed when a percentage prize took it below.
    """
    prize = jackpot_prize(pool_schedule(pool), category)
    if prize is None:
        return None
    locked = accounts_lock([wallet, house_account, pool.meter_account, pool.reserve_account])
    meter_before = locked[pool.meter_account.pk].balance
    refs = {"table_ref": table_ref, "hand_ref": hand_ref}
    if prize.kind == "percent":
        amount = meter_before * prize.value // 100
        source = pool.meter_account
    else:
        amount = prize.value
        source = house_account
    prize_txn = ledger_post(
        kind=Transaction.Kind.JACKPOT_PRIZE,
        idempotency_key=idempotency_key,
        postings=[(source, -amount), (wallet, amount)],
        memo=f"{category.label} jackpot prize from {pool.name}",
        **refs,
    )
    meter_after = meter_before - amount if source == pool.meter_account else meter_before
    shortfall = pool.seed_amount - meter_after
    if shortfall > 0:
        from_reserve = min(shortfall, locked[pool.reserve_account.pk].balance)
        if from_reserve:
            ledger_post(
                kind=Transaction.Kind.JACKPOT_RESET,
                idempotency_key=f"{idempotency_key}:reset:reserve",
                postings=[(pool.reserve_account, -from_reserve), (pool.meter_account, from_reserve)],
                memo=f"Reset of {pool.name} to its seed, from the reserve",
                **refs,
            )
        if shortfall > from_reserve:
            ledger_post(
                kind=Transaction.Kind.JACKPOT_RESET,
                idempotency_key=f"{idempotency_key}:reset:house",
                postings=[(house_account, -(shortfall - from_reserve)), (pool.meter_account, shortfall - from_reserve)],
                memo=f"Reset of {pool.name} to its seed, from the house",
                **refs,
            )
        meter_after = pool.seed_amount
    hit, _ = JackpotHit.objects.get_or_create(
        prize_transaction=prize_txn,
        defaults={
            "pool": pool,
            "player": player,
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
