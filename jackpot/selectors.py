"""Reading pools: the live meter, reconciliation from the ledger alone, and a pool's
history over time (per day from the ledger, its hits, resets and fundings)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from django.db.models import Count, Prefetch, Q, Sum
from django.db.models.functions import TruncDate

from casino.http.errors import NotFound
from jackpot.models import JackpotHit, JackpotPool
from wallets.models import Account, Leg, Transaction
from wallets.rollups import account_flows, account_flows_by_day, as_date

JACKPOT_KINDS = (
    Transaction.Kind.JACKPOT_CONTRIBUTION,
    Transaction.Kind.JACKPOT_PRIZE,
    Transaction.Kind.JACKPOT_RESET,
    Transaction.Kind.JACKPOT_FUNDING,
)
"""The ledger's kinds of transaction that move a pool's money."""

EVENTS = 200  # the pool history's last prizes, resets, fundings and reversals


def pool_meter(*, pool: JackpotPool) -> int:
    return Account.objects.values_list("balance", flat=True).get(pk=pool.meter_account_id)


@dataclass
class AccountReconciliation:
    code: str
    balance: int
    inflows: dict[str, int]
    outflows: dict[str, int]

    @property
    def from_ledger(self) -> int:
        return sum(self.inflows.values()) - sum(self.outflows.values())

    @property
    def ok(self) -> bool:
        return self.balance == self.from_ledger


@dataclass
class PoolReconciliation:
    pool: JackpotPool
    meter: AccountReconciliation
    reserve: AccountReconciliation
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _account_reconciliation(account: Account, *, rollups: bool) -> AccountReconciliation:
    flows: dict[str, dict[str, int]] = {Leg.Side.CREDIT: {}, Leg.Side.DEBIT: {}}
    if rollups:
        rows = [(side, kind, total) for (_, kind, side), total in account_flows(account_ids=[account.pk]).items()]
    else:
        rows = (
            Leg.objects.filter(account=account)
            .values_list("side", "transaction__kind")
            .annotate(total=Sum("amount"))
            .order_by()
        )
    for side, kind, total in rows:
        flows[side][kind] = total
    balance = Account.objects.values_list("balance", flat=True).get(pk=account.pk)
    return AccountReconciliation(
        code=account.code, balance=balance, inflows=flows[Leg.Side.CREDIT], outflows=flows[Leg.Side.DEBIT]
    )


def pool_reconcile(*, pool: JackpotPool, rollups: bool = True) -> PoolReconciliation:
    """Prove from the ledger that meter and reserve equal what flowed in minus what was paid.

    With ``rollups`` (the pages), the closed days' flows come from the ledger's daily
    rollups (``wallets.rollups``) and only the open day's legs are read: a tampered or
    stale rollup shows here as a balance the flows do not give. Without (``manage.py
    reconcile_jackpot``), every leg of the two accounts is summed."""
    meter = _account_reconciliation(pool.meter_account, rollups=rollups)
    reserve = _account_reconciliation(pool.reserve_account, rollups=rollups)
    report = PoolReconciliation(pool=pool, meter=meter, reserve=reserve)
    for acc in (meter, reserve):
        if not acc.ok:
            report.problems.append(
                f"{acc.code}: balance {acc.balance} but the ledger gives {acc.from_ledger} "
                f"(in {sum(acc.inflows.values())}, out {sum(acc.outflows.values())})"
            )
    if meter.balance < pool.seed_amount:
        report.problems.append(f"{meter.code}: meter {meter.balance} is below the seed {pool.seed_amount}")
    paid_from_meter = meter.outflows.get("jackpot_prize", 0)
    percent_hits = (
        JackpotHit.objects.filter(pool=pool, kind=JackpotHit.Kind.PERCENT).aggregate(total=Sum("amount"))["total"] or 0
    )
    if paid_from_meter != percent_hits:
        report.problems.append(
            f"{meter.code}: meter paid {paid_from_meter} in prizes but the hits record {percent_hits}"
        )
    return report


def ledger_total() -> int:
    """Credits minus debits over the whole ledger: always zero in double entry."""
    from wallets.selectors import SIGNED_SUM

    return Leg.objects.aggregate(total=SIGNED_SUM)["total"] or 0


# --- history --------------------------------------------------------------------------


def pools() -> list[JackpotPool]:
    return list(JackpotPool.objects.select_related("meter_account", "reserve_account").order_by("id"))


def pool_get(*, pool_id: int) -> JackpotPool:
    pool = JackpotPool.objects.select_related("meter_account", "reserve_account").filter(pk=pool_id).first()
    if pool is None:
        raise NotFound("No such jackpot pool.", code="pool_not_found")
    return pool


@dataclass
class PoolDay:
    day: date
    contributions_meter: int = 0
    contributions_reserve: int = 0
    prizes: int = 0  # paid from the meter (percentage prizes)
    resets_from_reserve: int = 0
    resets_from_house: int = 0
    fundings: int = 0  # seed and top-ups from the house
    reversals_meter: int = 0  # contributions returned when a hand was cancelled (signed)
    reversals_reserve: int = 0
    meter_net: int = 0
    reserve_net: int = 0
    meter_end: int = 0
    reserve_end: int = 0
    fixed_prizes: int = 0  # paid by the house, not from the pool; shown for completeness
    hits: int = 0

    @property
    def reversals(self) -> int:
        """Contributions returned to players from the meter and the reserve (signed)."""
        return self.reversals_meter + self.reversals_reserve


def _pool_events(*, kind: str, account_ids: list[int], batches: int = 20) -> list[int]:
    """The ids of the newest ``EVENTS`` transactions of ``kind`` with a leg on one of the
    accounts: a batch of that kind at a time, newest first on the (kind, id) index, kept
    when a leg of theirs is on the accounts (found on the legs' (account, transaction)
    index); at most ``batches`` batches."""
    found: list[int] = []
    below = None
    for _ in range(batches):
        candidates = Transaction.objects.filter(kind=kind)
        if below is not None:
            candidates = candidates.filter(id__lt=below)
        batch = list(candidates.order_by("-id").values_list("id", flat=True)[:EVENTS])
        if not batch:
            break
        on_pool = set(
            Leg.objects.filter(account_id__in=account_ids, transaction_id__in=batch).values_list(
                "transaction_id", flat=True
            )
        )
        found += [i for i in batch if i in on_pool]
        if len(found) >= EVENTS or len(batch) < EVENTS:
            break
        below = batch[-1]
    return found[:EVENTS]


def pool_history(*, pool: JackpotPool) -> dict:
    """The pool over time, from the ledger: per day what flowed into and out of the meter and
    the reserve, by kind (closed days from the ledger's daily rollups), with the balances at
    the end of each day; every hit, reset and funding; and the reconciliation
    (``jackpot.selectors.pool_reconcile``)."""
    meter_id, reserve_id = pool.meter_account_id, pool.reserve_account_id
    flows = account_flows_by_day(account_ids=[meter_id, reserve_id])
    days: dict[date, PoolDay] = {}
    for (day, account_id, kind, side), total in sorted(flows.items()):
        d = days.setdefault(day, PoolDay(day=day))
        signed = total if side == Leg.Side.CREDIT else -total
        on_meter = account_id == meter_id
        if on_meter:
            d.meter_net += signed
        else:
            d.reserve_net += signed
        if kind == Transaction.Kind.JACKPOT_CONTRIBUTION:
            if on_meter:
                d.contributions_meter += signed
            else:
                d.contributions_reserve += signed
        elif kind == Transaction.Kind.JACKPOT_PRIZE and on_meter:
            d.prizes += -signed
        elif kind == Transaction.Kind.JACKPOT_RESET:
            if not on_meter:
                d.resets_from_reserve += -signed
            else:
                d.resets_from_house += signed  # corrected below: the meter's reset credits less the reserve's part
        elif kind == Transaction.Kind.JACKPOT_FUNDING and on_meter:
            d.fundings += signed
        elif kind == Transaction.Kind.REVERSAL:
            if on_meter:
                d.reversals_meter += signed
            else:
                d.reversals_reserve += signed
    # The newest hits are listed; every hit is counted per day (in the database).
    hits = list(JackpotHit.objects.filter(pool=pool).select_related("player").order_by("-id")[:EVENTS])
    per_day = (
        JackpotHit.objects.filter(pool=pool)
        .annotate(day=TruncDate("created_at"))
        .values_list("day")
        .annotate(n=Count("id"), fixed=Sum("amount", filter=Q(kind=JackpotHit.Kind.FIXED)))
        .order_by()
    )
    hits_by_day = {as_date(day): (n, fixed or 0) for day, n, fixed in per_day}
    meter = reserve = 0
    for day in sorted(days):
        d = days[day]
        d.resets_from_house -= d.resets_from_reserve
        meter += d.meter_net
        reserve += d.reserve_net
        d.meter_end, d.reserve_end = meter, reserve
        d.hits, d.fixed_prizes = hits_by_day.get(day, (0, 0))
    # The last 200 prizes, resets, fundings and reversals on the pool: per kind, newest first
    # on the (kind, id) index, each checked for a leg on the pool (one query over every
    # leg of the meter read the pool's whole history).
    ids: set[int] = set()
    for kind in (
        Transaction.Kind.JACKPOT_PRIZE,
        Transaction.Kind.JACKPOT_RESET,
        Transaction.Kind.JACKPOT_FUNDING,
        Transaction.Kind.REVERSAL,
    ):
        ids.update(_pool_events(kind=kind, account_ids=[meter_id, reserve_id]))
    events = list(
        Transaction.objects.filter(id__in=sorted(ids, reverse=True)[:EVENTS])
        .select_related("actor", "seal")
        .prefetch_related(
            Prefetch("legs", queryset=Leg.objects.select_related("account", "account__owner").order_by("id"))
        )
        .order_by("-id")
    )
    balances = dict(Account.objects.filter(pk__in=[meter_id, reserve_id]).values_list("pk", "balance"))
    return {
        "pool": pool,
        "meter": balances[meter_id],
        "reserve": balances[reserve_id],
        "days": [days[d] for d in sorted(days, reverse=True)],
        "hits": hits,  # the newest EVENTS
        "hits_total": sum(n for n, _ in hits_by_day.values()),
        "events": events,
        "reconciliation": pool_reconcile(pool=pool),
    }
