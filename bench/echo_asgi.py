"""The server side of ``bench_live_tables.py``: the casino's ASGI application, unchanged,
plus a bare Channels echo route for the baseline and a small stats endpoint.

Served by one web server process: ``uvicorn bench.echo_asgi:application`` (from the repository
root). Every path but the two below goes to ``casino.asgi.application`` itself, so the
live tables run exactly the code they run in production.

- ``/ws/echo/<group>/``: a minimal ``AsyncWebsocketConsumer`` behind the same
  origin check and session middleware as the tables; every text message it receives is
  ``group_send``-ed, unchanged, to its group (the bench puts 4 connections in each), and
  each member sends it to its client. Nothing else: no database, no JSON, no thread hop.
  This is the floor for "one action, fanned out to a table of four" on this server, this
  channel layer and this machine.
- ``GET /__bench__/stats`` (``?reset=1`` starts a new interval): what the server did since
  the last reset, measured from inside the process (``BENCH_INSTRUMENT=0`` turns it off):
  * the one thread that runs every ``database_sync_to_async`` call of every consumer
    (asgiref's ``SyncToAsync.single_thread_executor``; channels enters no
    ``ThreadSensitiveContext``): jobs by function, time queued, time running, SQL
    statements and the time spent in them, connection health checks (``SELECT 1``);
  * the part of those jobs spent in ``casino.live.outbox.flush`` (building the events and
    the blocking ``async_to_sync(group_send)`` after commit);
  * ``group_send`` calls on the channel layer and their time; messages delivered to
    consumers; the main event loop's lag (a 5 ms ticker's overshoot); the garbage
    collector's pauses by generation; with ``&heap=1``, what a full collection walks.

- ``GET /__bench__/memory`` (always on): the process's memory after a full collection: its
  RSS (and, with ``?trim=1``, its RSS once the C allocator has handed its free pages back:
  ``malloc_trim``), the interpreter's allocated blocks, the live consumers, and the size of
  every registry that keeps something per socket, table or group (the open tabs, the table
  turns, the pending private reads, the fan-out relays and their writes, the channel
  layer's channels, groups and Redis subscriptions); ``&types=1`` adds the object counts
  by type. With ``BENCH_TRACEMALLOC=<frames>`` (the server traces its allocations from
  start-up; it runs several times slower) ``&mark=1`` keeps a snapshot (in a file) and
  ``&since_mark=1`` lists where memory grew since.

The instrumentation wraps functions at import time (it edits no app file) and costs a
few microseconds a job; set ``BENCH_INSTRUMENT=0`` to compare.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import json
import logging
import os
import sys
import tempfile
import threading
import time
import tracemalloc
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
TRACEMALLOC_FRAMES = int(os.environ.get("BENCH_TRACEMALLOC", "0") or 0)  # frames kept per allocation
if TRACEMALLOC_FRAMES:
    tracemalloc.start(TRACEMALLOC_FRAMES)  # before Django loads

from asgiref.sync import SyncToAsync  # noqa: E402
from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.layers import get_channel_layer  # noqa: E402
from channels.routing import URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.urls import path  # noqa: E402

from casino.asgi import application as casino_application  # noqa: E402  (sets Django up)

INSTRUMENT = os.environ.get("BENCH_INSTRUMENT", "1") != "0"
NOTABLE_PAUSE = 0.010  # seconds: a collector pause or a late tick worth a moment on the timeline
SLOW_JOB = 0.040  # seconds from queued to done


# --- the echo -------------------------------------------------------------------------------


class EchoConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        self.group = f"echo.{self.scope['url_route']['kwargs']['group']}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        await self.channel_layer.group_send(self.group, {"type": "echo.message", "text": text_data})

    async def echo_message(self, message):
        await self.send(text_data=message["text"])


echo_application = AllowedHostsOriginValidator(
    AuthMiddlewareStack(URLRouter([path("ws/echo/<int:group>/", EchoConsumer.as_asgi())]))
)


# --- the instrumentation --------------------------------------------------------------------


class Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        with self.lock:
            self.started = time.perf_counter()
            self.jobs: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0, 0.0])  # n, wait, run, sql, sql s
            self.waits: list[float] = []
            self.busy = 0.0
            self.flush = [0, 0.0]
            self.health = [0, 0.0]
            self.group_send = [0, 0.0]
            self.delivered = 0
            self.delivery: list[float] = []
            self.dispatch: list[float] = []
            self.published: list[float] = []
            self.dropped = Counter()
            self.lags: list[float] = []
            self.gc = [[0, 0.0, 0.0] for _ in range(3)]  # per generation: collections, seconds, longest
            # Notable moments on the monotonic clock the bots share (BENCH_TRACE): a pause of
            # the collector, a late event-loop tick, a slow or long-queued database job.
            self.moments: list[tuple[float, str, float]] = []
            # Each thread's CPU seconds when the window opened: the figures count the window's.
            self.cpu_at_start = _threads_cpu([*_db_thread_ids, threading.main_thread().native_id]) or {}

    def snapshot(self) -> dict:
        with self.lock:
            wall = time.perf_counter() - self.started
            waits = sorted(self.waits)
            lags = sorted(self.lags)
            delivery = sorted(self.delivery)
            dispatch = sorted(self.dispatch)
            published = sorted(self.published)

            def q(values, p):
                return values[min(len(values) - 1, int(p * len(values)))] if values else None

            return {
                "wall_s": wall,
                "db_thread": {
                    "jobs": sum(int(v[0]) for v in self.jobs.values()),
                    "busy_s": self.busy,
                    "wait_p50_ms": q(waits, 0.5) and q(waits, 0.5) * 1000,
                    "wait_p99_ms": q(waits, 0.99) and q(waits, 0.99) * 1000,
                    "wait_max_ms": waits[-1] * 1000 if waits else None,
                    "by_function": {
                        name: {"n": int(n), "wait_s": w, "run_s": r, "sql": int(s), "sql_s": ss}
                        for name, (n, w, r, s, ss) in sorted(self.jobs.items(), key=lambda kv: -kv[1][2])
                    },
                    "thread_cpu_s": self._cpu_since_start(list(_db_thread_ids)),
                },
                "flush": {"n": self.flush[0], "s": self.flush[1]},
                "health_checks": {"n": self.health[0], "s": self.health[1]},
                "group_send": {"n": self.group_send[0], "s": self.group_send[1]},
                "delivered": self.delivered,
                "delivery_p50_ms": q(delivery, 0.5) and q(delivery, 0.5) * 1000,
                "delivery_p99_ms": q(delivery, 0.99) and q(delivery, 0.99) * 1000,
                "delivery_max_ms": delivery[-1] * 1000 if delivery else None,
                "dispatch_p50_ms": q(dispatch, 0.5) and q(dispatch, 0.5) * 1000,
                "dispatch_p99_ms": q(dispatch, 0.99) and q(dispatch, 0.99) * 1000,
                "published_p50_ms": q(published, 0.5) and q(published, 0.5) * 1000,
                "published_p99_ms": q(published, 0.99) and q(published, 0.99) * 1000,
                "dropped": dict(self.dropped),
                "loop_lag_p50_ms": q(lags, 0.5) and q(lags, 0.5) * 1000,
                "loop_lag_p99_ms": q(lags, 0.99) and q(lags, 0.99) * 1000,
                "loop_lag_max_ms": lags[-1] * 1000 if lags else None,
                "main_thread_cpu_s": self._cpu_since_start([threading.main_thread().native_id]),
                "gc": [{"n": n, "s": total, "max_ms": longest * 1000} for n, total, longest in self.gc],
            }

    def _cpu_since_start(self, thread_ids) -> float | None:
        """CPU seconds ``thread_ids`` used since the window opened (a thread started since: all of its)."""
        now = _threads_cpu(thread_ids)
        if now is None:
            return None
        return sum(cpu - self.cpu_at_start.get(tid, 0.0) for tid, cpu in now.items())


_db_thread_ids: set[int] = set()


def _threads_cpu(thread_ids) -> dict[int, float] | None:
    """CPU seconds of each of these threads of this process, by native id (None: one is gone)."""
    used = {}
    for tid in thread_ids:
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return None
        used[tid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return used


STATS = Stats()


def _job_name(fn) -> str:
    """The function a ``SyncToAsync`` job runs: partial(thread_handler, loop, exc, ctx, func, child)."""
    try:
        child = fn.args[-1]
        target = child.func
        name = getattr(target, "__qualname__", None) or type(target).__name__
        return name.replace(".<locals>", "")
    except Exception:  # noqa: BLE001
        return "?"


class InstrumentedExecutor(ThreadPoolExecutor):
    def submit(self, fn, /, *args, **kwargs):
        queued = time.perf_counter()
        name = _job_name(fn)

        def run(*a, **kw):
            from django.db import connections

            started = time.perf_counter()
            _db_thread_ids.add(threading.get_native_id())
            sql = [0, 0.0]

            def count(execute, sql_text, params, many, context):
                t = time.perf_counter()
                try:
                    return execute(sql_text, params, many, context)
                finally:
                    sql[0] += 1
                    sql[1] += time.perf_counter() - t

            try:
                with connections["default"].execute_wrapper(count):
                    return fn(*a, **kw)
            finally:
                ended = time.perf_counter()
                with STATS.lock:
                    job = STATS.jobs[name]
                    job[0] += 1
                    job[1] += started - queued
                    job[2] += ended - started
                    job[3] += sql[0]
                    job[4] += sql[1]
                    STATS.waits.append(started - queued)
                    STATS.busy += ended - started
                    if ended - queued > SLOW_JOB:
                        STATS.moments.append(
                            (
                                time.monotonic() - (time.perf_counter() - queued),
                                f"job queued {(started - queued) * 1000:.0f} ms, ran {sql[0]} SQL in "
                                f"{sql[1] * 1000:.0f} ms: {name}",
                                (ended - queued) * 1000,
                            )
                        )

        return super().submit(run, *args, **kwargs)


def _install() -> None:
    # Every database job of the process: asgiref's one shared thread (the session and
    # auth middleware, plain database_sync_to_async) and the table consumers' own pool.
    SyncToAsync.single_thread_executor = InstrumentedExecutor(max_workers=1)
    import casino.live.consumers as table_consumers

    table_consumers.DB_THREADS = InstrumentedExecutor(
        max_workers=int(os.environ.get("BENCH_DB_THREADS", table_consumers.DB_THREADS._max_workers)),
        thread_name_prefix="table-db",
    )
    if os.environ.get("BENCH_SWITCH_MS"):
        import sys

        sys.setswitchinterval(float(os.environ["BENCH_SWITCH_MS"]) / 1000)

    import casino.live.outbox as outbox

    original_flush = outbox.flush

    @functools.wraps(original_flush)
    def timed_flush(box):
        t = time.perf_counter()
        try:
            return original_flush(box)
        finally:
            with STATS.lock:
                STATS.flush[0] += 1
                STATS.flush[1] += time.perf_counter() - t

    outbox.flush = timed_flush

    # From a committed step's batch reaching the loop to its last group_send done.
    stamped: dict[int, float] = {}
    original_enqueue, original_send_batch = outbox._enqueue, outbox._send_batch

    def stamped_enqueue(loop, layer, messages, *answers):
        t = time.perf_counter()
        for message in messages:  # (group, payload) tuples, passed on as they are
            stamped[id(message)] = t
        return original_enqueue(loop, layer, messages, *answers)

    async def timed_send_batch(layer, messages):
        try:
            return await original_send_batch(layer, messages)
        finally:
            done = time.perf_counter()
            for message in messages:
                t = stamped.pop(id(message), None)
                if t is not None:
                    STATS.published.append(done - t)

    outbox._enqueue, outbox._send_batch = stamped_enqueue, timed_send_batch

    from django.db.backends.postgresql.base import DatabaseWrapper

    original_usable = DatabaseWrapper.is_usable

    def timed_usable(self):
        t = time.perf_counter()
        try:
            return original_usable(self)
        finally:
            with STATS.lock:
                STATS.health[0] += 1
                STATS.health[1] += time.perf_counter() - t

    DatabaseWrapper.is_usable = timed_usable

    layer = get_channel_layer()
    original_group_send = layer.group_send

    async def timed_group_send(group, message):
        t = time.perf_counter()
        try:
            # Stamped so that the consumer's dispatch can tell how long the message took to
            # reach it (transport + the consumer's own backlog); consumers ignore extra keys.
            return await original_group_send(group, {**message, "_bench_sent": t})
        finally:
            STATS.group_send[0] += 1
            STATS.group_send[1] += time.perf_counter() - t

    layer.group_send = timed_group_send
    original_group_send_many = getattr(type(layer), "group_send_many", None)
    if original_group_send_many is not None:

        async def timed_group_send_many(messages):
            t = time.perf_counter()
            try:
                return await original_group_send_many(layer, [(g, {**m, "_bench_sent": t}) for g, m in messages])
            finally:
                STATS.group_send[0] += len(messages)
                STATS.group_send[1] += time.perf_counter() - t

        layer.group_send_many = timed_group_send_many

    from channels.consumer import AsyncConsumer

    def counted(original_dispatch):
        async def counted_dispatch(self, message):
            STATS.delivered += 1
            sent = message.get("_bench_sent")
            if sent is None:
                return await original_dispatch(self, message)
            started = time.perf_counter()
            STATS.delivery.append(started - sent)
            try:
                return await original_dispatch(self, message)
            finally:
                STATS.dispatch.append(time.perf_counter() - started)

        return counted_dispatch

    AsyncConsumer.dispatch = counted(AsyncConsumer.dispatch)
    import tables.consumers

    # The live table's own dispatch (casino.live.consumers.LiveTableConsumer, which TableConsumer extends)
    tables.consumers.TableConsumer.dispatch = counted(tables.consumers.TableConsumer.dispatch)

    # Messages the channel layer drops without an error: channels' in-memory layer when a
    # channel's queue is full (group_send swallows ChannelFull); channels_redis when the
    # process's Redis key is over capacity (logged at INFO) or a channel's receive buffer
    # is full (the oldest message is thrown away).
    from channels.exceptions import ChannelFull
    from channels.layers import InMemoryChannelLayer

    original_memory_send = InMemoryChannelLayer.send

    async def counted_memory_send(self, channel, message):
        try:
            return await original_memory_send(self, channel, message)
        except ChannelFull:
            STATS.dropped["in-memory channel full"] += 1
            raise

    InMemoryChannelLayer.send = counted_memory_send
    try:
        import channels_redis.core as redis_core
    except ImportError:
        return

    original_put = redis_core.BoundedQueue.put_nowait

    def counted_put(self, item):
        if self.full():
            STATS.dropped["redis receive buffer full"] += 1
        return original_put(self, item)

    redis_core.BoundedQueue.put_nowait = counted_put

    class OverCapacity(logging.Handler):
        def emit(self, record):
            if "over capacity" in record.getMessage():
                STATS.dropped["redis over capacity"] += int(record.args[0]) if record.args else 1

    redis_logger = logging.getLogger("channels_redis.core")
    redis_logger.addHandler(OverCapacity(level=logging.INFO))
    redis_logger.setLevel(logging.INFO)
    redis_logger.propagate = False


_gc_started: list[float] = []


def _gc_timed(phase: str, info: dict) -> None:
    """The garbage collector's pauses (every thread of the process stops for them)."""
    if phase == "start":
        _gc_started[:] = [time.perf_counter()]
    elif _gc_started:
        took = time.perf_counter() - _gc_started.pop()
        counts = STATS.gc[info["generation"]]
        counts[0] += 1
        counts[1] += took
        counts[2] = max(counts[2], took)
        if took > NOTABLE_PAUSE:
            STATS.moments.append((time.monotonic() - took, f"gc generation {info['generation']}", took * 1000))


