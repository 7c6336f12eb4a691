"""The auditor's reads of the poker room: hand recall, the hands list, rake per table and day,
and the rows of the hand-record exports.

Nothing here re-states a rule of the game: a hand's cards, pots and results are read from
its stored record (``docs/stud-hand-record.md``), which is checked against the stud
engine's own replay of the seeds and actions (``casino.stud.engine.verify_record``) and
against the room's stored actions (``poker.replay``); a live hand is read through
``public_view`` (its hidden cards and server seed stay withheld until it is over, as in
the Caribbean recall). Money is integer cents; the ledger is the authority for the rake.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from datetime import timezone as dt_timezone

from django.db.models import Count, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop, ngettext

from casino.cents import format_cents, parse_cents
from casino.http.errors import NotFound
from casino.keyset import KeysetPage, keyset_page
from casino.money import money
from casino.stud.engine import StudError, cents, hand_record, public_view, verify_record
from poker import replay
from poker.models import GAME_LABELS, PokerHand, PokerTable
from poker.presentation import shown_hand_name, street_title
from poker.selectors import poker_hand_pokerstars
from wallets.models import Leg, Transaction
from wallets.selectors import SIGNED_SUM, day_start

JSONL_ROW_VERSION = 1
EXPORT_FETCH_CHUNK = 500  # hands per fetch from the server-side cursor (a record is a few kB)


# --------------------------------------------------------------------------- filters


# The actions of a hand's record in words, translated where they are read (``RecallAction.label``).
ACTION_LABELS = {
    "ante": gettext_noop("ante"),
    "bring_in": gettext_noop("bring in"),
    "complete": gettext_noop("complete"),
    "bet": gettext_noop("bet"),
    "raise": gettext_noop("raise"),
    "call": gettext_noop("call"),
    "check": gettext_noop("check"),
    "fold": gettext_noop("fold"),
    "all_in": gettext_noop("all in"),
    "timeout": gettext_noop("timeout"),
    "timeout_all_in": gettext_noop("timeout all in"),
}


@dataclass(frozen=True)
class PokerHandFilters:
    """Which hands: ended (or, for the list, any state) at a poker table, by the day they ended."""

    table_id: int | None = None
    date_from: date | None = None
    date_to: date | None = None

    def describe(self) -> dict:
        """The filters as plain JSON values, in the ledger filters' shape (the register shows both)."""
        return {
            "date_from": self.date_from.isoformat() if self.date_from else None,
            "date_to": self.date_to.isoformat() if self.date_to else None,
            "time_zone": timezone.get_current_timezone_name(),
            "player": None,
            "game": "poker",
            "table": self.table_id,
            "hand": None,
            "kind": None,
        }

    @classmethod
    def from_description(cls, data: dict) -> PokerHandFilters:
        """Inverse of ``describe`` (a file export's worker re-reads its job's filters)."""
        return cls(
            table_id=data.get("table"),
            date_from=date.fromisoformat(data["date_from"]) if data.get("date_from") else None,
            date_to=date.fromisoformat(data["date_to"]) if data.get("date_to") else None,
        )

    def apply(self, hands, *, moment: str = "ended_at"):
        if self.table_id is not None:
            hands = hands.filter(table_id=self.table_id)
        if self.date_from:
            hands = hands.filter(**{f"{moment}__gte": day_start(self.date_from)})
        if self.date_to:
            hands = hands.filter(**{f"{moment}__lt": day_start(self.date_to + timedelta(days=1))})
        return hands


def poker_hands_list(*, filters: PokerHandFilters, state: str | None = None):
    """Hands newest first (a queryset to page), by the day they started; ``state`` narrows it."""
    hands = filters.apply(PokerHand.objects.select_related("table"), moment="started_at")
    if state:
        hands = hands.filter(state=state)
    return hands.defer("record", "actions", "deck").order_by("-started_at", "-pk")


