"""Verifying a million-transaction ledger: time and peak memory of ``verify_ledger``.

Run from the repository root with PostgreSQL configured:
``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino .venv/bin/python bench/bench_verify.py``

It creates its own database (``casino_bench_verify``, migrated from scratch) on the server
that ``DATABASE_URL`` names and drops it at the end. It loads ``BENCH_TRANSACTIONS``
(default 1,000,000) ledger transactions with valid MACs, ~2.5 legs each, the way
``bench_export.py`` does (deposits, bets and settlements of 5,000 players at 20 tables,
COPY by two writers, every trigger and CHECK on), seals them all with the product's
sealer (``wallets.integrity.ledger_seal``, which drains its backlog in batches), then
verifies the whole ledger through the product's code (``ledger_verify``: one
REPEATABLE READ snapshot, every MAC recomputed, the chain walked), each run in a fresh
child process so that its memory is its own:

- ``verify``: time, transactions/s and the child's peak RSS (``VmHWM`` reset just before);
- ``verify traced``: the same under ``tracemalloc``, for the Python heap's peak (tracing
  slows it down; its time is not the figure).

Baselines, in the same run, ``psql`` reading to /dev/null (the cost of the reading alone,
that no check can beat):

- ``psql read``: every transaction with its legs (transactions LEFT JOIN legs, in order)
  and every seal with its transaction's MAC, as one ordered read each;
- ``psql tables``: each row once, as the check now reads them: the transactions with
  their seals, the legs by transaction, the seals in order.

Targets: peak RSS < 150 MB and heap peak < 50 MB, however long the ledger (keeping
every MAC took ~150 MB of heap a million transactions); the report finds no problem.
Exit status: 0 met, 1 missed, 2 the check reports a problem (or the set-up fails).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_export  # noqa: E402  (the same loader and scratch-database helpers)
from bench_export import database_url, django_setup, load_ledger, proc_status_mb, psql_binary, reset_peak_rss, rss_mb  # noqa: E402
from bench_settlement import admin, server_params  # noqa: E402

BENCH_DB = "casino_bench_verify"
TRANSACTIONS = int(os.environ.get("BENCH_TRANSACTIONS", "1000000"))
TARGET_RSS_MB = 150
TARGET_HEAP_MB = 50
TARGET_RATE = 0.5  # the verification's rate against the psql read (reported, not an exit status)

READ_SQL = (
    "COPY (SELECT t.id, t.idempotency_key, t.kind, t.memo, t.created_at, t.actor_id, t.table_ref, t.hand_ref,"
    " t.reverses_id, t.mac, l.account_id, l.side, l.amount FROM wallets_transaction t"
    " LEFT JOIN wallets_leg l ON l.transaction_id = t.id ORDER BY t.id, l.id) TO STDOUT",
    "COPY (SELECT s.seq, s.transaction_id, s.prev_hash, s.hash,"
    " (SELECT t.mac FROM wallets_transaction t WHERE t.id = s.transaction_id) FROM wallets_ledgerseal s "
    "ORDER BY s.seq) TO STDOUT",
)
TABLES_SQL = (
    "COPY (SELECT t.id, t.idempotency_key, t.kind, t.memo, t.created_at, t.actor_id, t.table_ref, t.hand_ref,"
    " t.reverses_id, t.mac, s.seq, s.prev_hash, s.hash FROM wallets_transaction t"
    " LEFT JOIN wallets_ledgerseal s ON s.transaction_id = t.id ORDER BY t.id) TO STDOUT",
    "COPY (SELECT transaction_id, account_id, side, amount FROM wallets_leg ORDER BY transaction_id) TO STDOUT",
    "COPY (SELECT seq, prev_hash, hash FROM wallets_ledgerseal ORDER BY seq) TO STDOUT",
)


def legs_for(transactions: int) -> int:
    """``load_ledger`` takes legs: a deposit (2 legs) per player, then cycles of a bet (2)
    and a settlement (3), two transactions a cycle."""
    cycles = max(0, (transactions - bench_export.PLAYERS) // 2)
    return 2 * bench_export.PLAYERS + 5 * cycles


def psql_read(params: dict, statements: tuple[str, ...] = READ_SQL) -> dict:
    env = dict(os.environ)
    if params["password"]:
        env["PGPASSWORD"] = params["password"]
    size = 0
    started = time.perf_counter()
    for sql in statements:
        command = [
            psql_binary(),
            "-X",
            "-q",
            "-h",
            params["host"],
            "-p",
            str(params["port"]),
            "-U",
            params["user"],
            "-d",
            BENCH_DB,
            "-c",
            sql,
        ]
        with subprocess.Popen(command, env=env, stdout=subprocess.PIPE) as process:
            while block := process.stdout.read(1 << 20):
                size += len(block)
        if process.returncode:
            raise SystemExit(f"psql failed with status {process.returncode}")
    return {"seconds": time.perf_counter() - started, "bytes": size}


def child(mode: str) -> None:
    """One verification in this (fresh) process; its figures as JSON."""
    django_setup(os.environ["DATABASE_URL"], migrate=False)
    import tracemalloc

    from django.db import connection

    from wallets.integrity import ledger_verify

    connection.ensure_connection()
    before = proc_status_mb("VmRSS") or rss_mb()
    peak_was_reset = reset_peak_rss()
    traced = mode == "verify traced"
    if traced:
        tracemalloc.start()
    started = time.perf_counter()
    report = ledger_verify()
    elapsed = time.perf_counter() - started
    heap_peak = tracemalloc.get_traced_memory()[1] / 2**20 if traced else None
    print(
        json.dumps(
            {
                "mode": mode,
                "seconds": elapsed,
                "transactions": report.transactions,
                "sealed": report.sealed,
                "pending": report.pending,
                "problems": report.problems[:5],
                "rss_before_mb": before,
                "rss_peak_mb": (proc_status_mb("VmHWM") if peak_was_reset else None) or rss_mb(),
                "heap_peak_mb": heap_peak,
            }
        )
    )


def run_child(url: str, mode: str) -> dict:
    env = dict(os.environ, DATABASE_URL=url)
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode], env=env, check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    url = os.environ.get("DATABASE_URL")
    if not url:
        raise SystemExit("set DATABASE_URL to a PostgreSQL server (the bench makes its own database on it)")
    params = server_params(url)
    bench_url = database_url(url, BENCH_DB)
    admin(params, f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)', f'CREATE DATABASE "{BENCH_DB}"')
    try:
        django_setup(bench_url, migrate=True)
        from django.db import connection

        from wallets.integrity import ledger_seal

        started = time.perf_counter()
        loaded = load_ledger(legs_for(TRANSACTIONS))
        load_s = time.perf_counter() - started
        started = time.perf_counter()
        sealed = ledger_seal()
        seal_s = time.perf_counter() - started
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE wallets_ledgerseal")
            cursor.execute("SELECT COUNT(*) FROM wallets_transaction")
            transactions = cursor.fetchone()[0]
            cursor.execute("SELECT COUNT(*) FROM wallets_leg")
            legs = cursor.fetchone()[0]
            cursor.execute(
                "SELECT pg_size_pretty(pg_total_relation_size('wallets_leg') + "
                "pg_total_relation_size('wallets_transaction')"
                " + pg_total_relation_size('wallets_ledgerseal'))"
            )
            size = cursor.fetchone()[0]
        connection.close()
        print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
        print(
            f"PostgreSQL {params['host']}:{params['port']}/{BENCH_DB}: {transactions:,} transactions, "
            f"{legs:,} legs ({size}); "
            f"loaded in {load_s:.1f} s; sealed {sealed:,} in {seal_s:.1f} s ({sealed / max(seal_s, 1e-9):,.0f}/s)"
        )
        if transactions != loaded["transactions"] or sealed != transactions:
            print("the ledger did not load or seal whole")
            return 2

        baseline = psql_read(params)
        tables = psql_read(params, TABLES_SQL)
        results = [run_child(bench_url, mode) for mode in ("verify", "verify traced")]
        print()
        print(
            f"{'run':<14} {'transactions':>12} {'seconds':>8} {'txn/s':>9} {'÷ read':>7} {'RSS peak':>9} "
            f"{'RSS +':>7} {'heap peak':>10}"
        )
        print(
            f"{'psql read':<14} {transactions:>12,} {baseline['seconds']:>8.2f} "
            f"{transactions / baseline['seconds']:>9,.0f} {'1.00':>7}"
        )
        print(
            f"{'psql tables':<14} {transactions:>12,} {tables['seconds']:>8.2f} "
            f"{transactions / tables['seconds']:>9,.0f} "
            f"{baseline['seconds'] / tables['seconds']:>7.2f}"
        )
        missed = False
        for r in results:
            rate = r["transactions"] / r["seconds"]
            ratio = f"{baseline['seconds'] / r['seconds']:.2f}" if r["mode"] == "verify" else "(traced)"
            heap = f"{r['heap_peak_mb']:.1f} MB" if r["heap_peak_mb"] is not None else ""
            print(
                f"{r['mode']:<14} {r['transactions']:>12,} {r['seconds']:>8.2f} {rate:>9,.0f} {ratio:>7} "
                f"{r['rss_peak_mb']:>6.0f} MB {r['rss_peak_mb'] - r['rss_before_mb']:>4.0f} MB {heap:>10}"
            )
            if r["problems"] or r["transactions"] != transactions or r["sealed"] != transactions:
                print(
                    f"{r['mode']}: the check reports {r['problems']} ({r['sealed']:,} sealed of {r['transactions']:,})"
                )
                return 2
            if r["rss_peak_mb"] >= TARGET_RSS_MB or (r["heap_peak_mb"] or 0) >= TARGET_HEAP_MB:
                missed = True
        verify_s = next(r["seconds"] for r in results if r["mode"] == "verify")
        print()
        print(
            f"verify's rate ÷ psql read {baseline['seconds'] / verify_s:.2f} (target ≥ {TARGET_RATE:.2f}), "
            f"÷ psql tables {tables['seconds'] / verify_s:.2f}"
        )
        print(
            f"every MAC and the whole chain verify; target: peak RSS < {TARGET_RSS_MB} MB, heap peak < "
            f"{TARGET_HEAP_MB} MB: "
            f"{'missed' if missed else 'met'}"
        )
        return 1 if missed else 0
    finally:
        from django.db import connections

        connections.close_all()
        admin(params, f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        sys.exit(main())
