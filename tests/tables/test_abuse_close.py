"""A socket closed for abuse (4429) is closed once and leaves the table like any other:
its groups (no subscription left in Redis), its open tab (so the player's last tab,
closed later, is still seen as the player dropping: SPEC A4's extension).

Through a real uvicorn (tests.casino.served), which refuses a second close of a socket
("Unexpected ASGI message 'websocket.close', after sending 'websocket.close'"), for the
Caribbean and the poker tables: they share the socket's code (casino.live.consumers).
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest
import redis
import websockets
from django.conf import settings
from django.db import OperationalError
from django.test import Client

from casino.live.consumers import ABUSE_LIMIT, CLOSE_ABUSE, open_tabs
from casino.live.outbox import pool_group
from poker import services as poker_services
from tables import events
from tables.models import HandSeat
from tables.services.hands import hand_bet
from tables.services.seats import table_sit
from tests.casino.served import served, stop
from tests.conftest import require_redis
from tests.factories import PokerTableFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]

PAIR, HIGH_CARD, DEALER = "Ah Ad 7c 5s 2h", "Kc Qd 9h 6s 3c", "As Kh 8d 4c 2s"
FLOOD = ABUSE_LIMIT + 30  # malformed frames, sent at once: the close comes with frames still queued


@pytest.fixture
def live():
    from casino.asgi import application

    server = served(application)
    yield server
    stop(server)


def _cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


async def _open(live, path: str, cookie: str):
    socket = await websockets.connect(live.ws + path, origin=live.http, additional_headers={"Cookie": cookie})
    assert json.loads(await asyncio.wait_for(socket.recv(), timeout=30))["type"] == "snapshot"
    return socket


async def _flood_until_closed(socket) -> int:
    """Send FLOOD malformed frames, read until the server closes; its close code."""
    for _ in range(FLOOD):
        await socket.send("garbage")
    try:
        while True:
            await asyncio.wait_for(socket.recv(), timeout=30)
    except websockets.ConnectionClosed:
        pass
    return socket.close_code


def _tabs(live, game: str, table_id: int, user_id: int) -> int:
    async def count() -> int:
        return open_tabs().get((game, table_id, user_id), 0)

    return live.on_loop(count)


def _eventually(check, what: str, timeout: float = 15):
    deadline = time.monotonic() + timeout
    while not _holds(check):
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def _holds(check) -> bool:
    """``check()``; not yet while the server's write holds SQLite's table lock (an in-memory
    database shared between threads refuses a reader at once, without waiting)."""
    try:
        return bool(check())
    except OperationalError as locked:
        if "locked" not in str(locked):
            raise
        return False


def _no_application_errors(live) -> None:
    assert not [e for e in live.errors if "Exception in ASGI application" in e or "RuntimeError" in e], live.errors


def _subscribers(groups: list[str]) -> dict[str, int]:
    """How many connections to Redis listen to each group (the pub/sub channel layer)."""
    prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
    client = redis.Redis.from_url(settings.REDIS_URL)
    return {
        group: count
        for (_, count), group in zip(client.pubsub_numsub(*[f"{prefix}__group__{g}" for g in groups]), groups)
    }


@pytest.mark.parametrize("game", ["caribbean", "poker"])
def test_a_socket_closed_for_abuse_leaves_its_groups_and_its_tab(live, game, table, make_player):
    require_redis()
    assert settings.CHANNEL_LAYERS["default"]["BACKEND"] == "casino.live.layers.PubSubChannelLayer"
    player = make_player()
    if game == "caribbean":
        table_id, path, key = table.pk, f"/ws/tables/{table.pk}/", events.GAME
        groups = [events.GROUPS.table(table.pk), events.GROUPS.player(player.pk), pool_group(table.pool_id)]
    else:
        poker_table = PokerTableFactory()
        table_id, path, key = poker_table.pk, f"/ws/poker/{poker_table.pk}/", "poker"
        groups = [poker_services.GROUPS.table(poker_table.pk), poker_services.GROUPS.player(player.pk)]
    cookie = _cookie(player)

    async def abuse() -> int:
        socket = await _open(live, path, cookie)
        assert _subscribers(groups) == dict.fromkeys(groups, 1)
        assert _tabs(live, key, table_id, player.pk) == 1
        return await _flood_until_closed(socket)

    assert asyncio.run(abuse()) == CLOSE_ABUSE
    _eventually(lambda: _subscribers(groups) == dict.fromkeys(groups, 0), f"still subscribed: {_subscribers(groups)}")
    assert _tabs(live, key, table_id, player.pk) == 0
    _no_application_errors(live)


def test_after_a_tab_closed_for_abuse_the_players_last_tab_is_still_their_drop(live, table, make_player, rig_deck):
    """Alice holds a pair, two tabs open; one is closed for abuse. Her other tab closing is
    her drop: her pair gets its extension (SPEC A4)."""
    rig_deck([PAIR, HIGH_CARD], DEALER)
    alice, bob = make_player(), make_player()
    for player in (alice, bob):
        table_sit(user=player, table_id=table.pk)
    for player in (alice, bob):
        hand_bet(user=player, table_id=table.pk, ante=100, jackpot=False)
    seat = HandSeat.objects.get(hand__table=table, hand__state="decisions", player=alice)
    cookie, path = _cookie(alice), f"/ws/tables/{table.pk}/"

    async def two_tabs_then_abuse():
        kept = await _open(live, path, cookie)
        flooded = await _open(live, path, cookie)
        assert _tabs(live, events.GAME, table.pk, alice.pk) == 2
        return kept, await _flood_until_closed(flooded)

    async def close(socket) -> None:
        await socket.close()

    loop = asyncio.new_event_loop()
    try:
        kept, code = loop.run_until_complete(two_tabs_then_abuse())
        assert code == CLOSE_ABUSE
        _eventually(lambda: _tabs(live, events.GAME, table.pk, alice.pk) == 1, "the closed tab is still counted open")
        _eventually(lambda: seat.refresh_from_db() or True, "her seat could not be read")
        assert not seat.extension_used  # her other tab is open: she has not dropped
        loop.run_until_complete(close(kept))
    finally:
        loop.close()
    _eventually(
        lambda: seat.refresh_from_db() or seat.extension_used, "her last tab closed, but she was not seen to drop"
    )
    assert _tabs(live, events.GAME, table.pk, alice.pk) == 0
    _no_application_errors(live)
