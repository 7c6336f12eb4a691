"""Tables under concurrent load, on real PostgreSQL with real threads.

Each test starts its threads together on a ``threading.Barrier``; every thread uses its
own database connection (closed when the thread ends). What is asserted is what a player
or an auditor would notice: a wallet overdrawn, money moved twice, a request that fails
with a deadlock, a ledger that does not add up.
"""

from __future__ import annotations

import random
import threading
import time
from io import StringIO

import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from rest_framework.test import APIClient

from casino.http.errors import InsufficientFunds
from casino.models import IdempotencyRecord
from jackpot.selectors import ledger_total
from tables.models import Hand, HandSeat
from tables.services.hands import hand_bet, hand_decide
from tables.services.seats import table_sit
from tests.conftest import require_postgres, run_together
from wallets.models import Account, Transaction
from wallets.selectors import account_balance_from_legs, wallet_balances
from wallets.services import cashier_deposit, player_accounts_ensure

pytestmark = pytest.mark.django_db(transaction=True)

ANTE = 100  # €1.00 at the low tier: the bet takes 3 x ante (ante + held raise), plus 50 for the jackpot chip


def assert_ledger_reconciles() -> None:
    """The ledger sums to zero and every cached balance equals the sum of its legs."""
    assert ledger_total() == 0
    wrong = {
        a.code: (a.balance, account_balance_from_legs(account=a))
        for a in Account.objects.all()
        if a.balance != account_balance_from_legs(account=a)
    }
    assert not wrong, f"cached balance != sum of legs: {wrong}"


def fresh(user):
    """The same user as a new instance, so threads share no Python state."""
    return get_user_model().objects.get(pk=user.pk)


# --- 1. one wallet, two tables, two simultaneous bets ------------------------------------


@pytest.mark.parametrize("jackpot", [False, True])
def test_one_wallet_betting_at_two_tables_at_once_is_never_overdrawn(make_player, make_table, jackpot):
    require_postgres()
    stake = 3 * ANTE + (50 if jackpot else 0)  # ante + held raise (+ jackpot chip), SPEC A1
    player = make_player(balance=stake)
    tables = [make_table(), make_table()]
    for t in tables:
        table_sit(user=player, table_id=t.pk)

    results, errors = run_together(
        *[lambda t=t: hand_bet(user=fresh(player), table_id=t.pk, ante=ANTE, jackpot=jackpot) for t in tables]
    )

    accepted = [r for r in results if r is not None]
    refused = [e for e in errors if e is not None]
    assert len(accepted) == 1 and len(refused) == 1, f"results {results}, errors {errors!r}"
    assert isinstance(refused[0], InsufficientFunds) and refused[0].code == "insufficient_funds", repr(refused[0])
    wallet, in_play = player_accounts_ensure(user=player)
    wallet.refresh_from_db()
    in_play.refresh_from_db()
    assert wallet.balance == 0  # never below zero
    assert HandSeat.objects.filter(player=player).count() == 1
    bets = Transaction.objects.filter(kind=Transaction.Kind.BET, legs__account=wallet)
    assert bets.count() == 1
    # The one bet is held in play (the jackpot chip, if any, went to the pool at the deal).
    assert in_play.balance == 3 * ANTE
    assert wallet.balance == account_balance_from_legs(account=wallet)
    assert in_play.balance == account_balance_from_legs(account=in_play)
    assert_ledger_reconciles()


# --- 4. the same request twice with one Idempotency-Key -----------------------------------


def _post(user, path: str, body: dict, key: str):
    client = APIClient()
    client.force_authenticate(fresh(user))
    return client.post(path, body, format="json", headers={"Idempotency-Key": key})


def test_a_deposit_sent_twice_at_once_with_one_idempotency_key_moves_money_once(make_player, cashier):
    require_postgres()
    player = make_player(balance=0)
    body = {"player": player.pk, "amount": "25.00"}

    results, errors = run_together(
        *[lambda: _post(cashier, "/api/cashier/deposits/", body, "desk-1-slip-0042") for _ in range(2)]
    )

    assert errors == [None, None], errors
    assert [r.status_code for r in results] == [201, 201], [r.content for r in results]
    ids = {r.json()["transaction"] for r in results}
    assert len(ids) == 1, f"two different transactions answered: {ids}"
    wallet, _ = player_accounts_ensure(user=player)
    deposits = Transaction.objects.filter(kind=Transaction.Kind.DEPOSIT, legs__account=wallet)
    assert list(deposits.values_list("pk", flat=True)) == list(ids)
    assert wallet_balances(user=player).available == 2_500
    assert IdempotencyRecord.objects.filter(user=cashier, key="desk-1-slip-0042").count() == 1
    assert_ledger_reconciles()


