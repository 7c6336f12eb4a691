"""What each person may see of tables and hands.

The one rule of visibility lives in ``hand_view``: until a hand is over, a player sees
their own cards and the dealer's up card only, and nobody sees the server seed; once it
is settled or cancelled, everything is shown so that anyone can verify it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from django.contrib.auth import get_user_model
from django.db.models import Count, DateTimeField, Prefetch, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from casino.errors import NotFound
from casino.game.cards import cards_from_str, cards_to_str
from casino.game.evaluator import Category
from casino.game.names import hand_name, winning_cards
from casino.game.rules import DEALER_UP_CARD_INDEX, MAX_SEATS
from casino.money import format_cents
from jackpot.models import JackpotHit
from jackpot.selectors import JACKPOT_KINDS
from jackpot.services import PoolRules, hand_pool_rules
from tables.models import Hand, HandSeat, Table
from tables.presentation import seat_words
from wallets.models import Account, Leg, Transaction
from wallets.selectors import SIGNED_SUM


def lobby_tables() -> QuerySet[Table]:
    return (
        Table.objects.filter(is_open=True)
        .select_related("tier", "paytable", "pool", "pool__meter_account")
        .annotate(seated=Count("seats"))
        .order_by("tier__min_ante", "name")
    )


def table_get(*, table_id: int) -> Table:
    table = Table.objects.select_related("tier", "paytable", "pool", "pool__meter_account").filter(pk=table_id).first()
    if table is None:
        raise NotFound("No such table.", code="table_not_found")
    return table


def table_live_hand(*, table: Table) -> Hand | None:
    """The table's live hand, if it has one (the caller's lock keeps it so, if it must);
    one at most, found by ``hand_one_live_per_table``."""
    hand = Hand.objects.live().filter(table_id=table.pk).order_by("-id").first()
    if hand is not None:
        hand.table = table
    return hand


def pool_hands_on_previous_rules(*, pool) -> list[dict]:
    """The hands in play that hold jackpot chips under other rules than the pool's present
    ones (a change reached them too late): ``{"hand", "table", "table_name"}``, by hand id.

    They settle by the rules they opened under; every table takes the present rules from
    its next hand."""
    present = PoolRules.of_pool(pool)
    hands = Hand.objects.live().with_jackpot_chips().filter(table__pool=pool).select_related("table").order_by("pk")
    return [
        {"hand": hand.pk, "table": hand.table_id, "table_name": hand.table.name}
        for hand in hands
        if hand.jackpot_bet_amount != pool.bet_amount or hand_pool_rules(hand=hand, pool=pool) != present
    ]


def table_view(*, table: Table, viewer) -> dict:
    seats = {s.number: s for s in table.seats.select_related("player")}
    hand = table_live_hand(table=table)
    return {
        "id": table.pk,
        "name": table.name,
        "tier": table.tier.name,
        "min_ante": format_cents(table.tier.min_ante),
        "max_ante": format_cents(table.tier.max_ante),
        "paytable": table.paytable.name,
        "jackpot_pool": table.pool.name,
        "jackpot_meter": format_cents(table.pool.meter_account.balance),
        "jackpot_bet": format_cents(table.pool.bet_amount),
        "seats": [
            {
                "seat": n,
                "player": seats[n].player.get_username() if n in seats else None,
                "is_you": n in seats and seats[n].player_id == getattr(viewer, "pk", None),
            }
            for n in range(1, MAX_SEATS + 1)
        ],
        "free_seats": [n for n in range(1, MAX_SEATS + 1) if n not in seats],
        "hand": hand_view(hand=hand, viewer=viewer) if hand else None,
    }


def hand_get(*, hand_id: int) -> Hand:
    hand = Hand.objects.select_related("table").filter(pk=hand_id).first()
    if hand is None:
        raise NotFound("No such hand.", code="hand_not_found")
    return hand


def _hand_seats(hand_id: int) -> list[HandSeat]:
    """A hand's seats with their players' names, in one statement."""
    return list(
        HandSeat.objects.filter(hand_id=hand_id)
        .select_related("player")
        .only(*(f.name for f in HandSeat._meta.concrete_fields), f"player__{get_user_model().USERNAME_FIELD}")
        .order_by("seat_number")
    )


def hand_live_view(*, hand_id: int, viewer) -> dict:
    """``hand_view`` of a hand by id, for the live table's private nudges."""
    return hand_live_views(hand_id=hand_id, viewers=[viewer])[0]


