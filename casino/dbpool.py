"""A server process's database pool after the database restarted: every dead connection
found at once, not one request at a time.

The pool checks a connection before it hands it out (``CONN_HEALTH_CHECKS``: psycopg_pool's
``check_connection``) and replaces a dead one. But a request that draws dead connections
one after another waits between them, more each time (psycopg_pool's back-off: nothing,
1 s, 2 s, 4 s …), so after a restart or a failover, which kills every idle connection of
the pool at once, a quiet process's next request drew its eight in a row and failed at the
pool's timeout (10 s), and a busy one's requests waited seconds.

So each server process watches its pool's count of connections found dead
(``connections_lost``, the pool's own statistics, read without a round trip) from a thread
of its own; when it moves, the thread checks every idle connection at once
(``ConnectionPool.check``: one empty query each, the dead ones replaced), while the request
that met the first dead one waits out its first back-off, and then gets a live connection.
The ASGI application starts the watch with its first connection (``casino.asgi``).
"""

from __future__ import annotations

import logging
import threading
import time

from django.db import DEFAULT_DB_ALIAS, connections

log = logging.getLogger(__name__)

WATCH_EVERY = 0.25  # seconds between two looks at the pool's count; well within its first back-off (1 s)

_watching: threading.Thread | None = None
_starting = threading.Lock()


def _pool():
    """The process's pool (None without one: SQLite, or PostgreSQL without ``OPTIONS["pool"]``)."""
    return getattr(connections[DEFAULT_DB_ALIAS], "pool", None)


def watch_in_server() -> bool:
    """Watch this process's pool from a thread of its own, started once; whether one watches."""
    global _watching
    if _watching is not None and _watching.is_alive():
        return True
    if _pool() is None:
        return False
    with _starting:
        if _watching is None or not _watching.is_alive():
            _watching = threading.Thread(target=_watch, name="casino-pool-watch", daemon=True)
            _watching.start()
    return True


def _watch() -> None:
    watched, seen = None, 0
    while True:
        time.sleep(WATCH_EVERY)
        try:
            pool = _pool()
            if pool is None or pool.closed:
                continue
            lost = pool.get_stats().get("connections_lost", 0)
            if pool is not watched:  # the first look, or a pool opened anew (close_pool)
                watched, seen = pool, lost
            elif lost != seen:
                pool.check()
                seen = pool.get_stats().get("connections_lost", 0)  # with the dead ones the check found
        except Exception:  # a database still down: the pool's own reconnection goes on
            log.exception("checking the pool's idle connections failed")
