"""The shared progressive jackpot: funding, contributions, prizes, resets, reconciliation."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction

from casino.game.evaluator import Category
from casino.game.paytables import JackpotSchedule
from jackpot.models import JackpotHit
from jackpot.selectors import ledger_total, pool_meter, pool_reconcile
from jackpot.services import contribution_split, jackpot_award, jackpot_contribute, pool_create, pool_top_up
from wallets.models import Account, Transaction
from wallets.selectors import wallet_balances
from wallets.services import account_get_or_create, player_accounts_ensure


def _balance(account) -> int:
    return Account.objects.get(pk=account.pk).balance


@pytest.fixture
def house(db):
    return account_get_or_create(code="house:test", kind=Account.Kind.HOUSE, name="House at test")


def test_a_new_pool_is_funded_to_its_seed_by_the_house(pool):
    assert pool_meter(pool=pool) == 1_000_000
    funding = Transaction.objects.get(kind=Transaction.Kind.JACKPOT_FUNDING)
    assert sorted(leg.signed_amount for leg in funding.legs.all()) == [-1_000_000, 1_000_000]


def test_contributions_split_70_10_20_and_nothing_is_lost(pool, house, make_player):
    players = [make_player() for _ in range(4)]
    bets = [(player_accounts_ensure(user=p)[0], 50) for p in players]
    with transaction.atomic():
        jackpot_contribute(pool=pool, bets=bets, house_account=house, idempotency_key="h1")
    assert pool_meter(pool=pool) == 1_000_000 + 140
    assert _balance(pool.reserve_account) == 20
    assert _balance(house) == 40


@pytest.mark.parametrize("meter_bp,reserve_bp,total", [(3333, 1000, 50), (7000, 1000, 150), (6667, 1111, 250)])
def test_an_uneven_split_rounds_the_shares_down_and_gives_the_cents_to_the_house(pool, meter_bp, reserve_bp, total):
    pool.meter_share_bp, pool.reserve_share_bp = meter_bp, reserve_bp
    meter, reserve, house = contribution_split(pool=pool, total=total)
    assert meter + reserve + house == total
    assert meter == total * meter_bp // 10_000 and reserve == total * reserve_bp // 10_000


def test_a_contribution_is_counted_once_per_key(pool, house, make_player):
    wallet = player_accounts_ensure(user=make_player())[0]
    for _ in range(2):
        with transaction.atomic():
            jackpot_contribute(pool=pool, bets=[(wallet, 50)], house_account=house, idempotency_key="same-hand")
    assert pool_meter(pool=pool) == 1_000_035


def test_a_fixed_prize_is_paid_by_the_house_and_leaves_the_meter(pool, house, make_player):
    player = make_player(balance=0)
    wallet = player_accounts_ensure(user=player)[0]
    with transaction.atomic():
        award = jackpot_award(
            pool=pool,
            category=Category.STRAIGHT_FLUSH,
            player_id=player.pk,
            wallet=wallet,
            house_account=house,
            idempotency_key="sf",
        )
    assert (award.kind, award.amount) == ("fixed", 125_000)
    assert wallet_balances(user=player).available == 125_000
    assert _balance(house) == -125_000
    assert pool_meter(pool=pool) == 1_000_000


def test_no_prize_below_three_of_a_kind(pool, house, make_player):
    player = make_player(balance=0)
    wallet = player_accounts_ensure(user=player)[0]
    with transaction.atomic():
        assert (
            jackpot_award(
                pool=pool,
                category=Category.TWO_PAIR,
                player_id=player.pk,
                wallet=wallet,
                house_account=house,
                idempotency_key="tp",
            )
            is None
        )
    assert not JackpotHit.objects.exists()


def test_a_royal_flush_wins_the_meter_which_resets_from_the_reserve_then_the_house(pool, house, make_player):
    contributor = player_accounts_ensure(user=make_player())[0]
    with transaction.atomic():  # 100 bets: meter +3,500, reserve +500
        jackpot_contribute(pool=pool, bets=[(contributor, 5_000)], house_account=house, idempotency_key="bets")
    winner = make_player(balance=0)
    wallet = player_accounts_ensure(user=winner)[0]
    with transaction.atomic():
        award = jackpot_award(
            pool=pool,
            category=Category.ROYAL_FLUSH,
            player_id=winner.pk,
            wallet=wallet,
            house_account=house,
            idempotency_key="royal",
        )
    assert award.amount == 1_003_500
    assert wallet_balances(user=winner).available == 1_003_500
    assert pool_meter(pool=pool) == 1_000_000
    assert _balance(pool.reserve_account) == 0
    resets = Transaction.objects.filter(kind=Transaction.Kind.JACKPOT_RESET).order_by("id")
    assert [t.idempotency_key for t in resets] == ["royal:reset:reserve", "royal:reset:house"]
    assert _balance(house) == 1_000 - (1_000_000 - 500)
    hit = JackpotHit.objects.get()
    assert (hit.meter_before, hit.meter_after, hit.category) == (1_003_500, 1_000_000, "royal_flush")
    assert pool_reconcile(pool=pool).ok


def test_a_second_royal_wins_the_meter_as_it_stands_after_the_first_reset(pool, house, make_player):
    first, second = make_player(balance=0), make_player(balance=0)
    contributor = player_accounts_ensure(user=make_player())[0]
    with transaction.atomic():
        jackpot_contribute(pool=pool, bets=[(contributor, 1_000)], house_account=house, idempotency_key="bets")
        for n, winner in enumerate((first, second)):
            jackpot_award(
                pool=pool,
                category=Category.ROYAL_FLUSH,
                player_id=winner.pk,
                wallet=player_accounts_ensure(user=winner)[0],
                house_account=house,
                idempotency_key=f"royal{n}",
            )
    assert wallet_balances(user=first).available == 1_000_700
    assert wallet_balances(user=second).available == 1_000_000
    assert pool_meter(pool=pool) == 1_000_000
    assert pool_reconcile(pool=pool).ok


def test_a_percentage_prize_that_leaves_the_meter_above_the_seed_does_not_reset(db, house, make_player):
    schedule = JackpotSchedule(percent_prizes={Category.ROYAL_FLUSH: 10}, fixed_prizes={})
    pool = pool_create(name="Ten percent", seed_amount=1_000, schedule=schedule)
    pool_top_up(pool=pool, amount=99_000, actor=None, idempotency_key="t")
    winner = make_player(balance=0)
    with transaction.atomic():
        award = jackpot_award(
            pool=pool,
            category=Category.ROYAL_FLUSH,
            player_id=winner.pk,
            wallet=player_accounts_ensure(user=winner)[0],
            house_account=house,
            idempotency_key="r",
        )
    assert award.amount == 10_000 and pool_meter(pool=pool) == 90_000
    assert not Transaction.objects.filter(kind=Transaction.Kind.JACKPOT_RESET).exists()


def test_reconcile_command_proves_the_pool_to_the_cent(pool, house, make_player, capsys):
    wallet = player_accounts_ensure(user=make_player())[0]
    with transaction.atomic():
        jackpot_contribute(pool=pool, bets=[(wallet, 150)], house_account=house, idempotency_key="b")
    call_command("reconcile_jackpot")
    out = capsys.readouterr().out
    assert "Reconciled to the cent." in out and "jackpot_contribution" in out
    assert ledger_total() == 0


def test_reconcile_command_fails_when_a_balance_was_tampered_with(pool):
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":  # the balance guard trigger must be bypassed first
            cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("UPDATE wallets_account SET balance = balance + 1 WHERE id = %s", [pool.meter_account_id])
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL session_replication_role = origin")
    with pytest.raises(CommandError) as failed:
        call_command("reconcile_jackpot")
    assert failed.value.returncode == 1
