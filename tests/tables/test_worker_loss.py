"""A Celery worker dies (killed) while it holds countdown tasks: with a second worker
running, every deadline is still enforced; the README's scale-out runs two for this.

Runs a private Redis server on a free port, two real workers and beat against it and the
test's PostgreSQL database (the pattern of tests/tables/test_redis_outage.py).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from tables.models import Hand
from tests.conftest import require_postgres
from tests.tables.test_redis_outage import PrivateRedis, _betting_hand, _celery, _wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services, pytest.mark.slow]

TABLES = 4


def test_with_two_workers_one_killed_holding_countdowns_every_deadline_is_still_enforced(
    tmp_path, settings, make_table, make_player
):
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
    logs = [tmp_path / name for name in ("first.log", "second.log", "beat.log")]

    def tails() -> str:
        return "\n".join(log.read_text()[-3000:] for log in logs if log.exists())

    private.start()

    def worker(name: str, log) -> subprocess.Popen:
        return _celery(["worker", "-l", "info", "--concurrency=1", "--without-gossip", "--without-mingle",
                        "-n", f"{name}@%h"], env, log)

    workers = [worker("first", logs[0])]
    beat = _celery(["beat", "-l", "info", "-s", str(tmp_path / "beat-schedule")], env, logs[2])
    try:
        time.sleep(3)
        hands = [_betting_hand(make_table, make_player, f"Worker loss {n}") for n in range(TABLES)]
        closes = timezone.now() + timedelta(seconds=20)  # room for the second worker to start on a busy machine
        Hand.objects.filter(pk__in=[h.pk for h in hands]).update(betting_deadline=closes)
        with app.connection_for_write(private.url) as broker:
            sent = [hand_deadline.apply_async((GAME, hand.pk), eta=closes, connection=broker).id for hand in hands]
        # The first worker holds every countdown; then the second joins.
        assert _wait_for(lambda: all(f"[{task}] received" in logs[0].read_text() for task in sent), 10), tails()
        workers.append(worker("second", logs[1]))
        assert _wait_for(lambda: "ready." in logs[1].read_text(), 15), tails()
        workers[0].send_signal(signal.SIGKILL)  # dies with what it holds, before any deadline
        workers[0].wait(10)
        assert Hand.objects.filter(pk__in=[h.pk for h in hands], state=Hand.State.BETTING).count() == TABLES

        assert _wait_for(
            lambda: not Hand.objects.filter(pk__in=[h.pk for h in hands], state=Hand.State.BETTING).exists(), 20
        ), "a deadline waited for the killed worker:\n" + tails()
        assert workers[1].poll() is None and beat.poll() is None, tails()
    finally:
        for process in (*workers, beat):
            if process.poll() is None:
                process.terminate()
        for process in (*workers, beat):
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
        private.stop()
