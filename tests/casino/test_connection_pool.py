"""Under ASGI, requests leave neither connections nor memory behind.

Every request through the ASGI application has a connection object of its own. The
process must end up holding at most its pool's connections, and the connection objects
of finished requests must be collected, whatever the hot query cache has compiled. A
connection killed while it waits in the pool, between bursts or under a steady load, is
never handed to a request.
"""

from __future__ import annotations

import asyncio
import gc
import json
import threading
import time
import tracemalloc
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import channels.db
import psycopg
import pytest
import websockets
from asgiref.sync import async_to_sync
from channels.testing import HttpCommunicator
from django.conf import settings
from django.db import close_old_connections, connection
from django.db.backends.base.base import BaseDatabaseWrapper
from django.test import Client
from psycopg_pool import PoolTimeout

from poker.models import PokerTable
from tables.services.seats import table_sit
from tests.casino.served import Served, served, stop
from tests.conftest import require_postgres
from tests.factories import PokerTableFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


def _live_wrappers() -> int:
    gc.collect()
    # type(), not isinstance(): a dead weak proxy among the objects raises on isinstance.
    return sum(issubclass(type(obj), BaseDatabaseWrapper) for obj in gc.get_objects())


def _backends() -> int:
    """Connections to the test database other than this test's own."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


def _get(application, path: str, cookie: str) -> int:
    async def go() -> int:
        communicator = HttpCommunicator(
            application, "GET", path, headers=[(b"cookie", cookie.encode()), (b"host", b"localhost")]
        )
        # Generous timeouts: tracemalloc slows every allocation, and CI's machine is busy.
        response = await communicator.get_response(timeout=30)
        await communicator.wait(timeout=30)  # the application ends as under a server: the request finishes
        return response["status"]

    return async_to_sync(go)()


def _play_requests(application, paths: list[str], cookie: str, *, threads: int, each: int) -> list[int | str]:
    """Each request's status, or what it raised (so that a failure says what happened)."""
    statuses: list[int | str] = []
    lock = threading.Lock()

    def work() -> None:
        for i in range(each):
            try:
                status: int | str = _get(application, paths[i % len(paths)], cookie)
            except Exception as exc:  # noqa: BLE001 - reported by the test's assertion
                status = repr(exc)
            with lock:
                statuses.append(status)

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    return statuses


def test_requests_through_asgi_keep_at_most_the_pool_and_flat_memory(table, make_player):
    require_postgres()
    from casino.asgi import application

    # Connections an earlier test left checked out of an earlier pool are not this pool's:
    # start a fresh pool and count only what it adds.
    connection.close()
    connection.close_pool()
    leftover = _backends()
    player = make_player()
    table_sit(user=player, table_id=table.pk)  # opens a hand: the hand view runs the compiled queries
    client = Client()
    client.force_login(player)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    paths = ["/api/wallet/", f"/api/tables/{table.pk}/hand/", f"/api/tables/{table.pk}/"]
    pool_size = settings.DATABASES["default"]["OPTIONS"]["pool"]["max_size"]
    assert settings.DATABASES["default"]["CONN_MAX_AGE"] == 0

    warm = _play_requests(application, paths, cookie, threads=4, each=50)
    assert set(warm) == {200}, Counter(warm)
    wrappers_before = _live_wrappers()
    tracemalloc.start()
    try:
        baseline, _ = tracemalloc.get_traced_memory()
        statuses = _play_requests(application, paths, cookie, threads=4, each=60)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - baseline
    finally:
        tracemalloc.stop()

    assert len(statuses) == 240 and set(statuses) == {200}, Counter(statuses)
    assert _backends() - leftover <= pool_size, "the process holds more connections than its pool"
    # The connection objects of 240 finished requests are gone, not kept by a cache.
    assert _live_wrappers() <= wrappers_before + 4
    # ~18 KB a request leaked before (4 MB here); 240 requests may not keep even 1 MB.
    assert grown < 1_000_000, f"memory grew by {grown} bytes over 240 requests"


async def _status(live: Served, path: str, cookie: str) -> int:
    def get() -> int:
        request = urllib.request.Request(live.http + path, headers={"Cookie": cookie})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    return await asyncio.to_thread(get)