def poker_hands_page(
    *,
    filters: PokerHandFilters,
    state: str | None = None,
    limit: int,
    before: int | None = None,
    after: int | None = None,
) -> KeysetPage:
    """A page of ``poker_hands_list`` by cursor (``casino.keyset``), in the same order (the
    start, then the hand): the newest ``limit``, those older than hand ``before`` or those
    newer than hand ``after`` (a hand these filters leave out: ``cursor_not_found``); a
    range of the hands' (start, id) index, or its table's or its state's, however many
    hands the room has dealt (no count)."""
    return keyset_page(
        poker_hands_list(filters=filters, state=state),
        key=("started_at", "id"),
        limit=limit,
        before=before,
        after=after,
    )


# --------------------------------------------------------------------------- recall


@dataclass(frozen=True)
class PokerCheck:
    name: str
    label: str
    ok: bool | None  # None: cannot be checked (yet)
    detail: str


@dataclass
class RecallCard:
    code: str | None  # None: face down and withheld (a live hand)
    up: bool
    street: int


@dataclass
class RecallSeat:
    seat: int
    player: str
    user_id: int
    stack: int  # cents, before the ante
    client_seed: str
    cards: list[RecallCard] = field(default_factory=list)
    folded_on: int | None = None  # the street of the fold
    showdown: str = ""  # "shown", "mucked" or "" (no showdown for this seat)
    category: str = ""
    hand_name: str = ""
    best_five: list[str] = field(default_factory=list)
    won: int = 0  # cents awarded from the pots
    net: int | None = None  # cents; None while the hand is live

    @property
    def down(self) -> list[str | None]:
        return [c.code for c in self.cards if not c.up]

    @property
    def up(self) -> list[str | None]:
        return [c.code for c in self.cards if c.up]


@dataclass
class RecallAction:
    seat: int
    player: str
    action: str
    amount: int  # cents the action added
    to: int  # the seat's total this street after it

    @property
    def label(self) -> str:
        """The action in the reader's words ("bring in", German "Bring-in")."""
        words = ACTION_LABELS.get(self.action)
        return gettext(words) if words else self.action.replace("_", " ")


@dataclass
class RecallStreet:
    number: int
    title: str
    deals: list[dict] = field(default_factory=list)  # [{"seat", "player", "cards": [RecallCard]}] in seat order
    burns: list[str | None] = field(default_factory=list)
    actions: list[RecallAction] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # returns, reshuffles, the community card


@dataclass
class RecallPot:
    index: int
    label: str
    amount: int
    rake: int
    eligible: list[int]
    winners: list[int]
    shares: list[dict]  # [{"seat", "player", "amount"}]


@dataclass
class PokerRecall:
    hand: PokerHand
    table: PokerTable
    game_label: str
    over: bool
    seats: list[RecallSeat]
    streets: list[RecallStreet]
    pots: list[RecallPot]
    awards: list[dict]  # [{"pot", "seat", "player", "amount"}] in the record's order
    rake: int
    pot_total: int
    showdown_order: list[int]
    community: str | None
    server_seed: str | None
    client_seed: str
    checks: list[PokerCheck]
    transactions: list[Transaction]

    @property
    def verified(self) -> bool:
        return self.over and bool(self.checks) and all(c.ok for c in self.checks)

    @property
    def record(self) -> dict | None:
        return self.hand.record


def _events_of(hand: PokerHand) -> tuple[list[dict], dict | None]:
    """The events the auditor may read now, and the full record once the hand is over."""
    if hand.state == PokerHand.State.ENDED and hand.record:
        return list(hand.record.get("events") or ()), hand.record
    if hand.state == PokerHand.State.LIVE:
        return list(public_view(replay.hand_state(hand))["events"]), None
    return [], None  # cancelled: every chip went back, the record was never written


