"""What the auditors read, across the apps. Read-only: nothing here writes a row.

- The ledger: transactions and their legs with the auditors' filters (``LedgerFilters``),
  newest first for the browser; one row per leg, oldest first, for the exports.
- Game recall: a hand replayed card by card in the deal order of SPEC A3, with its bets,
  decisions, results, jackpot effects, and the provably fair verification recomputed here
  on the server, together with the settlement and the ledger, so that a hand's audit
  rests on the stored seeds and cards alone.
- Players: search, and a player's money and last hands.
- Reports per table and per day (from the settled hands, cross-checked with the ledger),
  the theoretical return of each pay table, the jackpot pools' history, and the
  integrity checks (ledger verification, account balances, pool reconciliation).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import CharField, Count, Func, Max, OuterRef, Prefetch, Q, QuerySet, Subquery, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone

from casino.errors import NotFound
from casino.roles import PLAYER
from casino.validation import is_ascii_digits
from jackpot.models import JackpotHit, JackpotPool
from jackpot.selectors import ledger_total, pool_reconcile
from tables.models import Hand, HandSeat, Table
from wallets.integrity import ledger_snapshot, ledger_verify
from wallets.models import Account, Leg, Transaction
from wallets.selectors import SIGNED_SUM, wallet_balances

User = get_user_model()

JACKPOT_KINDS = (
    Transaction.Kind.JACKPOT_CONTRIBUTION,
    Transaction.Kind.JACKPOT_PRIZE,
    Transaction.Kind.JACKPOT_RESET,
    Transaction.Kind.JACKPOT_FUNDING,
)
RECENT_HANDS = 10


# --- the ledger ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LedgerFilters:
    """The auditors' filters. Dates are whole days (inclusive) in the site's time zone.

    ``player`` selects every transaction that touches one of the player's accounts, with
    all its legs (the counter-legs too), so that a filtered slice still balances.
    """

    date_from: date | None = None
    date_to: date | None = None
    player: Any = None  # a User
    table_id: int | None = None
    hand_id: int | None = None
    kind: str | None = None

    def describe(self) -> dict:
        """The filters as plain JSON values, as the manifest and the API state them."""
        return {
            "date_from": self.date_from.isoformat() if self.date_from else None,
            "date_to": self.date_to.isoformat() if self.date_to else None,
            "time_zone": timezone.get_current_timezone_name(),
            "player": {"id": self.player.pk, "username": self.player.get_username()} if self.player else None,
            "table": self.table_id,
            "hand": self.hand_id,
            "kind": self.kind,
        }

    @classmethod
    def from_description(cls, data: dict) -> LedgerFilters:
        """Inverse of ``describe`` (a task re-reads its job's filters with this)."""
        player = None
        if data.get("player"):
            player = User.objects.filter(pk=data["player"]["id"]).first()
            if player is None:
                raise NotFound("The player of this export no longer exists.", code="player_not_found")
        return cls(
            date_from=date.fromisoformat(data["date_from"]) if data.get("date_from") else None,
            date_to=date.fromisoformat(data["date_to"]) if data.get("date_to") else None,
            player=player,
            table_id=data.get("table"),
            hand_id=data.get("hand"),
            kind=data.get("kind"),
        )


def day_start(day: date) -> datetime:
    """Midnight at the start of ``day`` in the site's time zone."""
    return timezone.make_aware(datetime.combine(day, time.min), timezone.get_current_timezone())


def _transaction_q(filters: LedgerFilters, prefix: str = "") -> Q:
    """The filters as a ``Q`` on transactions, or on legs with ``prefix="transaction__"``."""
    q = Q()
    if filters.date_from:
        q &= Q(**{f"{prefix}created_at__gte": day_start(filters.date_from)})
    if filters.date_to:
        q &= Q(**{f"{prefix}created_at__lt": day_start(filters.date_to + timedelta(days=1))})
    if filters.table_id is not None:
        q &= Q(**{f"{prefix}table_ref": filters.table_id})
    if filters.hand_id is not None:
        q &= Q(**{f"{prefix}hand_ref": filters.hand_id})
    if filters.kind:
        q &= Q(**{f"{prefix}kind": filters.kind})
    if filters.player is not None:
        touched = Leg.objects.filter(account__owner=filters.player).values("transaction_id")
        q &= Q(**{f"{prefix}id__in": touched})
    return q


def ledger_transactions(*, filters: LedgerFilters) -> QuerySet[Transaction]:
    """Transactions matching ``filters``, newest first, each with its legs and seal."""
    legs = Leg.objects.select_related("account", "account__owner").order_by("id")
    return (
        Transaction.objects.filter(_transaction_q(filters))
        .select_related("actor", "seal")
        .prefetch_related(Prefetch("legs", queryset=legs))
        .order_by("-id")
    )


def ledger_upto() -> int:
    """The highest transaction id now: an export's snapshot reads nothing above it."""
    return Transaction.objects.aggregate(upto=Max("id"))["upto"] or 0


class UtcIsoText(Func):
    """A datetime as ISO 8601 text in UTC with microseconds, written by the database:
    ``2026-01-02T03:04:05.000006+00:00``, exactly ``datetime.isoformat(timespec="microseconds")``
    of the UTC value (the form the transaction's MAC hashes). Cheaper than a ``datetime``
    per row parsed by the driver and formatted again in Python."""

    output_field = CharField()

    def as_sql(self, compiler, connection, **extra):
        raise NotImplementedError(f"UtcIsoText has no SQL for {connection.vendor}")

    def as_postgresql(self, compiler, connection, **extra):
        template = "to_char(%(expressions)s AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"')"
        return super().as_sql(compiler, connection, template=template, **extra)

    def as_sqlite(self, compiler, connection, **extra):
        # SQLite holds UTC as "YYYY-MM-DD HH:MM:SS[.ffffff]"; the fraction is absent when zero.
        template = "(replace(substr(%(expressions)s || '.000000', 1, 26), ' ', 'T') || '+00:00')"
        return super().as_sql(compiler, connection, template=template, **extra)


EXPORT_FIELDS = (
    "transaction_id",
    "id",
    "time",
    "transaction__kind",
    "account__code",
    "account__kind",
    "account__owner__username",
    "side",
    "amount",
    "transaction__table_ref",
    "transaction__hand_ref",
    "transaction__memo",
    "transaction__mac",
)


def ledger_export_rows(*, filters: LedgerFilters, upto: int) -> QuerySet:
    """One tuple per leg (``EXPORT_FIELDS``), oldest transaction first, legs in id order.

    Only transactions up to ``upto``: the ledger is append-only, so the snapshot never
    changes under a running export. Iterate it with ``.iterator(chunk_size=…)`` (a
    server-side cursor on PostgreSQL) so that memory stays flat.
    """
    return (
        Leg.objects.filter(_transaction_q(filters, prefix="transaction__"), transaction_id__lte=upto)
        .annotate(time=UtcIsoText("transaction__created_at"))
        .order_by("transaction_id", "id")
        .values_list(*EXPORT_FIELDS)
    )


def ledger_export_count(*, filters: LedgerFilters, upto: int) -> int:
    return Leg.objects.filter(_transaction_q(filters, prefix="transaction__"), transaction_id__lte=upto).count()


def table_names(ids) -> dict[int, str]:
    ids = {i for i in ids if i is not None}
    return dict(Table.objects.filter(pk__in=ids).values_list("pk", "name")) if ids else {}


# --- players ------------------------------------------------------------------------------


def player_find(*, text: str):
    """A player by id (digits) or username (case-insensitive); None if there is none."""
    text = (text or "").strip()
    if not text:
        return None
    players = User.objects.filter(groups__name=PLAYER)
    if is_ascii_digits(text):
        found = players.filter(pk=int(text)).first()
        if found is not None:
            return found
    return players.filter(username__iexact=text).first()


def player_search(*, query: str, limit: int = 50) -> list:
    """Players whose username contains ``query`` (or whose id it is), by username."""
    query = (query or "").strip()
    players = User.objects.filter(groups__name=PLAYER)
    if not query:
        return list(players.order_by("username")[:limit])
    match = Q(username__icontains=query)
    if is_ascii_digits(query):
        match |= Q(pk=int(query))
    return list(players.filter(match).distinct().order_by("username")[:limit])


def player_get(*, user_id: int):
    player = User.objects.filter(pk=user_id, groups__name=PLAYER).first()
    if player is None:
        raise NotFound("No such player.", code="player_not_found")
    return player


def player_summary(*, player) -> dict:
    """A player's money, accounts, hands played and their last ``RECENT_HANDS`` hands."""
    balances = wallet_balances(user=player)
    hand_seats = HandSeat.objects.filter(player=player)
    totals = hand_seats.filter(hand__state=Hand.State.SETTLED).aggregate(
        hands=Count("id"), net=Sum("net"), jackpot_wins=Sum("jackpot_win")
    )
    recent = list(hand_seats.select_related("hand", "hand__table").order_by("-hand_id")[:RECENT_HANDS])
    return {
        "player": player,
        "available": balances.available,
        "in_play": balances.in_play,
        "accounts": list(Account.objects.filter(owner=player).order_by("id")),
        "hands_played": totals["hands"] or 0,
        "net": totals["net"] or 0,
        "jackpot_wins": totals["jackpot_wins"] or 0,
        "jackpot_hits": list(JackpotHit.objects.filter(player=player).select_related("pool")[:RECENT_HANDS]),
        "recent": recent,
    }


# --- game recall --------------------------------------------------------------------------


@dataclass
class Check:
    name: str
    ok: bool | None  # None: cannot be checked yet (the hand is not over)
    detail: str = ""


# The game core (its evaluator's tables weigh some 16 MB) is imported where it is used, so
# that a process that only exports the ledger does not carry it.


def _paytable_line_text(line: str, paytable_data: dict) -> str:
    """``"qualified:flush"`` -> ``"Flush pays 6 to 1 (dealer qualified)"``."""
    from casino.game.evaluator import Category

    if not line:
        return ""
    column, _, key = line.partition(":")
    odds = paytable_data.get(column, {}).get(key)
    try:
        label = Category.from_key(key).label
    except ValueError:
        label = key
    column_text = "dealer qualified" if column == "qualified" else "dealer not qualified"
    return f"{label} pays {odds} to 1 ({column_text})"


def _deal_steps(hand: Hand, seats: list[HandSeat]) -> list[dict]:
    """The cards in the order they left the deck (SPEC A3): round by round, each seat with
    an ante in seat order, then the dealer; the dealer's fifth card face up."""
    from casino.game.rules import DEALER_UP_CARD_INDEX, HAND_SIZE

    steps = []
    players = len(seats)
    for r in range(HAND_SIZE):
        for i, hs in enumerate(seats):
            steps.append(
                {
                    "position": r * (players + 1) + i,
                    "round": r + 1,
                    "to": "seat",
                    "seat": hs.seat_number,
                    "player": hs.player.get_username(),
                    "card": hs.cards[r],
                    "face_up": False,
                }
            )
        steps.append(
            {
                "position": r * (players + 1) + players,
                "round": r + 1,
                "to": "dealer",
                "seat": None,
                "player": None,
                "card": hand.dealer_cards[r],
                "face_up": r == DEALER_UP_CARD_INDEX,
            }
        )
    return steps


def _fair_checks(hand: Hand, seats: list[HandSeat], steps: list[dict]) -> tuple[list[Check], list[str] | None]:
    """Commitment, client seed and deck, recomputed from the stored seeds (``fair.verify_hand``)."""
    from casino.game import fair
    from casino.game.cards import card_from_str, cards_to_str

    checks = []
    try:
        commitment_ok = fair.commitment_of(hand.server_seed) == hand.commitment.lower()
    except ValueError:
        commitment_ok = False
    checks.append(
        Check("commitment", commitment_ok, "sha256(server seed) equals the commitment published before the bets")
    )
    if not steps:
        return checks, None
    expected_client_seed = fair.hand_client_seed([hs.client_seed for hs in seats])
    checks.append(
        Check(
            "client_seed",
            hand.client_seed == expected_client_seed,
            "the hand's client seed is the seated players' client seeds in seat order, joined by ':'",
        )
    )
    dealt = [card_from_str(step["card"]) for step in steps]
    deck_ok = fair.verify_hand(
        server_seed=hand.server_seed,
        commitment=hand.commitment,
        client_seed=hand.client_seed,
        nonce=hand.nonce,
        cards=dealt,
    )
    recomputed = None
    detail = f"the deck from (server seed, client seed, nonce {hand.nonce}) deals exactly the {len(dealt)} stored cards"
    if commitment_ok:
        recomputed = cards_to_str(fair.shuffled_deck(hand.server_seed, hand.client_seed, hand.nonce))
        if not deck_ok:
            first = next((i for i, c in enumerate(dealt) if cards_to_str([c])[0] != recomputed[i]), None)
            if first is not None:
                detail += f"; first difference at deck position {first}: stored {steps[first]['card']}, deck {recomputed[first]}"
    checks.append(Check("deck", deck_ok, detail))
    return checks, recomputed


def _result_checks(hand: Hand, seats: list[HandSeat]) -> list[Check]:
    """Evaluation, dealer qualification and every seat's settlement, recomputed."""
    from casino.game.cards import card_from_str
    from casino.game.evaluator import category_of, dealer_qualifies, evaluate
    from casino.game.paytables import PayTable as CorePayTable
    from casino.game.rules import settle_seat

    checks = []
    problems = []
    dealer_strength = evaluate([card_from_str(c) for c in hand.dealer_cards])
    if dealer_strength != hand.dealer_strength or category_of(dealer_strength).key != hand.dealer_category:
        problems.append("dealer's hand")
    if dealer_qualifies(dealer_strength) != hand.dealer_qualified:
        problems.append("dealer qualification")
    for hs in seats:
        strength = evaluate([card_from_str(c) for c in hs.cards])
        if strength != hs.strength or category_of(strength).key != hs.category:
            problems.append(f"seat {hs.seat_number}'s hand")
    checks.append(
        Check(
            "evaluation",
            not problems,
            "every hand's category and the dealer's qualification recomputed from the cards"
            + (f"; differs: {', '.join(problems)}" if problems else ""),
        )
    )
    if hand.state != Hand.State.SETTLED:
        return checks
    paytable = CorePayTable.from_dict({"name": hand.paytable_name, **{k: hand.paytable_data[k] for k in ("qualified", "not_qualified")}})
    wrong = []
    for hs in seats:
        result = settle_seat(
            ante=hs.ante,
            raised=hs.decision == HandSeat.Decision.RAISE,
            player_strength=hs.strength,
            dealer_strength=hand.dealer_strength,
            paytable=paytable,
        )
        if (result.outcome, result.ante_return, result.raise_return, result.line_key) != (
            hs.outcome,
            hs.ante_return,
            hs.raise_return,
            hs.paytable_line,
        ):
            wrong.append(f"seat {hs.seat_number}")
    checks.append(
        Check(
            "settlement",
            not wrong,
            f"every seat settled again by the rules with pay table “{hand.paytable_name}”"
            + (f"; differs: {', '.join(wrong)}" if wrong else ""),
        )
    )
    return checks


def _ledger_check(hand: Hand, seats: list[HandSeat]) -> Check:
    """Each player's money moved by this hand (wallet + in play, from the ledger) equals the seat's net."""
    moved = dict(
        Leg.objects.filter(
            transaction__hand_ref=hand.pk,
            account__kind__in=[Account.Kind.PLAYER_WALLET, Account.Kind.PLAYER_IN_PLAY],
        )
        .values_list("account__owner_id")
        .annotate(total=SIGNED_SUM)
        .order_by()
    )
    wrong = [hs.seat_number for hs in seats if moved.get(hs.player_id, 0) != (hs.net or 0)]
    return Check(
        "ledger",
        not wrong,
        "each player's wallet and money in play moved by exactly the seat's net result in the ledger"
        + (f"; differs for seat(s) {', '.join(map(str, wrong))}" if wrong else ""),
    )


def hand_recall(*, hand_id: int) -> dict:
    """Everything an auditor needs to replay and check one hand.

    Cards and seeds of a hand still in play are withheld (as for everyone else): an
    auditor's screen must not be a way to see live cards.
    """
    hand = Hand.objects.select_related("table", "table__pool").filter(pk=hand_id).first()
    if hand is None:
        raise NotFound("No such hand.", code="hand_not_found")
    seats = list(hand.hand_seats.select_related("player").order_by("seat_number"))
    over = hand.is_over
    dealt = bool(hand.dealer_cards)
    steps = _deal_steps(hand, seats) if over and dealt else []

    checks: list[Check] = []
    deck = None
    if over:
        fair_checks, deck = _fair_checks(hand, seats, steps)
        checks += fair_checks
        if dealt:
            checks += _result_checks(hand, seats)
        checks.append(_ledger_check(hand, seats))

    transactions = list(
        Transaction.objects.filter(hand_ref=hand.pk)
        .prefetch_related(Prefetch("legs", queryset=Leg.objects.select_related("account", "account__owner").order_by("id")))
        .order_by("id")
    )
    pool_kinds = (Account.Kind.JACKPOT_METER, Account.Kind.JACKPOT_RESERVE)
    jackpot_transactions = [
        t for t in transactions if t.kind in JACKPOT_KINDS or any(leg.account.kind in pool_kinds for leg in t.legs.all())
    ]
    hits = list(JackpotHit.objects.filter(hand_ref=hand.pk).select_related("player", "pool").order_by("id"))
    return {
        "hand": hand,
        "table": hand.table,
        "over": over,
        "dealt": dealt,
        "seats": seats,
        "settlement_order": sorted(seats, key=lambda s: s.seat_number, reverse=True),
        "paytable_lines": {hs.seat_number: _paytable_line_text(hs.paytable_line, hand.paytable_data) for hs in seats},
        "steps": steps,
        "deck": deck,
        "checks": checks,
        "verified": bool(checks) and all(c.ok for c in checks),
        "transactions": transactions,
        "jackpot_transactions": jackpot_transactions,
        "jackpot_hits": hits,
    }


# --- reports ------------------------------------------------------------------------------

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


# --- jackpot pools ------------------------------------------------------------------------


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


def pool_history(*, pool: JackpotPool) -> dict:
    """The pool over time, from the ledger: per day what flowed into and out of the meter and
    the reserve, by kind, with the balances at the end of each day; every hit, reset and
    funding; and the reconciliation (``jackpot.selectors.pool_reconcile``)."""
    meter_id, reserve_id = pool.meter_account_id, pool.reserve_account_id
    flows = (
        Leg.objects.filter(account_id__in=[meter_id, reserve_id])
        .annotate(day=TruncDate("transaction__created_at"))
        .values_list("day", "account_id", "transaction__kind", "side")
        .annotate(total=Sum("amount"))
        .order_by("day")
    )
    days: dict[date, PoolDay] = {}
    for day, account_id, kind, side, total in flows:
        if isinstance(day, datetime):
            day = day.date()
        elif isinstance(day, str):
            day = date.fromisoformat(day)
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
    hits = list(JackpotHit.objects.filter(pool=pool).select_related("player").order_by("-id"))
    hits_by_day: dict[date, list[JackpotHit]] = defaultdict(list)
    for hit in hits:
        hits_by_day[timezone.localdate(hit.created_at)].append(hit)
    meter = reserve = 0
    for day in sorted(days):
        d = days[day]
        d.resets_from_house -= d.resets_from_reserve
        meter += d.meter_net
        reserve += d.reserve_net
        d.meter_end, d.reserve_end = meter, reserve
        d.hits = len(hits_by_day.get(day, []))
        d.fixed_prizes = sum(h.amount for h in hits_by_day.get(day, []) if h.kind == JackpotHit.Kind.FIXED)
    events = list(
        Transaction.objects.filter(
            legs__account_id__in=[meter_id, reserve_id],
            kind__in=[Transaction.Kind.JACKPOT_PRIZE, Transaction.Kind.JACKPOT_RESET, Transaction.Kind.JACKPOT_FUNDING, Transaction.Kind.REVERSAL],
        )
        .distinct()
        .prefetch_related(Prefetch("legs", queryset=Leg.objects.select_related("account").order_by("id")))
        .order_by("-id")[:200]
    )
    balances = dict(Account.objects.filter(pk__in=[meter_id, reserve_id]).values_list("pk", "balance"))
    return {
        "pool": pool,
        "meter": balances[meter_id],
        "reserve": balances[reserve_id],
        "days": [days[d] for d in sorted(days, reverse=True)],
        "hits": hits,
        "events": events,
        "reconciliation": pool_reconcile(pool=pool),
    }


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