async def _handshake(live: Served, path: str, cookie: str) -> str:
    """How a websocket handshake with the player's session ends: "snapshot" when the socket
    is accepted and sends its first snapshot, else what the server answered instead."""
    try:
        async with websockets.connect(
            live.ws + path, origin=live.http, additional_headers={"Cookie": cookie}, open_timeout=30
        ) as socket:
            first = json.loads(await asyncio.wait_for(socket.recv(), timeout=30))
            return first["type"]
    except websockets.InvalidStatus as refused:
        return f"handshake answered {refused.response.status_code}"


def _serve(live: Served, requests: list[tuple[str, str]], cookie: str, *, at_once: int) -> list[int | str]:
    """Each request's outcome (an HTTP status, or how a websocket handshake ended), sent
    ``at_once`` at a time; ``("ws", path)`` is a websocket handshake."""

    async def send() -> list[int | str]:
        gate = asyncio.Semaphore(at_once)

        async def one(kind: str, path: str) -> int | str:
            async with gate:
                if kind == "ws":
                    return await _handshake(live, path, cookie)
                return await _status(live, path, cookie)

        return await asyncio.gather(*(one(kind, path) for kind, path in requests))

    return asyncio.run(send())


def _killer() -> psycopg.Connection:
    """A connection of the test's own to the test database, outside every pool: where it
    kills the server's connections from, as an operator (or a failover) would."""
    params = connection.get_connection_params()
    params = {k: v for k, v in params.items() if k in ("dbname", "user", "password", "host", "port")}
    return psycopg.connect(**params, autocommit=True)


def _terminate_the_apps_connections(*, spare: int) -> int:
    """pg_terminate_backend on every connection to the test database but ``spare`` (the
    test's own), from a connection of its own, as an operator (or a failover) would; how
    many were killed."""
    with _killer() as killer:
        pids = [
            row[0]
            for row in killer.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid NOT IN (pg_backend_pid(), "
                "%s)",
                [spare],
            )
        ]
        for pid in pids:
            killer.execute("SELECT pg_terminate_backend(%s)", [pid])
    return len(pids)


def _served_by_a_fresh_pool(make_player, monkeypatch) -> tuple[PokerTable, str]:
    """Ready a real server's test: a new pool (what earlier tests left checked out of an
    earlier one is not counted), Django's connection cleanup for the server's database
    jobs, a poker table and a signed-in player's session cookie."""
    # Channels' test communicators swap a no-op in for the connection cleanup of its
    # database jobs while they wait; used from several threads at once (the test of flat
    # memory), one can leave the no-op behind. A server runs Django's.
    monkeypatch.setattr(channels.db, "close_old_connections", close_old_connections)
    connection.close()
    connection.close_pool()
    client = Client()
    client.force_login(make_player())
    return PokerTableFactory(), f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def test_connections_killed_in_the_pool_are_never_handed_to_a_request(table, make_player, monkeypatch):
    """Connections killed (pg_terminate_backend) while they wait in the server's pool: the
    next requests and websocket handshakes (whose first query reads the session) get
    live ones, never a 500 (the pool checks a connection before handing it out)."""
    require_postgres()
    from casino.asgi import application

    poker_table, cookie = _served_by_a_fresh_pool(make_player, monkeypatch)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        own = cursor.fetchone()[0]
    traffic = [
        ("http", f"/poker/tables/{poker_table.pk}/state.json"),
        ("http", "/api/wallet/"),
        ("http", f"/api/tables/{table.pk}/"),
        ("ws", f"/ws/poker/{poker_table.pk}/"),
        ("ws", f"/ws/tables/{table.pk}/"),
    ] * 6
    live = served(application)
    try:
        warm = _serve(live, traffic, cookie, at_once=6)  # the pool holds several connections now
        assert set(warm) == {200, "snapshot"}, Counter(warm)
        killed = []
        for _ in range(3):  # the same server goes on serving after each kill
            killed.append(_terminate_the_apps_connections(spare=own))
            outcomes = _serve(live, traffic, cookie, at_once=6)
            assert set(outcomes) == {200, "snapshot"}, Counter(outcomes)
    finally:
        stop(live)
    assert min(killed) >= 2, f"the pool held too few connections to kill ({killed}): the test proved nothing"
    assert not [e for e in live.errors if "Exception in ASGI application" in e], live.errors


