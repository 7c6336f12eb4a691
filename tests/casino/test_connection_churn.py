"""Sockets opened and closed leave nothing behind in the server process.

A server lives for days while players come and go: every registry that keeps something
per socket (the open tabs, the pending private reads, the fan-out relays, the channel
layer's channels, groups and Redis subscriptions, the consumers themselves) must be as
large after a few hundred connections have come and gone as before them, or the process
grows with every visit until it is restarted. The sockets here are signed-in players'
(session cookie, ``Origin``) at a Caribbean table and a poker table while those tables
are busy: their groups carry events the whole time, as a table where others play does.
"""

from __future__ import annotations

import asyncio
import gc

import pytest
from channels.consumer import AsyncConsumer
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client

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
        "consumers alive": sum(1 for o in gc.get_objects() if isinstance(o, AsyncConsumer)),
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


async def test_players_coming_and_going_at_busy_tables_leave_every_registry_as_it_was(table, make_player):
    require_redis()
    players = [await database_sync_to_async(make_player)(balance=10_000) for _ in range(4)]
    for player in players:
        await database_sync_to_async(table_sit)(user=player, table_id=table.pk)
    poker_table = await database_sync_to_async(PokerTableFactory)()
    cookies = [await database_sync_to_async(signed_in)(player) for player in players]
    paths = [f"/ws/tables/{table.pk}/", f"/ws/poker/{poker_table.pk}/"]
    busy = [table_events.GROUPS.table(table.pk), poker_services.GROUPS.table(poker_table.pk)]
    layer = get_channel_layer()

    async def others_play() -> None:
        """The tables' other players act all the while: a public event every few ms."""
        n = 0
        while True:
            n += 1
            for group in busy:
                await layer.group_send(group, {"type": "live.events", "events": [{"kind": "seat.changed", "n": n}]})
            await asyncio.sleep(0.002)

    # One socket per table and player first: the pool's relay, the table turn and the
    # channel layer's connection exist from then on; what is measured is what the
    # visits after them leave.
    first = [await open_socket(path, headers) for path in paths for headers in cookies]
    await asyncio.gather(*(comm.disconnect(timeout=30) for comm in first))
    before = registries()
    playing = asyncio.get_running_loop().create_task(others_play())
    try:
        for _ in range(ROUNDS):
            sockets = await asyncio.gather(*(open_socket(path, headers) for path in paths for headers in cookies))
            await asyncio.gather(*(comm.disconnect(timeout=30) for comm in sockets))
    finally:
        playing.cancel()
    await asyncio.sleep(0.2)  # the last events reach nobody
    assert registries() == before