def _streets(
    events: list[dict], *, game: str, names: dict[int, str], seats: dict[int, RecallSeat]
) -> list[RecallStreet]:
    streets: list[RecallStreet] = []
    by_number: dict[int, RecallStreet] = {}
    deals: dict[int, dict[int, list[RecallCard]]] = {}
    current: RecallStreet | None = None
    pending_burns: list[str | None] = []

    def street(number: int) -> RecallStreet:
        nonlocal current
        if number not in by_number:
            by_number[number] = RecallStreet(number=number, title=street_title(game, number))
            streets.append(by_number[number])
            deals[number] = {}
        current = by_number[number]
        return current

    for event in events:
        kind = event.get("type")
        if kind == "deal":
            st = street(event["street"])
            if pending_burns:
                st.burns.extend(pending_burns)
                pending_burns = []
            card = RecallCard(code=event.get("card"), up=bool(event.get("up")), street=event["street"])
            deals[st.number].setdefault(event["seat"], []).append(card)
            if event["seat"] in seats:
                seats[event["seat"]].cards.append(card)
        elif kind == "burn":
            pending_burns.append(event.get("card"))
        elif kind == "action":
            st = street(event.get("street") or (current.number if current else 0))
            seat = event["seat"]
            st.actions.append(
                RecallAction(
                    seat=seat,
                    player=names.get(seat, str(seat)),
                    action=event["action"],
                    amount=cents(event.get("amount") or "0"),
                    to=cents(event.get("to") or "0"),
                )
            )
            if event["action"] in ("fold", "timeout_fold") and seat in seats:
                seats[seat].folded_on = st.number
        elif kind == "return" and current is not None:
            who = gettext("seat %(seat)s (%(player)s)") % {
                "seat": event["seat"],
                "player": names.get(event["seat"], ""),
            }
            current.notes.append(
                gettext("Uncalled %(amount)s returned to %(name)s")
                % {"amount": money(parse_cents(event["amount"])), "name": who}
            )
        elif kind == "reshuffle" and current is not None:
            current.notes.append(
                gettext("Deck exhausted: the pool of %(cards)s cards is reshuffled (SPEC B2)")
                % {"cards": event["pool_size"]}
            )
        elif kind == "community":
            if current is not None:
                current.notes.append(
                    gettext("Community card %(card)s: every player's seventh card") % {"card": event["card"]}
                )
    if pending_burns and current is not None:
        current.burns.extend(pending_burns)
    for st in streets:
        st.deals = [
            {"seat": s, "player": names.get(s, str(s)), "cards": cards} for s, cards in sorted(deals[st.number].items())
        ]
    return streets


def _check(name: str, label: str, test) -> PokerCheck:
    try:
        ok, detail = test()
    except (StudError, RuntimeError, KeyError, TypeError, ValueError) as error:
        return PokerCheck(name, label, False, f"{type(error).__name__}: {getattr(error, 'message', error)}")
    return PokerCheck(name, label, ok, detail)


