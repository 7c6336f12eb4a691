"""The staff's reports, in one place: per table and per day (from the settled hands,
cross-checked with the ledger), the theoretical return of each pay table, and the
integrity report (ledger verification, account balances, pool reconciliation).
Read-only: nothing here writes a row."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from django.core.cache import cache
from django.db.models import Count, Max, OuterRef, Q, Subquery, Sum
from django.db.models.functions import TruncDate

from backoffice.models import RakeDay, ReportDay, TableDay
from jackpot.selectors import pool_reconcile, pools
from poker.audit import RakeRow, rake_report_of
from poker.models import PokerHand, PokerTable
from tables.models import Hand, HandSeat, Table
from wallets.integrity import ledger_check, ledger_snapshot
from wallets.models import Account, LedgerVerification, Leg, Transaction
from wallets.rollups import account_flows_by_day, as_date
from wallets.selectors import SIGNED_SUM, day_start

DEFINITIONS = {
    "wagered": "ante + raise + jackpot bets of settled hands",
    "paid": "ante and raise returns (stake included) + jackpot prizes",
    "ggr": "wagered - paid",
    "hold_pct": "ggr / wagered",
    "actual_return_pct": "ante and raise returns / (ante + raise)",
    "theoretical_return_pct": "the pay table's return on ante + raise under the Wizard of Odds strategy, simulated "
    "with a fixed seed",
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
        for name in (
            "hands",
            "seats",
            "raised",
            "antes",
            "raises",
            "jackpot_bets",
            "ante_returns",
            "raise_returns",
            "jackpot_wins",
        ):
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


def hand_report_rows(*, hands) -> list[TableDay]:
    """The report's rows (unsaved ``TableDay``s: per day the hand was settled, table and
    pay table) of a set of settled hands, from the hands and the ledger: the settlement
    legs on the house accounts of each row's hands (``ledger_house``), and the pay table's
    odds when the row's hands all had the same ones. Read over the hands given only."""
    seats = (
        HandSeat.objects.filter(hand__in=hands)
        .annotate(day=TruncDate("hand__settled_at"))
        .values("day", "hand__table_id", "hand__paytable_name")
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
        .order_by()
    )
    # The ledger side: settlement legs on house accounts, by the day and table of their hand.
    hand_day = (
        Hand.objects.filter(pk=OuterRef("transaction__hand_ref")).annotate(day=TruncDate("settled_at")).values("day")
    )
    hand_paytable = Hand.objects.filter(pk=OuterRef("transaction__hand_ref")).values("paytable_name")
    ledger = (
        Leg.objects.filter(
            transaction__kind=Transaction.Kind.SETTLEMENT,
            account__kind=Account.Kind.HOUSE,
            transaction__game=Transaction.Game.CARIBBEAN,
            transaction__hand_ref__in=hands.values("pk"),
        )
        .annotate(day=Subquery(hand_day), paytable=Subquery(hand_paytable))
        .values("day", "transaction__table_ref", "paytable")
        .annotate(total=SIGNED_SUM)
        .order_by()
    )
    ledger_by_key = {(as_date(r["day"]), r["transaction__table_ref"], r["paytable"]): r["total"] or 0 for r in ledger}
    versions = (
        hands.annotate(day=TruncDate("settled_at"))
        .values("day", "table_id", "paytable_name")
        .annotate(n=Count("paytable_data", distinct=True))
        .order_by()
    )
    single = {(as_date(v["day"]), v["table_id"], v["paytable_name"]) for v in versions if v["n"] == 1}
    rows = []
    for r in seats:
        key = (as_date(r["day"]), r["hand__table_id"], r["hand__paytable_name"])
        data = None
        if key in single:
            data = hands.filter(
                table_id=key[1],
                paytable_name=key[2],
                settled_at__gte=day_start(key[0]),
                settled_at__lt=day_start(key[0] + timedelta(days=1)),
            ).values_list("paytable_data", flat=True)[:1][0]
        rows.append(
            TableDay(
                day=key[0],
                table_id=key[1],
                paytable_name=key[2],
                paytable_data=data,
                hands=r["hands"],
                seats=r["seats"],
                raised=r["raised"],
                antes=r["antes"] or 0,
                raises=r["raises"] or 0,
                jackpot_bets=r["jackpot_bets"] or 0,
                ante_returns=r["ante_returns"] or 0,
                raise_returns=r["raise_returns"] or 0,
                jackpot_wins=r["jackpot_wins"] or 0,
                ledger_house=ledger_by_key.get(key, 0),
            )
        )
    return rows


