"""The shared jackpot under concurrent settlement, on real PostgreSQL with real threads.

Many tables feed one meter row. What an auditor checks: ``reconcile_jackpot`` passes, the
meter equals the seed plus every hand's meter share minus the percentage prizes plus
the resets, no contribution is lost or counted twice, and simultaneous royal flushes are
paid in commit order (SPEC A6).
"""

from __future__ import annotations

import random
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db.models import Sum

from jackpot.models import JackpotHit
from jackpot.selectors import ledger_total, pool_meter
from jackpot.services import contribution_split
from tables.models import Hand, HandSeat
from tables.services.hands import hand_bet, hand_decide
from tables.services.seats import table_sit
from tests.conftest import require_postgres, run_together
from wallets.models import Account, Leg, Transaction
from wallets.selectors import account_balance_from_legs, wallet_balances

pytestmark = pytest.mark.django_db(transaction=True)

ANTE = 100
ROYAL_HEARTS = "Ah Kh Qh Jh Th"
ROYAL_SPADES = "As Ks Qs Js Ts"
DEALER_NOT_QUALIFIED = "2c 3d 4h 8s 9c"


def fresh(user):
    return get_user_model().objects.get(pk=user.pk)


def reconcile() -> str:
    """``reconcile_jackpot`` must pass (it raises CommandError otherwise); its report."""
    out = StringIO()
    call_command("reconcile_jackpot", stdout=out, stderr=StringIO())
    return out.getvalue()


def legs_total(account_id: int, kind: str, side: str) -> int:
    return (
        Leg.objects.filter(account_id=account_id, transaction__kind=kind, side=side).aggregate(t=Sum("amount"))["t"]
        or 0
    )


def hand_shares(pool, hands) -> tuple[int, int]:
    """(meter, reserve) shares of these hands' jackpot bets, hand by hand, as the rules split them."""
    meter = reserve = 0
    for hand in hands:
        total = sum(hand.hand_seats.values_list("jackpot_bet", flat=True))
        if total:
            m, r, _ = contribution_split(pool=pool, total=total)
            meter, reserve = meter + m, reserve + r
    return meter, reserve


# --- 2. eight tables settling jackpot bets at once ---------------------------------------


def _play(table_id: int, players: list, hands: int, seed: int) -> int:
    rng = random.Random(seed)
    users = [fresh(p) for p in players]
    for _ in range(hands):
        for user in users:
            hand_seat = hand_bet(user=user, table_id=table_id, ante=ANTE, jackpot=True)
        for user in rng.sample(users, len(users)):
            hand_decide(user=user, hand_id=hand_seat.hand_id, action=rng.choice(["fold", "raise"]))
    return hands


def test_eight_tables_settling_jackpot_bets_at_once_lose_no_contribution(make_table, make_player, pool):
    require_postgres()
    tables = [make_table() for _ in range(8)]
    seating = {}
    for i, t in enumerate(tables):
        seating[t.pk] = [make_player(balance=100_000) for _ in range(1 + i % 2)]
        for p in seating[t.pk]:
            table_sit(user=p, table_id=t.pk)
    hands_each = 6

    results, errors = run_together(
        *[lambda t=t, s=s, i=i: _play(t, s, hands_each, seed=i) for i, (t, s) in enumerate(seating.items())],
        timeout=120,
    )

    failures = [f"{type(e).__name__}: {e}" for e in errors if e is not None]
    assert not failures, failures
    hands = list(Hand.objects.filter(table__pool=pool, state=Hand.State.SETTLED))
    assert len(hands) == len(tables) * hands_each
    bets = HandSeat.objects.filter(hand__in=hands).aggregate(n=Sum("jackpot_bet"))["n"]
    assert bets == sum(len(s) for s in seating.values()) * hands_each * pool.bet_amount

    meter_shares, reserve_shares = hand_shares(pool, hands)
    meter_id, reserve_id = pool.meter_account_id, pool.reserve_account_id
    # One contribution per hand, none lost, none counted twice.
    assert Transaction.objects.filter(kind=Transaction.Kind.JACKPOT_CONTRIBUTION).count() == len(hands)
    assert legs_total(meter_id, Transaction.Kind.JACKPOT_CONTRIBUTION, Leg.Side.CREDIT) == meter_shares
    assert legs_total(reserve_id, Transaction.Kind.JACKPOT_CONTRIBUTION, Leg.Side.CREDIT) == reserve_shares
    percent_prizes = (
        JackpotHit.objects.filter(pool=pool, kind=JackpotHit.Kind.PERCENT).aggregate(t=Sum("amount"))["t"] or 0
    )
    assert legs_total(meter_id, Transaction.Kind.JACKPOT_PRIZE, Leg.Side.DEBIT) == percent_prizes
    resets = legs_total(meter_id, Transaction.Kind.JACKPOT_RESET, Leg.Side.CREDIT)
    reset_from_reserve = legs_total(reserve_id, Transaction.Kind.JACKPOT_RESET, Leg.Side.DEBIT)
    assert pool_meter(pool=pool) == pool.seed_amount + meter_shares - percent_prizes + resets
    assert Account.objects.get(pk=reserve_id).balance == reserve_shares - reset_from_reserve
    assert pool_meter(pool=pool) >= pool.seed_amount
    # Every fixed prize won is recorded on its seat and paid once.
    won = HandSeat.objects.filter(hand__in=hands).aggregate(t=Sum("jackpot_win"))["t"] or 0
    assert won == (JackpotHit.objects.filter(pool=pool).aggregate(t=Sum("amount"))["t"] or 0)
    assert ledger_total() == 0
    assert "Reconciled to the cent." in reconcile()


