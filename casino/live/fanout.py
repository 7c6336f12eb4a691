"""Groups that every socket of a process hears alike (a jackpot pool's meter): the process
subscribes once and relays each message to its sockets itself, a batch at a time.

A meter goes to every socket of every table on its pool once a second. Were each socket a
member of the pool's group, one message would wake all of a process's consumers in the
same turn of the event loop (the channel layer puts it in each socket's queue), and the
loop would relay nothing else for that long: at 200 tables, 30-80 ms every second in
both server processes at once, which every action crossing that moment waited out
(bench/README.md). Here one channel of the process is the group's member; its relay task
writes the message's frames to ``BATCH`` sockets, then yields to the loop for ``PAUSE``,
and so on: a second's meter reaches a process's 400 sockets within ~0.1 s, and what else
the loop has to do runs between the batches.

Each socket's write is a task of its own, so a client that reads slowly (its transport
paused) holds up only its own frames, in their order. Per event loop: a process's
sockets share its relays; none is left once the last socket of a group has left.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from dataclasses import dataclass, field

from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

BATCH = 25  # sockets written to in one turn of the event loop
PAUSE = 0.005  # seconds the relay yields between batches
RETRY = 1.0  # seconds before subscribing again after the channel layer failed


@dataclass
class _Relay:
    group: str
    sockets: dict = field(default_factory=dict)  # consumer -> None: insertion-ordered, each once
    subscribed: asyncio.Future | None = None
    task: asyncio.Task | None = None


_writing: set[asyncio.Task] = set()  # the writes under way
_relays: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, _Relay]] = weakref.WeakKeyDictionary()


def _of_loop() -> dict[str, _Relay]:
    return _relays.setdefault(asyncio.get_running_loop(), {})


async def join(group: str, consumer) -> None:
    """``consumer`` hears ``group`` from now on: its ``relay_frames(message)`` gives the
    frames to write. Returns once the process's channel is in the group."""
    relays = _of_loop()
    relay = relays.get(group)
    if relay is None or relay.task is None or relay.task.done():
        relay = relays[group] = _Relay(group)
        relay.subscribed = asyncio.get_running_loop().create_future()
        relay.task = asyncio.get_running_loop().create_task(_run(relay), name=f"fanout {group}")
    relay.sockets[consumer] = None
    await asyncio.shield(relay.subscribed)


def leave(group: str, consumer) -> None:
    relays = _of_loop()
    relay = relays.get(group)
    if relay is None:
        return
    relay.sockets.pop(consumer, None)
    if not relay.sockets:
        del relays[group]
        relay.task.cancel()  # its channel leaves the group


def members(group: str) -> int:
    """The sockets of this process that hear ``group`` (for the tests)."""
    relay = _of_loop().get(group)
    return len(relay.sockets) if relay is not None else 0


async def _run(relay: _Relay) -> None:
    layer = get_channel_layer()
    while True:
        channel = None
        try:
            channel = await layer.new_channel()
            await layer.group_add(relay.group, channel)
            if not relay.subscribed.done():
                relay.subscribed.set_result(None)
            while True:
                await _relay(relay, await layer.receive(channel))
        except asyncio.CancelledError:
            await _discard(relay.group, channel)
            raise
        except Exception:
            log.exception("relaying %s failed; subscribing again", relay.group)
            if not relay.subscribed.done():
                relay.subscribed.set_result(None)  # the sockets connect; the meter comes back with the layer
            await _discard(relay.group, channel)
            await asyncio.sleep(RETRY)


async def _discard(group: str, channel: str | None) -> None:
    if channel is None:
        return
    try:
        await get_channel_layer().group_discard(group, channel)
    except Exception:  # the membership lapses with the process; nothing to undo
        log.warning("could not leave %s", group, exc_info=True)


async def _relay(relay: _Relay, message: dict) -> None:
    sockets = list(relay.sockets)  # those that join meanwhile hear the next one
    for start in range(0, len(sockets), BATCH):
        if start:
            await asyncio.sleep(PAUSE)
        for consumer in sockets[start : start + BATCH]:
            if consumer in relay.sockets:  # not left during the pause
                frames = consumer.relay_frames(message)
                if frames:
                    task = asyncio.get_running_loop().create_task(_write(consumer, frames))
                    _writing.add(task)  # the loop keeps only a weak reference to a task
                    task.add_done_callback(_writing.discard)


async def _write(consumer, frames: list[str]) -> None:
    try:
        for frame in frames:
            await consumer.send(text_data=frame)
    except Exception:  # the socket closed meanwhile: nobody to tell
        log.debug("a relayed frame found its socket closed", exc_info=True)