def hand_live_views(*, hand_id: int, viewers: list) -> list[dict]:
    """``hand_view`` of a hand by id for each of ``viewers``, the hand read once (a deal
    or a settlement nudges every player of the table at once)."""
    hand = Hand.objects.filter(pk=hand_id).order_by().first()
    if hand is None:
        raise NotFound("No such hand.", code="hand_not_found")
    seats = _hand_seats(hand_id)
    names = {hs.player_id: hs.player.get_username() for hs in seats}
    return [_hand_view(hand, viewer, seats, names) for viewer in viewers]


def _named(cards: list) -> dict:
    """The hand's name as players say it and the cards that make it (both None until five are shown)."""
    if len(cards) != 5 or None in cards:
        return {"hand_name": None, "winning_cards": None}
    ints = cards_from_str(cards)
    return {"hand_name": hand_name(ints), "winning_cards": cards_to_str(winning_cards(ints))}


def hand_view(*, hand: Hand, viewer, hand_seats: list[HandSeat] | None = None) -> dict:
    """The hand as ``viewer`` may see it (``viewer`` None: a spectator).

    ``hand_seats``: the hand's seats as the step that just saved them holds them (the
    settlement's event, built after its commit), instead of reading them again; their
    players' names too, when the step read them with the seats (``tables.locks``)."""
    if hand_seats is None:
        hand_seats = _hand_seats(hand.pk)
        names = {hs.player_id: hs.player.get_username() for hs in hand_seats}
    elif all(HandSeat.player.is_cached(hs) for hs in hand_seats):
        hand_seats = sorted(hand_seats, key=lambda hs: hs.seat_number)
        names = {hs.player_id: hs.player.get_username() for hs in hand_seats}
    else:
        hand_seats = sorted(hand_seats, key=lambda hs: hs.seat_number)
        ids = sorted({hs.player_id for hs in hand_seats})
        users = get_user_model().objects.filter(pk__in=ids).only("id", get_user_model().USERNAME_FIELD)
        names = {user.pk: user.get_username() for user in users} if ids else {}
    return _hand_view(hand, viewer, hand_seats, names)