if INSTRUMENT:
    _install()
    gc.callbacks.append(_gc_timed)

_ticker_started = False


async def _ticker() -> None:
    while True:
        t = time.perf_counter()
        await asyncio.sleep(0.005)
        lag = max(0.0, time.perf_counter() - t - 0.005)
        STATS.lags.append(lag)
        if lag > NOTABLE_PAUSE:
            STATS.moments.append((time.monotonic() - lag, "event loop late", lag * 1000))


async def _stats_endpoint(scope, receive, send) -> None:
    query = parse_qs(scope.get("query_string", b"").decode())
    stats = STATS.snapshot() if INSTRUMENT else {"instrumented": False}
    if INSTRUMENT and query.get("heap"):
        walked = Counter(type(o).__qualname__ for o in gc.get_objects())
        stats["heap"] = {
            "objects": sum(walked.values()),
            "frozen": gc.get_freeze_count(),
            "top": walked.most_common(12),
        }
        with STATS.lock:
            stats["moments"] = list(STATS.moments)
    body = json.dumps(stats).encode()
    if query.get("reset"):
        STATS.reset()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


# --- the memory --------------------------------------------------------------------------

_mark = os.path.join(
    tempfile.gettempdir(), f"bench-tracemalloc-{os.getpid()}"
)  # ``&mark=1``'s snapshot, out of the heap