def test_a_bet_sent_twice_at_once_with_one_idempotency_key_is_placed_once(make_player, make_table):
    require_postgres()
    player = make_player(balance=10_000)
    other = make_player(balance=10_000)  # has not bet yet, so the hand stays open for bets
    table = make_table()
    table_sit(user=player, table_id=table.pk)
    table_sit(user=other, table_id=table.pk)
    path = f"/api/tables/{table.pk}/bet/"

    results, errors = run_together(
        *[lambda: _post(player, path, {"ante": "1.00", "jackpot": True}, "tap-7f3a") for _ in range(2)]
    )

    assert errors == [None, None], errors
    assert [r.status_code for r in results] == [201, 201], [r.content for r in results]
    assert len({r.json()["id"] for r in results}) == 1
    assert HandSeat.objects.filter(player=player).count() == 1
    wallet, in_play = player_accounts_ensure(user=player)
    assert Transaction.objects.filter(kind=Transaction.Kind.BET, legs__account=wallet).count() == 1
    balances = wallet_balances(user=player)
    assert balances.available == 10_000 - (3 * ANTE + 50)
    assert balances.in_play == 3 * ANTE + 50  # one ante, one jackpot chip, one held raise
    assert_ledger_reconciles()


# --- 5. mixed load: no deadlock, the books balance ----------------------------------------


def _play_hands(table_id: int, players: list, hands: int, seed: int) -> int:
    rng = random.Random(seed)
    users = [fresh(p) for p in players]
    for _ in range(hands):
        for user in rng.sample(users, len(users)):
            hand_seat = hand_bet(
                user=user, table_id=table_id, ante=rng.choice([50, 100, 200]), jackpot=rng.random() < 0.7
            )
        hand_id = hand_seat.hand_id
        for user in rng.sample(users, len(users)):
            hand_decide(user=user, hand_id=hand_id, action=rng.choice(["fold", "raise"]))
    return hands


def _deposit_many(cashier, players: list, count: int, seed: int) -> int:
    rng = random.Random(seed)
    teller = fresh(cashier)
    users = [fresh(p) for p in players]
    for i in range(count):
        cashier_deposit(
            cashier=teller,
            player=rng.choice(users),
            amount=rng.randint(1, 500) * 100,
            idempotency_key=f"mix-{seed}-{i}",
        )
    return count


def test_mixed_load_on_shared_players_finishes_without_deadlock_and_balances(make_player, make_table, cashier):
    require_postgres()
    tables = [make_table() for _ in range(3)]
    players = [make_player(balance=500_000) for _ in range(4)]
    # Every table seats three of the four players, so every pair of tables shares two.
    seating = {t.pk: [p for j, p in enumerate(players) if j != i] for i, t in enumerate(tables)}
    for table_id, seated in seating.items():
        for p in seated:
            table_sit(user=p, table_id=table_id)
    hands_each = 8

    calls = [lambda t=t, s=s, i=i: _play_hands(t, s, hands_each, seed=i) for i, (t, s) in enumerate(seating.items())]
    calls += [lambda i=i: _deposit_many(cashier, players, 30, seed=100 + i) for i in range(2)]
    results, errors = run_together(*calls, timeout=120)

    failures = [f"{type(e).__name__}: {e}" for e in errors if e is not None]
    assert not failures, f"{len(failures)} worker(s) failed under mixed load: {failures}"
    settled = Hand.objects.filter(table__in=tables, state=Hand.State.SETTLED).count()
    assert settled == len(tables) * hands_each
    assert not Hand.objects.filter(table__in=tables, state=Hand.State.DECISIONS).exists()
    for p in players:
        balances = wallet_balances(user=p)
        assert balances.available >= 0
        assert balances.in_play == 0  # every settled hand released all of its stakes
    assert_ledger_reconciles()
    call_command("reconcile_jackpot", stdout=StringIO(), stderr=StringIO())


# --- the deadlock, made deterministic -----------------------------------------------------


def _backends_waiting_on_a_row_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