def _checks(hand: PokerHand, transactions: list[Transaction]) -> list[PokerCheck]:
    if hand.state == PokerHand.State.LIVE:
        return [
            PokerCheck(
                "over",
                gettext("Hand over"),
                None,
                gettext("Still in play: the server seed and the down cards are withheld."),
            )
        ]
    if hand.state == PokerHand.State.CANCELLED:
        posted = [t for t in transactions if t.kind == Transaction.Kind.POKER_HAND]
        return [
            PokerCheck(
                "cancelled",
                gettext("Cancelled, nothing posted"),
                not posted,
                gettext("No settlement in the ledger: every chip stayed in its stack.")
                if not posted
                else ngettext(
                    "%(count)s settlement posted for a cancelled hand",
                    "%(count)s settlements posted for a cancelled hand",
                    len(posted),
                )
                % {"count": len(posted)},
            )
        ]
    record = hand.record or {}
    table = hand.table

    def commitment():
        seed = record.get("server_seed") or hand.server_seed
        digest = hashlib.sha256(bytes.fromhex(seed)).hexdigest()
        ok = digest == hand.commitment == record.get("commitment") and seed == hand.server_seed
        return ok, gettext("sha256(server seed) = %(digest)s; commitment stored before the antes = %(commitment)s") % {
            "digest": digest,
            "commitment": hand.commitment,
        }

    def replays():
        verify_record(record)
        return True, gettext("The stud engine dealt the seeds' deck and replayed every action to exactly this record.")

    def stored_actions():
        state = replay.hand_state(hand)
        same = hand_record(state) == record
        return same, (
            gettext("The room's %(count)s stored actions replay to the stored record.") % {"count": hand.version}
            if same
            else gettext("The room's stored seats and actions replay to a different record.")
        )

    def chips():
        net = sum(cents(v) for v in (record.get("net") or {}).values())
        rake = cents(record.get("rake") or "0")
        pots = sum(cents(p["amount"]) for p in record.get("pots") or ())
        ok = net + rake == 0 and rake == hand.rake and pots == hand.pot_total
        return ok, gettext(
            "results sum to %(net)s, plus the rake %(rake)s: %(total)s (0 expected); pots %(pots)s, stored %(stored)s"
        ) % {
            "net": money(net),
            "rake": money(rake),
            "total": money(net + rake),
            "pots": money(pots),
            "stored": money(hand.pot_total),
        }

    def ledger():
        posted = [t for t in transactions if t.kind == Transaction.Kind.POKER_HAND]
        by_seat = {s["seat"]: s["user_id"] for s in hand.seats}
        expected: dict[str, int] = {}
        for seat, amount in (record.get("net") or {}).items():
            if cents(amount):
                expected[f"poker_stack:{table.pk}:{by_seat[int(seat)]}"] = cents(amount)
        if cents(record.get("rake") or "0"):
            expected["rake"] = cents(record["rake"])
        if not expected:
            return (
                not posted,
                gettext("Nothing to post (no chip changed hands).")
                if not posted
                else gettext("A settlement for a hand that moved nothing"),
            )
        if len(posted) != 1:
            return False, gettext("%(count)s settlement transactions (one expected)") % {"count": len(posted)}
        got: dict[str, int] = {}
        for leg in posted[0].legs.all():
            key = "rake" if leg.account_id == table.rake_account_id else leg.account.code
            got[key] = got.get(key, 0) + leg.signed_amount
        ok = got == expected
        return ok, (
            gettext("Transaction #%(number)s posts each result to its stack and the rake to the table's rake account.")
            % {"number": posted[0].pk}
            if ok
            else gettext("The ledger posted %(got)s, the record says %(expected)s") % {"got": got, "expected": expected}
        )

    return [
        _check("commitment", gettext("Commitment"), commitment),
        _check("replay", gettext("Seeds and actions replay to the record"), replays),
        _check("stored_actions", gettext("The room's stored actions"), stored_actions),
        _check("chips", gettext("Chips balance"), chips),
        _check("ledger", gettext("Ledger settlement"), ledger),
    ]


def poker_hand_recall(*, hand_id: int) -> PokerRecall:
    """Every card of a poker hand street by street (mucked hands included), its actions,
    pots, awards and rake, the server seed and the checks; a live hand as the public sees it."""
    hand = PokerHand.objects.select_related("table").filter(pk=hand_id).first()
    if hand is None:
        raise NotFound("No such poker hand.", code="hand_not_found")
    table = hand.table
    names = {s["seat"]: s["player"] for s in hand.seats}
    seats = {
        s["seat"]: RecallSeat(
            seat=s["seat"], player=s["player"], user_id=s["user_id"], stack=s["stack"], client_seed=s["client_seed"]
        )
        for s in hand.seats
    }
    events, record = _events_of(hand)
    streets = _streets(events, game=table.game, names=names, seats=seats)
    pots: list[RecallPot] = []
    awards: list[dict] = []
    order: list[int] = []
    if record is not None:
        for entry in record.get("showdown") or ():
            seat = seats.get(entry["seat"])
            if seat is None:
                continue
            seat.showdown = "shown" if entry.get("shown") else "mucked"
            seat.category = entry.get("category") or ""
            seat.best_five = list(entry.get("best_five") or ())
            seat.hand_name = shown_hand_name(entry.get("category"), entry.get("best_five"))
        order = [e["seat"] for e in record.get("showdown") or ()]
        for index, pot in enumerate(record.get("pots") or ()):
            pots.append(
                RecallPot(
                    index=index,
                    label=gettext("Main pot") if index == 0 else gettext("Side pot %(number)s") % {"number": index},
                    amount=cents(pot["amount"]),
                    rake=cents(pot.get("rake") or "0"),
                    eligible=list(pot.get("eligible") or ()),
                    winners=list(pot.get("winners") or ()),
                    shares=[
                        {"seat": int(s), "player": names.get(int(s), s), "amount": cents(a)}
                        for s, a in (pot.get("shares") or {}).items()
                    ],
                )
            )
        for event in record.get("events") or ():
            if event.get("type") == "award":
                awards.append(
                    {
                        "pot": event["pot"],
                        "seat": event["seat"],
                        "player": names.get(event["seat"], ""),
                        "amount": cents(event["amount"]),
                    }
                )
                if event["seat"] in seats:
                    seats[event["seat"]].won += cents(event["amount"])
        for seat_text, amount in (record.get("net") or {}).items():
            if int(seat_text) in seats:
                seats[int(seat_text)].net = cents(amount)
    transactions = list(
        Transaction.objects.filter(
            game=Transaction.Game.POKER, hand_ref=hand.pk, table_ref=table.pk, kind__in=[Transaction.Kind.POKER_HAND]
        )
        .select_related("actor", "seal")
        .prefetch_related("legs__account__owner")
        .order_by("pk")
    )
    over = hand.state == PokerHand.State.ENDED
    return PokerRecall(
        hand=hand,
        table=table,
        game_label=GAME_LABELS.get(table.game, table.game),
        over=over,
        seats=[seats[n] for n in sorted(seats)],
        streets=streets,
        pots=pots,
        awards=awards,
        rake=hand.rake,
        pot_total=hand.pot_total,
        showdown_order=order,
        community=(record or {}).get("community"),
        server_seed=hand.server_seed if over else None,
        client_seed=hand.client_seed,
        checks=_checks(hand, transactions),
        transactions=transactions,
    )