def test_after_a_database_restart_a_lone_request_is_answered_not_timed_out(make_player, monkeypatch):
    """Every idle connection of the server's pool killed at once, as a database restart or
    a failover kills them, then one request alone: it is answered. It meets a dead
    connection first; psycopg_pool waits between one dead connection and the next, more
    each time (nothing, 1 s, 2 s, 4 s …), and with eight dead ones in a row the request
    failed at the pool's timeout. The server's watch checks the other idle connections
    as soon as one is found dead (``casino.dbpool``), so it waits about a second."""
    require_postgres()
    from casino.asgi import application

    poker_table, cookie = _served_by_a_fresh_pool(make_player, monkeypatch)
    state = [("http", f"/poker/tables/{poker_table.pk}/state.json")]
    live = served(application)
    try:
        assert _serve(live, state, cookie, at_once=1) == [200]  # the server is up, its watch started
        pool = connection.pool
        idle = []
        while len(idle) < pool.get_stats()["pool_max"]:  # the pool grown to its size, every connection idle
            try:
                idle.append(pool.getconn(timeout=1))
            except PoolTimeout:  # one is this test's own
                break
        pids = [conn.info.backend_pid for conn in idle]
        for conn in idle:
            pool.putconn(conn)
        with _killer() as killer:
            killed = killer.execute(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 5000)) FROM pg_stat_activity"
                " WHERE pid = ANY(%s)",
                [pids],
            ).fetchone()[0]
        began = time.monotonic()
        answered = _serve(live, state, cookie, at_once=1)
        took = time.monotonic() - began
    finally:
        stop(live)
    assert killed >= 5, f"only {killed} idle connections were killed: the test proved nothing"
    pool_timeout = settings.DATABASES["default"]["OPTIONS"]["pool"]["timeout"]
    assert answered == [200], f"the lone request after the restart: {answered}, after {took:.1f} s"
    assert took < pool_timeout / 2, f"the lone request after the restart waited {took:.1f} s"
    assert not [e for e in live.errors if "Exception in ASGI application" in e], live.errors


LOAD_SECONDS = 12
LOAD_CLIENTS = 6
# Each round kills what waits in the pool, as a failover would; the rounds are further
# apart than the pool takes to recover from one (a request that draws a dead connection
# waits about a second for the next, and twice as long after each further dead one).
KILL_EVERY = 4.0


def _keep_serving(
    live: Served, traffic: list[tuple[str, str]], cookie: str, *, until: float
) -> list[tuple[int | str, float, float]]:
    """``LOAD_CLIENTS`` clients, each sending the next of ``traffic`` as soon as its last
    answer came, until ``until`` (``time.monotonic``); every outcome (as ``_serve``'s) with
    when it was asked and when it was answered (``time.monotonic``)."""

    async def client(start: int) -> list[tuple[int | str, float, float]]:
        outcomes: list[tuple[int | str, float, float]] = []
        while time.monotonic() < until:
            kind, path = traffic[(start + len(outcomes)) % len(traffic)]
            began = time.monotonic()
            try:
                outcome = await (_handshake(live, path, cookie) if kind == "ws" else _status(live, path, cookie))
            except Exception as exc:  # a socket the server dropped: reported by the test's assertion
                outcome = repr(exc)
            outcomes.append((outcome, began, time.monotonic()))
        return outcomes

    async def clients() -> list[tuple[int | str, float, float]]:
        return [o for outcomes in await asyncio.gather(*map(client, range(LOAD_CLIENTS))) for o in outcomes]

    return asyncio.run(clients())


def _kill_pooled_connections(*, spare: int, until: float) -> list[tuple[int, float, float]]:
    """Every ``KILL_EVERY`` seconds until ``until`` (``time.monotonic``): each connection
    waiting in this process's pool is taken out of it for a moment, killed from a
    connection of the test's own (pg_terminate_backend on the idle backend, waiting until
    it is gone) and put back, dead, as a failover or an idle-session timeout leaves them;
    how many each round killed, and from when to when (``time.monotonic``) it held them.

    Taken out first, so that no request holds it meanwhile: a connection killed while a
    request holds it, between two of its statements, fails that request whatever the pool
    does; the pool's part is never to hand a dead one out."""
    pool = connection.pool
    rounds = []
    with _killer() as killer:
        while time.monotonic() < until:
            taken, held_from = [], time.monotonic()
            for _ in range(pool.get_stats().get("pool_available", 0)):
                try:
                    taken.append(pool.getconn(timeout=0.2))
                except PoolTimeout:
                    break
            killed = killer.execute(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 5000)) FROM pg_stat_activity"
                " WHERE pid = ANY(%s) AND pid <> %s AND state = 'idle'",
                [[conn.info.backend_pid for conn in taken], spare],
            ).fetchone()[0]
            for conn in taken:
                pool.putconn(conn)
            rounds.append((killed, held_from, time.monotonic()))
            time.sleep(KILL_EVERY)
    return rounds


