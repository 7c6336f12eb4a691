"""Committed dealer steps per second on PostgreSQL, against pgbench on the same server.

Run from the repository root with PostgreSQL configured:
``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino .venv/bin/python bench/bench_settlement.py``

It creates its own database (``casino_bench``, migrated from scratch) and a scratch
pgbench database (``casino_bench_pgbench``) on the server that ``DATABASE_URL`` names, and
drops both at the end. A hand is what a table really does: four players sit; each bets
the ante with the jackpot chip (the fourth bet deals and takes the jackpot bets); each
folds or raises (a pair or better raises; the fourth decision settles, pays and opens the
next hand). Every bet and every decision is one committed dealer step (eight a hand).
The steps run as the deployment runs them: in server processes, one per core (README's
uvicorn line; ``BENCH_PROCS``, the CPU count by default), each table in one of them (table
*i* in process *i* mod the count, as a proxy with table affinity sends a table's players
to one process), in a database thread of that process's asyncio loop (``sync_to_async``),
so their events leave through the loop's sender task.

With 1, 2 and 4 workers (tables, a thread each, one jackpot pool) it prints committed
steps per second and full hands per second, pgbench's TPC-B-like tps at the same client
count (``-c 1``, ``-c 2``, ``-c 4``), run in turns with the steps (``BENCH_ROUNDS`` rounds
of ``BENCH_SECONDS`` each; the medians), and the ratio steps/s / tps (the target:
>= 0.20 at one client, and steps/s scaling with clients: not falling as clients are
added); then what one hand costs: SQL statements, commits, and statements per service
call, which is what bounds it.

Exit status: 0 when the target is met, 1 when it is missed, 2 when the ledger or the
jackpot does not reconcile after the run (or the set-up fails).
"""

from __future__ import annotations

import glob
import multiprocessing
import os
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BENCH_DB = "casino_bench"
PGBENCH_DB = "casino_bench_pgbench"
SECONDS = float(os.environ.get("BENCH_SECONDS", "5"))
# The steps and pgbench take turns, ROUNDS times at each client count: the machine's speed
# drifts within a minute (pgbench alone moved 2,100 -> 4,900 tps between runs), so each
# ratio compares runs seconds apart, and the report takes the median.
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
WARMUP_HANDS = 3
ANTE = 100
SEATS = 4
TARGET_RATIO = 0.20  # the floor
CLIENTS = (1, 2, 4)
# The casino around the bench's tables: other registered players, each with a wallet and
# a money-in-play account, as a casino holds them. A step's reads must find its rows by
# key among them (a read that tested every account cost 25 ms a step at 50,000 players).
POPULATION = int(os.environ.get("BENCH_PLAYERS", "50000"))
# Server processes the tables are split between: one per core, as README deploys uvicorn.
PROCS = max(1, int(os.environ.get("BENCH_PROCS", str(os.cpu_count() or 1))))
STEPS_PER_HAND = 2 * SEATS  # a bet and a decision per seat, each its own committed step


# --- the server ---------------------------------------------------------------------------


def server_params(url: str) -> dict:
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql", "pgsql"):
        raise SystemExit(f"DATABASE_URL must point at PostgreSQL, not {parts.scheme or 'nothing'}")
    return {
        "host": parts.hostname or "127.0.0.1",
        "port": parts.port or 5432,
        "user": unquote(parts.username or "postgres"),
        "password": unquote(parts.password) if parts.password else None,
    }


def admin(params: dict, *statements: str) -> None:
    import psycopg

    with psycopg.connect(dbname="postgres", autocommit=True, **params) as conn:
        for statement in statements:
            conn.execute(statement)


