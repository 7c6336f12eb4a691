"""The staff's pages and the players' at two sizes of history: how their time grows.

Run from the repository root with PostgreSQL configured:
``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino .venv/bin/python bench/bench_history.py``

It creates its own database (``casino_bench_history``, migrated from scratch, anew for each
size) on the server ``DATABASE_URL`` names and drops it at the end. The casino is grown
through the product's own services: tables, funded players and a day of Caribbean hands
played step by step (``tables.services.hands``), jackpot contributions included. That day
is moved ``BENCH_DAYS`` + 1 days back (its MACs recomputed) and copied fast into each of
the ``BENCH_DAYS`` days after it, oldest first, as many times a day as the size needs:
every hand, seat, transaction and leg copied with its time moved, a new key and a MAC of
its own (the ledger verifies), every trigger and CHECK on. Then today is played through
the services (the open day the pages read live), and the periodic work runs as beat
would: the sealer, the closed days' rollups, the ledger's checkpoint.

At each size in ``BENCH_SIZES`` (ledger legs; default 20,000 and 200,000, a few minutes;
the goal's 1,000,000 and 10,000,000 with ``BENCH_SIZES=1000000,10000000``) it times every page warm
(a first call, then the median of 3), through Django's whole stack as its user: the
auditor's ledger (newest, by a player), reports (last 30 days, all time), the jackpot
pools and a pool's history, a player's page, the poker rake, the integrity page; a
player's wallet and hand history. Apart, their own lines: the full verification (in the
background on the site) against a ``psql`` read of the rows it reads.

Prints a table, then last one line: ``worst growth <factor> slowest <ms> ms`` (the largest
ratio of a page's time at the larger size to the smaller, and the slowest page there).
Goal: worst growth ≤ 1.5 and slowest ≤ 300 ms. Exit status: 0 met, 1 missed, 2 the set-up
failed or the ledger does not verify.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_export import database_url, django_setup, psql_binary  # noqa: E402
from bench_settlement import Tally, admin, make_tables, play_hand, server_params  # noqa: E402

BENCH_DB = "casino_bench_history"
SIZES = [int(s) for s in os.environ.get("BENCH_SIZES", "20000,200000").split(",")]
DAYS = int(os.environ.get("BENCH_DAYS", "30"))
TABLES = 2
HANDS = int(os.environ.get("BENCH_HANDS", "20"))  # the played day's hands per table, and today's
RUNS = 3
GOAL_GROWTH = 1.5
# BENCH_KEEP=1 keeps each size's casino as casino_bench_history_<size>; BENCH_REUSE=1 times
# a kept one again instead of growing it anew.
KEEP = bool(os.environ.get("BENCH_KEEP"))
REUSE = bool(os.environ.get("BENCH_REUSE"))


def kept_name(size: int) -> str:
    return f"{BENCH_DB}_{size}"


def close_connections() -> None:
    """Close this process's connections, the pooled ones too (a pool keeps them open)."""
    from django.db import connections

    for conn in connections.all():
        conn.close()
        if conn.vendor == "postgresql":
            conn.close_pool()


def rename_database(params: dict, old: str, new: str) -> None:
    """Rename a database once the sessions just closed on it have ended (their server
    processes exit a moment after the client closes)."""
    import psycopg

    for attempt in range(50):
        try:
            admin(params, f'ALTER DATABASE "{old}" RENAME TO "{new}"')
            return
        except psycopg.errors.ObjectInUse:
            if attempt == 49:
                raise
            time.sleep(0.2)


def database_exists(params: dict, name: str) -> bool:
    import psycopg

    with psycopg.connect(dbname="postgres", autocommit=True, **params) as conn:
        return conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is not None


GOAL_SLOWEST_MS = 300.0


def grow_played_day() -> dict:
    """Tables, players and a day of hands, all through the product's services."""
    from django.contrib.auth import get_user_model

    from wallets.services import cashier_deposit

    tables = make_tables(TABLES)
    cashier = get_user_model().objects.get(username="bench-cashier")
    for _, players in tables:
        for player in players:  # enough for every copied day's losses
            cashier_deposit(cashier=cashier, player=player, amount=10**12, idempotency_key=f"bench-more-{player.pk}")
    tally = Tally()
    for _ in range(HANDS):
        for table_id, players in tables:
            play_hand(table_id, players, tally)
    return {"tables": tables, "player": tables[0][1][0]}


