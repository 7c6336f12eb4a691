"""The staff's reports, in one place: per table and per day (from the settled hands,
cross-checked with the ledger), the theoretical return of each pay table, and the
integrity report (ledger verification, account balances, pool reconciliation).
Read-only: nothing here writes a row."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from django.core.cache import cache
from django.db.models import Count, OuterRef, Q, Subquery, Sum
from django.db.models.functions import TruncDate

from jackpot.selectors import ledger_total, pool_reconcile, pools
from tables.models import Hand, HandSeat
from wallets.integrity import ledger_snapshot, ledger_verify
from wallets.models import Account, Leg, Transaction
from wallets.selectors import SIGNED_SUM, day_start

DEFINITIONS = {
    "wagered": "ante + raise + jackpot bets of settled hands",
    "paid": "ante and raise returns (stake included) + jackpot prizes",
    "ggr": "wagered - paid",
    "hold_pct": "ggr / wagered",
    "actual_return_pct": "ante and raise returns / (ante + raise)",
    "theoretical_return_pct": "the pay table's return on ante + raise under the Wizard of Odds strategy, simulated with a fixed seed",
}
"""What each figure of the day report means, as the API states it."""

HUNDRED = Decimal(100)
PCT = Decimal("0.01")


def percent(numerator: int, denominator: int) -> Decimal | None:
    """``numerator / denominator`` in percent, exact to the hundredth (half even); None for /0."""
    if not denominator:
        return None
    return (Decimal(numerator) * HUNDRED / Decimal(denominator)).quantize(PCT, rounding=ROUND_HALF_EVEN)


@dataclass
class ReportRow:
    day: date | None
    table_id: int | None
    table: str
    paytable: str
    hands: int = 0
    seats: int = 0
    raised: int = 0
    antes: int = 0
    raises: int = 0
    jackpot_bets: int = 0
    ante_returns: int = 0
    raise_returns: int = 0
    jackpot_wins: int = 0
    ledger_house: int | None = None  # what the settlements moved to the table's house account
    theoretical: dict | None = None

    def add(self, other: ReportRow) -> None:
        for name in ("hands", "seats", "raised", "antes", "raises", "jackpot_bets", "ante_returns", "raise_returns", "jackpot_wins"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        if other.ledger_house is not None:
            self.ledger_house = (self.ledger_house or 0) + other.ledger_house

    @property
    def wagered(self) -> int:
        return self.antes + self.raises + self.jackpot_bets

    @property
    def paid(self) -> int:
        return self.ante_returns + self.raise_returns + self.jackpot_wins

    @property
    def ggr(self) -> int:
        return self.wagered - self.paid

    @property
    def hold_pct(self) -> Decimal | None:
        return percent(self.ggr, self.wagered)

    @property
    def main_wagered(self) -> int:
        return self.antes + self.raises

    @property
    def main_paid(self) -> int:
        return self.ante_returns + self.raise_returns

    @property
    def main_ggr(self) -> int:
        return self.main_wagered - self.main_paid

    @property
    def actual_return_pct(self) -> Decimal | None:
        """Return to player on ante + raise, in percent of what was staked on them."""
        return percent(self.main_paid, self.main_wagered)

    @property
    def jackpot_return_pct(self) -> Decimal | None:
        return percent(self.jackpot_wins, self.jackpot_bets)

    @property
    def raise_rate_pct(self) -> Decimal | None:
        return percent(self.raised, self.seats)

    @property
    def ledger_ok(self) -> bool | None:
        """The ante + raise result equals what the ledger moved to the house (None: not checked)."""
        return None if self.ledger_house is None else self.ledger_house == self.main_ggr


def table_day_report(*, date_from: date | None = None, date_to: date | None = None, table_id: int | None = None) -> dict:
    """Wagered, paid, GGR and hold per table and per day (the day the hand was settled).

    From the settled hands (cancelled hands returned every stake and are left out), and
    cross-checked per row with the ledger: the settlement legs on the table's house
    account must equal the ante + raise result.
    """
    hands = Hand.objects.filter(state=Hand.State.SETTLED)
    if date_from:
        hands = hands.filter(settled_at__gte=day_start(date_from))
    if date_to:
        hands = hands.filter(settled_at__lt=day_start(date_to + timedelta(days=1)))
    if table_id is not None:
        hands = hands.filter(table_id=table_id)
    seats = (
        HandSeat.objects.filter(hand__in=hands)
        .annotate(day=TruncDate("hand__settled_at"))
        .values("day", "hand__table_id", "hand__table__name", "hand__paytable_name")
        .annotate(
            hands=Count("hand_id", distinct=True),
            seats=Count("id"),
            raised=Count("id", filter=Q(decision=HandSeat.Decision.RAISE)),
            antes=Sum("ante"),
            raises=Sum("raise_amount"),
            jackpot_bets=Sum("jackpot_bet"),
            ante_returns=Sum("ante_return"),
            raise_returns=Sum("raise_return"),
            jackpot_wins=Sum("jackpot_win"),
        )
        .order_by("-day", "hand__table__name", "hand__paytable_name")
    )
    # The ledger side: settlement legs on house accounts, by the day and table of their hand.
    hand_day = Hand.objects.filter(pk=OuterRef("transaction__hand_ref")).annotate(day=TruncDate("settled_at")).values("day")
    hand_paytable = Hand.objects.filter(pk=OuterRef("transaction__hand_ref")).values("paytable_name")
    ledger = (
        Leg.objects.filter(
            transaction__kind=Transaction.Kind.SETTLEMENT,
            account__kind=Account.Kind.HOUSE,
            transaction__hand_ref__in=hands.values("pk"),
        )
        .annotate(day=Subquery(hand_day), paytable=Subquery(hand_paytable))
        .values("day", "transaction__table_ref", "paytable")
        .annotate(total=SIGNED_SUM)
        .order_by()
    )
    ledger_by_key = {(r["day"], r["transaction__table_ref"], r["paytable"]): r["total"] or 0 for r in ledger}

    paytables = {}
    rows = []
    total = ReportRow(day=None, table_id=None, table="All tables", paytable="")
    by_table: dict[int, ReportRow] = {}
    for r in seats:
        day = r["day"]
        if isinstance(day, datetime):
            day = day.date()
        elif isinstance(day, str):
            day = date.fromisoformat(day)
        row = ReportRow(
            day=day,
            table_id=r["hand__table_id"],
            table=r["hand__table__name"],
            paytable=r["hand__paytable_name"],
            hands=r["hands"],
            seats=r["seats"],
            raised=r["raised"],
            antes=r["antes"] or 0,
            raises=r["raises"] or 0,
            jackpot_bets=r["jackpot_bets"] or 0,
            ante_returns=r["ante_returns"] or 0,
            raise_returns=r["raise_returns"] or 0,
            jackpot_wins=r["jackpot_wins"] or 0,
        )
        key = (r["day"], row.table_id, row.paytable)
        row.ledger_house = ledger_by_key.get(key, 0)
        paytables.setdefault(row.paytable, None)
        rows.append(row)
        total.add(row)
        if row.table_id not in by_table:
            by_table[row.table_id] = ReportRow(day=None, table_id=row.table_id, table=row.table, paytable=row.paytable)
        elif by_table[row.table_id].paytable != row.paytable:
            by_table[row.table_id].paytable = "mixed"
        by_table[row.table_id].add(row)
    if rows:
        for name in paytables:
            # Each hand keeps the odds it was played with; a pay table edited within the
            # range has no single theoretical return.
            versions = list(hands.filter(paytable_name=name).order_by().values_list("paytable_data", flat=True).distinct()[:2])
            paytables[name] = theoretical_return(paytable_data=versions[0]) if len(versions) == 1 else None
        for row in rows:
            row.theoretical = paytables.get(row.paytable)
        for row in by_table.values():
            row.theoretical = paytables.get(row.paytable)
    return {
        "rows": rows,
        "by_table": sorted(by_table.values(), key=lambda r: r.table),
        "total": total,
        "theoretical": paytables,
    }


# The theoretical return of a pay table: a Monte Carlo simulation with a fixed seed (the
# exact value would need every player hand against every dealer hand under the strategy,
# some 10^13 pairs), run once per pay table content and cached.
THEORETICAL_HANDS = 10_000_000
THEORETICAL_SEED = 20_240_401
THEORETICAL_STRATEGY = "wizard"


def theoretical_return(*, paytable_data: dict, hands: int | None = None) -> dict:
    """The pay table's expected return under the Wizard of Odds strategy, simulated.

    ``return_pct``: what comes back per 100 staked on ante + raise (the like of the
    reports' actual return); ``house_edge_pct``: the loss per 100 of ante. Exact
    ``Decimal``s of the simulation's integer totals; ``ci95_pct`` is the 95 % interval of
    the house edge. Cached by the pay table's content, seed and sample size.
    """
    from django.conf import settings

    from casino.game.paytables import PayTable as CorePayTable
    from casino.game.simulate import simulate

    hands = hands or getattr(settings, "AUDIT_THEORETICAL_HANDS", THEORETICAL_HANDS)
    content = {"qualified": paytable_data["qualified"], "not_qualified": paytable_data.get("not_qualified", {})}
    digest = hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:24]
    key = f"backoffice:theoretical:{digest}:{hands}:{THEORETICAL_SEED}:{THEORETICAL_STRATEGY}"
    cached = _THEORETICAL_MEMO.get(key) or cache.get(key)
    if cached is not None:
        _THEORETICAL_MEMO[key] = cached
        return cached
    paytable = CorePayTable.from_dict({"name": paytable_data.get("name") or "paytable", **content})
    result = simulate(hands=hands, paytable=paytable, strategy=THEORETICAL_STRATEGY, seed=THEORETICAL_SEED, jackpot=False)
    # The simulation reports means; its totals are integers, recovered exactly.
    net_units = round(result["return_per_unit_ante"] * hands)
    raised = round(result["raise_rate"] * hands)
    staked_units = hands + 2 * raised
    low, high = result["house_edge_ci95_pct"]
    value = {
        "method": f"Monte Carlo, {hands:,} hands, seed {THEORETICAL_SEED}, {THEORETICAL_STRATEGY} strategy",
        "hands": hands,
        "seed": THEORETICAL_SEED,
        "strategy": THEORETICAL_STRATEGY,
        "return_pct": str(percent(staked_units + net_units, staked_units)),
        "house_edge_pct": str((Decimal(-net_units) * HUNDRED / Decimal(hands)).quantize(Decimal("0.001"))),
        "ci95_pct": [str(Decimal(repr(low)).quantize(Decimal("0.001"))), str(Decimal(repr(high)).quantize(Decimal("0.001")))],
        "raise_rate_pct": str(percent(raised, hands)),
    }
    cache.set(key, value, timeout=None)
    _THEORETICAL_MEMO[key] = value
    return value


_THEORETICAL_MEMO: dict[str, dict] = {}


# --- integrity ----------------------------------------------------------------------------


@dataclass
class IntegrityReport:
    ledger: Any
    ledger_sum: int
    accounts: int
    account_mismatches: list[dict] = field(default_factory=list)
    pools: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.ledger.ok and self.ledger_sum == 0 and not self.account_mismatches and all(p.ok for p in self.pools)


def accounts_balance_mismatches() -> tuple[int, list[dict]]:
    """Every account whose stored balance differs from the sum of its legs (one query)."""
    from_legs = dict(Leg.objects.values_list("account_id").annotate(total=SIGNED_SUM).order_by())
    mismatches = []
    count = 0
    for pk, code, balance in Account.objects.values_list("pk", "code", "balance").iterator(chunk_size=5000):
        count += 1
        if from_legs.get(pk, 0) != balance:
            mismatches.append({"account": code, "balance": balance, "from_legs": from_legs.get(pk, 0)})
    return count, mismatches


def integrity_report() -> IntegrityReport:
    """The ledger's MACs and hash chain (``wallets.integrity.ledger_verify``), the whole
    ledger summing to zero, every balance equal to its legs, every pool reconciled.

    All from one snapshot of the database (``ledger_snapshot``): read at different
    moments while tables play, legs and balances would disagree on an honest ledger."""
    with ledger_snapshot():
        count, mismatches = accounts_balance_mismatches()
        return IntegrityReport(
            ledger=ledger_verify(),
            ledger_sum=ledger_total(),
            accounts=count,
            account_mismatches=mismatches,
            pools=[pool_reconcile(pool=p) for p in pools()],
        )
