"""Real Celery processes on a broker of the test's own, for the tests that take the broker
or a worker away: a ``redis-server`` of the test's own on a free port (never the shared
one), or a virtual host of the test's own on the RabbitMQ server; workers and beat on it
and on the test's PostgreSQL database."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

import redis
from django.conf import settings
from django.db import connection

from tables.models import Hand, HandSeat
from tables.services.hands import hand_bet
from tables.services.seats import table_sit
from tests.conftest import require_postgres, require_rabbitmq, require_redis, service_missing

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PrivateRedis:
    def __init__(self, workdir: Path):
        self.binary = shutil.which("redis-server")
        self.port = _free_port()
        self.workdir = workdir
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url)
        for _ in range(100):
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise AssertionError("the private Redis did not start")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


def _celery_env(**variables: str) -> dict:
    """The environment of Celery processes on the test's database (PostgreSQL: the
    processes share it), their deadlines as countdown tasks, and ``variables``."""
    db = connection.settings_dict
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "CELERY_TASK_ALWAYS_EAGER")}
    env.update(
        DATABASE_URL=f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        CASINO_TIMERS="celery",
        **variables,
    )
    return env


def private_redis(tmp_path: Path) -> tuple[PrivateRedis, dict]:
    """A private Redis (not started yet) and the environment of Celery processes that use
    it as their broker (and channel layer and cache), with the test's database."""
    require_postgres()
    if not shutil.which("redis-server"):
        service_missing("redis-server is not installed")
    private = PrivateRedis(tmp_path)
    return private, _celery_env(REDIS_URL=private.url)


class RabbitVhost:
    """A virtual host of the test's own on the RabbitMQ server, made by ``rabbitmqctl``:
    its queues and connections are the test's alone (no other test or deployment on the
    server sees them); ``stop`` deletes it with everything in it."""

    def __init__(self, server: str):
        parts = urlsplit(server)
        self.name = f"casino-test-{uuid.uuid4().hex[:12]}"
        self.user = unquote(parts.username or "guest")
        self.url = urlunsplit(parts._replace(path=f"/{self.name}"))

    def _ctl(self, *args: str) -> None:
        done = subprocess.run(["rabbitmqctl", "-q", *args], capture_output=True, text=True, timeout=60)
        if done.returncode:
            service_missing(f"rabbitmqctl {args[0]} failed: {(done.stderr or done.stdout).strip()[-500:]}")

    def start(self) -> None:
        self._ctl("add_vhost", self.name)
        self._ctl("set_permissions", "-p", self.name, self.user, ".*", ".*", ".*")

    def close_connections(self) -> None:
        """The server closes every connection to this virtual host, as a broker restart or
        a network fault would; the server itself and other virtual hosts go on."""
        self._ctl("close_all_connections", "-p", self.name, "a test of a lost broker connection")

    def stop(self) -> None:
        self._ctl("delete_vhost", self.name)


def rabbitmq_vhost() -> tuple[RabbitVhost, dict]:
    """A virtual host of the test's own (not made yet: ``start``) and the environment of
    Celery processes that use it as their broker, with the test's Redis (channel layer,
    cache) and database."""
    require_postgres()
    require_redis()
    vhost = RabbitVhost(require_rabbitmq())
    return vhost, _celery_env(REDIS_URL=settings.REDIS_URL, CELERY_BROKER_URL=vhost.url)


def celery(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    with log.open("w") as out:  # the child writes to its own copy of the file
        return subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "casino", *args],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def worker(env: dict, log: Path, *, name: str = "worker") -> subprocess.Popen:
    return celery(
        ["worker", "-l", "info", "--concurrency=1", "--without-gossip", "--without-mingle", "-n", f"{name}@%h"],
        env,
        log,
    )


def beat(env: dict, workdir: Path, log: Path) -> subprocess.Popen:
    return celery(["beat", "-l", "info", "-s", str(workdir / "beat-schedule")], env, log)


def stop(*processes: subprocess.Popen) -> None:
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()


def wait_for(predicate, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.25)
    return predicate()


def betting_hand(make_table, make_player, name: str) -> Hand:
    """A table whose betting window waits for its third player's ante."""
    table = make_table(name)
    players = [make_player() for _ in range(3)]
    for player in players:
        table_sit(user=player, table_id=table.pk)
    for player in players[:2]:
        hand_bet(user=player, table_id=table.pk, ante=100, jackpot=False)
    return Hand.objects.get(table=table, state=Hand.State.BETTING)


# Two players' high cards and the dealer's (no pair anywhere): a seat whose time runs out
# is folded, with no pair's extension (SPEC A4), so one countdown settles the hand.
NO_PAIRS = (["2c 4d 6h 8s Tc", "3c 5d 7h 9s Jc"], "2d 4h 6s 9d Ks")
ANTE = 100


def deciding_hand(make_table, make_player, rig_deck, name: str, *, decide_by) -> tuple[Hand, list]:
    """A table's hand dealt to two players (``ANTE`` each) who both have until
    ``decide_by`` to decide, and its players."""
    table = make_table(name)
    players = [make_player() for _ in range(2)]
    rig_deck(*NO_PAIRS)
    for player in players:
        table_sit(user=player, table_id=table.pk)
    for player in players:
        hand_bet(user=player, table_id=table.pk, ante=ANTE, jackpot=False)
    hand = Hand.objects.get(table=table, state=Hand.State.DECISIONS)
    HandSeat.objects.filter(hand=hand).update(decision_deadline=decide_by)
    Hand.objects.filter(pk=hand.pk).update(decision_deadline=decide_by)
    return hand, players
