"""A Redis outage under play: the Celery worker and beat survive it, and every deadline
that passed meanwhile is enforced once Redis is back (issue 8 §2b).

The test runs its own Redis server on a free port (the machine's ``redis-server``), a
real worker and a real beat against it and against the test's PostgreSQL database,
stops Redis for 10 s while a betting window closes, and starts it again. A second test
stops it three times for 15 s while the worker holds countdown tasks unacknowledged.
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


HELD_OUTAGES = 3
HELD_OUTAGE_SECONDS = 15
TABLES_PER_OUTAGE = 2


def _betting_hand(make_table, make_player, name: str) -> Hand:
    """A table whose betting window waits for its third player's ante."""
    table = make_table(name)
    players = [make_player() for _ in range(3)]
    for player in players:
        table_sit(user=player, table_id=table.pk)
    for player in players[:2]:
        hand_bet(user=player, table_id=table.pk, ante=100, jackpot=False)
    return Hand.objects.get(table=table, state=Hand.State.BETTING)


def test_a_worker_holding_countdowns_survives_repeated_redis_outages_and_their_deadlines_are_enforced(
    tmp_path, settings, make_table, make_player
):
    """A worker holds its countdown tasks unacknowledged until their deadline (late
    acknowledgement): Redis stops for 15 s under it, three times, and each time the worker
    waits it out and every one of those deadlines is enforced once Redis is back."""
    require_postgres()
    if not shutil.which("redis-server"):
        if os.environ.get("CI"):
            pytest.fail("redis-server is not installed")
        pytest.skip("redis-server is not installed")
    from casino.celery import app
    from casino.live.tasks import hand_deadline
    from tables.events import GAME

    settings.CASINO_TIMERS = "local"  # this process sends its countdowns itself, to the private Redis
    db = connection.settings_dict
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "CELERY_TASK_ALWAYS_EAGER")}
    private = PrivateRedis(tmp_path)
    env.update(
        DATABASE_URL=f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        REDIS_URL=private.url,
        CASINO_TIMERS="celery",
    )
    worker_log, beat_log = tmp_path / "worker.log", tmp_path / "beat.log"

    def logs() -> str:
        return "\n".join(log.read_text()[-4000:] for log in (worker_log, beat_log))

    private.start()
    worker = _celery(["worker", "-l", "info", "--concurrency=1", "--without-gossip", "--without-mingle"], env, worker_log)
    beat = _celery(["beat", "-l", "info", "-s", str(tmp_path / "beat-schedule")], env, beat_log)
    try:
        time.sleep(3)
        for outage in range(HELD_OUTAGES):
            hands = [_betting_hand(make_table, make_player, f"Outage {outage}.{n}") for n in range(TABLES_PER_OUTAGE)]
            # Every window closes shortly after Redis is back: its countdown, sent now, is
            # held by the worker, unacknowledged, for the whole outage.
            closes = timezone.now() + timedelta(seconds=HELD_OUTAGE_SECONDS + 5)
            Hand.objects.filter(pk__in=[h.pk for h in hands]).update(betting_deadline=closes)
            with app.connection_for_write(private.url) as broker:
                sent = [hand_deadline.apply_async((GAME, hand.pk), eta=closes, connection=broker).id for hand in hands]
            assert _wait_for(lambda: all(f"[{task}] received" in worker_log.read_text() for task in sent), 10), logs()
            private.stop()
            time.sleep(HELD_OUTAGE_SECONDS)
            private.start()
            enforced = _wait_for(
                lambda: not Hand.objects.filter(pk__in=[h.pk for h in hands], state=Hand.State.BETTING).exists(), 25
            )
            assert worker.poll() is None, f"the worker died in outage {outage + 1}:\n" + logs()
            assert enforced, f"outage {outage + 1}: a deadline held through it was never enforced:\n" + logs()
        assert beat.poll() is None, logs()
    finally:
        for process in (worker, beat):
            process.terminate()
        for process in (worker, beat):
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
        private.stop()
