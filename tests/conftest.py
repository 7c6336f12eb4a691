"""The fixtures every test folder shares: people with roles and money, a pool, tiers,
tables, signed-in clients, a played hand, a rigged deck. Objects come from the factories
of ``tests/factories.py``; a folder's ``conftest.py`` keeps only what is its own."""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from casino.access.policy import roles_install
from casino.access.roles import AUDITOR, CASHIER, MANAGER, PLAYER
from casino.game.cards import cards_from_str
from casino.game.paytables import PAYTABLES
from tables.models import Hand
from tables.services.hands import hand_bet, hand_decide
from tables.services.seats import table_sit
from tests.factories import (
    AdministratorFactory,
    PayTableFactory,
    PlayerFactory,
    PoolFactory,
    TableFactory,
    TierFactory,
    UserFactory,
)


def pytest_configure(config) -> None:
    """The German and English catalogs, compiled if this run started without ``make``."""
    from casino.i18n import catalogs_compile

    catalogs_compile()


def run_together(*calls: Callable[[], object], timeout: float = 60.0) -> tuple[list, list]:
    """Run each call in its own thread, all released at once; (results, exceptions) in order."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)
    errors: list = [None] * len(calls)

    def work(index: int, call: Callable[[], object]) -> None:
        try:
            barrier.wait(timeout=timeout)
            results[index] = call()
        except BaseException as exc:  # noqa: BLE001 - reported to the test thread
            errors[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(i, c), daemon=True) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    stuck = [i for i, thread in enumerate(threads) if thread.is_alive()]
    assert not stuck, f"threads {stuck} did not finish within {timeout} s (deadlock or lost wake-up)"
    return results, errors


def require_redis(*, celery: bool = False) -> str:
    """Fail under CI, skip on a laptop, when Redis (``REDIS_URL``) is not configured and up
    (and, with ``celery``, when deadlines are not Celery tasks on it).

    Returns the server's URL without its database number.
    """
    from django.conf import settings

    problem = None
    if not settings.REDIS_URL or (celery and settings.CASINO_TIMERS != "celery"):
        problem = "this test needs REDIS_URL" + (" (Celery broker)" if celery else "")
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


RABBITMQ_URL = os.environ.get("RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672/")


def require_rabbitmq() -> str:
    """Fail under CI, skip on a laptop, when RabbitMQ (``RABBITMQ_URL``: by default the local
    server, as ``guest``) does not answer, or ``rabbitmqctl``, which gives a test a virtual
    host of its own (``tests.tables.celery_rig.RabbitVhost``), is not installed.

    Returns the server's URL without its virtual host.
    """
    from kombu import Connection

    problem = None
    if not shutil.which("rabbitmqctl"):
        problem = "this test needs rabbitmqctl (RabbitMQ's command line) for a virtual host of its own"
    else:
        try:
            with Connection(RABBITMQ_URL, connect_timeout=5) as broker:
                broker.connect()
        except Exception as exc:  # refused, timed out, or the login refused
            problem = f"RabbitMQ is not reachable at {RABBITMQ_URL}: {exc!r}"
    if problem:
        service_missing(problem)
    return urlunsplit(urlsplit(RABBITMQ_URL)._replace(path=""))


def service_missing(problem: str) -> None:
    """A service a test needs is missing: the test fails under CI, and is skipped elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(problem)
    pytest.skip(problem)


def require_postgres() -> None:
    """Fail under CI, skip on a laptop, when the test needs PostgreSQL and has SQLite."""
    if connection.vendor == "postgresql":
        return
    message = "this test needs PostgreSQL (set DATABASE_URL)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


REDIS_DATABASES = 16  # a Redis server's default number of databases