def settled_hands(*, since=None, until=None, table_id: int | None = None):
    """The settled hands, settled in ``[since, until)`` (either may be open)."""
    hands = Hand.objects.filter(state=Hand.State.SETTLED)
    if since is not None:
        hands = hands.filter(settled_at__gte=since)
    if until is not None:
        hands = hands.filter(settled_at__lt=until)
    if table_id is not None:
        hands = hands.filter(table_id=table_id)
    return hands


def report_closed_through() -> date | None:
    """The last day whose report rows are rolled up (``backoffice.rollups``), or None."""
    return ReportDay.objects.aggregate(last=Max("day"))["last"]


def table_day_report(
    *, date_from: date | None = None, date_to: date | None = None, table_id: int | None = None
) -> dict:
    """Wagered, paid, GGR and hold per table and per day (the day the hand was settled).

    From the settled hands (cancelled hands returned every stake and are left out), and
    cross-checked per row with the ledger: the settlement legs on the table's house
    account must equal the ante + raise result. Closed days come from their rollups
    (``TableDay``, written as days close and checked against the ledger by
    ``backoffice.rollups.report_days_check``); the open days since the last closed one
    are read from the hands and the ledger, by the hands' settled time.
    """
    last = report_closed_through()
    found: list[TableDay] = []
    if last is not None and (date_from is None or date_from <= last):
        rolled = TableDay.objects.filter(day__lte=last)
        if date_from:
            rolled = rolled.filter(day__gte=date_from)
        if date_to:
            rolled = rolled.filter(day__lte=date_to)
        if table_id is not None:
            rolled = rolled.filter(table_id=table_id)
        found += list(rolled)
    since = None if last is None else day_start(last + timedelta(days=1))
    if date_from and (since is None or day_start(date_from) > since):
        since = day_start(date_from)
    until = day_start(date_to + timedelta(days=1)) if date_to else None
    if until is None or since is None or until > since:
        found += hand_report_rows(hands=settled_hands(since=since, until=until, table_id=table_id))

    names = dict(Table.objects.filter(pk__in={r.table_id for r in found}).values_list("pk", "name"))
    found.sort(key=lambda r: (-r.day.toordinal(), names.get(r.table_id, ""), r.paytable_name))
    paytables: dict[str, dict | None] = {}
    odds: dict[str, list] = {}
    rows = []
    total = ReportRow(day=None, table_id=None, table="All tables", paytable="")
    by_table: dict[int, ReportRow] = {}
    for r in found:
        row = ReportRow(
            day=r.day,
            table_id=r.table_id,
            table=names.get(r.table_id, ""),
            paytable=r.paytable_name,
            hands=r.hands,
            seats=r.seats,
            raised=r.raised,
            antes=r.antes,
            raises=r.raises,
            jackpot_bets=r.jackpot_bets,
            ante_returns=r.ante_returns,
            raise_returns=r.raise_returns,
            jackpot_wins=r.jackpot_wins,
            ledger_house=r.ledger_house,
        )
        versions = odds.setdefault(row.paytable, [])
        if r.paytable_data is None:
            versions.append(None)
        elif r.paytable_data not in versions:
            versions.append(r.paytable_data)
        paytables.setdefault(row.paytable, None)
        rows.append(row)
        total.add(row)
        if row.table_id not in by_table:
            by_table[row.table_id] = ReportRow(day=None, table_id=row.table_id, table=row.table, paytable=row.paytable)
        elif by_table[row.table_id].paytable != row.paytable:
            by_table[row.table_id].paytable = "mixed"
        by_table[row.table_id].add(row)
    if rows:
        for name, versions in odds.items():
            # Each hand keeps the odds it was played with; a pay table edited within the
            # range has no single theoretical return.
            paytables[name] = (
                theoretical_return(paytable_data=versions[0])
                if len(versions) == 1 and versions[0] is not None
                else None
            )
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


