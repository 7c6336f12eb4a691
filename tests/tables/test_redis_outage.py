"""A Redis outage under play: the Celery worker and beat survive it, and every deadline
that passed meanwhile is enforced once Redis is back.

The tests run their own Redis server on a free port (``tests/tables/celery_rig.py``), a
real worker and a real beat against it and against the test's PostgreSQL database. One
stops Redis for 10 s while a betting window closes, and starts it again; the other stops
it twice for 15 s while the worker holds countdown tasks unacknowledged.
"""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from tables.models import Hand
from tables.services.hands import hand_bet
from tables.services.seats import table_sit
from tests.tables.celery_rig import beat, betting_hand, private_redis, stop, wait_for, worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services, pytest.mark.slow]

OUTAGE_SECONDS = 10
HELD_OUTAGES = 2
HELD_OUTAGE_SECONDS = 15
TABLES_PER_OUTAGE = 2


def test_worker_and_beat_survive_a_redis_outage_and_every_missed_deadline_is_enforced(
    tmp_path, settings, table, make_player
):
    private, env = private_redis(tmp_path)
    settings.CASINO_TIMERS = "local"  # this process sends no countdowns: beat's sweeper must do it
    worker_log, beat_log = tmp_path / "worker.log", tmp_path / "beat.log"

    def logs() -> str:
        return "\n".join(log.read_text()[-3000:] for log in (worker_log, beat_log))

    private.start()
    processes = [worker(env, worker_log), beat(env, tmp_path, beat_log)]
    try:
        alice, bob, carol = make_player(), make_player(), make_player()
        for player in (alice, bob, carol):
            table_sit(user=player, table_id=table.pk)
        hand = Hand.objects.get(table=table, state=Hand.State.BETTING)
        hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=False)
        hand_bet(user=bob, table_id=table.pk, ante=100, jackpot=False)
        # Carol has not bet: the window stays open until its deadline; the sweeper is up.
        time.sleep(3)
        assert all(process.poll() is None for process in processes), logs()

        private.stop()
        # During the outage the window closes (brought forward, as a clock would).
        Hand.objects.filter(pk=hand.pk).update(betting_deadline=timezone.now() + timedelta(seconds=2))
        time.sleep(OUTAGE_SECONDS)
        hand.refresh_from_db()
        assert hand.state == Hand.State.BETTING  # nothing can act while Redis is down
        private.start()

        assert wait_for(lambda: Hand.objects.get(pk=hand.pk).state != Hand.State.BETTING, 20), (
            "the deadline missed during the outage was never enforced:\n" + logs()
        )
        assert Hand.objects.get(pk=hand.pk).state == Hand.State.DECISIONS
        assert all(process.poll() is None for process in processes), logs()
    finally:
        stop(*processes)
        private.stop()


def test_a_worker_holding_countdowns_survives_repeated_redis_outages_and_their_deadlines_are_enforced(
    tmp_path, settings, make_table, make_player
):
    """A worker holds its countdown tasks unacknowledged until their deadline (late
    acknowledgement): Redis stops for 15 s under it, twice, and each time the worker
    waits it out and every one of those deadlines is enforced once Redis is back."""
    from casino.celery import app
    from casino.live.tasks import hand_deadline
    from tables.events import GAME

    private, env = private_redis(tmp_path)
    settings.CASINO_TIMERS = "local"  # this process sends its countdowns itself, to the private Redis
    worker_log, beat_log = tmp_path / "worker.log", tmp_path / "beat.log"

    def logs() -> str:
        return "\n".join(log.read_text()[-4000:] for log in (worker_log, beat_log))

    private.start()
    the_worker, the_beat = worker(env, worker_log), beat(env, tmp_path, beat_log)
    try:
        time.sleep(3)
        for outage in range(HELD_OUTAGES):
            hands = [betting_hand(make_table, make_player, f"Outage {outage}.{n}") for n in range(TABLES_PER_OUTAGE)]
            # Every window closes shortly after Redis is back: its countdown, sent now, is
            # held by the worker, unacknowledged, for the whole outage.
            closes = timezone.now() + timedelta(seconds=HELD_OUTAGE_SECONDS + 5)
            Hand.objects.filter(pk__in=[h.pk for h in hands]).update(betting_deadline=closes)
            with app.connection_for_write(private.url) as broker:
                sent = [hand_deadline.apply_async((GAME, hand.pk), eta=closes, connection=broker).id for hand in hands]
            assert wait_for(lambda: all(f"[{task}] received" in worker_log.read_text() for task in sent), 10), logs()
            private.stop()
            time.sleep(HELD_OUTAGE_SECONDS)
            private.start()
            enforced = wait_for(
                lambda: not Hand.objects.filter(pk__in=[h.pk for h in hands], state=Hand.State.BETTING).exists(), 25
            )
            assert the_worker.poll() is None, f"the worker died in outage {outage + 1}:\n" + logs()
            assert enforced, f"outage {outage + 1}: a deadline held through it was never enforced:\n" + logs()
        assert the_beat.poll() is None, logs()
    finally:
        stop(the_worker, the_beat)
        private.stop()