def _hand_view(hand: Hand, viewer, hand_seats: list[HandSeat], names: dict[int, str]) -> dict:
    """``hand_view`` of seats in seat order, ``names`` their players' usernames by id."""
    over = hand.is_over
    viewer_id = getattr(viewer, "pk", None)
    dealt = bool(hand.dealer_cards)
    if over or not dealt:
        dealer_cards = list(hand.dealer_cards)
    else:
        dealer_cards = [c if i == DEALER_UP_CARD_INDEX else None for i, c in enumerate(hand.dealer_cards)]
    seats = []
    for hs in hand_seats:
        visible = over or hs.player_id == viewer_id
        seats.append(
            {
                "seat": hs.seat_number,
                "player": names[hs.player_id],
                "is_you": hs.player_id == viewer_id,
                "ante": format_cents(hs.ante),
                "jackpot_bet": format_cents(hs.jackpot_bet),
                "raise": format_cents(hs.raise_amount),
                "decision": hs.decision or None,
                "decided_by_timeout": hs.decided_by_timeout,
                # A seat's own time bank is private: an extension would tell others it holds a pair.
                "decision_deadline": hs.decision_deadline
                if hs.player_id == viewer_id and not hs.decision and not over
                else None,
                "cards": list(hs.cards) if visible else ([None] * len(hs.cards)),
                "category": hs.category if visible and hs.category else None,
                "category_label": Category.from_key(hs.category).label if visible and hs.category else None,
                **_named(list(hs.cards) if visible else []),
                "outcome": hs.outcome or None,
                "paytable_line": hs.paytable_line or None,
                "ante_return": format_cents(hs.ante_return) if over else None,
                "raise_return": format_cents(hs.raise_return) if over else None,
                "jackpot_win": format_cents(hs.jackpot_win) if over else None,
                "net": format_cents(hs.net) if over and hs.net is not None else None,
                **seat_words(hand, hs, you=hs.player_id == viewer_id),
            }
        )
    return {
        "id": hand.pk,
        "table": hand.table_id,
        "nonce": hand.nonce,
        "state": hand.state,
        "version": hand.version,
        "commitment": hand.commitment,
        "server_seed": hand.server_seed if over else None,
        "client_seed": hand.client_seed or None,
        "paytable": {"name": hand.paytable_name, **hand.paytable_data},
        "min_ante": format_cents(hand.min_ante),
        "max_ante": format_cents(hand.max_ante),
        "jackpot_bet_amount": format_cents(hand.jackpot_bet_amount),
        "opened_at": hand.opened_at,
        "betting_deadline": hand.betting_deadline if hand.state == Hand.State.BETTING else None,
        "dealt_at": hand.dealt_at,
        "decision_deadline": hand.decision_deadline if hand.state == Hand.State.DECISIONS else None,
        "settled_at": hand.settled_at,
        "dealer": {
            "cards": dealer_cards,
            "up_card": hand.dealer_up_card,
            "category": hand.dealer_category if over else None,
            "qualified": hand.dealer_qualified if over else None,
            **_named(dealer_cards if over else []),
        },
        "seats": seats,
    }


def player_hand_seats(*, user) -> QuerySet[HandSeat]:
    """The player's part in every hand they played, newest first: by the time the history
    shows (the end, else the opening: ``history_at``), so a long hand at one table sorts
    after a quick one at another. Read from the (player, time, hand) index, a page reads
    its rows; ordered by the hands' own times, PostgreSQL read and sorted every hand the
    player ever played for each page (0.3 s at 125,000)."""
    return (
        HandSeat.objects.filter(player=user).select_related("hand", "hand__table").order_by("-history_at", "-hand_id")
    )


# How far back a table's page looks for the player's last results there: their last hands
# anywhere, so that the look-up reads a bounded number of rows however long ago the
# player last sat at this table (a player back after thousands of hands elsewhere sees none).
RECENT_LOOKBACK = 500
_THE_BEGINNING = datetime(2000, 1, 1, tzinfo=UTC)


def player_recent_hand_seats(*, user, table: Table, count: int) -> list[HandSeat]:
    """The player's last ``count`` hands over at ``table``, newest first, among their last
    ``RECENT_LOOKBACK`` hands (a range of the index: from the time of the oldest of them)."""
    oldest = player_hand_seats(user=user).values("history_at")[RECENT_LOOKBACK - 1 : RECENT_LOOKBACK]
    since = Coalesce(Subquery(oldest), Value(_THE_BEGINNING, output_field=DateTimeField()))  # fewer hands: all of them
    lately = player_hand_seats(user=user).filter(history_at__gte=since)
    return list(lately.filter(hand__table=table, net__isnull=False)[:count])


def player_hand_seat(*, hand: Hand, user) -> HandSeat | None:
    return hand.hand_seats.filter(player=user).first()


def table_names(ids) -> dict[int, str]:
    ids = {i for i in ids if i is not None}
    return dict(Table.objects.filter(pk__in=ids).values_list("pk", "name")) if ids else {}


# --- the auditors' recall of a hand ------------------------------------------------------


CHECK_LABELS = {
    "commitment": "Commitment",
    "client_seed": "Client seed",
    "deck": "Deck",
    "evaluation": "Hands evaluated",
    "settlement": "Settlement",
    "ledger": "Ledger",
}


