"""Table events, sent to the channel layer only after the transaction commits.

Public events go to the table's group. A player's hidden cards never travel over the
channel layer: the player's own group only gets a nudge to re-read its private view
through a selector. Payloads are built inside the transaction (what was decided) and
sent by ``transaction.on_commit`` (so a rolled-back step broadcasts nothing).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import weakref
from collections.abc import Callable
from contextlib import contextmanager

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction

from casino.money import format_cents

log = logging.getLogger(__name__)

Event = dict | Callable[[], dict]


def table_group(table_id: int) -> str:
    return f"table.{table_id}"


def player_group(user_id: int) -> str:
    return f"player.{user_id}"


def pool_group(pool_id: int) -> str:
    return f"pool.{pool_id}"


_local = threading.local()


@contextmanager
def outbox():
    """Collect a step's events and send them after commit, one group message per group.

    Enter it inside the step's ``transaction.atomic()``: if the step raises, its events
    are dropped; nested steps (a bet that deals) add theirs to the outermost outbox.
    """
    stack = _local.__dict__.setdefault("stack", [])
    box: list[tuple[str, Event]] = []
    stack.append(box)
    try:
        yield
    finally:
        stack.pop()
    if stack:
        stack[-1].extend(box)
    elif box:
        transaction.on_commit(lambda: _flush(box))


def _flush(box: list[tuple[str, Event]]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    by_group: dict[str, list] = {}
    for group, event in box:
        by_group.setdefault(group, []).append(event)
    messages = []
    for group, group_events in by_group.items():
        try:
            # Built now, from committed state; JSON-safe (the Redis layer packs with msgpack).
            payload = [e() if callable(e) else e for e in group_events]
            messages.append((group, json.loads(json.dumps(payload, cls=DjangoJSONEncoder))))
        except Exception:  # a broadcast failure must never undo or fail a committed step
            log.exception("building the events for %s failed", group)

    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    if loop is not None and loop.is_running():
        # Inside the ASGI server (a consumer's database thread): hand the batch to the
        # server's one sender task and go on; it sends batches in the order they commit.
        loop.call_soon_threadsafe(_enqueue, loop, layer, messages)
    else:  # a Celery worker, a management command, a plain request: send and wait
        async_to_sync(_send_batch)(layer, messages)


_senders: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Queue] = weakref.WeakKeyDictionary()


def _enqueue(loop, layer, messages) -> None:
    queue = _senders.get(loop)
    if queue is None:
        queue = _senders[loop] = asyncio.Queue()
        loop.create_task(_sender(layer, queue))
    queue.put_nowait(messages)


async def _sender(layer, queue: asyncio.Queue) -> None:
    while True:
        await _send_batch(layer, await queue.get())


async def _send_batch(layer, messages) -> None:
    for group, payload in messages:
        try:
            await layer.group_send(group, {"type": "table.events", "events": payload})
        except Exception:
            log.exception("broadcast to %s failed", group)


def _send(group: str, event: Event) -> None:
    stack = _local.__dict__.get("stack")
    if stack:
        stack[-1].append((group, event))
    else:
        transaction.on_commit(lambda: _flush([(group, event)]))


def private_changed(hand, player_id: int) -> None:
    """Nudge a player's own connections to re-read their private view of this hand."""
    _send(player_group(player_id), {"kind": "hand.private", "hand": hand.pk, "table": hand.table_id})


def wallet_changed(player_id: int) -> None:
    _send(player_group(player_id), {"kind": "wallet.changed"})


def betting_closes(hand) -> None:
    _send(
        table_group(hand.table_id),
        {"kind": "betting.closes", "hand": hand.pk, "deadline": hand.betting_deadline.isoformat()},
    )


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
    # Nothing hidden changed (the ante is public): the wallet moved, the table hears the bet.
    wallet_changed(hand_seat.player_id)
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
        private_changed(hand, hand_seat.player_id)


def decision_made(hand, hand_seat) -> None:
    # The decision is public, and the player's time bank stops: no private view to re-read.
    wallet_changed(hand_seat.player_id)
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


def hand_settled(hand, *, player_ids: list[int]) -> None:
    """The hand is over: nothing is hidden any more, so the whole result goes to the table."""

    def build() -> dict:
        from tables.selectors import hand_live_view

        return {"kind": f"hand.{hand.state}", "hand": hand.pk, "result": hand_live_view(hand_id=hand.pk, viewer=None)}

    _send(table_group(hand.table_id), build)
    for player_id in player_ids:
        wallet_changed(player_id)


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
            changed.append((pool_group(pool_id), {"kind": "jackpot.changed", "pool": pool_id, "meter": format_cents(meter)}))
    if changed:
        _flush(changed)
    return len(changed)