def _columns(model) -> list[str]:
    return [f.column for f in model._meta.concrete_fields]


def copy_days(*, played: dict, legs_wanted: int, days: int, age: int) -> int:
    """The played day (rows with ids in ``played``'s ranges, moved ``age`` days back)
    copied into each of the ``days`` days after it, oldest first (ids grow with time, as
    they do), as many times a day as ``legs_wanted`` legs need; how many copies."""
    from django.db import connection, transaction

    from tables.models import Hand, HandSeat
    from wallets.integrity import transaction_mac
    from wallets.models import Leg, Transaction

    hand_cols, seat_cols, txn_cols, leg_cols = (_columns(m) for m in (Hand, HandSeat, Transaction, Leg))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join(hand_cols)} FROM tables_hand WHERE id > %s AND id <= %s AND state = "
            "'settled' ORDER BY id",
            played["hands"],
        )
        hands = cursor.fetchall()
        hand_ids = [h[0] for h in hands]
        cursor.execute(
            f"SELECT {', '.join(seat_cols)} FROM tables_handseat WHERE hand_id = ANY(%s) ORDER BY id", [hand_ids]
        )
        seats = cursor.fetchall()
        cursor.execute(
            f"SELECT {', '.join(txn_cols)} FROM wallets_transaction WHERE id > %s AND id <= %s AND game = 'caribbean'"
            " AND reverses_id IS NULL ORDER BY id",
            played["transactions"],
        )
        txns = cursor.fetchall()
        cursor.execute(
            f"SELECT {', '.join(leg_cols)} FROM wallets_leg WHERE transaction_id = ANY(%s) ORDER BY id",
            [[t[0] for t in txns]],
        )
        legs = cursor.fetchall()
        cursor.execute("SELECT max(nonce) FROM tables_hand")
        max_nonce = 10**9 + cursor.fetchone()[0]  # far from the tables' own next nonces
    hi, si, ti, li = (lambda cols: {c: n for n, c in enumerate(cols)} for _ in range(4))
    hi, si, ti, li = hi(hand_cols), si(seat_cols), ti(txn_cols), li(leg_cols)
    legs_of: dict[int, list] = {}
    for leg in legs:
        legs_of.setdefault(leg[li["transaction_id"]], []).append(leg)
    copies_per_day = max(1, -(-legs_wanted // (days * max(1, len(legs)))))
    copy = 0
    with connection.cursor() as cursor:
        cursor.execute("SELECT max(id) FROM tables_hand")
        next_hand = cursor.fetchone()[0] + 1
        cursor.execute("SELECT max(id) FROM tables_handseat")
        next_seat = cursor.fetchone()[0] + 1
        cursor.execute("SELECT max(id) FROM wallets_transaction")
        next_txn = cursor.fetchone()[0] + 1
        cursor.execute("SELECT max(id) FROM wallets_leg")
        next_leg = cursor.fetchone()[0] + 1
    for day in range(days, 0, -1):
        shift = -timedelta(days=age - day)  # moved forward from the played day's place
        for _ in range(copies_per_day):
            # A transaction per copy: each leg's trigger updates its account's balance, and
            # one transaction's updates of the same few house rows pile up versions of them.
            hand_rows, seat_rows, txn_rows, leg_rows = [], [], [], []
            copy += 1
            hand_map = {}
            for h in hands:
                row = list(h)
                hand_map[h[0]] = row[hi["id"]] = next_hand
                next_hand += 1
                max_nonce += 1
                row[hi["nonce"]] = max_nonce
                for name in ("opened_at", "betting_deadline", "dealt_at", "decision_deadline", "settled_at"):
                    if row[hi[name]] is not None:
                        row[hi[name]] -= shift
                hand_rows.append(row)
            for s in seats:
                row = list(s)
                row[si["id"]] = next_seat
                next_seat += 1
                row[si["hand_id"]] = hand_map[s[si["hand_id"]]]
                for name in ("bet_at", "history_at", "decision_deadline"):
                    if row[si[name]] is not None:
                        row[si[name]] -= shift
                seat_rows.append(row)
            for t in txns:
                row = list(t)
                row[ti["id"]] = next_txn
                row[ti["idempotency_key"]] = f"{t[ti['idempotency_key']]}~{copy}"
                row[ti["created_at"]] = t[ti["created_at"]] - shift
                if row[ti["hand_ref"]] is not None:
                    row[ti["hand_ref"]] = hand_map.get(row[ti["hand_ref"]], row[ti["hand_ref"]])
                mine = [(leg[li["account_id"]], leg[li["side"]], leg[li["amount"]]) for leg in legs_of.get(t[0], [])]
                row[ti["mac"]] = transaction_mac(
                    idempotency_key=row[ti["idempotency_key"]],
                    kind=row[ti["kind"]],
                    memo=row[ti["memo"]],
                    created_at=row[ti["created_at"]],
                    actor_id=row[ti["actor_id"]],
                    table_ref=row[ti["table_ref"]],
                    hand_ref=row[ti["hand_ref"]],
                    reverses_id=None,
                    legs=mine,
                )
                for leg in legs_of.get(t[0], []):
                    leg_row = list(leg)
                    leg_row[li["id"]] = next_leg
                    next_leg += 1
                    leg_row[li["transaction_id"]] = next_txn
                    leg_rows.append(leg_row)
                next_txn += 1
                txn_rows.append(row)
            with transaction.atomic(), connection.cursor() as cursor:
                for table, cols, rows in (
                    ("tables_hand", hand_cols, hand_rows),
                    ("tables_handseat", seat_cols, seat_rows),
                    ("wallets_transaction", txn_cols, txn_rows),
                    ("wallets_leg", leg_cols, leg_rows),
                ):
                    with cursor.copy(f"COPY {table} ({', '.join(cols)}) FROM STDIN") as out:
                        for row in rows:
                            out.write_row(row)
    with connection.cursor() as cursor:
        for table in ("tables_hand", "tables_handseat", "wallets_transaction", "wallets_leg"):
            cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
    return copy


def age_played_day(*, played: dict, days: int) -> None:
    """Move the played day ``days`` days back (hands, seats, transactions, with their MACs
    recomputed), as a superuser could, with the append-only guards off for it."""
    from django.db import connection, transaction

    from wallets.integrity import transaction_mac

    shift = timedelta(days=days)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        hand_range, txn_range = played["hands"], played["transactions"]
        cursor.execute(
            "UPDATE tables_hand SET opened_at = opened_at - %s, betting_deadline = betting_deadline - "
            "%s, dealt_at = dealt_at - %s,"
            " decision_deadline = decision_deadline - %s, settled_at = settled_at - %s WHERE id > %s AND id <= %s",
            [shift] * 5 + hand_range,
        )
        cursor.execute(
            "UPDATE tables_handseat SET bet_at = bet_at - %s, history_at = history_at - %s, "
            "decision_deadline = decision_deadline - %s"
            " WHERE hand_id > %s AND hand_id <= %s",
            [shift] * 3 + hand_range,
        )
        cursor.execute(
            "SELECT id, idempotency_key, kind, memo, created_at - %s, actor_id, table_ref, hand_ref, reverses_id"
            " FROM wallets_transaction WHERE id > %s AND id <= %s",
            [shift] + txn_range,
        )
        txns = cursor.fetchall()
        cursor.execute(
            "SELECT transaction_id, account_id, side, amount FROM wallets_leg WHERE transaction_id > %s "
            "AND transaction_id <= %s",
            txn_range,
        )
        legs: dict[int, list] = {}
        for txn_id, account_id, side, amount in cursor.fetchall():
            legs.setdefault(txn_id, []).append((account_id, side, amount))
        for txn_id, key, kind, memo, at, actor_id, table_ref, hand_ref, reverses_id in txns:
            mac = transaction_mac(
                idempotency_key=key,
                kind=kind,
                memo=memo,
                created_at=at,
                actor_id=actor_id,
                table_ref=table_ref,
                hand_ref=hand_ref,
                reverses_id=reverses_id,
                legs=legs.get(txn_id, []),
            )
            cursor.execute("UPDATE wallets_transaction SET created_at = %s, mac = %s WHERE id = %s", [at, mac, txn_id])
        cursor.execute("UPDATE jackpot_jackpothit SET created_at = created_at - %s", [shift])
        cursor.execute("SET LOCAL session_replication_role = origin")


def play_today(grown: dict) -> None:
    """Today's hands, through the services: the open day the pages read live."""
    tally = Tally()
    for _ in range(HANDS):
        for table_id, players in grown["tables"]:
            play_hand(table_id, players, tally)


def housekeeping() -> dict:
    """The periodic work, as beat runs it: seal, close the days, move the checkpoint on."""
    from django.db import connection

    from backoffice.rollups import rollups_close
    from wallets import integrity

    started = time.perf_counter()
    integrity.SEAL_AFTER = timedelta(0)
    integrity.ledger_seal()
    sealed = time.perf_counter()
    rollups_close()
    closed = time.perf_counter()
    check = integrity.ledger_checkpoint()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return {
        "seal_s": sealed - started,
        "close_s": closed - sealed,
        "checkpoint_s": time.perf_counter() - closed,
        "ok": check.ok,
    }


def legs_now() -> int:
    from wallets.models import Leg

    return Leg.objects.count()


def pages(grown: dict) -> list[tuple[str, object, str]]:
    """(name, user, url) of each page timed."""
    from django.contrib.auth import get_user_model
    from django.urls import reverse
    from django.utils import timezone

    from casino.access.policy import roles_install
    from casino.access.roles import AUDITOR
    from jackpot.models import JackpotPool

    users = get_user_model().objects
    auditor = users.filter(username="bench-auditor").first()
    if auditor is None:
        auditor = users.create_user(username="bench-auditor", password=None)
        auditor.groups.add(roles_install()[AUDITOR])
    player = grown["player"]
    today = timezone.localdate()
    pool = JackpotPool.objects.first()
    month = f"?date_from={(today - timedelta(days=29)).isoformat()}&date_to={today.isoformat()}"
    return [
        ("auditor: ledger, newest", auditor, reverse("staff-auditor-ledger")),
        ("auditor: ledger by a player", auditor, reverse("staff-auditor-ledger") + f"?player={player.username}"),
        ("reports, last 30 days", auditor, reverse("staff-auditor-reports") + month),
        ("reports, all time", auditor, reverse("staff-auditor-reports") + "?date_from=2000-01-01"),
        ("jackpot pools", auditor, reverse("staff-auditor-jackpot")),
        ("jackpot pool history", auditor, reverse("staff-auditor-pool", args=[pool.pk])),
        ("auditor: player page", auditor, reverse("staff-auditor-player", args=[player.pk])),
        ("poker rake, all days", auditor, reverse("staff-auditor-poker-rake")),
        ("integrity page", auditor, reverse("staff-auditor-integrity")),
        ("player: wallet", player, reverse("wallet")),
        ("player: hand history", player, reverse("hand-history")),
    ]


def time_pages(grown: dict) -> dict[str, float]:
    from django.test import Client

    timings = {}
    for name, user, url in pages(grown):
        client = Client()
        client.force_login(user)
        response = client.get(url, secure=True)
        if response.status_code != 200:
            raise SystemExit(f"{name}: {url} answered {response.status_code}")
        runs = []
        for _ in range(RUNS):
            started = time.perf_counter()
            client.get(url, secure=True)
            runs.append((time.perf_counter() - started) * 1000)
        timings[name] = statistics.median(runs)
    return timings


def full_verification(params: dict) -> dict:
    from wallets.integrity import ledger_check

    started = time.perf_counter()
    check = ledger_check(full=True)
    seconds = time.perf_counter() - started
    env = dict(os.environ, **({"PGPASSWORD": params["password"]} if params["password"] else {}))
    sql = (
        "COPY (SELECT t.*, l.account_id, l.side, l.amount FROM wallets_transaction t LEFT JOIN wallets_leg l"
        " ON l.transaction_id = t.id ORDER BY t.id, l.id) TO STDOUT"
    )
    read = time.perf_counter()
    subprocess.run(
        [
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
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        check=True,
    )
    return {
        "seconds": seconds,
        "psql_s": time.perf_counter() - read,
        "ok": check.ok,
        "transactions": check.ledger.transactions,
    }


def main() -> int:
    url = os.environ.get("DATABASE_URL")
    if not url:
        raise SystemExit("set DATABASE_URL to a PostgreSQL server (the bench makes its own database on it)")
    os.environ.setdefault("ALLOWED_HOSTS", "localhost,testserver")
    # One MAC key for every run (the set-up draws a SECRET_KEY per process): a kept
    # casino's ledger verifies in the run that reuses it.
    os.environ.setdefault("LEDGER_MAC_KEY", "bench-history-ledger-mac-key")
    # The pages' static files, collected for this run apart from the checkout's.
    static_root = None if "STATIC_ROOT" in os.environ else tempfile.mkdtemp(prefix="bench-history-static-")
    if static_root:
        os.environ["STATIC_ROOT"] = static_root
    params = server_params(url)
    results = []
    try:
        for n, size in enumerate(SIZES):
            started = time.perf_counter()
            reused = REUSE and database_exists(params, kept_name(size))
            admin(params, f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')
            if reused:
                rename_database(params, kept_name(size), BENCH_DB)
            else:
                admin(params, f'CREATE DATABASE "{BENCH_DB}"')
            from django.core.management import call_command

            if n == 0:
                django_setup(database_url(url, BENCH_DB), migrate=not reused)
                # The pages are served as in production (DEBUG=0): from collected static files.
                call_command("collectstatic", interactive=False, verbosity=0)
            elif not reused:
                call_command("migrate", verbosity=0)
            if reused:  # grown on the same day, by an earlier run with BENCH_KEEP=1
                from django.contrib.auth import get_user_model

                grown = {"player": get_user_model().objects.get(username="bench-1-1")}
                print(f"{legs_now():,} legs: the casino grown before, kept as {kept_name(size)}")
            else:
                from django.db import connection

                with connection.cursor() as cursor:
                    cursor.execute("SELECT coalesce(max(id), 0) FROM tables_hand")
                    hand0 = cursor.fetchone()[0]
                    cursor.execute("SELECT coalesce(max(id), 0) FROM wallets_transaction")
                    txn0 = cursor.fetchone()[0]
                grown = grow_played_day()
                with connection.cursor() as cursor:
                    cursor.execute("SELECT max(id) FROM tables_hand")
                    hand1 = cursor.fetchone()[0]
                    cursor.execute("SELECT max(id) FROM wallets_transaction")
                    txn1 = cursor.fetchone()[0]
                played = {"hands": [hand0, hand1], "transactions": [txn0, txn1]}
                age_played_day(played=played, days=DAYS + 1)
                copies = copy_days(played=played, legs_wanted=size - legs_now(), days=DAYS, age=DAYS + 1)
                play_today(grown)
                print(
                    f"{legs_now():,} legs: a day of {TABLES} tables × {HANDS} hands played, copied "
                    f"{copies} times into {DAYS} days, today played ({time.perf_counter() - started:.0f} s)"
                )
                house = housekeeping()
                if not house["ok"]:
                    print("the routine check does not verify the ledger")
                    return 2
                print(
                    f"  seal {house['seal_s']:.1f} s, close the days {house['close_s']:.1f} s, "
                    f"checkpoint {house['checkpoint_s']:.1f} s"
                )
            timings = time_pages(grown)
            verification = full_verification(params)
            if not verification["ok"]:
                print("the full verification does not verify the ledger")
                return 2
            results.append((legs_now(), timings, verification))

            close_connections()
            if KEEP:  # kept for a later run with BENCH_REUSE=1 (its growth is the long part)
                admin(params, f'DROP DATABASE IF EXISTS "{kept_name(size)}" WITH (FORCE)')
                rename_database(params, BENCH_DB, kept_name(size))
        small, large = results[0], results[-1]
        print()
        print(f"| page | {small[0]:,} legs | {large[0]:,} legs | growth |")
        print("|---|---:|---:|---:|")
        worst, slowest = 0.0, 0.0
        for name in small[1]:
            a, b = small[1][name], large[1][name]
            growth = b / a if a else float("inf")
            worst, slowest = max(worst, growth), max(slowest, b)
            print(f"| {name} | {a:.1f} ms | {b:.1f} ms | {growth:.2f} |")
        for legs, _, v in (small, large):
            ratio = v["psql_s"] / v["seconds"] if v["seconds"] else 0
            print(
                f"full verification at {legs:,} legs: {v['transactions']:,} transactions in "
                f"{v['seconds']:.2f} s; psql read {v['psql_s']:.2f} s ({ratio:.2f}× its speed)"
            )
        print(f"worst growth {worst:.2f} slowest {slowest:.1f} ms")
        return 0 if worst <= GOAL_GROWTH and slowest <= GOAL_SLOWEST_MS else 1
    finally:
        close_connections()
        if static_root:
            shutil.rmtree(static_root, ignore_errors=True)
        admin(params, f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')


if __name__ == "__main__":
    sys.exit(main())
