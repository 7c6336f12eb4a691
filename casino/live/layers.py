"""The Redis pub/sub channel layer, plus several group messages in one round trip.

channels_redis's pub/sub layer publishes one group message per call, each a Redis round
trip under a lock that serialises the shard's publishes: a server sending a step's
events to the table and its players waited for one round trip after another, and under
load its sends queued behind each other (``bench/README.md``). ``group_send_many`` sends
them as one pipeline per shard: the same PUBLISH commands, in the same order, one round
trip. Built on the layer's own channel names, shards, serializer and lock
(channels-redis 4.3, pinned; ``tests/tables/test_channel_layer.py`` holds it to the
layer's own delivery).

``close_channel`` forgets a consumer's channel when the consumer is done. The layer does
that itself only when the consumer's pending ``receive`` is cancelled, and Channels
cancels it only if it is still waiting: when a group message reached the channel while
the socket was closing (a table where others play), that receive had already returned,
and the channel's queue, its Redis subscription and their bookkeeping stayed for the
life of the process, one per such socket (``tests/casino/test_connection_churn.py``).
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

    async def close_channel(self, channel: str) -> None:
        """Forget ``channel`` (a consumer's own, ``new_channel``): its queue and its Redis
        subscription. For a consumer that is done; a receive still waiting on it is
        cancelled by Channels right after, and finds nothing left to undo."""
        layer = self._get_layer()
        if layer.channels.pop(channel, None) is not None:
            await layer._get_shard(channel).unsubscribe(channel)
