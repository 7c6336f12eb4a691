"""Table events, sent to the channel layer only after the transaction commits.

Public events go to the table's group. A player's hidden cards never travel over the
channel layer: the player's own group only gets a nudge to re-read its private view
through a selector. Payloads are built inside the transaction (what was decided) and
sent by ``transaction.on_commit`` (so a rolled-back step broadcasts nothing).
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from casino.money import format_cents

log = logging.getLogger(__name__)


def table_group(table_id: int) -> str:
    return f"table.{table_id}"


def player_group(user_id: int) -> str:
    return f"player.{user_id}"


def pool_group(pool_id: int) -> str:
    return f"pool.{pool_id}"


def _send_now(group: str, event: dict) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, {"type": "table.event", "event": event})
    except Exception:  # a broadcast failure must never undo or fail a committed step
        log.exception("broadcast to %s failed", group)


def _send(group: str, event: dict) -> None:
    transaction.on_commit(lambda: _send_now(group, event))


def hand_opened(hand) -> None:
    _send(
        table_group(hand.table_id),
        {
            "kind": "hand.opened",
            "hand": hand.pk,
            "nonce": hand.nonce,
            "commitment": hand.commitment,
            "min_ante": format_cents(hand.min_ante),
            "max_ante": format_cents(hand.max_ante),
        },
    )


def seat_changed(table, seat_number: int) -> None:
    seat = table.seats.filter(number=seat_number).select_related("player").first()
    _send(
        table_group(table.pk),
        {"kind": "seat.changed", "seat": seat_number, "player": seat.player.get_username() if seat else None},
    )


def bet_placed(hand, hand_seat) -> None:
    _send(
        table_group(hand.table_id),
        {
            "kind": "bet.placed",
            "hand": hand.pk,
            "seat": hand_seat.seat_number,
            "ante": format_cents(hand_seat.ante),
            "jackpot_bet": format_cents(hand_seat.jackpot_bet),
        },
    )


def hand_dealt(hand, hand_seats) -> None:
    _send(
        table_group(hand.table_id),
        {
            "kind": "hand.dealt",
            "hand": hand.pk,
            "seats": [s.seat_number for s in hand_seats],
            "cards_each": 5,
            "dealer_up_card": hand.dealer_up_card,
            "decision_deadline": hand.decision_deadline.isoformat() if hand.decision_deadline else None,
        },
    )
    for hand_seat in hand_seats:
        _send(player_group(hand_seat.player_id), {"kind": "hand.private", "hand": hand.pk})


def decision_made(hand, hand_seat) -> None:
    _send(
        table_group(hand.table_id),
        {
            "kind": "decision.made",
            "hand": hand.pk,
            "seat": hand_seat.seat_number,
            "decision": hand_seat.decision,
            "by_timeout": hand_seat.decided_by_timeout,
        },
    )


def hand_settled(hand) -> None:
    _send(table_group(hand.table_id), {"kind": f"hand.{hand.state}", "hand": hand.pk})


def jackpot_changed(pool) -> None:
    def send() -> None:
        from jackpot.selectors import pool_meter

        _send_now(pool_group(pool.pk), {"kind": "jackpot.changed", "pool": pool.pk, "meter": format_cents(pool_meter(pool=pool))})

    transaction.on_commit(send)
