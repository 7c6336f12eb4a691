"""Timers with real Celery workers against Redis, and a worker killed in the middle of a hand."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from jackpot.selectors import ledger_total
from tables.models import Hand, HandSeat
from tables.services.hands import hand_bet, hand_decide
from tables.services.seats import table_sit
from tests.conftest import require_postgres, require_redis
from wallets.models import Transaction
from wallets.selectors import wallet_balances

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]


def _wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _fast_table(table, *, bet: int, decide: int):
    """Short time banks; a pair's extension too, since the worker deals real random cards."""
    table.bet_seconds, table.decision_seconds, table.extension_seconds = bet, decide, 1
    table.save(update_fields=["bet_seconds", "decision_seconds", "extension_seconds"])


def _purge_queue() -> None:
    from casino.celery import app

    app.control.purge()


def test_a_real_worker_closes_betting_and_folds_at_the_deadlines(table, make_player):
    require_redis(celery=True)
    from celery.contrib.testing.worker import start_worker

    from casino.celery import app

    _purge_queue()
    _fast_table(table, bet=1, decide=1)
    early, idle = make_player(balance=10_000), make_player(balance=10_000)
    for p in (early, idle):
        table_sit(user=p, table_id=table.pk)
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        hand_bet(user=early, table_id=table.pk, ante=100, jackpot=False)
        hand = Hand.objects.get(table=table, state=Hand.State.BETTING)
        _wait_for(lambda: Hand.objects.get(pk=hand.pk).state == Hand.State.SETTLED, 15, "the worker to deal and fold")
    seat = HandSeat.objects.get(hand=hand)
    assert (seat.player_id, seat.decision, seat.decided_by_timeout) == (early.pk, "fold", True)
    assert wallet_balances(user=early).available == 10_000 - 100
    assert wallet_balances(user=idle).available == 10_000


def _start_worker(env, tmp_path) -> subprocess.Popen:
    """A worker with embedded beat (the sweeper), each start with a fresh beat schedule file."""
    run = len(list(tmp_path.glob("worker-*.log"))) + 1
    with open(tmp_path / f"worker-{run}.log", "ab") as log:  # the child writes to its own copy of the file
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
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def test_a_worker_killed_in_the_middle_of_a_hand_restarts_and_settles_it_exactly_once(table, make_player, tmp_path):
    require_postgres()
    require_redis(celery=True)
    _purge_queue()
    _fast_table(table, bet=1, decide=4)
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "REDIS_URL": settings.REDIS_URL,
    }
    players = [make_player(balance=10_000) for _ in range(3)]
    for p in players:
        table_sit(user=p, table_id=table.pk)
    worker = _start_worker(env, tmp_path)
    try:
        hand_bet(user=players[0], table_id=table.pk, ante=100, jackpot=True)
        hand_bet(user=players[1], table_id=table.pk, ante=200, jackpot=False)
        hand = Hand.objects.get(table=table, state=Hand.State.BETTING)
        _wait_for(lambda: Hand.objects.get(pk=hand.pk).state == Hand.State.DECISIONS, 30, "the worker to deal")
        hand_decide(user=players[1], hand_id=hand.pk, action="raise")
        os.killpg(worker.pid, signal.SIGKILL)  # dies before the decision deadline
        worker.wait(timeout=10)
        time.sleep(5)  # the deadline passes while no worker runs
        assert Hand.objects.get(pk=hand.pk).state == Hand.State.DECISIONS
        worker = _start_worker(env, tmp_path)
        _wait_for(lambda: Hand.objects.get(pk=hand.pk).state == Hand.State.SETTLED, 30, "the new worker to settle")
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)
    seats = {s.player_id: s for s in HandSeat.objects.filter(hand=hand)}
    assert (seats[players[0].pk].decision, seats[players[0].pk].decided_by_timeout) == ("fold", True)
    assert Transaction.objects.filter(hand_ref=hand.pk, kind=Transaction.Kind.SETTLEMENT).count() == 2
    assert Transaction.objects.filter(hand_ref=hand.pk, kind=Transaction.Kind.JACKPOT_CONTRIBUTION).count() == 1
    assert ledger_total() == 0
    for p in players:
        assert wallet_balances(user=p).in_play == 0
    assert wallet_balances(user=players[0]).available == 10_000 - 100 - 50 + seats[players[0].pk].jackpot_win