def worker_redis_url(url: str, worker: str) -> str:
    """``url`` moved to test worker ``worker``'s own database: ``gwN`` uses ``url``'s + 1 + N."""
    parts = urlsplit(url)
    database = int(parts.path.strip("/") or 0) + 1 + int(worker.removeprefix("gw"))
    if database >= REDIS_DATABASES:
        raise pytest.UsageError(f"test worker {worker} would need Redis database {database}: run fewer workers (-n)")
    return urlunsplit(parts._replace(path=f"/{database}"))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config, specs):
    """Parallel workers (``make test``: pytest-xdist, a worker per core) share no service data.

    PostgreSQL: pytest-django gives each worker its own test database (``test_casino_gw0`` …).
    Redis: the channel layer, the Celery broker and the cache follow ``REDIS_URL``, and the
    pub/sub layer's prefix carries its database number (pub/sub ignores the database:
    ``casino.settings.channel_layers``), so each worker starts with ``REDIS_URL`` moved to a
    database of its own (set in the worker's environment before it loads the settings).
    """
    url = os.environ.get("REDIS_URL")
    if not url:
        return
    for spec in specs:
        spec.env["REDIS_URL"] = worker_redis_url(url, spec.id)
        if os.environ.get("CELERY_BROKER_URL") == url:
            spec.env["CELERY_BROKER_URL"] = spec.env["REDIS_URL"]


_SHARED_SCOPES = {"class", "module", "package"}


def _shares_a_fixture(item: pytest.Item) -> bool:
    """Whether ``item`` uses a fixture set up once for several tests (a server, a browser)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(
        d.scope in _SHARED_SCOPES and d.baseid  # the suite's own fixtures (a plugin's have no baseid)
        for name in info.names_closure
        for d in info.name2fixturedefs.get(name, ())
    )


def _database_order(item: pytest.Item) -> int:
    """pytest-django's (and Django's) order: 0 database tests in a rolled-back transaction,
    1 tests with real transactions (they empty the database after them), 2 no database."""
    marker = item.get_closest_marker("django_db")
    names = item.fixturenames
    if (marker and (marker.kwargs.get("transaction") or marker.kwargs.get("reset_sequences"))) or (
        "transactional_db" in names or "live_server" in names
    ):
        return 1
    return 0 if marker or "db" in names else 2


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config, items):
    """How the parallel workers share the suite (``make test``: ``--dist loadgroup``).

    - A module whose tests share a server or a browser (a module- or class-scoped fixture)
      is one unit of work (``xdist_group``), so that it is set up once, on one worker; the
      other tests are dealt one by one to whichever worker is free.
    - The long modules (``slow`` tests, browsers, shared servers) come first within
      pytest-django's order (database tests, then those with real transactions, then the
      rest), and the long modules that use no test database before everything: the short
      tests fill in behind, so that both workers finish at about the same time
      (``--no-loadscope-reorder`` keeps this order).
    """
    long_modules = set()
    for item in items:
        shared = _shares_a_fixture(item)
        if shared:
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))
        if shared or item.get_closest_marker("slow") or item.nodeid.startswith("tests/e2e/"):
            long_modules.add(item.module.__name__)
    yield  # pytest-django puts the database tests in Django's order; xdist names the groups

    def rank(item: pytest.Item) -> tuple:
        order, long = _database_order(item), item.module.__name__ in long_modules
        return (0,) if order == 2 and long else (1 + order, not long)

    items.sort(key=rank)  # stable: a module's tests keep their order


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Tests drive deadlines themselves; tests/tables/test_periodic_in_server.py turns the
    # server's own periodic work back on.
    settings.CASINO_PERIODIC_IN_SERVER = False


def _close_in_each_thread(executor) -> None:
    """Close the database connections that each thread of ``executor`` holds, in that
    thread (a connection belongs to the thread that opened it). One job per thread: each
    waits at a barrier until all have started, so no thread takes two."""
    from django.db import connections

    workers = getattr(executor, "_max_workers", 1)
    barrier = threading.Barrier(workers)

    def close() -> None:
        try:
            barrier.wait(timeout=5)
        except threading.BrokenBarrierError:
            pass  # a thread still busy with a test's job: the others close theirs
        connections.close_all()

    try:
        jobs = [executor.submit(close) for _ in range(workers)]
    except RuntimeError:  # a pool a test shut down: its threads are gone, and their connections
        return
    for job in jobs:
        try:
            job.result(timeout=10)
        except Exception:  # noqa: BLE001 - a thread that never came back: nothing more to do here
            pass


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """The test databases, and at the end of the session every connection gone before
    they are dropped, or PostgreSQL refuses to drop a database "being accessed by other
    users": the live tables' threads close theirs, the connections of threads that have
    ended are freed (a thread's connection lives on until the garbage collector frees its
    cycle of objects), and a session still there after that (a server or worker a test
    started and stopped, still on its way out) is ended as ``DROP DATABASE … WITH (FORCE)``
    would; what it was is written to ``stray-sessions-<database>.txt`` in the temporary
    folder, for whoever wonders."""
    yield
    import gc

    from django.db import connections

    from casino.live import consumers, periodic

    with django_db_blocker.unblock():
        for executor in (consumers.DB_THREADS, periodic._THREAD):
            _close_in_each_thread(executor)
        gc.collect()
        for conn in connections.all(initialized_only=True):
            conn.close()
            if conn.vendor == "postgresql" and getattr(conn, "pool", None) is not None:
                conn.close_pool()
        if connection.vendor == "postgresql":
            _end_stray_sessions(connection)


def _end_stray_sessions(conn) -> None:
    """End every other session on ``conn``'s (test) database, from a connection of its own."""
    import tempfile

    import psycopg

    params = {k: v for k, v in conn.get_connection_params().items() if k in ("user", "password", "host", "port")}
    database = conn.settings_dict["NAME"]
    with psycopg.connect(**params, dbname="postgres", autocommit=True) as admin:
        stray = admin.execute(
            "SELECT pid, application_name, state, backend_start, left(query, 200) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            [database],
        ).fetchall()
        for pid, *_ in stray:
            admin.execute("SELECT pg_terminate_backend(%s)", [pid])
    if stray:
        report = Path(tempfile.gettempdir()) / f"stray-sessions-{database}.txt"
        report.write_text("".join(f"{row}\n" for row in stray))