def recreate_database(params: dict, name: str) -> None:
    admin(params, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', f'CREATE DATABASE "{name}"')


def drop_database(params: dict, name: str) -> None:
    admin(params, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def pgbench_binary() -> str:
    found = shutil.which("pgbench") or next(
        iter(sorted(glob.glob("/usr/lib/postgresql/*/bin/pgbench"), reverse=True)), None
    )
    if not found:
        raise SystemExit("pgbench not found (PATH or /usr/lib/postgresql/*/bin/)")
    return found


def pgbench_tps(params: dict, clients: int, seconds: int) -> float:
    env = dict(os.environ)
    if params["password"]:
        env["PGPASSWORD"] = params["password"]
    base = [pgbench_binary(), "-h", params["host"], "-p", str(params["port"]), "-U", params["user"]]
    run = [*base, "-c", str(clients), "-j", str(clients), "-T", str(seconds), PGBENCH_DB]
    out = subprocess.run(run, env=env, check=True, capture_output=True, text=True).stdout
    match = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", out) or re.search(r"tps = ([0-9.]+)", out)
    if not match:
        raise SystemExit(f"could not read tps from pgbench:\n{out}")
    return float(match.group(1))


def pgbench_init(params: dict) -> None:
    env = dict(os.environ)
    if params["password"]:
        env["PGPASSWORD"] = params["password"]
    recreate_database(params, PGBENCH_DB)
    base = [pgbench_binary(), "-h", params["host"], "-p", str(params["port"]), "-U", params["user"]]
    subprocess.run([*base, "-i", "-s", "1", "-q", PGBENCH_DB], env=env, check=True, capture_output=True, text=True)


def django_setup(url: str, database: str, migrate: bool = True) -> None:
    """Point Django at ``database`` on the server of ``url``, production-like (DEBUG=0: no
    query log), and migrate it (unless ``migrate`` is false: a server process of the bench)."""
    parts = urlsplit(url)
    os.environ["DATABASE_URL"] = parts._replace(path=f"/{database}").geturl()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    if "DEBUG" not in os.environ:
        os.environ["DEBUG"] = "0"
        os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(60))
        os.environ.setdefault("ALLOWED_HOSTS", "localhost")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    if not migrate:
        return
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


# --- the casino ---------------------------------------------------------------------------


def make_population(count: int) -> None:
    """``count`` other players with their two accounts (no money: nothing to post), in
    three statements, then the planner's statistics of the tables they fill."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from wallets.models import Account

    users, accounts = get_user_model()._meta.db_table, Account._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {users} (password, is_superuser, username, first_name, last_name, email, is_staff, "
            "is_active, date_joined) SELECT '!', false, 'casino-' || n, '', '', '', false, true, now()"
            " FROM generate_series(1, %s) AS n",
            [count],
        )
        for kind, prefix in ((Account.Kind.PLAYER_WALLET, "wallet"), (Account.Kind.PLAYER_IN_PLAY, "in_play")):
            cursor.execute(
                f"INSERT INTO {accounts} (code, kind, name, currency, balance, created_at, owner_id) "
                f"SELECT %s || ':' || id, %s, 'casino player', 'EUR', 0, now(), id FROM {users}"
                " WHERE username LIKE 'casino-%%'",
                [prefix, kind],
            )
        cursor.execute(f"ANALYZE {users}")
        cursor.execute(f"ANALYZE {accounts}")


def make_tables(count: int) -> list[tuple[int, list]]:
    """``count`` tables on one pool, four funded players seated at each."""
    from django.contrib.auth import get_user_model

    from casino.access.policy import roles_install
    from casino.access.roles import CASHIER, PLAYER
    from casino.game.paytables import PAYTABLES
    from jackpot.services import pool_create
    from tables.services.config import paytable_save, table_create
    from tables.services.seats import table_sit
    from wallets.models import LimitTier
    from wallets.services import cashier_deposit

    users = get_user_model().objects
    groups = roles_install()  # the role groups with their grants
    players_group = groups[PLAYER]
    cashier = users.create_user(username="bench-cashier", password=None)
    cashier.groups.add(groups[CASHIER])
    tier = LimitTier.objects.create(name="€0.50 – €10", min_ante=50, max_ante=1000)
    paytable = paytable_save(name="24h", table=PAYTABLES["24h"])
    pool = pool_create(name="Bench pool")
    tables = []
    for t in range(count):
        table = table_create(name=f"Bench {t + 1}", tier=tier, paytable=paytable, pool=pool)
        players = []
        for s in range(SEATS):
            player = users.create_user(username=f"bench-{t + 1}-{s + 1}", password=None)  # no hashing cost
            player.groups.add(players_group)
            cashier_deposit(cashier=cashier, player=player, amount=100_000_000, idempotency_key=f"bench-{player.pk}")
            table_sit(user=player, table_id=table.pk, seat_number=s + 1)
            players.append(player)
        tables.append((table.pk, players))
    return tables


RETRYABLE = ("DeadlockDetected", "SerializationFailure", "LockNotAvailable")


class Tally:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.retries: Counter[str] = Counter()
        self.failures: list[str] = []

    def retry(self, name: str) -> None:
        with self.lock:
            self.retries[name] += 1

    def fail(self, text: str) -> None:
        with self.lock:
            self.failures.append(text)


def call(service, tally: Tally, **kwargs):
    """Call a service; retry it when the database aborted it for a deadlock or a serialization failure."""
    from django.db import OperationalError

    for attempt in range(5):
        try:
            return service(**kwargs)
        except OperationalError as exc:
            name = type(exc.__cause__).__name__
            if name not in RETRYABLE or attempt == 4:
                raise
            tally.retry(name)


def play_hand(table_id: int, users: list, tally: Tally, on_call=None, on_step=None) -> int:
    """One full hand: four bets (the last deals), four decisions (the last settles).

    ``on_step`` is called after each committed step (a bet, a decision)."""
    from casino.game.evaluator import Category
    from tables.models import HandSeat
    from tables.services.hands import hand_bet, hand_decide

    for user in users:
        seat = call(hand_bet, tally, user=user, table_id=table_id, ante=ANTE, jackpot=True)
        if on_step:
            on_step()
        if on_call:
            on_call("hand_bet" if user is not users[-1] else "hand_bet (last: deals)")
    categories = dict(HandSeat.objects.filter(hand_id=seat.hand_id).values_list("player_id", "category"))
    if on_call:
        on_call("read own cards")
    for user in users:
        raises = Category.from_key(categories[user.pk]) >= Category.ONE_PAIR
        call(hand_decide, tally, user=user, hand_id=seat.hand_id, action="raise" if raises else "fold")
        if on_step:
            on_step()
        if on_call:
            on_call("hand_decide" if user is not users[-1] else "hand_decide (last: settles)")
    return seat.hand_id


def in_server_threads(*calls: tuple) -> list:
    """Run each ``(function, args)`` in a database thread of one asyncio loop, as the ASGI
    server runs a consumer's or a view's steps (``sync_to_async``): their events go to the
    loop's one sender task (``casino.live.outbox``), as under daphne, instead of a fresh
    event loop and thread per step (what a plain thread, a Celery worker, pays)."""
    import asyncio

    from asgiref.sync import sync_to_async

    async def main() -> list:
        return await asyncio.gather(*(sync_to_async(fn, thread_sensitive=False)(*args) for fn, args in calls))

    return asyncio.run(main())


def run_workers(
    tables: list[tuple[int, list[int]]], seconds: float, tally: Tally, ready=None
) -> tuple[int, int, float, float]:
    """Each table (its id, its players' ids) played by its own thread of this process for
    ``seconds``; (hands, steps, wall seconds, process CPU seconds). Steps are counted as
    they commit, so a hand the stop cuts in two counts the steps it committed in the
    window. ``ready`` is called once every table has played its warm-up hands, and the
    window starts when it returns."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    barrier = threading.Barrier(len(tables) + 1)
    stop = threading.Event()
    counts = [0] * len(tables)
    steps = [0] * len(tables)
    measuring = threading.Event()

    def work(index: int, table_id: int, players: list) -> None:
        def on_step() -> None:
            if measuring.is_set() and not stop.is_set():
                steps[index] += 1

        try:
            users = [get_user_model().objects.get(pk=pk) for pk in players]
            for _ in range(WARMUP_HANDS):
                play_hand(table_id, users, tally)
            barrier.wait()
            while not stop.is_set():
                play_hand(table_id, users, tally, on_step=on_step)
                if not stop.is_set():
                    counts[index] += 1
        except threading.BrokenBarrierError:
            pass
        except Exception as exc:  # noqa: BLE001 - reported by the main thread
            tally.fail(f"table {table_id}: {type(exc).__name__}: {exc}")
            barrier.abort()
        finally:
            connection.close()

    calls = [(work, (i, t, p)) for i, (t, p) in enumerate(tables)]
    threads = [threading.Thread(target=in_server_threads, args=calls, daemon=True)]
    for thread in threads:
        thread.start()
    try:
        barrier.wait()
    except threading.BrokenBarrierError:
        pass
    if ready is not None:
        ready()
    started, cpu_started = time.perf_counter(), time.process_time()
    measuring.set()
    stop.wait(seconds)
    stop.set()
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    for thread in threads:
        thread.join(120)
    return sum(counts), sum(steps), wall, cpu


def _server_process(conn) -> None:
    """A server process of the bench (``spawn``ed: Django set up afresh, no connection or
    channel layer inherited): plays the tables it is sent, each round, and answers with
    what ``run_workers`` counted and what the tally caught."""
    django_setup(os.environ["DATABASE_URL"], BENCH_DB, migrate=False)
    import casino.asgi  # noqa: F401 - started as a server process starts: its heap frozen, its collector's thresholds

    while (order := conn.recv()) is not None:
        tables, seconds = order
        tally = Tally()

        def ready() -> None:
            conn.send("ready")
            conn.recv()  # "go"

        result = run_workers(tables, seconds, tally, ready=ready)
        conn.send((result, dict(tally.retries), tally.failures))


class ServerProcesses:
    """``PROCS`` bench server processes, started once; ``run`` splits the tables between
    them (table *i* to process *i* mod the count) and starts their windows together, once
    every process has warmed its tables up."""

    def __init__(self, count: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipes = []
        self.procs = []
        for _ in range(count):
            ours, theirs = context.Pipe()
            proc = context.Process(target=_server_process, args=(theirs,), daemon=True)
            proc.start()
            self.pipes.append(ours)
            self.procs.append(proc)

    def run(self, tables: list[tuple[int, list]], seconds: float, tally: Tally) -> tuple[int, int, float, float]:
        """(hands, steps, wall seconds, CPU seconds) of every process together: the
        steps summed, the wall the longest window, the CPU the processes' sum."""
        shares = [tables[i :: len(self.pipes)] for i in range(len(self.pipes))]
        busy = [
            (pipe, [(t, [p.pk for p in players]) for t, players in share])
            for pipe, share in zip(self.pipes, shares)
            if share
        ]
        for pipe, share in busy:
            pipe.send((share, seconds))
        for pipe, _ in busy:
            pipe.recv()  # "ready": its tables played their warm-up hands (a dead process raises EOFError)
        for pipe, _ in busy:
            pipe.send("go")
        hands = steps = 0
        wall = cpu = 0.0
        for pipe, _ in busy:
            (h, s, w, c) = self._merge(tally, pipe.recv())
            hands, steps, wall, cpu = hands + h, steps + s, max(wall, w), cpu + c
        return hands, steps, wall, cpu

    @staticmethod
    def _merge(tally: Tally, answer) -> tuple[int, int, float, float]:
        result, retries, failures = answer
        for name, count in retries.items():
            tally.retries[name] += count
        tally.failures.extend(failures)
        return result

    def stop(self) -> None:
        for pipe in self.pipes:
            try:
                pipe.send(None)
            except OSError:
                pass
        for proc in self.procs:
            proc.join(30)
            if proc.is_alive():
                proc.kill()


def _backend_cpu(connection):
    """A function returning the CPU seconds the session's PostgreSQL backend has used so
    far, when the server runs on this machine (its ``/proc``); else ``None``."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    path = f"/proc/{pid}/stat"

    def used() -> float:
        fields = open(path).read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

    try:
        used()
    except OSError:  # another machine's server, or not ours to read
        return None
    return used


def cost_of_a_hand(table_id: int, players: list, hands: int = 40) -> dict:
    """What a hand costs, averaged over ``hands`` hands played by one worker alone: SQL
    statements (inside transactions and in autocommit), commits, and where its wall time
    goes: this process's CPU (the step's Python, with libpq and the kernel's side of the
    socket, and the loop sending its events), the PostgreSQL backend's CPU (a local
    server), and the rest, when neither runs (the commit's WAL flush, wake-ups).
    ``per_call`` breaks the first hand down by service call."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    users = [get_user_model().objects.get(pk=p.pk) for p in players]
    n = {"in_txn": 0, "autocommit": 0, "commits": 0}
    per_call: list[tuple[str, int, int]] = []
    mark = [0, 0]

    committing = [False]  # a statement the commit sends (a write held for it) is its transaction's

    def count(execute, sql, params, many, context):
        n["in_txn" if context["connection"].in_atomic_block or committing[0] else "autocommit"] += 1
        return execute(sql, params, many, context)

    def on_call(name: str) -> None:
        statements = n["in_txn"] + n["autocommit"]
        per_call.append((name, statements - mark[0], n["commits"] - mark[1]))
        mark[0], mark[1] = statements, n["commits"]

    original_commit = connection.commit

    def commit():
        n["commits"] += 1
        committing[0] = True
        try:
            return original_commit()
        finally:
            committing[0] = False

    connection.commit = commit
    try:
        with connection.execute_wrapper(count):
            with CaptureQueriesContext(connection) as captured:
                play_hand(table_id, users, Tally(), on_call=on_call)
            backend_cpu = _backend_cpu(connection)
            backend_started = backend_cpu() if backend_cpu else 0.0
            started, cpu_started = time.perf_counter(), time.process_time()
            for _ in range(hands - 1):
                play_hand(table_id, users, Tally())
            # the first hand ran with the query log on; time the others only
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
            backend = backend_cpu() - backend_started if backend_cpu else None
    finally:
        del connection.commit
    first_db = sum(q for _, q, _ in per_call)  # statements of the first hand
    # Django also logs BEGIN and COMMIT among the captured queries; commits are counted apart.
    verbs = [q["sql"].lstrip().split(None, 1)[0].upper() for q in captured.captured_queries]
    kinds = Counter(v for v in verbs if v not in ("BEGIN", "COMMIT", "ROLLBACK"))
    timed = (hands - 1) * STEPS_PER_HAND
    return {
        "queries": (n["in_txn"] + n["autocommit"]) / hands,
        "in_transaction": n["in_txn"] / hands,
        "autocommit": n["autocommit"] / hands,
        "commits": n["commits"] / hands,
        "savepoints": (kinds["SAVEPOINT"] + kinds["RELEASE"]),
        "first_hand_statements": first_db,
        "kinds": kinds,
        "per_call": per_call,
        "ms_per_hand": wall / (hands - 1) * 1000,
        "ms_per_step": wall / timed * 1000,
        "python_ms_per_step": cpu / timed * 1000,
        "postgres_ms_per_step": None if backend is None else backend / timed * 1000,
    }


def reconciles() -> list[str]:
    from jackpot.models import JackpotPool
    from jackpot.selectors import ledger_total, pool_reconcile
    from wallets.models import Account, Leg
    from wallets.selectors import SIGNED_SUM

    problems = []
    for pool in JackpotPool.objects.all():
        problems += pool_reconcile(pool=pool).problems
    if (total := ledger_total()) != 0:
        problems.append(f"the ledger sums to {total}, not 0")
    # Every account's legs summed in one query (a query per account took minutes among
    # the population's 100,000 accounts).
    legs = dict(
        Leg.objects.order_by().values("account_id").annotate(total=SIGNED_SUM).values_list("account_id", "total")
    )
    for pk, code, balance in Account.objects.values_list("pk", "code", "balance"):
        if balance != legs.get(pk, 0):
            problems.append(f"{code}: balance {balance} but legs {legs.get(pk, 0)}")
    return problems


# --- the report ---------------------------------------------------------------------------


def main() -> int:
    url = os.environ.get("DATABASE_URL", "")
    if not url:
        print("Set DATABASE_URL to a PostgreSQL server (the bench creates and drops its own database).")
        return 2
    params = server_params(url)
    recreate_database(params, BENCH_DB)
    try:
        django_setup(url, BENCH_DB)
        from django.conf import settings
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SHOW server_version")
            version = cursor.fetchone()[0]
            cursor.execute("SHOW synchronous_commit")
            sync = cursor.fetchone()[0]
        layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
        timers = getattr(settings, "CASINO_TIMERS", "none")
        make_population(POPULATION)  # first: the bench's players are the newest
        tables = make_tables(max(CLIENTS))
        pgbench_init(params)
        tally = Tally()
        runs, tps = {}, {}
        servers = ServerProcesses(PROCS)
        try:
            for workers in CLIENTS:
                rounds = []
                for _ in range(ROUNDS):  # the steps, then pgbench, seconds apart
                    hands, steps, wall, cpu = servers.run(tables[:workers], SECONDS, tally)
                    rounds.append((hands, steps, wall, cpu, pgbench_tps(params, workers, max(1, round(SECONDS)))))
                runs[workers] = rounds
        finally:
            servers.stop()
        cost = in_server_threads((cost_of_a_hand, tables[0]))[0]
        problems = reconciles() + tally.failures
        connection.close()
    finally:
        from django.db import connections

        connections.close_all()
        drop_database(params, BENCH_DB)
        drop_database(params, PGBENCH_DB)

    print(
        f"Settlement throughput: PostgreSQL {version} at {params['host']}:{params['port']}, "
        f"synchronous_commit={sync}, {os.cpu_count()} CPUs, {PROCS} server process{'es' if PROCS > 1 else ''} "
        f"(a table in one), channel layer {layer}, timers {timers}, "
        f"{ROUNDS} rounds of {SECONDS:g} s of steps then {SECONDS:g} s of pgbench at each client count (medians)"
    )
    print("A hand: 4 seats, 4 antes with the jackpot chip -> deal -> 4 fold/raise -> settle (+ next hand opened).")
    print(f"The casino around the tables: {POPULATION:,} other players with their accounts (BENCH_PLAYERS).")
    print()
    print(
        f"{'clients':>7} {'steps':>7} {'seconds':>8} {'steps/s':>9} {'hands/s':>9} {'python CPU':>11} "
        f"{'pgbench tps':>12} {'steps/s / tps':>14}   (the median round; each round's ratio = steps/s / tps, "
        "and the servers' CPU a step)"
    )
    ratios, rates = {}, {}
    for workers, rounds in runs.items():
        per_round = sorted(rounds, key=lambda r: r[1] / r[2] / r[4])  # by the round's ratio
        hands, steps, wall, cpu, round_tps = per_round[len(per_round) // 2]  # the median round
        rates[workers] = statistics.median(r[1] / r[2] for r in rounds)
        tps[workers] = statistics.median(r[4] for r in rounds)
        ratios[workers] = steps / wall / round_tps
        # Each round's own figures: which side moved (the steps' CPU, or pgbench's commits).
        spread = "; ".join(
            f"{r[1] / r[2] / r[4]:.3f} = {r[1] / r[2]:.0f} / {r[4]:.0f}, {1000 * r[3] / max(r[1], 1):.2f} ms"
            for r in rounds
        )
        print(
            f"{workers:>7} {steps:>7} {wall:>8.2f} {steps / wall:>9.1f} {hands / wall:>9.2f} {cpu / wall:>10.0%} "
            f"{round_tps:>12.1f} {ratios[workers]:>14.3f}   (rounds: {spread})"
        )
    first = min(CLIENTS)
    scales = all(rates[c] >= rates[first] for c in CLIENTS)
    met = ratios[first] >= TARGET_RATIO and scales
    print()
    print(
        f"ratio steps/s / tps at {first} client: {ratios[first]:.3f} (target >= {TARGET_RATIO}); "
        f"steps/s at {', '.join(str(c) for c in CLIENTS)} clients: "
        f"{' / '.join(f'{rates[c]:.0f}' for c in CLIENTS)} ({'scaling' if scales else 'NOT scaling'}); "
        f"{'meets' if met else 'MISSES'} the target"
    )
    print()
    print("What a hand costs (one worker alone; pgbench's TPC-B transaction is 5 statements and 1 commit):")
    print(
        f"  SQL statements {cost['queries']:>6.1f}  ({cost['in_transaction']:.1f} inside transactions, "
        f"{cost['autocommit']:.1f} in autocommit; savepoints {cost['savepoints']} in the first hand)"
    )
    print(
        f"  commits        {cost['commits']:>6.1f}  (write transactions: one per player action, "
        f"each a WAL flush at synchronous_commit={sync})"
    )
    print(f"  wall time      {cost['ms_per_hand']:>6.1f} ms")
    print("  statements by verb (first hand): " + ", ".join(f"{k} {v}" for k, v in cost["kinds"].most_common()))
    print(f"  {'first hand, per step':<30} {'statements':>10} {'commits':>8}")
    for name, queries, commits in cost["per_call"]:
        print(f"  {name:<30} {queries:>10} {commits:>8}")
    statement_rate = tps[1] * 5
    print(
        f"  ceilings from pgbench's own rates: ~{statement_rate / cost['queries'] * STEPS_PER_HAND:.0f} steps/s if "
        f"bound by statements ({statement_rate:.0f}/s), ~{tps[1] / cost['commits'] * STEPS_PER_HAND:.0f} steps/s if "
        f"bound by commits"
    )
    step, python, postgres = cost["ms_per_step"], cost["python_ms_per_step"], cost["postgres_ms_per_step"]
    where = (
        f"this process's CPU {python:.2f} ms (the step's Python with libpq and its socket calls, the events' sending)"
    )
    if postgres is not None:
        where += (
            f", the PostgreSQL backend's CPU {postgres:.2f} ms, neither {max(0.0, step - python - postgres):.2f} ms "
            "(the commit's WAL flush, wake-ups)"
        )
    print(
        f"  a step: {cost['queries'] / STEPS_PER_HAND:.1f} statements, {step:.2f} ms: {where} "
        f"(a TPC-B transaction at -c 1: {1000 / tps[1]:.2f} ms)"
    )
    if tally.retries:
        print("  retried after the database aborted a step: " + ", ".join(f"{k} {v}" for k, v in tally.retries.items()))
    if problems:
        print()
        for problem in problems:
            print(f"FAILED {problem}")
        return 2
    print("Ledger and jackpot reconcile after the runs.")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