def poker_rake_report(
    *, date_from: date | None = None, date_to: date | None = None, table_id: int | None = None
) -> dict:
    """``poker.audit.poker_rake_report``'s figures, read in proportion to the days shown:
    the rake from the rake accounts' daily flows (``wallets.rollups``), the hands, pots
    and records' rake from the closed days' ``RakeDay`` rows, the open days from the
    hands and the ledger. Without a date range the per-table totals are compared with the
    rake accounts' balances (``balance_ok``), which checks the rollups too."""
    tables = PokerTable.objects.order_by("name")
    if table_id is not None:
        tables = tables.filter(pk=table_id)
    tables = list(tables.select_related("rake_account"))
    by_account = {t.rake_account_id: t for t in tables}
    by_table = {t.pk: t for t in tables}
    rows: dict[tuple[date, int], RakeRow] = {}

    def row(day, table) -> RakeRow:
        key = (as_date(day), table.pk)
        if key not in rows:
            rows[key] = RakeRow(day=key[0], table_id=table.pk, table=table.name)
        return rows[key]

    flows = account_flows_by_day(account_ids=list(by_account), date_from=date_from, date_to=date_to)
    for (day, account_id, _kind, side), amount in flows.items():
        row(day, by_account[account_id]).rake += amount if side == Leg.Side.CREDIT else -amount
    last = report_closed_through()
    played: list[tuple] = []
    if last is not None and (date_from is None or date_from <= last):
        rolled = RakeDay.objects.filter(day__lte=last, table_id__in=list(by_table))
        if date_from:
            rolled = rolled.filter(day__gte=date_from)
        if date_to:
            rolled = rolled.filter(day__lte=date_to)
        played += rolled.values_list("day", "table_id", "hands", "pots", "record_rake")
    since = None if last is None else day_start(last + timedelta(days=1))
    if date_from and (since is None or day_start(date_from) > since):
        since = day_start(date_from)
    until = day_start(date_to + timedelta(days=1)) if date_to else None
    if until is None or since is None or until > since:
        hands = PokerHand.objects.filter(table__in=tables, state=PokerHand.State.ENDED)
        if since is not None:
            hands = hands.filter(ended_at__gte=since)
        if until is not None:
            hands = hands.filter(ended_at__lt=until)
        played += (
            hands.annotate(day=TruncDate("ended_at"))
            .values_list("day", "table_id")
            .annotate(n=Count("id"), pots=Sum("pot_total"), rake=Sum("rake"))
            .order_by()
        )
    for day, table_pk, n, pots, record_rake in played:
        entry = row(day, by_table[table_pk])
        entry.hands += n
        entry.pots += pots or 0
        entry.record_rake += record_rake or 0
    return rake_report_of(rows, tables, whole=not date_from and not date_to)


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
    result = simulate(
        hands=hands, paytable=paytable, strategy=THEORETICAL_STRATEGY, seed=THEORETICAL_SEED, jackpot=False
    )
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
        "ci95_pct": [
            str(Decimal(repr(low)).quantize(Decimal("0.001"))),
            str(Decimal(repr(high)).quantize(Decimal("0.001"))),
        ],
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
    checkpoint: Any = None  # the ``LedgerCheckpoint`` the check started from (None: the whole ledger)
    verification: Any = None  # the latest full verification (``LedgerVerification``), if any

    @property
    def ok(self) -> bool:
        return self.ledger.ok and self.ledger_sum == 0 and not self.account_mismatches and all(p.ok for p in self.pools)


def accounts_balance_mismatches() -> tuple[int, list[dict]]:
    """Every account whose stored balance differs from the sum of its legs (one query over
    the whole ledger: the full check's; the page's is ``wallets.integrity.ledger_check``)."""
    from_legs = dict(Leg.objects.values_list("account_id").annotate(total=SIGNED_SUM).order_by())
    mismatches = []
    count = 0
    for pk, code, balance in Account.objects.values_list("pk", "code", "balance").iterator(chunk_size=5000):
        count += 1
        if from_legs.get(pk, 0) != balance:
            mismatches.append({"account": code, "balance": balance, "from_legs": from_legs.get(pk, 0)})
    return count, mismatches


def integrity_report() -> IntegrityReport:
    """The ledger checked from its latest checkpoint (``wallets.integrity.ledger_check``:
    the MACs and the chain of what was written since, every balance against the
    checkpoint's sums plus the new legs, the ledger's total), every pool reconciled (from
    the daily rollups and the open day), and the latest full verification, which runs in
    the background.

    All from one snapshot of the database (``ledger_snapshot``): read at different
    moments while tables play, legs and balances would disagree on an honest ledger."""
    with ledger_snapshot():
        check = ledger_check()
        return IntegrityReport(
            ledger=check.ledger,
            ledger_sum=check.ledger_sum,
            accounts=check.accounts,
            account_mismatches=check.account_mismatches,
            pools=[pool_reconcile(pool=p) for p in pools()],
            checkpoint=check.since,
            verification=LedgerVerification.objects.select_related("requested_by").first(),
        )
