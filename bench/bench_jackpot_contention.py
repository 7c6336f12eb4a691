"""Settlement throughput as more tables share one jackpot meter: 1, 4 and 16 table workers.

Run from the repository root with PostgreSQL configured:
``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino .venv/bin/python bench/bench_jackpot_contention.py``

Every worker is a thread with its own connection and its own table of four players, all
tables on one pool, every seat with the jackpot chip: each hand's deal adds to the same
meter row (and reserve row), which each deal locks until it commits. For each worker
count it prints hands per second, how long the meter row was waited for and held per
locking transaction, and how busy the row was (locks per second x hold time: 100 % means
the meter admits no more hands). Then the ratio of 16-worker to 1-worker throughput
(target >= 0.70).

After every run it proves that nothing was lost: the pool reconciles from the ledger
(``pool_reconcile``), the ledger sums to zero, every dealt hand contributed exactly once
and the meter's contribution credits equal the sum of every hand's meter share. Database
aborts (deadlocks, serialization failures) are counted and the step retried.

Exit status: 0 when the ratio meets its target, 1 when it misses, 2 when anything does
not reconcile or a worker failed. Uses its own database ``casino_bench_contention``.
"""

from __future__ import annotations

import os
import sys
import threading
import time

import bench_settlement as common

DATABASE = "casino_bench_contention"
WORKERS = (1, 4, 16)
SECONDS = float(os.environ.get("BENCH_SECONDS", "8"))
TARGET_RATIO = 0.70


class MeterProbe:
    """Times, per connection, the wait for the meter row lock and how long it is held (to the end of COMMIT)."""

    def __init__(self, meter_id: int) -> None:
        self.meter_id = meter_id
        self.lock = threading.Lock()
        self.transactions = 0
        self.wait = 0.0
        self.hold = 0.0
        self.max_wait = 0.0

    def install(self):
        """In a worker thread: returns a context manager that instruments this thread's connection."""
        from django.db import connection

        probe = self
        local = {"locked_at": None, "waited": 0.0}

        def wrapper(execute, sql, params, many, context):
            # Only a lock on wallets_account rows by id can take the meter: the table lock
            # (FROM tables_table, joining its house account) and the players' accounts lock
            # (by owner) never do, though their parameters may hold the same number.
            locks_meter = (
                "FOR UPDATE" in sql
                and 'FROM "wallets_account"' in sql
                and '"owner_id" IN' not in sql
                and params is not None
                and probe.meter_id in params
            )
            started = time.perf_counter()
            result = execute(sql, params, many, context)
            if locks_meter and local["locked_at"] is None:
                local["locked_at"] = time.perf_counter()
                local["waited"] = local["locked_at"] - started
            return result

        original_commit, original_rollback = connection.commit, connection.rollback

        def commit():
            try:
                return original_commit()
            finally:
                if local["locked_at"] is not None:
                    held = time.perf_counter() - local["locked_at"]
                    with probe.lock:
                        probe.transactions += 1
                        probe.hold += held
                        probe.wait += local["waited"]
                        probe.max_wait = max(probe.max_wait, local["waited"])
                    local["locked_at"] = None

        def rollback():
            local["locked_at"] = None
            return original_rollback()

        class Installed:
            def __enter__(self_inner):
                connection.commit, connection.rollback = commit, rollback
                self_inner.wrapper = connection.execute_wrapper(wrapper)
                self_inner.wrapper.__enter__()

            def __exit__(self_inner, *exc):
                self_inner.wrapper.__exit__(*exc)
                del connection.commit, connection.rollback

        return Installed()