def test_two_last_bets_dealing_two_tables_with_the_same_players_do_not_deadlock(make_table, make_player):
    """P and Q both sit at tables 1 and 2. Q has bet at 1, P at 2. Now P bets at 1 and Q at
    2 at the same moment: each bet completes its table, so each deals and takes both
    players' jackpot chips. Both bets must be accepted.

    A third connection briefly holds the two tables' house accounts, which each deal locks
    together with the players' money in play; that parks both bets at the same point (once
    each holds its own player's accounts), so the interleaving that can deadlock is the one
    that always happens. A version of the code that never waits there is not held up.
    """
    require_postgres()
    t1, t2 = make_table(), make_table()  # their house accounts are created before the players'
    p, q = make_player(balance=50_000), make_player(balance=50_000)
    for t in (t1, t2):
        table_sit(user=p, table_id=t.pk)
        table_sit(user=q, table_id=t.pk)
    hand_bet(user=q, table_id=t1.pk, ante=ANTE, jackpot=True)
    hand_bet(user=p, table_id=t2.pk, ante=ANTE, jackpot=True)
    houses = [t1.house_account_id, t2.house_account_id]
    in_play_ids = [player_accounts_ensure(user=u)[1].pk for u in (p, q)]
    assert max(houses) < min(in_play_ids), "the scenario needs the house rows to come first in lock order"

    settings = connection.settings_dict
    blocker = psycopg.connect(
        host=settings["HOST"], port=settings["PORT"] or 5432, user=settings["USER"], dbname=settings["NAME"]
    )
    finished = threading.Semaphore(0)
    outcome: dict = {}

    def bet(user, table_id):
        try:
            return hand_bet(user=fresh(user), table_id=table_id, ante=ANTE, jackpot=True)
        finally:
            finished.release()

    def release_when_both_wait() -> None:
        done = 0
        deadline = time.monotonic() + 20
        try:
            while time.monotonic() < deadline and done < 2:
                if _backends_waiting_on_a_row_lock() >= 2:
                    outcome["both_waited"] = True
                    break
                done += finished.acquire(timeout=0.02)
        finally:
            blocker.commit()
            connection.close()

    try:
        blocker.execute("SELECT id FROM wallets_account WHERE id = ANY(%s) FOR UPDATE", (houses,))
        releaser = threading.Thread(target=release_when_both_wait, daemon=True)
        releaser.start()
        results, errors = run_together(lambda: bet(p, t1.pk), lambda: bet(q, t2.pk), timeout=30)
        releaser.join(25)
    finally:
        blocker.close()

    failures = [f"{type(e).__name__}: {e}" for e in errors if e is not None]
    forced = "both parked on the house rows, then released" if outcome.get("both_waited") else "not parked"
    assert not failures, f"a bet failed instead of being accepted ({forced}): {failures}"
    for t in (t1, t2):
        assert Hand.objects.filter(table=t, state=Hand.State.DECISIONS).count() == 1
    assert_ledger_reconciles()


def test_a_step_at_one_table_never_waits_for_another_table_of_the_same_tier(make_table, make_player):
    """Each step locks its table's row and nothing shared: two tables of one tier play at once."""
    require_postgres()
    first, second = make_table(), make_table()  # the same tier, the same pool
    players = [make_player() for _ in range(2)]
    table_sit(user=players[0], table_id=first.pk)
    table_sit(user=players[1], table_id=second.pk)
    holding, done = threading.Event(), threading.Event()

    def hold_the_first_table():
        from django.db import transaction

        from tables.locks import table_lock

        with transaction.atomic():
            table_lock(first.pk)
            holding.set()
            done.wait(10)

    def bet_at_the_second_table():
        from django.db import transaction

        holding.wait(10)
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '2s'")
            seat = hand_bet(user=players[1], table_id=second.pk, ante=ANTE, jackpot=True)
        done.set()
        return seat

    results, errors = run_together(hold_the_first_table, bet_at_the_second_table)
    done.set()
    assert errors == [None, None], errors
    assert results[1].hand.table_id == second.pk


def test_a_bet_that_waits_for_a_deposit_bets_against_the_deposited_balance(make_table, make_player, cashier):
    """The bet locks its money in the same statement that reads its hand (``tables.locks``):
    when a cashier's deposit holds the wallet, the bet waits, then sees the balance the
    deposit committed (not the one its statement started with), so a player who could not
    cover the bet before the deposit can after it, and nothing is counted twice."""
    require_postgres()
    table = make_table()
    player = make_player(balance=100)  # less than the ante and the held raise (300)
    table_sit(user=player, table_id=table.pk)
    depositing, release = threading.Event(), threading.Event()
    outcome: dict = {}

    def deposit_and_hold() -> None:
        from django.db import transaction

        with transaction.atomic():
            cashier_deposit(cashier=fresh(cashier), player=fresh(player), amount=10_000, idempotency_key="wait-dep")
            depositing.set()
            release.wait(20)

    def bet() -> HandSeat:
        depositing.wait(20)
        return hand_bet(user=fresh(player), table_id=table.pk, ante=ANTE, jackpot=False)

    def release_when_the_bet_waits() -> None:
        depositing.wait(20)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not outcome.get("waited"):
            outcome["waited"] = _backends_waiting_on_a_row_lock() >= 1
            time.sleep(0.01)
        release.set()

    results, errors = run_together(deposit_and_hold, bet, release_when_the_bet_waits, timeout=40)
    assert errors == [None, None, None], errors
    assert outcome["waited"], "the bet never waited for the deposit's lock on the wallet"
    assert results[1].ante == ANTE
    assert wallet_balances(user=player).available == 100 + 10_000 - 3 * ANTE
    assert_ledger_reconciles()
