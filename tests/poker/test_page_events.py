"""The poker page's event sequences, recorded from the server for the page's own unit tests.

A short hand at a two-player table, played over the players' websockets: what Ann's
socket receives (the snapshot, every ``poker.hand``/``poker.seat`` event, her private
messages and the answers to her actions), through the showdown and into the first
event of the next hand. ``tests/js/poker_state.test.mjs`` replays it through the
page's reducer (``static/js/poker_state.js``).

The committed fixture keeps the shape of what the server sends (``tests/page_events.py``).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from django.utils import timezone

from casino.asgi import websocket_urlpatterns
from casino.stud.engine import seeded_deck
from poker import replay
from poker.models import PokerHand, PokerTable
from poker.services import poker_hand_start
from tests.page_events import compare_or_record, event_of, receive_until
from tests.sockets import answered, ws_connect

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

router = URLRouter(websocket_urlpatterns)
FIXED_DECK, _ = seeded_deck("ab" * 32, "fixed-deck", 1)


def _hold(table):
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))


def _step(hand_id: int, version: int):
    return lambda m: event_of("poker.hand", hand_id)(m) and m["event"]["version"] >= version


def _next_move(hand_id: int) -> tuple[int, str] | None:
    state = replay.hand_state(PokerHand.objects.get(pk=hand_id))
    if state.is_over:
        return None
    legal = state.legal()
    for kind in ("bring_in", "check", "call"):
        if kind in legal.actions:
            return state.to_act, kind
    raise AssertionError(legal)


async def test_a_hand_to_its_showdown_and_the_next_deal(make_player, make_poker_table):
    table = await database_sync_to_async(make_poker_table)(game="seven_stud", preset="2-4")
    ann = await database_sync_to_async(make_player)(balance=10_000, username="ann")
    ben = await database_sync_to_async(make_player)(balance=10_000, username="ben")
    await database_sync_to_async(_hold)(table)
    a, first = await ws_connect(router, f"/ws/poker/{table.pk}/", ann)
    b, _ = await ws_connect(router, f"/ws/poker/{table.pk}/", ben)
    seen = [first]
    for comm in (a, b):
        await comm.send_json_to({"action": "sit", "id": "sit"})
        got = await answered(comm)
        if comm is a:
            seen += got
    await receive_until(a, seen, lambda m: sum(event_of("poker.seat")(x) for x in seen + [m]) >= 2)
    hand = await database_sync_to_async(poker_hand_start)(table_id=table.pk, deck=FIXED_DECK)
    await receive_until(a, seen, _step(hand.pk, 0))
    await receive_until(a, seen, lambda m: m["type"] == "private" and (m.get("hand") or {}).get("id") == hand.pk)
    seat_of = {s["user_id"]: s["seat"] for s in hand.seats}
    comm_of = {seat_of[ann.pk]: a, seat_of[ben.pk]: b}
    version = 0
    while (move := await database_sync_to_async(_next_move)(hand.pk)) is not None:
        seat, kind = move
        comm = comm_of[seat]
        await comm.send_json_to({"action": "act", "id": f"p{version}", "hand_id": hand.pk, "kind": kind})
        got = await answered(comm)
        assert any(m["type"] == "ack" for m in got), got
        if comm is a:
            seen += got
        version += 1  # each action is one step of the hand
        await receive_until(a, seen, _step(hand.pk, version))
    over = [m for m in seen if m["type"] == "event" and (m["event"].get("public") or {}).get("hand", {}).get("is_over")]
    assert over and over[-1]["event"]["public"]["hand"]["showdown"], "the hand went to its showdown"
    nxt = await database_sync_to_async(poker_hand_start)(table_id=table.pk, deck=FIXED_DECK)
    await receive_until(a, seen, _step(nxt.pk, 0))
    await receive_until(a, seen, lambda m: m["type"] == "private" and (m.get("hand") or {}).get("id") == nxt.pk)
    for comm in (a, b):
        await comm.disconnect()
    compare_or_record(
        "poker_hand.json",
        {"username": "ann", "table": table.pk, "hand": hand.pk, "next_hand": nxt.pk, "messages": seen},
    )