def run(tables, seconds: float, probe: MeterProbe, tally: common.Tally) -> tuple[int, float, float]:
    """Each table played by its own thread for ``seconds``; (hands, wall seconds, process CPU seconds)."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    barrier = threading.Barrier(len(tables) + 1)
    stop = threading.Event()
    counts = [0] * len(tables)
    measuring = threading.Event()

    def work(index: int, table_id: int, players: list) -> None:
        try:
            users = [get_user_model().objects.get(pk=p.pk) for p in players]
            common.play_hand(table_id, users, tally)  # warm up: connection, caches
            barrier.wait()
            with probe.install():
                while not stop.is_set():
                    common.play_hand(table_id, users, tally)
                    if measuring.is_set():
                        counts[index] += 1
        except threading.BrokenBarrierError:
            pass
        except Exception as exc:  # noqa: BLE001 - reported by the main thread
            tally.fail(f"table {table_id}: {type(exc).__name__}: {exc}")
            barrier.abort()
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(i, t, p), daemon=True) for i, (t, p) in enumerate(tables)]
    for thread in threads:
        thread.start()
    try:
        barrier.wait()
    except threading.BrokenBarrierError:
        pass
    measuring.set()
    started, cpu_started = time.perf_counter(), time.process_time()
    stop.wait(seconds)
    stop.set()
    for thread in threads:
        thread.join(120)
    return sum(counts), time.perf_counter() - started, time.process_time() - cpu_started


def nothing_lost(pool) -> list[str]:
    """Reconcile the pool and prove every dealt hand contributed its meter share exactly once."""
    from django.db.models import Sum

    from jackpot.selectors import ledger_total, pool_reconcile
    from jackpot.services import contribution_split
    from tables.models import Hand
    from wallets.models import Leg, Transaction

    problems = list(pool_reconcile(pool=pool).problems)
    if (total := ledger_total()) != 0:
        problems.append(f"the ledger sums to {total}, not 0")
    dealt = (
        Hand.objects.filter(table__pool=pool, state__in=[Hand.State.DECISIONS, Hand.State.SETTLED])
        .annotate(bets=Sum("hand_seats__jackpot_bet"))
        .values_list("pk", "bets")
    )
    expected_meter = expected_reserve = 0
    with_bets = set()
    for hand_id, bets in dealt:
        if bets:
            meter, reserve, _ = contribution_split(pool=pool, total=bets)
            expected_meter, expected_reserve = expected_meter + meter, expected_reserve + reserve
            with_bets.add(hand_id)
    contributions = Transaction.objects.filter(kind=Transaction.Kind.JACKPOT_CONTRIBUTION)
    contributed = set(contributions.values_list("hand_ref", flat=True))
    if contributions.count() != len(with_bets) or contributed != with_bets:
        problems.append(
            f"{len(with_bets)} hands dealt with jackpot bets, {contributions.count()} contributions "
            f"(missing {sorted(with_bets - contributed)[:5]}, unexpected {sorted(contributed - with_bets)[:5]})"
        )
    for account_id, expected, name in (
        (pool.meter_account_id, expected_meter, "meter"),
        (pool.reserve_account_id, expected_reserve, "reserve"),
    ):
        got = (
            Leg.objects.filter(
                account_id=account_id, side=Leg.Side.CREDIT, transaction__kind=Transaction.Kind.JACKPOT_CONTRIBUTION
            ).aggregate(t=Sum("amount"))["t"]
            or 0
        )
        if got != expected:
            problems.append(f"the {name} received {got} in contributions, the hands' shares add up to {expected}")
    return problems


def main() -> int:
    url = os.environ.get("DATABASE_URL", "")
    if not url:
        print("Set DATABASE_URL to a PostgreSQL server (the bench creates and drops its own database).")
        return 2
    params = common.server_params(url)
    common.recreate_database(params, DATABASE)
    rows = []
    problems: list[str] = []
    try:
        common.django_setup(url, DATABASE)
        from django.conf import settings
        from django.db import connection

        from jackpot.models import JackpotPool

        tables = common.make_tables(max(WORKERS))
        pool = JackpotPool.objects.get()
        for workers in WORKERS:
            tally = common.Tally()
            probe = MeterProbe(pool.meter_account_id)
            hands, wall, cpu = run(tables[:workers], SECONDS, probe, tally)
            found = tally.failures + nothing_lost(pool)
            problems += [f"{workers} workers: {p}" for p in found]
            rows.append((workers, hands, wall, cpu, probe, dict(tally.retries), not found))
        layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
        timers = getattr(settings, "CASINO_TIMERS", "none")
        with connection.cursor() as cursor:
            cursor.execute("SHOW server_version")
            version = cursor.fetchone()[0]
    finally:
        from django.db import connections

        connections.close_all()
        common.drop_database(params, DATABASE)

    print(
        f"Jackpot contention: PostgreSQL {version} at {params['host']}:{params['port']}, {os.cpu_count()} CPUs, "
        f"channel layer {layer}, timers {timers}, {SECONDS:g} s per run"
    )
    print("Every worker: its own table, 4 seats, every seat with the jackpot chip, one shared pool (meter row).")
    print()
    print(
        f"{'workers':>7} {'hands':>6} {'hands/s':>8} {'per worker':>10} {'python CPU':>10} "
        f"{'meter locks/s':>13} {'wait ms':>8} {'max wait':>8} {'hold ms':>8} {'meter busy':>10} "
        f"{'aborts':>7} {'reconciles':>10}"
    )
    rates = {}
    for workers, hands, wall, cpu, probe, retries, ok in rows:
        rate = rates[workers] = hands / wall
        locks = probe.transactions / wall
        wait = probe.wait / max(probe.transactions, 1) * 1000
        hold = probe.hold / max(probe.transactions, 1) * 1000
        busy = probe.hold / wall
        aborts = sum(retries.values())
        print(
            f"{workers:>7} {hands:>6} {rate:>8.1f} {rate / workers:>10.2f} {cpu / wall:>9.0%} "
            f"{locks:>13.1f} {wait:>8.2f} {probe.max_wait * 1000:>8.1f} {hold:>8.2f} {busy:>9.0%} "
            f"{aborts:>7} {'yes' if ok else 'NO':>10}"
        )
        if retries:
            print(f"{'':>7} database aborts, retried: " + ", ".join(f"{k} {v}" for k, v in retries.items()))
    ratio = rates[max(WORKERS)] / rates[min(WORKERS)] if rates.get(min(WORKERS)) else 0.0
    verdict = "meets" if ratio >= TARGET_RATIO else "MISSES"
    print()
    print(
        f"ratio {max(WORKERS)}-worker / {min(WORKERS)}-worker throughput: {ratio:.2f}, {verdict} the target >= "
        f"{TARGET_RATIO}"
    )
    print(
        "(meter busy = share of the run during which some transaction held the meter row; near 100 % the "
        "shared row, not the server, bounds throughput)"
    )
    if problems:
        print()
        for problem in problems:
            print(f"FAILED {problem}")
        return 2
    print("After every run: the pool reconciles, the ledger sums to zero, every dealt hand contributed once.")
    return 0 if ratio >= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