@dataclass
class Check:
    """One verification of a recalled hand: ``name`` is stable (the API's), ``label`` is read."""

    name: str
    ok: bool | None  # None: cannot be checked yet (the hand is not over)
    detail: str = ""

    @property
    def label(self) -> str:
        return CHECK_LABELS.get(self.name, self.name)


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
    from casino.game.rules import DEALER_UP_CARD_INDEX, deal_order

    steps = []
    for position, r, i in deal_order(len(seats)):
        if i is None:
            steps.append(
                {
                    "position": position,
                    "round": r + 1,
                    "to": "dealer",
                    "seat": None,
                    "player": None,
                    "card": hand.dealer_cards[r],
                    "face_up": r == DEALER_UP_CARD_INDEX,
                }
            )
        else:
            hs = seats[i]
            steps.append(
                {
                    "position": position,
                    "round": r + 1,
                    "to": "seat",
                    "seat": hs.seat_number,
                    "player": hs.player.get_username(),
                    "card": hs.cards[r],
                    "face_up": False,
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
    detail = f"the deck from the server seed, the client seed and the hand number at the table ({hand.nonce}) deals exactly the {len(dealt)} stored cards"
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
    paytable = CorePayTable.from_dict(
        {"name": hand.paytable_name, **{k: hand.paytable_data[k] for k in ("qualified", "not_qualified")}}
    )
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
            transaction__game=Transaction.Game.CARIBBEAN,
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


@dataclass(frozen=True)
class RecallSeat:
    """One seat of a recalled hand. Amounts are cents; ``cards`` is None while withheld."""

    seat: int
    player_id: int
    player: str
    client_seed: str
    ante: int
    jackpot_bet: int
    raise_amount: int
    decision: str | None
    decision_label: str | None
    decided_by_timeout: bool
    extension_used: bool
    cards: list[str] | None
    winning_cards: list[str] | None
    category: str | None
    hand_name: str | None  # as players say it ("pair of tens"), once the cards are shown
    outcome: str | None
    outcome_label: str | None
    paytable_line: str | None
    paytable_line_text: str | None
    ante_return: int
    raise_return: int
    jackpot_win: int
    net: int | None


@dataclass(frozen=True)
class DealStep:
    """One card as it left the deck (SPEC A3), beside the deck recomputed from the seeds."""

    step: int  # 1-based, for the page's replay
    position: int  # 0-based deck position
    round: int
    to: str  # "seat" | "dealer"
    seat: int | None
    player: str | None
    card: str
    face_up: bool
    deck_card: str | None
    matches: bool


@dataclass(frozen=True)
class HandRecall:
    """Everything an auditor needs to replay and check one hand: the one answer the
    auditor's page and the auditor's API both present.

    What may be seen of the cards and seeds is ``hand_view``'s answer for someone who is
    not at the table: while the hand is in play nothing hidden is shown, and the recall
    withholds even the public up card (``revealed`` False)."""

    hand: Hand
    revealed: bool
    dealt: bool
    seats: list[RecallSeat]
    dealer_cards: list[str] | None
    dealer_up_card: str | None
    dealer_category: str | None
    dealer_hand_name: str | None
    dealer_winning_cards: list[str] | None
    dealer_qualified: bool | None
    server_seed: str | None
    client_seed: str | None
    steps: list[DealStep]
    checks: list[Check]
    transactions: list[Transaction]
    jackpot_transactions: list[Transaction]
    jackpot_hits: list[JackpotHit]

    @property
    def over(self) -> bool:
        return self.revealed

    @property
    def table(self) -> Table:
        return self.hand.table

    @property
    def verified(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    @property
    def settlement_order(self) -> list[RecallSeat]:
        """Seats in the order they were settled: right to left (SPEC A7)."""
        return sorted(self.seats, key=lambda s: s.seat, reverse=True)

    @property
    def rounds(self) -> list[list[DealStep]]:
        """The deal as a grid: one row per round, a cell per seat, the dealer's last."""
        per_round = len(self.seats) + 1
        return [self.steps[i : i + per_round] for i in range(0, len(self.steps), per_round)]

    @property
    def table_names(self) -> dict[int, str]:
        """Its table's name by transaction id (every transaction here is this hand's)."""
        return {t.pk: self.hand.table.name for t in self.transactions}


def hand_recall(*, hand_id: int) -> HandRecall:
    """Recall one hand: the deal in order, bets, decisions, results, jackpot effects and
    the provably fair checks recomputed here on the server, with the hand's ledger.

    Cards and seeds come from ``hand_view`` (the one rule of who sees what), so an
    auditor's screen is never a way to see live cards."""
    hand = Hand.objects.select_related("table", "table__pool").filter(pk=hand_id).first()
    if hand is None:
        raise NotFound("No such hand.", code="hand_not_found")
    view = hand_view(hand=hand, viewer=None)
    seen = {seat["seat"]: seat for seat in view["seats"]}
    revealed = view["server_seed"] is not None  # hand_view reveals the seed once the hand is over
    seats = list(hand.hand_seats.select_related("player").order_by("seat_number"))
    dealt = bool(hand.dealer_cards)
    raw_steps = _deal_steps(hand, seats) if revealed and dealt else []

    checks: list[Check] = []
    deck = None
    if revealed:
        fair_checks, deck = _fair_checks(hand, seats, raw_steps)
        checks += fair_checks
        if dealt:
            checks += _result_checks(hand, seats)
        checks.append(_ledger_check(hand, seats))
    steps = [
        DealStep(
            step=i + 1,
            **raw,
            deck_card=deck[raw["position"]] if deck else None,
            matches=deck is not None and deck[raw["position"]] == raw["card"],
        )
        for i, raw in enumerate(raw_steps)
    ]

    transactions = list(
        Transaction.objects.filter(game=Transaction.Game.CARIBBEAN, hand_ref=hand.pk)
        .select_related("actor", "seal")
        .prefetch_related(
            Prefetch("legs", queryset=Leg.objects.select_related("account", "account__owner").order_by("id"))
        )
        .order_by("id")
    )
    pool_kinds = (Account.Kind.JACKPOT_METER, Account.Kind.JACKPOT_RESERVE)
    jackpot_transactions = [
        t
        for t in transactions
        if t.kind in JACKPOT_KINDS or any(leg.account.kind in pool_kinds for leg in t.legs.all())
    ]
    dealer = view["dealer"]
    return HandRecall(
        hand=hand,
        revealed=revealed,
        dealt=dealt,
        seats=[
            RecallSeat(
                seat=hs.seat_number,
                player_id=hs.player_id,
                player=hs.player.get_username(),
                client_seed=hs.client_seed,
                ante=hs.ante,
                jackpot_bet=hs.jackpot_bet,
                raise_amount=hs.raise_amount,
                decision=hs.decision or None,
                decision_label=seen[hs.seat_number].get("decision_label"),
                decided_by_timeout=hs.decided_by_timeout,
                extension_used=hs.extension_used,
                cards=seen[hs.seat_number]["cards"] if revealed else None,
                winning_cards=seen[hs.seat_number]["winning_cards"] if revealed else None,
                category=seen[hs.seat_number]["category"] if revealed else None,
                hand_name=seen[hs.seat_number]["hand_name"] if revealed else None,
                outcome=hs.outcome or None,
                outcome_label=seen[hs.seat_number].get("outcome_label"),
                paytable_line=hs.paytable_line or None,
                paytable_line_text=_paytable_line_text(hs.paytable_line, hand.paytable_data) or None,
                ante_return=hs.ante_return,
                raise_return=hs.raise_return,
                jackpot_win=hs.jackpot_win,
                net=hs.net,
            )
            for hs in seats
        ],
        dealer_cards=dealer["cards"] if revealed else None,
        dealer_up_card=dealer["up_card"] if revealed else None,
        dealer_category=dealer["category"],
        dealer_hand_name=dealer["hand_name"],
        dealer_winning_cards=dealer["winning_cards"],
        dealer_qualified=dealer["qualified"],
        server_seed=view["server_seed"],
        client_seed=view["client_seed"],
        steps=steps,
        checks=checks,
        transactions=transactions,
        jackpot_transactions=jackpot_transactions,
        jackpot_hits=list(JackpotHit.objects.filter(hand_ref=hand.pk).select_related("player", "pool").order_by("id")),
    )
