"""A Redis outage under play: the Celery worker and beat survive it, and every deadline
that passed meanwhile is enforced once Redis is back (issue 8 §2b).

The test runs its own Redis server on a free port (the machine's ``redis-server``), a
real worker and a real beat against it and against the test's PostgreSQL database,
stops Redis for 10 s while a betting window closes, and starts it again.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
import redis
from django.db import connection
from django.utils import timezone

from tables.models import Hand
from tables.services.hands import hand_bet
from tables.services.seats import table_sit
from tests.conftest import require_postgres

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
OUTAGE_SECONDS = 10


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
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
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


def _celery(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "casino", *args],
        cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
    )


def _wait_for(predicate, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.25)
    return predicate()


def test_worker_and_beat_survive_a_redis_outage_and_every_missed_deadline_is_enforced(
    tmp_path, settings, table, make_player
):
    require_postgres()
    if not shutil.which("redis-server"):
        if os.environ.get("CI"):
            pytest.fail("redis-server is not installed")
        pytest.skip("redis-server is not installed")
    settings.CASINO_TIMERS = "local"  # this process sends no countdowns: beat's sweeper must do it
    db = connection.settings_dict
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "CELERY_TASK_ALWAYS_EAGER")}
    private = PrivateRedis(tmp_path)
    env.update(
        DATABASE_URL=f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        REDIS_URL=private.url,
        CASINO_TIMERS="celery",
    )
    private.start()
    worker = _celery(["worker", "-l", "info", "--concurrency=1", "--without-gossip", "--without-mingle"], env, tmp_path / "worker.log")
    beat = _celery(["beat", "-l", "info", "-s", str(tmp_path / "beat-schedule")], env, tmp_path / "beat.log")
    try:
        alice, bob, carol = make_player(), make_player(), make_player()
        for player in (alice, bob, carol):
            table_sit(user=player, table_id=table.pk)
        hand = Hand.objects.get(table=table, state=Hand.State.BETTING)
        hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=False)
        hand_bet(user=bob, table_id=table.pk, ante=100, jackpot=False)
        # Carol has not bet: the window stays open until its deadline; the sweeper is up.
        time.sleep(3)
        assert worker.poll() is None and beat.poll() is None

        private.stop()
        # During the outage the window closes (brought forward, as a clock would).
        Hand.objects.filter(pk=hand.pk).update(betting_deadline=timezone.now() + timedelta(seconds=2))
        time.sleep(OUTAGE_SECONDS)
        hand.refresh_from_db()
        assert hand.state == Hand.State.BETTING  # nothing can act while Redis is down
        private.start()

        assert _wait_for(lambda: Hand.objects.get(pk=hand.pk).state != Hand.State.BETTING, 20), (
            "the deadline missed during the outage was never enforced:\n"
            + (tmp_path / "worker.log").read_text()[-3000:] + (tmp_path / "beat.log").read_text()[-3000:]
        )
        assert Hand.objects.get(pk=hand.pk).state == Hand.State.DECISIONS
        assert worker.poll() is None, (tmp_path / "worker.log").read_text()[-3000:]
        assert beat.poll() is None, (tmp_path / "beat.log").read_text()[-3000:]
    finally:
        for process in (worker, beat):
            process.terminate()
        for process in (worker, beat):
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
        private.stop()