@pytest.fixture(autouse=True)
def _fresh_connection_pool(request):
    """After a test that ran real transactions (threads, sockets, servers), this process's
    PostgreSQL pool starts again: a connection a test's thread took and never gave back
    must not starve the tests after it ("couldn't get a connection after 10 s").

    The live tables' own threads (the consumers' database threads, the in-server periodic
    loop's thread) outlive the test and keep whatever connection their last job left
    open; closed here, so that none is still using the test database when the session
    drops it ("database … is being accessed by other users")."""
    yield
    marker = request.node.get_closest_marker("django_db")
    if marker is None or not (marker.kwargs.get("transaction") or marker.kwargs.get("serialized_rollback")):
        return
    from django.db import connections

    from casino.live import consumers, periodic

    for executor in (consumers.DB_THREADS, periodic._THREAD):
        _close_in_each_thread(executor)
    for conn in connections.all(initialized_only=True):
        if conn.vendor == "postgresql" and getattr(conn, "pool", None) is not None:
            conn.close()
            conn.close_pool()


@pytest.fixture(autouse=True)
def _broker_trusted_again(monkeypatch):
    """Each test starts with the countdowns' broker trusted: a send that failed in an
    earlier test (``casino.live.deadlines.Broker``) does not silence this one's."""
    from casino.live import deadlines

    monkeypatch.setattr(deadlines, "broker", deadlines.Broker())


@pytest.fixture(autouse=True)
def _fresh_rate_counters():
    """Each test starts with an empty cache: the rate-limit counters (sign-ups per address,
    play rate) of earlier tests, or of an earlier run on the same Redis, are not its own."""
    from django.core.cache import caches
    from django.core.cache.backends.redis import RedisCache

    cache = caches["default"]

    try:
        if isinstance(cache, RedisCache):
            client = cache._cache.get_client(write=True)
            keys = list(client.scan_iter(match=cache.make_key("*"), count=1000))
            if keys:
                client.delete(*keys)
        else:
            cache.clear()
    except (redis.RedisError, OSError):
        pass  # a test of an outage; the counters are unreachable for it as for everybody


@pytest.fixture
def groups(db):
    """The role groups with their grants (``casino.access.policy.roles_install``, as the migration)."""
    return roles_install()


@pytest.fixture
def make_user(groups):
    """``make_user(role=PLAYER, username=None)``: a person of that role (password ``tests.factories.PASSWORD``)."""

    def make(role: str = PLAYER, username: str | None = None):
        return UserFactory(role=role, **({"username": username} if username else {}))

    return make


