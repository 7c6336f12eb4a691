"""What each person may see of tables and hands.

The one rule of visibility lives in ``hand_view``: until a hand is over, a player sees
their own cards and the dealer's up card only, and nobody sees the server seed; once it
is settled or cancelled, everything is shown so that anyone can verify it. A seat as
every reader sees it (``seat_public_view``, what the live table's events carry) is the
same seat with nobody's cards.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.contrib.auth import get_user_model
from django.db.models import Count, DateTimeField, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from casino.cents import format_cents
from casino.game.cards import cards_from_str, cards_to_str
from casino.game.evaluator import Category
from casino.game.names import hand_name, winning_cards
from casino.game.rules import DEALER_UP_CARD_INDEX, MAX_SEATS
from casino.http.errors import NotFound
from casino.keyset import KeysetPage, keyset_page
from jackpot.services import PoolRules, hand_pool_rules
from tables.models import Hand, HandSeat, Table
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
    return [_hand_view(hand, getattr(viewer, "pk", None), seats, names) for viewer in viewers]


def _named(cards: list) -> dict:
    """The hand's name as players say it and the cards that make it (both None until five are shown)."""
    if len(cards) != 5 or None in cards:
        return {"hand_name": None, "winning_cards": None}
    ints = cards_from_str(cards)
    return {"hand_name": hand_name(ints), "winning_cards": cards_to_str(winning_cards(ints))}


def hand_view(*, hand: Hand, viewer, hand_seats: list[HandSeat] | None = None, worded: bool = True) -> dict:
    """The hand as ``viewer`` may see it (``viewer`` None: a spectator).

    ``hand_seats``: the hand's seats as the step that just saved them holds them (the
    settlement's event, built after its commit), instead of reading them again; their
    players' names too, when the step read them with the seats (``tables.locks``).
    ``worded``: each seat's ``explanation`` in the active language; else its
    ``explanation_parts``, in no language (``tables.presentation.seat_explanation_parts``)."""
    seats, names = _seats_and_names(hand, hand_seats)
    return _hand_view(hand, getattr(viewer, "pk", None), seats, names, worded=worded)


def hand_private_views(*, hand: Hand, hand_seats: list[HandSeat]) -> dict[int, dict]:
    """Each seated player's ``hand_view`` from the rows of the step that just saved them (its
    nudges' answers, ``events.private_changed``), in no language (``worded=False``:
    ``presentation.hand_in_language`` words one for its reader), by player id."""
    seats, names = _seats_and_names(hand, hand_seats)
    return {hs.player_id: _hand_view(hand, hs.player_id, seats, names, worded=False) for hs in seats}


def _seats_and_names(hand: Hand, hand_seats: list[HandSeat] | None) -> tuple[list[HandSeat], dict[int, str]]:
    """The hand's seats in seat order (read, or ``hand_seats``) and their players' usernames by id."""
    if hand_seats is None:
        hand_seats = _hand_seats(hand.pk)
        return hand_seats, {hs.player_id: hs.player.get_username() for hs in hand_seats}
    hand_seats = sorted(hand_seats, key=lambda hs: hs.seat_number)
    if all(HandSeat.player.is_cached(hs) for hs in hand_seats):
        return hand_seats, {hs.player_id: hs.player.get_username() for hs in hand_seats}
    ids = sorted({hs.player_id for hs in hand_seats})
    users = get_user_model().objects.filter(pk__in=ids).only("id", get_user_model().USERNAME_FIELD)
    return hand_seats, ({user.pk: user.get_username() for user in users} if ids else {})


def _hand_view(
    hand: Hand, viewer_id: int | None, hand_seats: list[HandSeat], names: dict[int, str], *, worded: bool = True
) -> dict:
    """``hand_view`` of seats in seat order for the player ``viewer_id`` (None: a
    spectator), ``names`` their players' usernames by id."""
    over = hand.is_over
    dealt = bool(hand.dealer_cards)
    if over or not dealt:
        dealer_cards = list(hand.dealer_cards)
    else:
        dealer_cards = [c if i == DEALER_UP_CARD_INDEX else None for i, c in enumerate(hand.dealer_cards)]
    seats = []
    for hs in hand_seats:
        you = hs.player_id == viewer_id
        seats.append(
            {
                **_seat_view(hand, hs, names[hs.player_id], visible=over or you),
                "is_you": you,
                # A seat's own time bank is private: an extension would tell others it holds a pair.
                "decision_deadline": hs.decision_deadline if you and not hs.decision and not over else None,
                **seat_words(hand, hs, you=you, worded=worded),
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


def seat_public_view(*, hand: Hand, hand_seat: HandSeat, player: str) -> dict:
    """A seat of ``hand`` as every reader of the table sees it (``player``: its player's
    username): the part of ``hand_view``'s seat that does not depend on who reads it. No
    ``is_you``, no time bank, no words spoken to a reader; its cards face down until the
    hand is over. The live table's events carry it, and the page takes it as it is."""
    return _seat_view(hand, hand_seat, player, visible=hand.is_over)


def _seat_view(hand: Hand, hs: HandSeat, player: str, *, visible: bool) -> dict:
    """A seat's cards and money; its cards and their names only when ``visible``."""
    over = hand.is_over
    return {
        "seat": hs.seat_number,
        "player": player,
        "ante": format_cents(hs.ante),
        "jackpot_bet": format_cents(hs.jackpot_bet),
        "raise": format_cents(hs.raise_amount),
        "decision": hs.decision or None,
        "decided_by_timeout": hs.decided_by_timeout,
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


def player_hand_page(*, user, limit: int, before: int | None = None, after: int | None = None) -> KeysetPage:
    """A page of ``player_hand_seats`` by cursor (``casino.keyset``), in the same order
    (history time, then hand): the newest ``limit``, those older than hand ``before`` or
    those newer than hand ``after`` (each found by the (hand, player) index: not one of the
    player's, ``cursor_not_found``); a range of the (player, time, hand) index, however
    many hands the player has played (no count)."""
    return keyset_page(
        player_hand_seats(user=user), key=("history_at", "hand_id"), limit=limit, before=before, after=after
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
