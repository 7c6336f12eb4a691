"""RabbitMQ as the Celery broker (README, "Running at scale"): the countdowns a killed
worker held go to the other worker at once, and a worker whose broker connections are
closed under it connects again and still enforces the countdowns it held.

Each test has a virtual host of its own on the RabbitMQ server (``RABBITMQ_URL``, made and
deleted with ``rabbitmqctl``: ``tests/tables/celery_rig.py``), real workers on it, and no
beat: no sweeper runs, so every deadline enforced here is a countdown task run by a
worker. (On Redis a dead worker's countdowns come back only after kombu's visibility
timeout, an hour, and beat's sweeper enforces them meanwhile: ``test_worker_loss.py``.)
"""

from __future__ import annotations

import signal
from datetime import timedelta

import pytest
from django.utils import timezone

from tables.models import Hand, HandSeat
from tests.tables.celery_rig import ANTE, deciding_hand, rabbitmq_vhost, stop, wait_for, worker
from wallets.models import Transaction
from wallets.selectors import wallet_balances

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services, pytest.mark.slow]

TABLES = 3
# A countdown runs at its deadline; the step it runs, on a busy machine, may take this long.
ON_TIME = timedelta(seconds=3)


def _send_countdowns(url: str, hands: list[Hand], at) -> list[str]:
    """The deadline's countdown of each hand, sent to the broker at ``url``; their task ids."""
    from casino.celery import app
    from casino.live.tasks import hand_deadline
    from tables.events import GAME

    with app.connection_for_write(url) as broker:
        return [hand_deadline.apply_async((GAME, hand.pk), eta=at, connection=broker).id for hand in hands]


def _settled_once_on_time(hands: list[tuple[Hand, list]], closes) -> None:
    """Every hand settled once, at its deadline: both players folded by the time-out, each
    lost the ante and nothing more, and each seat has one settlement in the ledger."""
    for hand, players in hands:
        hand.refresh_from_db()
        assert hand.state == Hand.State.SETTLED
        assert closes <= hand.settled_at <= closes + ON_TIME, (
            f"hand {hand.pk} settled {(hand.settled_at - closes).total_seconds():+.2f} s from its deadline"
        )
        seats = HandSeat.objects.filter(hand=hand)
        assert {(s.decision, s.decided_by_timeout) for s in seats} == {(HandSeat.Decision.FOLD, True)}
        assert Transaction.objects.filter(kind=Transaction.Kind.SETTLEMENT, hand_ref=hand.pk).count() == len(players)
        for player in players:
            balances = wallet_balances(user=player)
            assert (balances.available, balances.in_play) == (100_000 - ANTE, 0)


def test_a_killed_workers_countdowns_go_to_the_other_worker_at_once_and_each_hand_settles_once(
    tmp_path, settings, make_table, make_player, rig_deck
):
    vhost, env = rabbitmq_vhost()
    settings.CASINO_TIMERS = "local"  # this process sends its countdowns itself, to the test's virtual host
    logs = [tmp_path / "first.log", tmp_path / "second.log"]

    def tails() -> str:
        return "\n".join(log.read_text()[-3000:] for log in logs if log.exists())

    vhost.start()
    workers = [worker(env, logs[0], name="first")]
    try:
        assert wait_for(lambda: "ready." in logs[0].read_text(), 30), tails()
        closes = timezone.now() + timedelta(seconds=20)  # room for the second worker to start on a busy machine
        hands = [
            deciding_hand(make_table, make_player, rig_deck, f"RabbitMQ {n}", decide_by=closes) for n in range(TABLES)
        ]
        sent = _send_countdowns(vhost.url, [hand for hand, _ in hands], closes)
        # The first worker holds every countdown, unacknowledged until its time; then the second joins.
        assert wait_for(lambda: all(f"[{task}] received" in logs[0].read_text() for task in sent), 10), tails()
        workers.append(worker(env, logs[1], name="second"))
        assert wait_for(lambda: "ready." in logs[1].read_text(), 30), tails()
        workers[0].send_signal(signal.SIGKILL)  # dies with what it holds
        workers[0].wait(10)
        assert timezone.now() < closes - timedelta(seconds=3), "the machine was too slow: the kill came too late"

        # RabbitMQ hands the dead worker's countdowns to the other one at once, well before their time.
        assert wait_for(lambda: all(f"[{task}] received" in logs[1].read_text() for task in sent), 3), (
            "the countdowns of the killed worker were not handed out again at once:\n" + tails()
        )
        assert not Hand.objects.filter(pk__in=[hand.pk for hand, _ in hands], state=Hand.State.SETTLED).exists()
        settled = wait_for(
            lambda: (
                Hand.objects.filter(pk__in=[hand.pk for hand, _ in hands], state=Hand.State.SETTLED).count() == TABLES
            ),
            (closes - timezone.now()).total_seconds() + 10,
        )
        assert settled, "a deadline waited for the killed worker:\n" + tails()
        assert workers[1].poll() is None, tails()
    finally:
        stop(*workers)
        vhost.stop()
    _settled_once_on_time(hands, closes)


def test_a_worker_whose_broker_connections_are_closed_connects_again_and_runs_the_countdowns_it_held(
    tmp_path, settings, make_table, make_player, rig_deck
):
    """RabbitMQ closes every connection of the worker (``rabbitmqctl close_all_connections``
    on the test's virtual host, as a broker restart or a network fault would) while the
    worker holds countdowns: the worker lives on, connects again, is handed the countdowns
    again, and enforces each at its time, once."""
    vhost, env = rabbitmq_vhost()
    settings.CASINO_TIMERS = "local"
    log = tmp_path / "worker.log"

    def tail() -> str:
        return log.read_text()[-4000:] if log.exists() else ""

    vhost.start()
    the_worker = worker(env, log)
    try:
        assert wait_for(lambda: "ready." in log.read_text(), 30), tail()
        closes = timezone.now() + timedelta(seconds=15)
        hands = [
            deciding_hand(make_table, make_player, rig_deck, f"RabbitMQ lost {n}", decide_by=closes)
            for n in range(TABLES)
        ]
        sent = _send_countdowns(vhost.url, [hand for hand, _ in hands], closes)
        assert wait_for(lambda: all(f"[{task}] received" in log.read_text() for task in sent), 10), tail()
        connected = log.read_text().count("Connected to amqp://")

        vhost.close_connections()
        assert wait_for(lambda: log.read_text().count("Connected to amqp://") > connected, 10), (
            "the worker did not connect again:\n" + tail()
        )
        assert timezone.now() < closes, "the machine was too slow: the worker connected again after the deadline"
        assert wait_for(lambda: all(log.read_text().count(f"[{task}] received") >= 2 for task in sent), 5), (
            "the countdowns the worker held were not handed to it again:\n" + tail()
        )
        settled = wait_for(
            lambda: (
                Hand.objects.filter(pk__in=[hand.pk for hand, _ in hands], state=Hand.State.SETTLED).count() == TABLES
            ),
            (closes - timezone.now()).total_seconds() + 10,
        )
        assert the_worker.poll() is None, "the worker died when its connections were closed:\n" + tail()
        assert settled, "a deadline held through the lost connection was never enforced:\n" + tail()
    finally:
        stop(the_worker)
        vhost.stop()
    _settled_once_on_time(hands, closes)