def _overlap(began: float, ended: float, spans: list[tuple[float, float]]) -> float:
    """How long of ``began``..``ended`` falls within the (disjoint) ``spans``."""
    return sum(max(0.0, min(ended, end) - max(began, start)) for start, end in spans)


def test_connections_killed_in_the_pool_while_requests_flow_fail_no_request(make_player, monkeypatch):
    """Several clients keep asking a real uvicorn for a poker table's state and opening its
    websockets while, every 4 s, the connections waiting in the server's pool are killed
    (``_kill_pooled_connections``): no request is answered with a 5xx, every handshake
    gets its snapshot. The pool's check finds each dead connection before a request gets
    it; the request that drew it waits for a live one (psycopg_pool's pause between two
    checks: about a second), never as long as the pool's timeout. The time the test itself
    holds the idle connections while it kills them (up to the 5 s it lets a backend take to
    go, longer on a busy machine) is the test's, not the pool's: it is not counted."""
    require_postgres()
    from casino.asgi import application

    poker_table, cookie = _served_by_a_fresh_pool(make_player, monkeypatch)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        own = cursor.fetchone()[0]
    traffic = [
        ("http", f"/poker/tables/{poker_table.pk}/state.json"),
        ("ws", f"/ws/poker/{poker_table.pk}/"),
        ("http", f"/poker/tables/{poker_table.pk}/state.json"),
        ("ws", f"/ws/poker/{poker_table.pk}/"),
    ]
    live = served(application)
    try:
        warm = _serve(live, traffic * 3, cookie, at_once=LOAD_CLIENTS)
        assert set(warm) == {200, "snapshot"}, Counter(warm)
        until = time.monotonic() + LOAD_SECONDS
        with ThreadPoolExecutor(1) as load:
            serving = load.submit(_keep_serving, live, traffic, cookie, until=until)
            rounds = _kill_pooled_connections(spare=own, until=until)
            answered = serving.result(timeout=120)
    finally:
        stop(live)
    failed = Counter(outcome for outcome, _, _ in answered if outcome not in (200, "snapshot"))
    assert not failed, f"{failed.total()} of {len(answered)} requests failed: {failed}"
    assert len(answered) >= 100, f"only {len(answered)} requests in {LOAD_SECONDS} s: the test proved little"
    killed = [count for count, _, _ in rounds]
    assert sum(killed) >= 3, f"{sum(killed)} connections killed in {len(rounds)} rounds: the test proved nothing"
    # The dead connections were met, and found by the pool's check (all but the last
    # round's may still wait in the pool).
    assert connection.pool.get_stats().get("connections_lost", 0) >= sum(killed[:-1])
    held = [(start, end) for _, start, end in rounds]
    waited = [(end - began) - _overlap(began, end, held) for _, began, end in answered]
    pool_timeout = settings.DATABASES["default"]["OPTIONS"]["pool"]["timeout"]
    assert max(waited) < pool_timeout / 2, (
        f"a request waited {max(waited):.1f} s for a live connection"
        f" (the test held the idle ones {', '.join(f'{end - start:.2f}' for start, end in held)} s)"
    )
    assert not [e for e in live.errors if "Exception in ASGI application" in e], live.errors


def test_the_connections_the_live_tables_threads_keep_are_closed_after_a_test():
    """A database thread of the live tables keeps the connection its last job left open
    (tests/conftest.py closes them after each test with real transactions): closed in each
    thread, none of them still uses the test database when the session drops it."""
    require_postgres()
    from casino.live import consumers
    from tests.conftest import _close_in_each_thread

    def pid() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            return cursor.fetchone()[0]

    def still_open(pids: set[int]) -> set[int]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pid FROM pg_stat_activity WHERE pid = ANY(%s)", [sorted(pids)])
            return {row[0] for row in cursor.fetchall()}

    held = {consumers.DB_THREADS.submit(pid).result() for _ in range(8)}  # plain jobs: nothing closes them
    assert held and still_open(held) == held
    _close_in_each_thread(consumers.DB_THREADS)
    connection.close_pool()  # the threads' connections went back to the pool: the pool closes them
    deadline = time.monotonic() + 5
    while still_open(held) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert still_open(held) == set()
