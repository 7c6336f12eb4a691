"""How long a jackpot meter's fan-out holds a server's event loop: every socket a member
of the pool's group (the way the meter used to reach them) against the process's one relay
(``casino.live.fanout``), in one process, on the same loop, taking turns.

``BENCH_SOCKETS`` (400, a server process's share of 200 tables) websockets through
Channels' ``WebsocketCommunicator`` on the channel layer the settings choose (in-memory
without ``REDIS_URL``, Redis with it), each hearing the pool; a meter message every
``BENCH_EVERY`` seconds (0.25) for ``BENCH_SECONDS`` (4) each way, ``BENCH_ROUNDS`` (3)
rounds; a 1 ms ticker on the same loop measures how late it runs (what every other
action of the process waits while the meter goes out), and each message's way until the
last socket has its frame.

    .venv/bin/python bench/bench_fanout.py

Exit status 0 when the relay's longest stall is under half the members', else 1.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

import django  # noqa: E402

django.setup()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.layers import get_channel_layer  # noqa: E402
from channels.testing import WebsocketCommunicator  # noqa: E402

from casino.live import fanout  # noqa: E402
from casino.live.consumers import _frames  # noqa: E402
from casino.live.outbox import MESSAGE_TYPE, pool_group  # noqa: E402

SOCKETS = int(os.environ.get("BENCH_SOCKETS", "400"))
EVERY = float(os.environ.get("BENCH_EVERY", "0.25"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "4"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
GROUP = pool_group(999_999)


class Member(AsyncWebsocketConsumer):
    """A socket in the pool's group: the layer wakes it for every meter."""

    async def connect(self):
        await self.channel_layer.group_add(GROUP, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        await self.channel_layer.group_discard(GROUP, self.channel_name)

    async def live_events(self, message):  # as LiveTableConsumer relays a public event
        for frame in _frames(message):
            if frame is not None:
                await self.send(text_data=frame)


class Relayed(AsyncWebsocketConsumer):
    """A socket the process's relay writes to."""

    async def connect(self):
        await self.accept()
        await fanout.join(GROUP, self)

    async def disconnect(self, code):
        fanout.leave(GROUP, self)

    def relay_frames(self, message):
        return [frame for frame in _frames(message) if frame is not None]


async def _ticker(lags: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        t = time.perf_counter()
        await asyncio.sleep(0.001)
        lags.append(time.perf_counter() - t - 0.001)


async def _all_have(comms: list[WebsocketCommunicator], n: int) -> None:
    """Until every socket's client has ``n`` frames waiting (polled: reading them here
    would put the clients' work on the measured loop)."""
    while any(comm.output_queue.qsize() < n for comm in comms):
        await asyncio.sleep(0.001)


async def run(consumer) -> dict:
    comms = [WebsocketCommunicator(consumer.as_asgi(), "/ws/") for _ in range(SOCKETS)]
    for comm in comms:
        connected, _ = await comm.connect(timeout=30)
        assert connected
    await asyncio.sleep(0.2)
    layer = get_channel_layer()
    lags: list[float] = []
    stop = asyncio.Event()
    ticker = asyncio.get_running_loop().create_task(_ticker(lags, stop))
    sent = 0
    delivered: list[float] = []
    cpu0 = time.process_time()
    until = time.perf_counter() + SECONDS
    while time.perf_counter() < until:
        t = time.perf_counter()
        sent += 1
        await layer.group_send(
            GROUP, {"type": MESSAGE_TYPE, "events": [{"kind": "jackpot.changed", "pool": 1, "meter": f"{sent}.00"}]}
        )
        await _all_have(comms, sent)
        delivered.append(time.perf_counter() - t)
        await asyncio.sleep(max(0.0, EVERY - (time.perf_counter() - t)))
    cpu = time.process_time() - cpu0
    stop.set()
    await ticker
    for comm in comms:
        assert comm.output_queue.qsize() == sent  # each meter once, no more
        await comm.disconnect()
    lags.sort()
    return {
        "lag_p99": lags[int(0.99 * (len(lags) - 1))] * 1000,
        "lag_max": lags[-1] * 1000,
        "delivered_p50": statistics.median(delivered) * 1000,
        "cpu_per_meter": cpu / sent * 1000,
        "meters": sent,
    }


async def main() -> int:
    layer = get_channel_layer()
    print(
        f"A meter to {SOCKETS} sockets every {EVERY} s, {SECONDS} s each way, {ROUNDS} rounds; channel layer "
        f"{type(layer).__name__}"
    )
    results: dict[str, list[dict]] = {"members": [], "relay": []}
    for _ in range(ROUNDS):
        for name, consumer in (("members", Member), ("relay", Relayed)):
            results[name].append(await run(consumer))
    print(f"{'':10} {'loop late p99 ms':>17} {'longest ms':>11} {'to all sockets ms':>18} {'CPU a meter ms':>15}")
    for name, rows in results.items():
        med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        print(
            f"{name:10} {med['lag_p99']:17.1f} {med['lag_max']:11.1f} {med['delivered_p50']:18.1f} "
            f"{med['cpu_per_meter']:15.2f}"
        )
    members = statistics.median(r["lag_max"] for r in results["members"])
    relay = statistics.median(r["lag_max"] for r in results["relay"])
    print(f"longest stall of the loop, relay / members: {relay / members:.2f} (target < 0.5)")
    return 0 if relay < members / 2 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
