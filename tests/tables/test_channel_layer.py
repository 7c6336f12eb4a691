"""The channel layer with Redis: table events reach their own deployment's sockets only."""

from __future__ import annotations

import asyncio
import os

import pytest
import redis
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from casino.settings import channel_layers

pytestmark = pytest.mark.asyncio


def require_redis() -> str:
    """The Redis server's URL without its database; fail under CI, skip on a laptop, without one."""
    problem = None
    if not settings.REDIS_URL:
        problem = "this test needs REDIS_URL"
    else:
        try:
            redis.Redis.from_url(settings.REDIS_URL).ping()
        except redis.RedisError as exc:
            problem = f"Redis is not reachable: {exc}"
    if problem:
        if os.environ.get("CI"):
            pytest.fail(problem)
        pytest.skip(problem)
    return settings.REDIS_URL.rsplit("/", 1)[0]


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
