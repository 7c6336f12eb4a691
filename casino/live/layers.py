"""The Redis pub/sub channel layer, plus several group messages in one round trip.

channels_redis's pub/sub layer publishes one group message per call, each a Redis round
trip under a lock that serialises the shard's publishes: a server sending a step's
events to the table and its players waited for one round trip after another, and under
load its sends queued behind each other (``bench/README.md``). ``group_send_many`` sends
them as one pipeline per shard: the same PUBLISH commands, in the same order, one round
trip. Built on the layer's own channel names, shards, serializer and lock
(channels-redis 4.3, pinned; ``tests/tables/test_channel_layer.py`` holds it to the
layer's own delivery).
"""

from __future__ import annotations

from channels_redis.pubsub import RedisPubSubChannelLayer


class PubSubChannelLayer(RedisPubSubChannelLayer):
    async def group_send_many(self, messages: list[tuple[str, dict]]) -> None:
        """Send each ``(group, message)``, in order, one pipeline per shard."""
        layer = self._get_layer()
        by_shard: dict[int, tuple[object, list]] = {}
        for group, message in messages:
            channel = layer._get_group_channel_name(group)
            shard = layer._get_shard(channel)
            by_shard.setdefault(id(shard), (shard, []))[1].append((channel, self.serialize(message)))
        for shard, items in by_shard.values():
            async with shard._lock:
                shard._ensure_redis()
                async with shard._redis.pipeline(transaction=False) as pipe:
                    for channel, payload in items:
                        pipe.publish(channel, payload)
                    await pipe.execute()