# --- 3. two royal flushes at once ---------------------------------------------------------


def test_two_royal_flushes_in_one_hand_are_paid_right_to_left_each_from_the_meter_as_it_stands(
    make_table, make_player, pool, rig_deck
):
    require_postgres()
    table = make_table()
    seat1, seat2 = make_player(balance=10_000), make_player(balance=10_000)
    table_sit(user=seat1, table_id=table.pk, seat_number=1)
    table_sit(user=seat2, table_id=table.pk, seat_number=2)
    rig_deck([ROYAL_HEARTS, ROYAL_SPADES], DEALER_NOT_QUALIFIED)
    hand_bet(user=seat1, table_id=table.pk, ante=ANTE, jackpot=True)
    hand_seat = hand_bet(user=seat2, table_id=table.pk, ante=ANTE, jackpot=True)  # deals
    seed = pool.seed_amount
    meter_share, reserve_share, _ = contribution_split(pool=pool, total=2 * pool.bet_amount)
    meter_before = pool_meter(pool=pool)
    assert meter_before == seed + meter_share
    assert Account.objects.get(pk=pool.reserve_account_id).balance == reserve_share

    hand_decide(user=seat1, hand_id=hand_seat.hand_id, action="raise")
    hand_decide(user=seat2, hand_id=hand_seat.hand_id, action="raise")  # settles, right to left

    first, second = JackpotHit.objects.filter(hand_ref=hand_seat.hand_id).order_by("id")
    # Seat 2 is settled first and takes the whole meter; the meter resets to the seed.
    assert (first.seat_number, first.player_id, first.category, first.kind) == (2, seat2.pk, "royal_flush", "percent")
    assert (first.amount, first.meter_before, first.meter_after) == (meter_before, meter_before, seed)
    # Seat 1 then takes 100 % of the reset meter, which resets again.
    assert (second.seat_number, second.player_id) == (1, seat1.pk)
    assert (second.amount, second.meter_before, second.meter_after) == (seed, seed, seed)
    assert pool_meter(pool=pool) == seed

    # The ledger agrees: each reset is funded from the reserve first, then by the house.
    resets = Transaction.objects.filter(kind=Transaction.Kind.JACKPOT_RESET, hand_ref=hand_seat.hand_id)
    first_key = f"hand:{hand_seat.hand_id}:seat:2:jackpot"
    second_key = f"hand:{hand_seat.hand_id}:seat:1:jackpot"
    meter_in = {
        t.idempotency_key: t.legs.get(account_id=pool.meter_account_id).amount for t in resets.prefetch_related("legs")
    }
    assert meter_in == {
        f"{first_key}:reset:reserve": reserve_share,
        f"{first_key}:reset:house": seed - reserve_share,
        f"{second_key}:reset:house": seed,  # the reserve is empty by then
    }
    assert Account.objects.get(pk=pool.reserve_account_id).balance == 0
    assert first.prize_transaction.idempotency_key == first_key
    assert legs_total(pool.meter_account_id, Transaction.Kind.JACKPOT_PRIZE, Leg.Side.DEBIT) == meter_before + seed
    seats = {hs.seat_number: hs for hs in HandSeat.objects.filter(hand_id=hand_seat.hand_id)}
    assert (seats[2].jackpot_win, seats[1].jackpot_win) == (meter_before, seed)
    for player, prize in ((seat2, meter_before), (seat1, seed)):
        wallet_id = Account.objects.get(owner=player, kind=Account.Kind.PLAYER_WALLET).pk
        assert legs_total(wallet_id, Transaction.Kind.JACKPOT_PRIZE, Leg.Side.CREDIT) == prize
    assert ledger_total() == 0
    assert "Reconciled to the cent." in reconcile()


