"""Real Celery processes against a private Redis server, for the tests that take the
broker or a worker away: a ``redis-server`` of the test's own on a free port (never the
shared one), workers and beat on it and on the test's PostgreSQL database."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from django.db import connection

from tables.models import Hand
from tables.services.hands import hand_bet
from tables.services.seats import table_sit
from tests.conftest import require_postgres

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


def private_redis(tmp_path: Path) -> tuple[PrivateRedis, dict]:
    """A private Redis (not started yet) and the environment of Celery processes that use
    it as their broker, with the test's database (PostgreSQL: the processes share it)."""
    require_postgres()
    if not shutil.which("redis-server"):
        if os.environ.get("CI"):
            pytest.fail("redis-server is not installed")
        pytest.skip("redis-server is not installed")
    db = connection.settings_dict
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "CELERY_TASK_ALWAYS_EAGER")}
    private = PrivateRedis(tmp_path)
    env.update(
        DATABASE_URL=f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        REDIS_URL=private.url,
        CASINO_TIMERS="celery",
    )
    return private, env


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
