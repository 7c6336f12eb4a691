"""A Celery worker dies (killed) while it holds countdown tasks: with a second worker
running, every deadline is still enforced; the README's scale-out runs two for this.

On Redis the dead worker's countdowns stay unacknowledged until kombu's visibility
timeout (an hour: the settings set none) hands them out again, so here beat's sweeper
enforces the deadlines; RabbitMQ hands them to the other worker at once
(``test_rabbitmq_broker.py``).

Runs a private Redis server on a free port, two real workers and beat against it and the
test's PostgreSQL database (``tests/tables/celery_rig.py``).
"""

from __future__ import annotations

import signal
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from tables.models import Hand
from tests.tables.celery_rig import beat, betting_hand, private_redis, stop, wait_for, worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services, pytest.mark.slow]

TABLES = 4


def test_with_two_workers_one_killed_holding_countdowns_every_deadline_is_still_enforced(
    tmp_path, settings, make_table, make_player
):
    from casino.celery import app
    from casino.live.tasks import hand_deadline
    from tables.events import GAME

    private, env = private_redis(tmp_path)
    settings.CASINO_TIMERS = "local"  # this process sends its countdowns itself, to the private Redis
    logs = [tmp_path / name for name in ("first.log", "second.log", "beat.log")]

    def tails() -> str:
        return "\n".join(log.read_text()[-3000:] for log in logs if log.exists())

    private.start()
    workers = [worker(env, logs[0], name="first")]
    the_beat = beat(env, tmp_path, logs[2])
    try:
        time.sleep(3)
        hands = [betting_hand(make_table, make_player, f"Worker loss {n}") for n in range(TABLES)]
        closes = timezone.now() + timedelta(seconds=20)  # room for the second worker to start on a busy machine
        Hand.objects.filter(pk__in=[h.pk for h in hands]).update(betting_deadline=closes)
        with app.connection_for_write(private.url) as broker:
            sent = [hand_deadline.apply_async((GAME, hand.pk), eta=closes, connection=broker).id for hand in hands]
        # The first worker holds every countdown; then the second joins.
        assert wait_for(lambda: all(f"[{task}] received" in logs[0].read_text() for task in sent), 10), tails()
        workers.append(worker(env, logs[1], name="second"))
        assert wait_for(lambda: "ready." in logs[1].read_text(), 15), tails()
        workers[0].send_signal(signal.SIGKILL)  # dies with what it holds, before any deadline
        workers[0].wait(10)
        assert Hand.objects.filter(pk__in=[h.pk for h in hands], state=Hand.State.BETTING).count() == TABLES

        assert wait_for(
            lambda: not Hand.objects.filter(pk__in=[h.pk for h in hands], state=Hand.State.BETTING).exists(), 20
        ), "a deadline waited for the killed worker:\n" + tails()
        assert workers[1].poll() is None and the_beat.poll() is None, tails()
        # Not by the dead worker's countdowns: Redis did not hand them out again.
        assert not any(f"[{task}] received" in logs[1].read_text() for task in sent), tails()
    finally:
        stop(*workers, the_beat)
        private.stop()
