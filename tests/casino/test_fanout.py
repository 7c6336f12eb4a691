"""A group every socket of a process hears alike (a jackpot pool's meter) is subscribed
once per process and relayed to its sockets by the process (``casino.live.fanout``).

What a player notices: every meter arrives, once and in order, at every socket of every
table on the pool, whichever process serves it; a slow client delays nobody else's; and
the process stops hearing a pool nobody there plays on. What the server gains (one
channel-layer delivery a meter instead of one a socket, and the loop free between
batches) is measured by ``bench/bench_fanout.py``.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from casino.live import fanout
from casino.live.consumers import _frames
from casino.live.outbox import MESSAGE_TYPE, pool_group

# django_db: no test here reads the database, but Channels closes the database thread's old
# connections at every message a consumer handles, and on SQLite an earlier test of the
# same worker may have left that thread's connection open: closing it asks the database.
pytestmark = [pytest.mark.asyncio, pytest.mark.xdist_group(__name__), pytest.mark.django_db(transaction=True)]

GROUP = pool_group(424_242)
STALLED: set[str] = set()  # channel names whose client stops reading (their sends hang)


class Socket(AsyncWebsocketConsumer):
    async def connect(self):
        await self.accept()
        await fanout.join(GROUP, self)

    async def disconnect(self, code):
        fanout.leave(GROUP, self)

    def relay_frames(self, message):
        return [frame for frame in _frames(message) if frame is not None]

    async def send(self, text_data=None, bytes_data=None, close=False):
        if self.channel_name in STALLED:
            await asyncio.Event().wait()  # a paused transport that never drains
        await super().send(text_data=text_data, bytes_data=bytes_data, close=close)


async def _connect(n: int) -> list[WebsocketCommunicator]:
    comms = [WebsocketCommunicator(Socket.as_asgi(), "/ws/") for _ in range(n)]
    for comm in comms:
        connected, _ = await comm.connect(timeout=10)
        assert connected
    return comms


async def _meter(cents: int) -> None:
    await get_channel_layer().group_send(
        GROUP,
        {"type": MESSAGE_TYPE, "events": [{"kind": "jackpot.changed", "pool": 424242, "meter": f"{cents / 100:.2f}"}]},
    )


async def _meters(comm: WebsocketCommunicator, n: int) -> list[str]:
    return [json.loads(await comm.receive_from(timeout=10))["event"]["meter"] for _ in range(n)]


async def test_every_socket_hears_every_meter_once_in_order_through_one_subscription(monkeypatch):
    layer = get_channel_layer()
    joined = []
    group_add = layer.group_add

    async def counting_group_add(group, channel):
        if group == GROUP:
            joined.append(channel)
        await group_add(group, channel)

    monkeypatch.setattr(layer, "group_add", counting_group_add)
    comms = await _connect(60)  # more than a batch: the relay pauses between batches
    assert fanout.members(GROUP) == 60
    assert len(joined) == 1  # the process, not each socket, is in the group
    for cents in (1000, 1001, 1002):
        await _meter(cents)
    for comm in comms:
        assert await _meters(comm, 3) == ["10.00", "10.01", "10.02"]
        assert await comm.receive_nothing(timeout=0.05)
    for comm in comms:
        await comm.disconnect()


async def test_a_client_that_stops_reading_holds_up_nobody_else():
    comms = await _connect(30)
    STALLED.add(next(iter(fanout._of_loop()[GROUP].sockets)).channel_name)  # the first a batch writes to
    try:
        await _meter(500)
        await _meter(501)
        heard = [comm for comm in comms if not await comm.receive_nothing(timeout=0.3)]
        assert len(heard) == 29
        for comm in heard:
            assert await _meters(comm, 2) == ["5.00", "5.01"]
    finally:
        STALLED.clear()
        for comm in comms:
            await comm.disconnect()


async def test_the_process_leaves_a_pool_nobody_there_hears_and_joins_it_again():
    layer = get_channel_layer()
    first = await _connect(3)
    for comm in first:
        await comm.disconnect()
    assert fanout.members(GROUP) == 0
    await asyncio.sleep(0.1)  # the relay's channel leaves the group as its task ends
    await _meter(700)  # heard by nobody, and nothing keeps a queue of it for this process
    second = await _connect(2)
    await _meter(701)
    for comm in second:
        assert await _meters(comm, 1) == ["7.01"]
    for comm in second:
        await comm.disconnect()
    await asyncio.sleep(0.1)
    if hasattr(layer, "groups"):  # the in-memory layer: its members are inspectable
        assert not layer.groups.get(GROUP)
