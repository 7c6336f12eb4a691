"""The Caribbean tables' events, sent through the game-neutral outbox (``casino.live.outbox``).

Public events go to the table's group. A player's hidden cards never travel over the
channel layer: the player's own group only gets a nudge to re-read its private view
through a selector. Payloads are built inside the transaction (what was decided) and
sent after commit (so a rolled-back step broadcasts nothing): a step runs inside
``casino.live.outbox.outbox()``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from casino.cents import format_cents
from casino.game.rules import DEALER_UP_CARD_INDEX, HAND_SIZE
from casino.live import outbox
from casino.live.outbox import Groups, pool_group, send
from tables.presentation import DECISION_LABELS, english
from tables.selectors import hand_private_views, hand_view, seat_public_view

GAME = "tables"  # this game's name in the live machinery (turn locks, open tabs, deadlines)
GROUPS = Groups()  # table.<id>, player.<id>: the names the Caribbean tables always had


def private_changed(hand, player_id: int, views: Callable[[], dict] | None = None) -> None:
    """Nudge a player's own connections to re-read their private view of this hand.
    ``views``: every player's view as the step leaves the hand (``private_views``)."""
    view = (lambda: views()[player_id]) if views is not None else None
    outbox.private_changed(GROUPS, player_id=player_id, hand_id=hand.pk, table_id=hand.table_id, view=view)


def private_views(hand, hand_seats) -> Callable[[], dict]:
    """The players' own views of the hand from the step's rows, built once as it commits
    (``selectors.hand_private_views``): the answers of its nudges in its own process."""
    return functools.cache(lambda: hand_private_views(hand=hand, hand_seats=hand_seats))


def wallet_changed(player_id: int, money=None) -> None:
    """``money``: the step's locked ``PlayerAccounts``, holding what it posted (the sockets
    of the step's process then read nothing)."""
    balances = (lambda: money.balances(player_id)) if money is not None else None
    outbox.wallet_changed(GROUPS, player_id=player_id, balances=balances)


def betting_closes(hand) -> None:
    send(
        GROUPS.table(hand.table_id),
        {"kind": "betting.closes", "hand": hand.pk, "deadline": hand.betting_deadline.isoformat()},
    )


def hand_opened(hand) -> None:
    """Built as it is sent, after the commit: a new hand's row goes with its step's COMMIT
    (``hands.hand_open``), and has its id from then on."""
    send(
        GROUPS.table(hand.table_id),
        lambda: {
            "kind": "hand.opened",
            "hand": hand.pk,
            "version": hand.version,
            "nonce": hand.nonce,
            "commitment": hand.commitment,
            "min_ante": format_cents(hand.min_ante),
            "max_ante": format_cents(hand.max_ante),
        },
    )


def seat_changed(table, seat_number: int) -> None:
    seat = table.seats.filter(number=seat_number).select_related("player").first()
    send(
        GROUPS.table(table.pk),
        {"kind": "seat.changed", "seat": seat_number, "player": seat.player.get_username() if seat else None},
    )


def bet_placed(hand, hand_seat, money) -> None:
    """Nothing hidden changed (the ante is public): the wallet moved, the table hears the bet.

    The event carries the seat as every reader sees it (``selectors.seat_public_view``),
    built now, before the deal that the last bet may start fills its cards; a page adds it
    to its copy of the hand as it is."""
    wallet_changed(hand_seat.player_id, money)
    send(
        GROUPS.table(hand.table_id),
        {
            "kind": "bet.placed",
            "hand": hand.pk,
            "version": hand.version,  # a hand's public events move it by one: the page sees a gap
            "seat": hand_seat.seat_number,
            "hand_seat": seat_public_view(hand=hand, hand_seat=hand_seat, player=hand_seat.player.get_username()),
        },
    )


def hand_dealt(hand, hand_seats) -> None:
    send(
        GROUPS.table(hand.table_id),
        {
            "kind": "hand.dealt",
            "hand": hand.pk,
            "version": hand.version,
            "seats": [s.seat_number for s in hand_seats],
            "cards_each": HAND_SIZE,
            "dealer_up_card": hand.dealer_up_card,
            "dealer_cards": [c if i == DEALER_UP_CARD_INDEX else None for i, c in enumerate(hand.dealer_cards)],
            "decision_deadline": hand.decision_deadline.isoformat() if hand.decision_deadline else None,
        },
    )
    views = private_views(hand, hand_seats)
    for hand_seat in hand_seats:
        private_changed(hand, hand_seat.player_id, views)


def decision_made(hand, hand_seat, money) -> None:
    # The decision is public, and the player's time bank stops: no private view to re-read.
    wallet_changed(hand_seat.player_id, money)
    send(
        GROUPS.table(hand.table_id),
        {
            "kind": "decision.made",
            "hand": hand.pk,
            "version": hand.version,
            "seat": hand_seat.seat_number,
            "decision": hand_seat.decision,
            # Every socket of the table gets this frame: the English word, which each socket
            # sends in its reader's language (tables.presentation.event_in_language).
            "decision_label": english(DECISION_LABELS[hand_seat.decision]),
            "raise": format_cents(hand_seat.raise_amount),
            "by_timeout": hand_seat.decided_by_timeout,
        },
    )


def hand_settled(hand, hand_seats, money=None) -> None:
    """The hand is over: nothing is hidden any more, so the whole result goes to the table.

    Built after commit from the hand and seats the step saved (what a fresh read would
    find: the step held their locks until it committed)."""

    def build() -> dict:
        # Every socket of the table gets this frame: each seat's lines as data in no language,
        # which each socket words for its reader (tables.presentation.event_in_language),
        # never in the language of whoever's step settled the hand.
        result = hand_view(hand=hand, viewer=None, hand_seats=hand_seats, worded=False)
        return {"kind": f"hand.{hand.state}", "hand": hand.pk, "result": result}

    send(GROUPS.table(hand.table_id), build)
    views = private_views(hand, hand_seats)
    for player_id in [s.player_id for s in hand_seats]:
        wallet_changed(player_id, money)
        # Each player's own view of the result: its lines spoken to them ("Your hand: …").
        private_changed(hand, player_id, views)


_last_meters: dict[int, int] = {}


def broadcast_meters() -> int:
    """Send each pool's meter to its group when it changed since the last call.

    Called every second (Celery beat, or ``run_periodic``): the meter moves on every deal
    at every table, and one coalesced update a second is what "live" needs, not a message
    per deal to every connection.
    """
    from jackpot.models import JackpotPool

    changed = []
    for pool_id, meter in JackpotPool.objects.filter(is_active=True).values_list("pk", "meter_account__balance"):
        if _last_meters.get(pool_id) != meter:
            _last_meters[pool_id] = meter
            changed.append(
                (pool_group(pool_id), {"kind": "jackpot.changed", "pool": pool_id, "meter": format_cents(meter)})
            )
    if changed:
        outbox.flush(changed)
    return len(changed)
