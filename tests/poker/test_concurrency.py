"""PostgreSQL: eight tables playing at once, players at two tables, never a lost or doubled cent."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.models import Sum
from django.utils import timezone

from poker.models import PokerHand, PokerSeat, PokerTable
from poker.services import poker_act, poker_hand_start, poker_leave, poker_sit
from tests.conftest import require_postgres, run_together
from tests.poker.helpers import play_out, seats_of
from wallets.models import Account
from wallets.selectors import wallet_balances

TABLES = 8
HANDS = 3


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_eight_tables_at_once_with_players_at_two_tables(make_player, make_poker_table):
    require_postgres()
    players = [make_player(50_000) for _ in range(TABLES * 2)]
    tables = [
        make_poker_table(game=g, preset=p)
        for g, p in [("seven_stud", "2-4"), ("seven_stud", "1-3"), ("five_stud", "1-2"), ("soko", "2-4")]
        * (TABLES // 4)
    ]
    seating = {}
    for i, table in enumerate(tables):
        PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))
        # Two players of its own and one who also sits at the next table.
        seating[table.pk] = [players[2 * i], players[2 * i + 1], players[(2 * i + 2) % len(players)]]
        for user in seating[table.pk]:
            poker_sit(user=user, table_id=table.pk)

    def play(table, seed):
        def run():
            for n in range(HANDS):
                if PokerSeat.objects.filter(table=table, stack__gt=0).count() < 2:
                    return
                hand = poker_hand_start(table_id=table.pk)
                play_out(hand, seats_of(hand, seating[table.pk]), strategy="random_legal", seed=seed * 100 + n)

        return run

    connection.close()  # back to the pool: eight threads need eight of its connections
    results, errors = run_together(*[play(t, i) for i, t in enumerate(tables)], timeout=240)
    assert errors == [None] * len(tables), errors
    assert PokerHand.objects.filter(state="ended").count() >= TABLES
    assert not PokerHand.objects.filter(state="live").exists()
    assert Account.objects.aggregate(t=Sum("balance"))["t"] == 0
    call_command("reconcile_poker")

    # Everybody leaves, every table at once: every cent is back in a wallet or in the rake.
    def leave_all(table_id):
        def run():
            for user in seating[table_id]:
                poker_leave(user=user, table_id=table_id)

        return run

    calls = [leave_all(t) for t in seating]
    connection.close()
    _, errors = run_together(*calls, timeout=120)
    assert errors == [None] * len(calls), errors
    rake = sum(Account.objects.get(pk=t.rake_account_id).balance for t in tables)
    assert sum(wallet_balances(user=u).available for u in players) + rake == 50_000 * len(players)
    call_command("reconcile_poker")


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_the_same_action_sent_twice_at_once_is_taken_once(make_player, make_poker_table):
    require_postgres()
    table = make_poker_table()
    players = [make_player() for _ in range(3)]
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))
    for user in players:
        poker_sit(user=user, table_id=table.pk)
    hand = poker_hand_start(table_id=table.pk)
    user = seats_of(hand, players)[hand.to_act]
    act = lambda: poker_act(user=user, table_id=table.pk, hand_id=hand.pk, action="bring_in")  # noqa: E731
    connection.close()
    results, errors = run_together(act, act, act)
    assert sum(e is None for e in errors) == 1
    assert {e.code for e in errors if e is not None} == {"not_your_turn"}
    hand.refresh_from_db()
    assert hand.version == 1 and len(hand.actions) == 1
