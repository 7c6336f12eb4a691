"""The auditors' recall of a Caribbean hand: card by card, each step checked again.

A hand's deal from its seeds, its evaluation, its settlement against the pay table and its
postings in the ledger are each recomputed here and set beside what was recorded; the
player-facing rule of what may be seen stays in ``tables.selectors.hand_view``.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch
from django.utils.translation import gettext, gettext_lazy

from casino.game.cards import cards_to_str
from casino.game.rules import DEALER_UP_CARD_INDEX
from casino.http.errors import NotFound
from casino.templatetags.casino_tags import category_label  # the one way a category key is worded
from jackpot.models import JackpotHit
from jackpot.selectors import JACKPOT_KINDS
from tables.models import Hand, HandSeat, Table
from tables.presentation import hand_view_in_language
from tables.selectors import hand_view
from tables.services.steps import hand_paytable, seat_settled
from wallets.models import Account, Leg, Transaction
from wallets.selectors import SIGNED_SUM

CHECK_LABELS = {
    "commitment": gettext_lazy("Commitment"),
    "client_seed": gettext_lazy("Client seed"),
    "deck": gettext_lazy("Deck"),
    "evaluation": gettext_lazy("Hands evaluated"),
    "settlement": gettext_lazy("Settlement"),
    "ledger": gettext_lazy("Ledger"),
}


@dataclass
class Check:
    """One verification of a recalled hand: ``name`` is stable (the API's); ``label`` and
    ``detail`` are read, in the language of the request that recalled the hand."""

    name: str
    ok: bool | None  # None: cannot be checked yet (the hand is not over)
    detail: str = ""

    @property
    def label(self) -> str:
        return str(CHECK_LABELS.get(self.name, self.name))


# The game core (its evaluator's tables weigh some 16 MB) is imported where it is used, so
# that a process that only exports the ledger does not carry it.


def _paytable_line_text(line: str, paytable_data: dict) -> str:
    """``"qualified:flush"`` -> ``"Flush pays 6 to 1 (dealer qualified)"``, in the reader's language."""

    if not line:
        return ""
    column, _, key = line.partition(":")
    odds = paytable_data.get(column, {}).get(key)
    words = {"hand": category_label(key), "odds": odds}
    if column == "qualified":
        return gettext("%(hand)s pays %(odds)s to 1 (dealer qualified)") % words
    return gettext("%(hand)s pays %(odds)s to 1 (dealer not qualified)") % words


def _deal_steps(hand: Hand, seats: list[HandSeat]) -> list[dict]:
    """The cards in the order they left the deck (SPEC A3): round by round, each seat with
    an ante in seat order, then the dealer; the dealer's fifth card face up."""
    from casino.game.rules import deal_order

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
    from casino.game.cards import card_from_str

    checks = []
    try:
        commitment_ok = fair.commitment_of(hand.server_seed) == hand.commitment.lower()
    except ValueError:
        commitment_ok = False
    checks.append(
        Check(
            "commitment", commitment_ok, gettext("sha256(server seed) equals the commitment published before the bets")
        )
    )
    if not steps:
        return checks, None
    expected_client_seed = fair.hand_client_seed([hs.client_seed for hs in seats])
    checks.append(
        Check(
            "client_seed",
            hand.client_seed == expected_client_seed,
            gettext("the hand's client seed is the seated players' client seeds in seat order, joined by ':'"),
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
    details = [
        gettext(
            "the deck from the server seed, the client seed and the hand number at the table (%(nonce)s) deals "
            "exactly the %(count)s stored cards"
        )
        % {"nonce": hand.nonce, "count": len(dealt)}
    ]
    if commitment_ok:
        recomputed = cards_to_str(fair.shuffled_deck(hand.server_seed, hand.client_seed, hand.nonce))
        if not deck_ok:
            first = next((i for i, c in enumerate(dealt) if cards_to_str([c])[0] != recomputed[i]), None)
            if first is not None:
                details.append(
                    gettext("first difference at deck position %(position)s: stored %(stored)s, deck %(deck)s")
                    % {"position": first, "stored": steps[first]["card"], "deck": recomputed[first]}
                )
    checks.append(Check("deck", deck_ok, "; ".join(details)))
    return checks, recomputed


def _clauses(what: str, differs: list[str]) -> str:
    """A check's detail: what was checked, then what differs (``"…; differs: seat 2"``)."""
    if not differs:
        return what
    return f"{what}; " + gettext("differs: %(what)s") % {"what": ", ".join(differs)}


def _result_checks(hand: Hand, seats: list[HandSeat]) -> list[Check]:
    """Evaluation, dealer qualification and every seat's settlement, recomputed."""
    from casino.game.cards import card_from_str
    from casino.game.evaluator import category_of, dealer_qualifies, evaluate

    checks = []
    problems = []
    dealer_strength = evaluate([card_from_str(c) for c in hand.dealer_cards])
    if dealer_strength != hand.dealer_strength or category_of(dealer_strength).key != hand.dealer_category:
        problems.append(gettext("dealer's hand"))
    if dealer_qualifies(dealer_strength) != hand.dealer_qualified:
        problems.append(gettext("dealer qualification"))
    for hs in seats:
        strength = evaluate([card_from_str(c) for c in hs.cards])
        if strength != hs.strength or category_of(strength).key != hs.category:
            problems.append(gettext("seat %(seat)s's hand") % {"seat": hs.seat_number})
    checks.append(
        Check(
            "evaluation",
            not problems,
            _clauses(
                gettext("every hand's category and the dealer's qualification recomputed from the cards"), problems
            ),
        )
    )
    if hand.state != Hand.State.SETTLED:
        return checks
    paytable = hand_paytable(hand)
    wrong = []
    for hs in seats:
        result = seat_settled(hand, hs, paytable)
        if (result.outcome, result.ante_return, result.raise_return, result.line_key) != (
            hs.outcome,
            hs.ante_return,
            hs.raise_return,
            hs.paytable_line,
        ):
            wrong.append(gettext("seat %(seat)s") % {"seat": hs.seat_number})
    checks.append(
        Check(
            "settlement",
            not wrong,
            _clauses(
                gettext("every seat settled again by the rules with pay table “%(paytable)s”")
                % {"paytable": hand.paytable_name},
                wrong,
            ),
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
        _clauses(
            gettext("each player's wallet and money in play moved by exactly the seat's net result in the ledger"),
            [gettext("seat %(seat)s") % {"seat": seat} for seat in wrong],
        ),
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
    view = hand_view_in_language(hand_view(hand=hand, viewer=None))  # the hands' names in the reader's words
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
