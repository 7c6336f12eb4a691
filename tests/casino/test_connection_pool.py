"""Under ASGI, requests leave neither connections nor memory behind (issue 8 §1).

Every request through the ASGI application has a connection object of its own. The
process must end up holding at most its pool's connections, and the connection objects
of finished requests must be collected, whatever the hot query cache has compiled.
"""

from __future__ import annotations

import gc
from collections import Counter
import threading
import tracemalloc

import pytest
from asgiref.sync import async_to_sync
from channels.testing import HttpCommunicator
from django.conf import settings
from django.db import connection
from django.db.backends.base.base import BaseDatabaseWrapper
from django.test import Client

from tables.services.seats import table_sit
from tests.conftest import require_postgres

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
        communicator = HttpCommunicator(application, "GET", path, headers=[(b"cookie", cookie.encode()), (b"host", b"localhost")])
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
        statuses = _play_requests(application, paths, cookie, threads=4, each=125)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - baseline
    finally:
        tracemalloc.stop()

    assert len(statuses) == 500 and set(statuses) == {200}, Counter(statuses)
    assert _backends() - leftover <= pool_size, "the process holds more connections than its pool"
    # The connection objects of 500 finished requests are gone, not kept by a cache.
    assert _live_wrappers() <= wrappers_before + 4
    # ~18 KB a request leaked before (9 MB here); 500 requests may not keep even 1 MB.
    assert grown < 1_000_000, f"memory grew by {grown} bytes over 500 requests"
