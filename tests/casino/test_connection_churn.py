"""Sockets opened and closed leave nothing behind in the server process.

A server lives for days while players come and go: every registry that keeps something
per socket (the open tabs, the pending private reads, the fan-out relays, the channel
layer's channels, groups and Redis subscriptions, the consumers themselves) must be as
large after a few hundred connections have come and gone as before them, or the process
grows with every visit until it is restarted. The sockets here are signed-in players'
(session cookie, ``Origin``) at a Caribbean table and a poker table while those tables
are busy: their groups carry events the whole time, as a table where others play does.
Once through Channels' communicator, once through a real uvicorn server (README's, in this
process) whose clients close while events are being written to them.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json

import pytest
import uvicorn
from channels.consumer import AsyncConsumer
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client
from websockets.asyncio.client import connect

import casino.live.consumers as live_consumers
from casino.asgi import router
from casino.live import fanout
from poker import services as poker_services
from tables import events as table_events
from tables.services.seats import table_sit
from tests.conftest import require_redis
from tests.factories import PokerTableFactory

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

ROUNDS = 40  # each: 4 players open a socket to each table, then close them all: 320 connections


def registries() -> dict[str, int]:
    """What the process keeps per socket, table or group, on the running event loop."""
    loop = asyncio.get_running_loop()
    gc.collect()
    layer = get_channel_layer()._get_layer()  # the pub/sub layer's bookkeeping for this loop
    relays = fanout._relays.get(loop, {})
    return {
        "consumers alive": sum(
            1 for o in gc.get_objects() if issubclass(type(o), AsyncConsumer)
        ),  # type(): a dead weak proxy raises
        "open tabs": len(live_consumers._open_tabs.get(loop, {})),
        "pending reads": len(live_consumers._pending_reads.get(loop, {})),
        "table turns": len(live_consumers._table_turns.get(loop, {})),
        "fan-out relays": len(relays),
        "fan-out sockets": sum(len(relay.sockets) for relay in relays.values()),
        "fan-out writes": len(fanout._writing),
        "layer channels": len(layer.channels),
        "layer groups": len(layer.groups),
        "Redis subscriptions": sum(len(shard._subscribed_to) for shard in layer._shards),
    }


def signed_in(user) -> list[tuple[bytes, bytes]]:
    client = Client()
    client.force_login(user)
    return [(b"origin", b"http://localhost"), (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]


async def open_socket(path: str, headers) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(router, path, headers=headers)
    connected, _ = await comm.connect(timeout=30)
    assert connected
    assert (await comm.receive_json_from(timeout=30))["type"] == "snapshot"
    return comm


async def busy_tables(table, make_player) -> tuple[list, list[str], list[str]]:
    """Four players seated at ``table``, a poker table: (their sign-in headers, the two
    tables' socket paths, the two tables' groups)."""
    players = [await database_sync_to_async(make_player)(balance=10_000) for _ in range(4)]
    for player in players:
        await database_sync_to_async(table_sit)(user=player, table_id=table.pk)
    poker_table = await database_sync_to_async(PokerTableFactory)()
    headers = [await database_sync_to_async(signed_in)(player) for player in players]
    paths = [f"/ws/tables/{table.pk}/", f"/ws/poker/{poker_table.pk}/"]
    return headers, paths, [table_events.GROUPS.table(table.pk), poker_services.GROUPS.table(poker_table.pk)]


async def others_play(groups: list[str]) -> None:
    """The tables' other players act all the while: a public event every few ms."""
    layer = get_channel_layer()
    n = 0
    while True:
        n += 1
        for group in groups:
            await layer.group_send(group, {"type": "live.events", "events": [{"kind": "seat.changed", "n": n}]})
        await asyncio.sleep(0.002)


async def churn(rounds: int, visit, groups: list[str]) -> None:
    """``rounds`` times, ``visit()`` (the sockets open and close) while the tables are busy."""
    playing = asyncio.get_running_loop().create_task(others_play(groups))
    try:
        for _ in range(rounds):
            await visit()
    finally:
        playing.cancel()  # and waited for, so that its Redis calls end inside the test, not at the loop's teardown
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(playing, 10)


async def settled() -> dict[str, int]:
    """The registries once the server has run every disconnect (a client's close returns
    before its socket's disconnect has run on the server; at most 30 s)."""
    for _ in range(300):
        sizes = registries()
        if sizes["consumers alive"] == 0:
            break
        await asyncio.sleep(0.1)
    return sizes


async def test_players_coming_and_going_at_busy_tables_leave_every_registry_as_it_was(table, make_player):
    require_redis()
    headers, paths, groups = await busy_tables(table, make_player)

    async def visit() -> None:
        sockets = await asyncio.gather(*(open_socket(path, signed) for path in paths for signed in headers))
        await asyncio.gather(*(comm.disconnect(timeout=30) for comm in sockets))

    # One socket per table and player first: the pool's relay, the table turn and the
    # channel layer's connection exist from then on; what is measured is what the
    # visits after them leave.
    await visit()
    before = await settled()
    await churn(ROUNDS, visit, groups)
    assert await settled() == before


async def test_clients_of_a_real_server_closing_amid_events_leave_every_registry_as_it_was(table, make_player):
    """A client that closes while the server writes it a table's event: the write fails
    (ASGI: the server raises an ``OSError``), and the socket's disconnect must still run."""
    require_redis()
    headers, paths, groups = await busy_tables(table, make_player)
    server = uvicorn.Server(
        uvicorn.Config(router, host="127.0.0.1", port=0, ws="websockets-sansio", lifespan="off", log_level="warning")
    )
    serving = asyncio.get_running_loop().create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]

    async def open_and_close(path: str, signed) -> None:
        async with connect(
            f"ws://127.0.0.1:{port}{path}",
            origin="http://localhost",
            additional_headers=[(k.decode(), v.decode()) for k, v in signed if k == b"cookie"],
        ) as ws:
            while json.loads(await asyncio.wait_for(ws.recv(), 30))["type"] != "snapshot":
                pass

    async def visit() -> None:
        await asyncio.gather(*(open_and_close(path, signed) for path in paths for signed in headers))

    try:
        await visit()
        before = await settled()
        await churn(ROUNDS, visit, groups)
        assert await settled() == before
    finally:
        server.should_exit = True
        await serving
