"""The pause between two poker hands is a deadline like a player's turn: when it ends
(``PokerTable.next_hand_at``) a countdown task starts the next hand. A worker SIGKILLed
while it holds that countdown, with a second worker running: the next hand still starts
at its time, once.

On both brokers the README names, with real workers (``tests/tables/celery_rig.py``): a
private Redis with beat, whose sweeper sees to the deadline with the live worker (Redis
hands the dead worker's countdown out again only after kombu's visibility timeout, an
hour), and RabbitMQ with no beat, which hands the dead worker's countdown to the other
worker at once.
"""

from __future__ import annotations

import signal
from datetime import timedelta

import pytest
from django.utils import timezone

from poker import replay
from poker.models import PokerHand, PokerTable
from poker.services import poker_act, poker_sit
from tests.poker.helpers import seats_of
from tests.tables.celery_rig import beat, private_redis, rabbitmq_vhost, stop, wait_for, worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services, pytest.mark.slow]

# The countdown runs at the deadline; the step it runs, on a busy machine, may take this long.
ON_TIME = timedelta(seconds=3)


def _end_at_once(hand: PokerHand, players: list) -> PokerHand:
    """The bring-in, then the other player folds: the hand ends and the pause begins."""
    users = seats_of(hand, players)
    for kind in ("bring_in", "fold"):
        hand.refresh_from_db()
        poker_act(user=users[replay.hand_state(hand).to_act], table_id=hand.table_id, hand_id=hand.pk, action=kind)
    hand.refresh_from_db()
    return hand


@pytest.mark.parametrize("broker", ["redis", "rabbitmq"])
def test_the_next_hand_starts_on_time_when_the_worker_holding_its_countdown_is_killed(
    broker, tmp_path, settings, poker_table, make_player
):
    from casino.celery import app
    from casino.live.tasks import hand_deadline

    service, env = private_redis(tmp_path) if broker == "redis" else rabbitmq_vhost()
    settings.CASINO_TIMERS = "local"  # this process sends the countdown itself, to the test's broker
    logs = [tmp_path / name for name in ("first.log", "second.log", "beat.log")]

    def tails() -> str:
        return "\n".join(log.read_text()[-3000:] for log in logs if log.exists())

    service.start()
    workers = [worker(env, logs[0], name="first")]
    the_beat = beat(env, tmp_path, logs[2]) if broker == "redis" else None
    try:
        assert wait_for(lambda: "ready." in logs[0].read_text(), 30), tails()
        players = [make_player() for _ in range(2)]
        for player in players:  # the second buy-in deals the table's first hand
            poker_sit(user=player, table_id=poker_table.pk)
        first = _end_at_once(PokerHand.objects.get(table=poker_table, state=PokerHand.State.LIVE), players)
        assert first.state == PokerHand.State.ENDED
        closes = timezone.now() + timedelta(seconds=20)  # room for the second worker to start on a busy machine
        PokerTable.objects.filter(pk=poker_table.pk).update(next_hand_at=closes)
        with app.connection_for_write(service.url) as connection:
            sent = hand_deadline.apply_async(("poker", first.pk), eta=closes, connection=connection).id
        # The first worker holds the countdown, unacknowledged until its time; then the second joins.
        assert wait_for(lambda: f"[{sent}] received" in logs[0].read_text(), 10), tails()
        workers.append(worker(env, logs[1], name="second"))
        assert wait_for(lambda: "ready." in logs[1].read_text(), 30), tails()
        workers[0].send_signal(signal.SIGKILL)  # dies with the countdown it holds
        workers[0].wait(10)
        assert timezone.now() < closes - timedelta(seconds=3), "the machine was too slow: the kill came too late"
        if broker == "rabbitmq":
            assert wait_for(lambda: f"[{sent}] received" in logs[1].read_text(), 3), (
                "the killed worker's countdown was not handed out again at once:\n" + tails()
            )

        started = wait_for(
            lambda: PokerHand.objects.filter(table=poker_table, number__gt=first.number).exists(),
            (closes - timezone.now()).total_seconds() + 10,
        )
        assert started, "the next hand waited for the killed worker:\n" + tails()
        assert workers[1].poll() is None and (the_beat is None or the_beat.poll() is None), tails()
        if broker == "redis":  # not handed out again: beat's sweeper saw to the deadline
            assert f"[{sent}] received" not in logs[1].read_text(), tails()
    finally:
        stop(*workers, *([the_beat] if the_beat else []))
        service.stop()

    after = PokerHand.objects.filter(table=poker_table, number__gt=first.number)
    assert after.count() == 1, "the next hand started more than once"
    assert closes <= after.get().started_at <= closes + ON_TIME, (
        f"the next hand started {(after.get().started_at - closes).total_seconds():+.2f} s from the pause's end"
    )
    assert after.get().state == PokerHand.State.LIVE
    assert PokerTable.objects.get(pk=poker_table.pk).next_hand_at is None