def _rss_mb() -> tuple[float, float]:
    """This process's resident set and its peak, in MB (Linux)."""
    found = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                found[line.split(":")[0]] = int(line.split()[1]) / 1024
    return found.get("VmRSS", 0.0), found.get("VmHWM", 0.0)


def registries() -> dict[str, int]:
    """What this process keeps per socket, table or group, on the running event loop."""
    from channels.consumer import AsyncConsumer

    from casino.live import consumers, fanout

    loop = asyncio.get_running_loop()
    relays = fanout._relays.get(loop, {})
    sizes = {
        "consumers alive": sum(
            1 for o in gc.get_objects() if issubclass(type(o), AsyncConsumer)
        ),  # type(): a dead weak proxy raises
        "open tabs": len(consumers._open_tabs.get(loop, {})),
        "table turns": len(consumers._table_turns.get(loop, {})),
        "pending reads": len(consumers._pending_reads.get(loop, {})),
        "fan-out relays": len(relays),
        "fan-out sockets": sum(len(relay.sockets) for relay in relays.values()),
        "fan-out writes": len(fanout._writing),
        "tasks": len(asyncio.all_tasks(loop)),
    }
    layer = get_channel_layer()
    of_loop = getattr(layer, "_layers", {}).get(loop)
    if of_loop is not None:  # the pub/sub layer: its bookkeeping for this loop
        sizes["layer channels"] = len(of_loop.channels)
        sizes["layer groups"] = len(of_loop.groups)
        sizes["layer group members"] = sum(len(members) for members in of_loop.groups.values())
        sizes["Redis subscriptions"] = sum(len(shard._subscribed_to) for shard in of_loop._shards)
        sizes["redis-py subscriptions"] = sum(len(shard._pubsub.channels) for shard in of_loop._shards if shard._pubsub)
    elif hasattr(layer, "receive_buffer"):  # channels_redis's list-based layer
        sizes["layer receive buffers"] = len(layer.receive_buffer)
    elif hasattr(layer, "groups"):  # in memory
        sizes["layer channels"] = len(layer.channels)
        sizes["layer groups"] = len(layer.groups)
        sizes["layer group members"] = sum(len(members) for members in layer.groups.values())
    return sizes