# --------------------------------------------------------------------------- rake report


@dataclass
class RakeRow:
    day: date | None
    table_id: int | None
    table: str
    hands: int = 0  # ended hands (by the day they ended)
    pots: int = 0  # cents, the hands' whole pots
    record_rake: int = 0  # cents, what the hands' records say
    rake: int = 0  # cents, from the ledger: legs on the table's rake account

    def add(self, other: RakeRow) -> None:
        self.hands += other.hands
        self.pots += other.pots
        self.record_rake += other.record_rake
        self.rake += other.rake

    @property
    def ok(self) -> bool:
        return self.rake == self.record_rake


def _day(value) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, str):
        return date.fromisoformat(value)
    return value


def poker_rake_report(
    *, date_from: date | None = None, date_to: date | None = None, table_id: int | None = None
) -> dict:
    """Rake per table and per day: from the ledger (the legs on each table's rake account,
    by the day of their transaction), beside the hands that ended that day and what their
    records say. Without a date range the per-table totals equal the rake accounts' balances
    (``balance`` and ``balance_ok`` per table)."""
    tables = PokerTable.objects.order_by("name")
    if table_id is not None:
        tables = tables.filter(pk=table_id)
    tables = list(tables.select_related("rake_account"))
    by_account = {t.rake_account_id: t for t in tables}
    legs = Leg.objects.filter(account_id__in=list(by_account))
    hands = PokerHand.objects.filter(table__in=tables, state=PokerHand.State.ENDED)
    if date_from:
        legs = legs.filter(transaction__created_at__gte=day_start(date_from))
        hands = hands.filter(ended_at__gte=day_start(date_from))
    if date_to:
        end = day_start(date_to + timedelta(days=1))
        legs = legs.filter(transaction__created_at__lt=end)
        hands = hands.filter(ended_at__lt=end)
    rows: dict[tuple[date, int], RakeRow] = {}

    def row(day, table: PokerTable) -> RakeRow:
        key = (_day(day), table.pk)
        if key not in rows:
            rows[key] = RakeRow(day=key[0], table_id=table.pk, table=table.name)
        return rows[key]

    ledger = (
        legs.annotate(day=TruncDate("transaction__created_at"))
        .values("day", "account_id")
        .annotate(total=SIGNED_SUM)
        .order_by()
    )
    for r in ledger:
        row(r["day"], by_account[r["account_id"]]).rake += r["total"] or 0
    by_table = {t.pk: t for t in tables}
    played = (
        hands.annotate(day=TruncDate("ended_at"))
        .values("day", "table_id")
        .annotate(n=Count("id"), pots=Sum("pot_total"), rake=Sum("rake"))
        .order_by()
    )
    for r in played:
        entry = row(r["day"], by_table[r["table_id"]])
        entry.hands += r["n"]
        entry.pots += r["pots"] or 0
        entry.record_rake += r["rake"] or 0
    return rake_report_of(rows, tables, whole=not date_from and not date_to)