def test_two_royal_flushes_settling_at_two_tables_at_once_are_paid_in_commit_order(
    make_table, make_player, pool, rig_deck
):
    require_postgres()
    tables = [make_table(), make_table()]
    players = [make_player(balance=10_000), make_player(balance=10_000)]
    rig_deck([ROYAL_HEARTS], DEALER_NOT_QUALIFIED)  # both tables deal this deck
    hand_ids = []
    for t, p in zip(tables, players):
        table_sit(user=p, table_id=t.pk)
        hand_ids.append(hand_bet(user=p, table_id=t.pk, ante=ANTE, jackpot=True).hand_id)  # deals
    seed = pool.seed_amount
    meter_share, reserve_share, _ = contribution_split(pool=pool, total=pool.bet_amount)
    meter_before = pool_meter(pool=pool)
    assert meter_before == seed + 2 * meter_share
    wallets_before = {p.pk: wallet_balances(user=p).available for p in players}

    results, errors = run_together(
        *[lambda p=p, h=h: hand_decide(user=fresh(p), hand_id=h, action="raise") for p, h in zip(players, hand_ids)]
    )

    assert errors == [None, None], errors
    assert Hand.objects.filter(pk__in=hand_ids, state=Hand.State.SETTLED).count() == 2
    first, second = JackpotHit.objects.filter(pool=pool).order_by("id")
    assert {first.hand_ref, second.hand_ref} == set(hand_ids)
    # The first to commit took the whole meter; the second saw the meter after that reset.
    assert (first.amount, first.meter_before, first.meter_after) == (meter_before, meter_before, seed)
    assert (second.meter_before, second.amount, second.meter_after) == (first.meter_after, seed, seed)
    refunded_between = first.meter_after - (first.meter_before - first.amount)  # the first reset
    assert first.amount + second.amount == meter_before + refunded_between
    assert legs_total(pool.meter_account_id, Transaction.Kind.JACKPOT_PRIZE, Leg.Side.DEBIT) == meter_before + seed
    # First reset: the reserve (both hands' shares) first, the rest from the house; second: the house.
    assert legs_total(pool.reserve_account_id, Transaction.Kind.JACKPOT_RESET, Leg.Side.DEBIT) == 2 * reserve_share
    assert legs_total(pool.meter_account_id, Transaction.Kind.JACKPOT_RESET, Leg.Side.CREDIT) == 2 * seed
    assert pool_meter(pool=pool) == seed
    for hit in (first, second):
        seat = HandSeat.objects.get(hand_id=hit.hand_ref)
        assert seat.jackpot_win == hit.amount and seat.player_id == hit.player_id
        # The prize reached the wallet, besides the raise's royal-flush payout and the ante.
        wallet = Account.objects.get(owner_id=hit.player_id, kind=Account.Kind.PLAYER_WALLET)
        assert legs_total(wallet.pk, Transaction.Kind.JACKPOT_PRIZE, Leg.Side.CREDIT) == hit.amount
        assert wallet.balance == wallets_before[hit.player_id] + seat.ante_return + seat.raise_return + hit.amount
        assert wallet.balance == account_balance_from_legs(account=wallet)
    assert ledger_total() == 0
    assert "Reconciled to the cent." in reconcile()
