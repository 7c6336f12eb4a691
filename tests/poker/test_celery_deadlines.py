"""Poker deadlines on real Celery workers against Redis (SPEC B3).

A player's time to act runs out and the worker's countdown task applies the time-out
rule; a worker killed while a player's clock runs leaves the deadline to the sweeper of
the next worker (beat), which enforces it exactly once.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from casino.stud.engine import TIMEOUT_KINDS
from poker.models import PokerAllowance, PokerHand, PokerSeat, PokerTable
from poker.services import poker_sit
from tests.conftest import require_postgres, require_redis
from wallets.models import Transaction

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]
TIMEOUTS = {"timeout_check", "timeout_all_in", "timeout_fold"}


def _wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _fast(table, *, act: int) -> None:
    """``act`` seconds to act and no time bank (the seats take it when they sit)."""
    PokerTable.objects.filter(pk=table.pk).update(act_seconds=act, time_bank_seconds=0)


def _purge_queue() -> None:
    from casino.celery import app

    app.control.purge()


def _labels(hand: PokerHand) -> list[str]:
    """The record's action labels, in order (the time-outs are named by what they did)."""
    return [e["action"] for e in hand.record["events"] if e["type"] == "action"]


def _seated_hand(table, players) -> PokerHand:
    for user in players:  # the second buy-in deals the table's first hand
        poker_sit(user=user, table_id=table.pk)
    return PokerHand.objects.get(table=table, state=PokerHand.State.LIVE)


def test_a_real_worker_times_out_the_player_to_act_and_the_hand_ends(poker_table, make_player):
    require_redis(celery=True)
    from celery.contrib.testing.worker import start_worker

    from casino.celery import app

    _purge_queue()
    _fast(poker_table, act=1)
    players = [make_player(balance=100_000) for _ in range(2)]
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        hand = _seated_hand(poker_table, players)
        assert hand.version == 0 and hand.decision_deadline is not None
        ended = _wait_for(
            lambda: PokerHand.objects.filter(pk=hand.pk).exclude(state=PokerHand.State.LIVE).first(),
            30,
            "the worker to time out every player to act until the hand ends",
        )
    assert ended.state == PokerHand.State.ENDED
    # Nobody acted: every action of the hand is the worker's time-out (SPEC B3: the bring-in
    # player, facing no free check, is all-in protected by the day's allowance).
    kinds = [kind for _seat, kind, _to in ended.actions]
    assert kinds and set(kinds) <= TIMEOUT_KINDS
    labels = [label for label in _labels(ended) if label in TIMEOUTS]
    assert len(labels) == len(kinds) and "timeout_all_in" in labels
    assert PokerAllowance.objects.filter(player__in=players).exists()  # the allowance is used up for the day
    user_of = {s["seat"]: s["user_id"] for s in ended.seats}
    timed_out = {user_of[seat] for seat, _kind, _to in ended.actions}
    for seat in PokerSeat.objects.filter(table=poker_table, player_id__in=timed_out):
        assert seat.auto_ante is False  # sat out from the next hand on
    assert Transaction.objects.filter(kind=Transaction.Kind.POKER_HAND, hand_ref=hand.pk).count() == 1
    call_command("reconcile_poker")


def _start_worker(env, tmp_path) -> subprocess.Popen:
    """A worker with embedded beat (the sweeper), each start with a fresh beat schedule file."""
    run = len(list(tmp_path.glob("worker-*.log"))) + 1
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "casino",
            "worker",
            "-B",
            "--pool=solo",
            "-l",
            "info",
            "-s",
            str(tmp_path / f"beat-{run}"),
        ],
        cwd=ROOT,
        env=env,
        stdout=open(tmp_path / f"worker-{run}.log", "ab"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _stop(worker: subprocess.Popen) -> None:
    if worker.poll() is None:
        os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)


def test_a_killed_workers_deadline_is_enforced_by_the_next_workers_sweeper_once(poker_table, make_player, tmp_path):
    require_postgres()
    require_redis(celery=True)
    _purge_queue()
    _fast(poker_table, act=5)  # room to kill the worker before the first clock runs out on a busy machine
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "REDIS_URL": settings.REDIS_URL,
        "CASINO_TIMERS": "celery",
    }
    players = [make_player(balance=100_000) for _ in range(3)]
    worker = _start_worker(env, tmp_path)
    try:
        time.sleep(3)  # the worker is up and holds the first deadline's countdown task
        hand = _seated_hand(poker_table, players)
        first_deadline = hand.decision_deadline
        _stop(worker)  # killed before the first player's time to act runs out
        _purge_queue()  # and nothing left queued: only a sweeper can enforce the deadline now
        time.sleep(7)  # the deadline passes while no worker runs
        stale = PokerHand.objects.get(pk=hand.pk)
        assert (stale.state, stale.version, stale.decision_deadline) == (PokerHand.State.LIVE, 0, first_deadline)
        worker = _start_worker(env, tmp_path)
        moved = _wait_for(
            lambda: PokerHand.objects.filter(pk=hand.pk, version__gte=1).first(),
            30,
            "the new worker's sweeper",
        )
        assert (
            moved.actions[0][0] == hand.to_act and moved.actions[0][1] in TIMEOUT_KINDS
        )  # the player to act, timed out
        # The game goes on under this worker: every next turn times out too, until the hand ends.
        ended = _wait_for(
            lambda: PokerHand.objects.filter(pk=hand.pk).exclude(state=PokerHand.State.LIVE).first(),
            60,
            "the hand to end on time-outs",
        )
    finally:
        _stop(worker)
    assert ended.state == PokerHand.State.ENDED
    assert {kind for _s, kind, _t in ended.actions} <= TIMEOUT_KINDS
    # Each turn timed out once: the actions are the record's, step by step, none twice.
    assert len(ended.actions) == ended.version
    assert Transaction.objects.filter(kind=Transaction.Kind.POKER_HAND, hand_ref=hand.pk).count() == 1
    call_command("reconcile_poker")