def rake_report_of(rows: dict, tables: list, *, whole: bool) -> dict:
    """The rake report from its rows by (day, table): newest day first, each table's totals
    against its rake account's balance (checked only over the whole ledger), the sum."""
    ordered = sorted(rows.values(), key=lambda r: (-r.day.toordinal(), r.table))
    totals = {t.pk: RakeRow(day=None, table_id=t.pk, table=t.name) for t in tables}
    total = RakeRow(day=None, table_id=None, table="All tables")
    for r in ordered:
        totals[r.table_id].add(r)
        total.add(r)
    per_table = []
    for t in tables:
        balance = t.rake_account.balance
        per_table.append(
            {"row": totals[t.pk], "balance": balance, "balance_ok": totals[t.pk].rake == balance if whole else None}
        )
    return {
        "rows": ordered,
        "by_table": per_table,
        "total": total,
        "balance": sum(t.rake_account.balance for t in tables),
        "whole_ledger": whole,
    }


# --------------------------------------------------------------------------- export rows


def poker_export_hands(*, filters: PokerHandFilters, ended_upto: datetime):
    """The hands an export holds: ended, with a record, ended at or before ``ended_upto``
    (the export's snapshot: an ended hand never changes), oldest first."""
    hands = filters.apply(
        PokerHand.objects.filter(state=PokerHand.State.ENDED, record__isnull=False, ended_at__lte=ended_upto)
    )
    return hands.select_related("table").order_by("ended_at", "pk")


def _utc(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(dt_timezone.utc).isoformat(timespec="microseconds")


def poker_hand_jsonl(hand: PokerHand) -> str:
    """One hand as one JSON Lines row (no newline): the room's envelope (hand id, table,
    times, the seats' users) and the hand record verbatim, which an outside verifier replays."""
    row = {
        "row_version": JSONL_ROW_VERSION,
        "hand": hand.pk,
        "table": hand.table.name,
        "table_id": hand.table_id,
        "number": hand.number,
        "game": hand.table.game,
        "started_at": _utc(hand.started_at),
        "ended_at": _utc(hand.ended_at),
        "users": {str(s["seat"]): s["user_id"] for s in hand.seats},
        "pot_total": format_cents(hand.pot_total),
        "rake": format_cents(hand.rake),
        "record": hand.record,
    }
    return json.dumps(row, ensure_ascii=False, separators=(",", ":"), sort_keys=False)


def poker_hand_text(hand: PokerHand) -> str:
    """One hand in PokerStars text, every down card shown (the auditor's view)."""
    return poker_hand_pokerstars(hand=hand, show_all=True)


def poker_export_rows(*, filters: PokerHandFilters, ended_upto: datetime) -> Iterator[PokerHand]:
    return poker_export_hands(filters=filters, ended_upto=ended_upto).iterator(chunk_size=EXPORT_FETCH_CHUNK)


def poker_hand_exists(*, hand_id: int) -> bool:
    return PokerHand.objects.filter(pk=hand_id).exists()


def poker_hand_ended(*, hand_id: int) -> PokerHand | None:
    """An ended hand with its record (its table loaded), or None."""
    return (
        PokerHand.objects.select_related("table")
        .filter(pk=hand_id, state=PokerHand.State.ENDED, record__isnull=False)
        .first()
    )


__all__ = [
    "PokerCheck",
    "PokerHandFilters",
    "PokerRecall",
    "RakeRow",
    "rake_report_of",
    "poker_export_hands",
    "poker_export_rows",
    "poker_hand_ended",
    "poker_hand_exists",
    "poker_hand_jsonl",
    "poker_hand_recall",
    "poker_hand_text",
    "poker_hands_list",
    "poker_rake_report",
]
