"""Reading pools: the live meter, and reconciliation from the ledger alone."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Sum

from jackpot.models import JackpotHit, JackpotPool
from wallets.models import Account, Leg


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


def _account_reconciliation(account: Account) -> AccountReconciliation:
    flows: dict[str, dict[str, int]] = {Leg.Side.CREDIT: {}, Leg.Side.DEBIT: {}}
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


def pool_reconcile(*, pool: JackpotPool) -> PoolReconciliation:
    """Prove from the ledger that meter and reserve equal what flowed in minus what was paid."""
    meter = _account_reconciliation(pool.meter_account)
    reserve = _account_reconciliation(pool.reserve_account)
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
        report.problems.append(f"{meter.code}: meter paid {paid_from_meter} in prizes but the hits record {percent_hits}")
    return report


def ledger_total() -> int:
    """Credits minus debits over the whole ledger: always zero in double entry."""
    from wallets.selectors import SIGNED_SUM

    return Leg.objects.aggregate(total=SIGNED_SUM)["total"] or 0