def _memory(query: dict) -> dict:
    gc.collect()
    if query.get("trim"):
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    rss, peak = _rss_mb()
    out = {"rss_mb": rss, "peak_rss_mb": peak, "blocks": sys.getallocatedblocks(), "registries": registries()}
    if query.get("types"):
        out["types"] = Counter(type(o).__qualname__ for o in gc.get_objects())
    if TRACEMALLOC_FRAMES:
        snapshot = tracemalloc.take_snapshot().filter_traces((tracemalloc.Filter(False, tracemalloc.__file__),))
        out["traced_mb"] = tracemalloc.get_traced_memory()[0] / 2**20
        if query.get("since_mark") and os.path.exists(_mark):
            key = "traceback" if TRACEMALLOC_FRAMES > 1 else "lineno"
            out["grew"] = [
                {
                    "kb": stat.size_diff / 1024,
                    "blocks": stat.count_diff,
                    "where": [f"{frame.filename}:{frame.lineno}" for frame in stat.traceback],
                }
                for stat in snapshot.compare_to(tracemalloc.Snapshot.load(_mark), key)[:15]
            ]
            os.remove(_mark)
        if query.get("mark"):
            snapshot.dump(_mark)  # kept in memory, it would be the growth it measures
    return out


async def _memory_endpoint(scope, send) -> None:
    query = parse_qs(scope.get("query_string", b"").decode())
    body = json.dumps(_memory(query)).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


async def application(scope, receive, send):
    global _ticker_started
    if INSTRUMENT and not _ticker_started:
        _ticker_started = True
        asyncio.get_running_loop().create_task(_ticker())
    path_ = scope.get("path", "")
    if scope["type"] == "websocket" and path_.startswith("/ws/echo/"):
        return await echo_application(scope, receive, send)
    if scope["type"] == "http" and path_ == "/__bench__/stats":
        return await _stats_endpoint(scope, receive, send)
    if scope["type"] == "http" and path_ == "/__bench__/memory":
        return await _memory_endpoint(scope, send)
    return await casino_application(scope, receive, send)
