"""What each person may see of tables and hands.

The one rule of visibility lives in ``hand_view``: until a hand is over, a player sees
their own cards and the dealer's up card only, and nobody sees the server seed; once it
is settled or cancelled, everything is shown so that anyone can verify it.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Count, QuerySet
from django.db.models.functions import Coalesce

from casino.db import Prepared
from casino.errors import NotFound
from casino.game.cards import cards_from_str, cards_to_str
from casino.game.evaluator import Category
from casino.game.names import hand_name, winning_cards
from casino.game.rules import DEALER_UP_CARD_INDEX
from casino.money import format_cents
from tables.models import MAX_SEATS, Hand, HandSeat, Table
from tables.presentation import seat_words


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
    return table.hands.filter(state__in=[Hand.State.BETTING, Hand.State.DECISIONS]).first()


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


# Read at every deal for each player's socket, and at every settlement: compiled once (casino.db).
_HAND = Prepared(lambda pk: Hand.objects.filter(pk=pk).order_by())
_HAND_SEATS = Prepared(lambda hand_id: HandSeat.objects.filter(hand_id=hand_id).order_by("seat_number"))
_USERNAMES = Prepared(lambda ids: get_user_model().objects.filter(pk__in=ids).only("id", "username").order_by())


def hand_live_view(*, hand_id: int, viewer) -> dict:
    """``hand_view`` of a hand by id, for the live table's private nudges."""
    hand = _HAND.first(pk=hand_id)
    if hand is None:
        raise NotFound("No such hand.", code="hand_not_found")
    return hand_view(hand=hand, viewer=viewer)


def _named(cards: list) -> dict:
    """The hand's name as players say it and the cards that make it (both None until five are shown)."""
    if len(cards) != 5 or None in cards:
        return {"hand_name": None, "winning_cards": None}
    ints = cards_from_str(cards)
    return {"hand_name": hand_name(ints), "winning_cards": cards_to_str(winning_cards(ints))}


def hand_view(*, hand: Hand, viewer) -> dict:
    """The hand as ``viewer`` may see it (``viewer`` None: a spectator)."""
    over = hand.is_over
    viewer_id = getattr(viewer, "pk", None)
    dealt = bool(hand.dealer_cards)
    if over or not dealt:
        dealer_cards = list(hand.dealer_cards)
    else:
        dealer_cards = [c if i == DEALER_UP_CARD_INDEX else None for i, c in enumerate(hand.dealer_cards)]
    seats = []
    hand_seats = _HAND_SEATS.all(hand_id=hand.pk)
    ids = sorted({hs.player_id for hs in hand_seats})
    names = {user.pk: user.get_username() for user in _USERNAMES.all(ids=ids)} if ids else {}
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
                "decision_deadline": hs.decision_deadline if hs.player_id == viewer_id and not hs.decision and not over else None,
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
    """The player's part in every hand they played, newest first: by the time the history shows
    (settled, else opened), so a long hand at one table sorts after a quick one at another."""
    return (
        HandSeat.objects.filter(player=user)
        .select_related("hand", "hand__table")
        .annotate(at=Coalesce("hand__settled_at", "hand__opened_at"))
        .order_by("-at", "-hand_id")
    )


def player_hand_seat(*, hand: Hand, user) -> HandSeat | None:
    return hand.hand_seats.filter(player=user).first()
