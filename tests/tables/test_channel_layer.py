"""The channel layer with Redis: table events reach their own deployment's sockets only."""

from __future__ import annotations

import asyncio

import pytest
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.core.exceptions import ImproperlyConfigured

from casino.settings import channel_layers
from tests.conftest import require_redis

pytestmark = pytest.mark.asyncio


def _layer(url: str) -> RedisPubSubChannelLayer:
    config = channel_layers(url, "pubsub")["default"]
    assert config["BACKEND"] == "channels_redis.pubsub.RedisPubSubChannelLayer"
    return RedisPubSubChannelLayer(**config["CONFIG"])


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


async def test_an_unknown_layer_kind_is_refused_at_start():
    with pytest.raises(ImproperlyConfigured, match="'pubsub' or 'lists'"):
        channel_layers("redis://127.0.0.1:6379/0", "kafka")
    assert channel_layers("", "pubsub")["default"]["BACKEND"] == "channels.layers.InMemoryChannelLayer"
