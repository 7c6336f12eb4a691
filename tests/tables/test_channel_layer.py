"""The channel layer with Redis: table events reach their own deployment's sockets only."""

from __future__ import annotations

import asyncio
import random

import pytest
from django.core.exceptions import ImproperlyConfigured

from casino.live.layers import PubSubChannelLayer
from casino.settings import channel_layers
from tests.conftest import require_redis

# The tests use Redis databases 14 and 15 (the same table's group) and flush them: on one
# test worker, one after the other (on two at once, one heard the other's event).
pytestmark = [pytest.mark.asyncio, pytest.mark.xdist_group(__name__)]


def _layer(url: str) -> PubSubChannelLayer:
    config = channel_layers(url, "pubsub")["default"]
    assert config["BACKEND"] == "casino.live.layers.PubSubChannelLayer"
    return PubSubChannelLayer(**config["CONFIG"])


async def test_deployments_on_two_redis_databases_never_hear_each_others_tables():
    server = require_redis()
    ours, theirs = _layer(f"{server}/14"), _layer(f"{server}/15")
    try:
        mine, other = await ours.new_channel(), await theirs.new_channel()
        await ours.group_add("table.1", mine)
        await theirs.group_add("table.1", other)  # the same table id, another deployment
        await ours.group_send("table.1", {"type": "table.events", "events": [{"kind": "bet.placed"}]})
        received = await asyncio.wait_for(ours.receive(mine), 5)
        assert received["events"] == [{"kind": "bet.placed"}]
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(theirs.receive(other), 0.5)
    finally:
        await ours.flush()
        await theirs.flush()


async def test_many_group_messages_go_in_one_round_trip_and_arrive_in_order():
    server = require_redis()
    layer = _layer(f"{server}/14")
    try:
        table, player, nobody = await layer.new_channel(), await layer.new_channel(), await layer.new_channel()
        await layer.group_add("table.1", table)
        await layer.group_add("player.7", player)
        await layer.group_add("table.2", nobody)
        shard = layer._get_layer()._shards[0]
        calls = []
        original = shard._redis.pipeline

        def counted(*args, **kwargs):
            calls.append(kwargs)
            return original(*args, **kwargs)

        shard._redis.pipeline = counted
        messages = [("table.1", {"type": "live.events", "events": [{"n": n}]}) for n in range(5)]
        messages.insert(2, ("player.7", {"type": "live.events", "events": [{"kind": "wallet.changed"}]}))
        await layer.group_send_many(messages)
        assert calls == [{"transaction": False}]  # one pipeline, no MULTI
        got = [await asyncio.wait_for(layer.receive(table), 5) for _ in range(5)]
        assert [m["events"] for m in got] == [[{"n": n}] for n in range(5)]
        assert (await asyncio.wait_for(layer.receive(player), 5))["events"] == [{"kind": "wallet.changed"}]
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(layer.receive(nobody), 0.5)
    finally:
        await layer.flush()


async def test_an_unknown_layer_kind_is_refused_at_start():
    with pytest.raises(ImproperlyConfigured, match="'pubsub' or 'lists'"):
        channel_layers("redis://127.0.0.1:6379/0", "kafka")
    assert channel_layers("", "pubsub")["default"]["BACKEND"] == "channels.layers.InMemoryChannelLayer"


async def test_a_task_sending_table_events_ends_when_it_is_cancelled():
    """A socket's task is cancelled when the socket closes or the server stops; one that
    is sending a group message then must end, not swallow the cancellation and go on
    (a consumer that outlives its socket, a server that never stops). redis-py 8.0-8.2
    lost about one such cancellation in eight; each try here cancels at a random moment.
    (A group of its own: a publish already under way when its task is cancelled still
    reaches Redis, later than the task's end, and must not reach the other tests' group.)"""
    server = require_redis()
    layer = _layer(f"{server}/14")

    async def sending() -> None:
        while True:
            await layer.group_send(
                "table.cancelled-sender", {"type": "table.events", "events": [{"kind": "seat.changed"}]}
            )
            await asyncio.sleep(0.002)

    try:
        went_on = 0
        for _ in range(150):
            task = asyncio.get_running_loop().create_task(sending())
            await asyncio.sleep(random.random() * 0.01)
            task.cancel()
            done, _ = await asyncio.wait({task}, timeout=1)
            if not done:
                went_on += 1
                for _again in range(100):  # cancelled again until it ends: no sender left running
                    task.cancel()
                    if (await asyncio.wait({task}, timeout=0.1))[0]:
                        break
        assert went_on == 0, f"{went_on} of 150 cancelled senders went on sending"
    finally:
        await layer.flush()