@pytest.fixture
def cashier(make_user):
    return make_user(CASHIER, "cashier")


@pytest.fixture
def manager(make_user):
    return make_user(MANAGER)


@pytest.fixture
def auditor(make_user):
    return make_user(AUDITOR, "auditor")


@pytest.fixture
def administrator(groups):
    """An administrator: the group, is_staff and is_superuser (as ``grant_role`` makes one)."""
    return AdministratorFactory()


@pytest.fixture
def make_player(groups, cashier):
    """A player with ``balance`` cents deposited by the cashier."""

    def make(balance: int = 100_000, username: str | None = None):
        return PlayerFactory(balance=balance, deposited_by=cashier, **({"username": username} if username else {}))

    return make


@pytest.fixture
def pool(db):
    return PoolFactory(name="Test pool", seed_amount=1_000_000)


@pytest.fixture
def tier_low(db):
    return TierFactory(name="€0.50 – €10", min_ante=50, max_ante=1000)


@pytest.fixture
def tier_high(db):
    return TierFactory(name="€10 – €100", min_ante=1000, max_ante=10000)


@pytest.fixture
def paytables(db):
    return {name: PayTableFactory(name=name) for name in PAYTABLES}


@pytest.fixture
def make_table(tier_low, pool, paytables):
    """``make_table(name=None, tier=None, paytable="24h", table_pool=None)``: a table (the low
    tier, the 24h pay table and the test pool unless told)."""

    def make(name: str | None = None, tier=None, paytable: str = "24h", table_pool=None):
        return TableFactory(
            **({"name": name} if name else {}),
            tier=tier or tier_low,
            paytable=paytables[paytable],
            pool=table_pool or pool,
        )

    return make


@pytest.fixture
def table(make_table):
    return make_table("Nassau")


@pytest.fixture
def api():
    """``api(user)``: an API client signed in as ``user`` (anonymous without one)."""

    def make(user=None):
        client = APIClient()
        if user is not None:
            client.force_authenticate(user)
        return client

    return make


@pytest.fixture
def browser():
    """``browser(user, csrf_checks=False, ip="127.0.0.1")``: a page client (Django's test
    client) signed in as ``user`` (anonymous without one), from that address."""

    def make(user=None, *, csrf_checks: bool = False, ip: str = "127.0.0.1") -> Client:
        client = Client(enforce_csrf_checks=csrf_checks, REMOTE_ADDR=ip)
        if user is not None:
            client.force_login(user)
        return client

    return make


@pytest.fixture
def play_hand(table):
    """``play_hand([(player, ante_cents, jackpot, "raise"|"fold"), …], at=table)``: sit who is
    not seated yet, bet, decide; the settled hand."""

    def play(moves, at=None) -> Hand:
        at = at or table
        for player, *_ in moves:
            if not at.seats.filter(player=player).exists():
                table_sit(user=player, table_id=at.pk)
        hand_seat = None
        for player, ante, jackpot, _ in moves:
            hand_seat = hand_bet(user=player, table_id=at.pk, ante=ante, jackpot=jackpot)
        for player, _, _, action in moves:
            hand_decide(user=player, hand_id=hand_seat.hand_id, action=action)
        return Hand.objects.get(pk=hand_seat.hand_id)

    return play


def deck_for(players: list[str], dealer: str) -> list[int]:
    """A deck that deals these hands (SPEC A3 order), the other cards after them."""
    hands = [cards_from_str(h) for h in players] + [cards_from_str(dealer)]
    order = [hands[seat][r] for r in range(5) for seat in range(len(hands))]
    rest = [c for c in range(52) if c not in order]
    assert len(set(order)) == len(order), "a card is dealt twice"
    return order + rest


@pytest.fixture
def rig_deck(monkeypatch):
    """``rig_deck(["Ah Kh Qh Jh Th", …], "2c 3d 4h 8s 9c")``: the next deal gives these hands."""

    def rig(players: list[str], dealer: str) -> None:
        deck = deck_for(players, dealer)
        monkeypatch.setattr("casino.game.fair.shuffled_deck", lambda *args: list(deck))

    return rig
