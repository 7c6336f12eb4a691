"""Buy-in, top-up, leave and the hand's one settlement, through the ledger (SPEC B1)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from casino.http.errors import ApplicationError
from poker.models import PokerHand, PokerSeat, PokerTable
from poker.services import (
    poker_act,
    poker_leave,
    poker_sit,
    poker_sit_out,
    poker_top_up,
    poker_waitlist_join,
)
from tests.poker.helpers import play_out, seats_of
from wallets import responsible
from wallets.models import Account, GamingLimit, Transaction
from wallets.selectors import wallet_balances

pytestmark = pytest.mark.django_db


def balance(user) -> int:
    return wallet_balances(user=user).available


def hold(table):
    """Keep the table from starting a hand on its own (the pause after a hand)."""
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))


def reconcile():
    call_command("reconcile_poker")


def test_buy_in_moves_exactly_the_buy_in_from_the_wallet_to_the_stack(make_player, poker_table):
    alice = make_player(10_000)
    seat = poker_sit(user=alice, table_id=poker_table.pk)
    assert seat.stack == 2000 and seat.number == 1
    assert balance(alice) == 8000
    assert Account.objects.get(pk=seat.account_id).balance == 2000
    txn = Transaction.objects.get(kind=Transaction.Kind.POKER_BUY_IN)
    assert txn.table_ref == poker_table.pk
    assert sorted(leg.signed_amount for leg in txn.legs.all()) == [-2000, 2000]
    reconcile()


def test_buy_in_refusals_change_nothing(make_player, poker_table):
    poor = make_player(1999)
    with pytest.raises(ApplicationError) as exc:
        poker_sit(user=poor, table_id=poker_table.pk)
    assert exc.value.code == "insufficient_funds"
    rich = make_player(10_000)
    with pytest.raises(ApplicationError) as exc:
        poker_sit(user=rich, table_id=poker_table.pk, amount=1500)
    assert exc.value.code == "wrong_buy_in"
    with pytest.raises(ApplicationError) as exc:
        poker_sit(user=rich, table_id=poker_table.pk, seat_number=9)
    assert exc.value.code == "seat_invalid"
    with pytest.raises(ApplicationError) as exc:
        poker_sit(user=rich, table_id=10**9)
    assert exc.value.code == "table_not_found"
    assert not PokerSeat.objects.exists()
    assert balance(poor) == 1999 and balance(rich) == 10_000
    assert not Transaction.objects.filter(kind=Transaction.Kind.POKER_BUY_IN).exists()


def test_one_seat_per_player_per_table_and_seat_taken(make_player, poker_table):
    alice, bob = make_player(), make_player()
    hold(poker_table)
    poker_sit(user=alice, table_id=poker_table.pk, seat_number=3)
    with pytest.raises(ApplicationError) as exc:
        poker_sit(user=alice, table_id=poker_table.pk)
    assert exc.value.code == "already_seated"
    with pytest.raises(ApplicationError) as exc:
        poker_sit(user=bob, table_id=poker_table.pk, seat_number=3)
    assert exc.value.code == "seat_taken"
    assert PokerSeat.objects.filter(player=alice).count() == 1
    assert balance(alice) == 100_000 - 2000 and balance(bob) == 100_000


def test_self_exclusion_and_loss_limit_refuse_the_buy_in(make_player, poker_table):
    excluded, limited = make_player(), make_player()
    responsible.self_exclude(player=excluded, months=6)
    with pytest.raises(ApplicationError) as exc:
        poker_sit(user=excluded, table_id=poker_table.pk)
    assert exc.value.code == "self_excluded"
    responsible.limit_set(player=limited, kind=GamingLimit.Kind.LOSS, period=GamingLimit.Period.DAY, amount=1000)
    with pytest.raises(ApplicationError) as exc:
        poker_sit(user=limited, table_id=poker_table.pk)
    assert exc.value.code == "loss_limit_reached"
    assert not PokerSeat.objects.exists()


def test_a_buy_in_counts_against_the_loss_limit_until_cashed_out(make_player, poker_table, make_poker_table):
    alice = make_player()
    responsible.limit_set(player=alice, kind=GamingLimit.Kind.LOSS, period=GamingLimit.Period.DAY, amount=3000)
    hold(poker_table)
    poker_sit(user=alice, table_id=poker_table.pk)
    other = make_poker_table()
    with pytest.raises(ApplicationError) as exc:
        poker_sit(user=alice, table_id=other.pk)  # 20 + 20 > 30
    assert exc.value.code == "loss_limit_reached"
    assert poker_leave(user=alice, table_id=poker_table.pk) is None
    poker_sit(user=alice, table_id=other.pk)  # the first buy-in came back


def test_leave_between_hands_cashes_out_the_whole_stack(make_player, poker_table):
    alice = make_player()
    hold(poker_table)
    poker_sit(user=alice, table_id=poker_table.pk)
    assert poker_leave(user=alice, table_id=poker_table.pk) is None
    assert balance(alice) == 100_000
    assert not PokerSeat.objects.exists()
    with pytest.raises(ApplicationError) as exc:
        poker_leave(user=alice, table_id=poker_table.pk)
    assert exc.value.code == "not_seated"
    reconcile()


def test_a_hand_starts_with_two_players_and_settles_once(make_player, poker_table):
    alice, bob = make_player(), make_player()
    poker_sit(user=alice, table_id=poker_table.pk)
    assert not PokerHand.objects.exists()
    poker_sit(user=bob, table_id=poker_table.pk)
    hand = PokerHand.objects.get()
    assert hand.is_live and hand.version == 0 and len(hand.commitment) == 64
    hand = play_out(hand, seats_of(hand, [alice, bob]), strategy="calling_station")
    assert hand.state == PokerHand.State.ENDED
    settlements = Transaction.objects.filter(kind=Transaction.Kind.POKER_HAND, hand_ref=hand.pk)
    assert settlements.count() == 1
    record = hand.record
    stacks = {s.number: s.stack for s in PokerSeat.objects.all()}
    for seat in hand.seats:
        assert stacks[seat["seat"]] == 2000 + int(round(float(record["net"][str(seat["seat"])]) * 100))
    assert sum(stacks.values()) + hand.rake == 4000
    assert Account.objects.get(pk=poker_table.rake_account_id).balance == hand.rake
    # Showdown reached (calling stations never fold): 5 % of the pot, down to the cent, at most 3.00.
    assert hand.rake == min(300, hand.pot_total * 5 // 100) and hand.rake > 0
    with pytest.raises(ApplicationError) as exc:
        poker_act(user=alice, table_id=poker_table.pk, hand_id=hand.pk, action="check")
    assert exc.value.code == "hand_over"
    assert settlements.count() == 1
    reconcile()


def test_top_up_to_exactly_the_buy_in_between_hands(make_player, poker_table):
    alice, bob = make_player(), make_player()
    poker_sit(user=alice, table_id=poker_table.pk)
    poker_sit(user=bob, table_id=poker_table.pk)
    hand = PokerHand.objects.get()
    users = seats_of(hand, [alice, bob])
    with pytest.raises(ApplicationError) as exc:
        poker_top_up(user=alice, table_id=poker_table.pk)
    assert exc.value.code in ("hand_in_progress", "stack_full")
    play_out(hand, users, strategy="calling_station")
    loser = next(s for s in PokerSeat.objects.select_related("player") if s.stack < 2000)
    winner = next(s for s in PokerSeat.objects.select_related("player") if s.stack >= 2000)
    hold(poker_table)
    needed = 2000 - loser.stack
    with pytest.raises(ApplicationError) as exc:
        poker_top_up(user=loser.player, table_id=poker_table.pk, amount=needed + 1)
    assert exc.value.code == "wrong_buy_in"
    with pytest.raises(ApplicationError) as exc:
        poker_top_up(user=winner.player, table_id=poker_table.pk)
    assert exc.value.code == "stack_full"
    before = balance(loser.player)
    seat = poker_top_up(user=loser.player, table_id=poker_table.pk, amount=needed)
    assert seat.stack == 2000 and balance(loser.player) == before - needed
    reconcile()


def test_leaving_during_a_hand_cashes_out_at_its_end(make_player, poker_table):
    alice, bob, carol = make_player(), make_player(), make_player()
    hold(poker_table)
    for user in (alice, bob, carol):
        poker_sit(user=user, table_id=poker_table.pk)
    from poker.services import poker_hand_start

    hand = poker_hand_start(table_id=poker_table.pk)
    seat = poker_leave(user=alice, table_id=poker_table.pk)
    assert seat is not None and seat.leave_after_hand
    assert balance(alice) == 100_000 - 2000  # nothing yet: the chips are in the hand
    play_out(hand, seats_of(hand, [alice, bob, carol]), strategy="random_legal", seed=4)
    assert not PokerSeat.objects.filter(player=alice).exists()
    hand.refresh_from_db()
    assert balance(alice) == 100_000 + int(round(float(hand.record["net"][str(seat.number)]) * 100))
    reconcile()


def test_full_table_and_the_waiting_list(make_player, make_poker_table):
    table = make_poker_table(max_seats=2)
    alice, bob, carol, dave = make_player(), make_player(), make_player(), make_player()
    hold(table)
    poker_sit(user=alice, table_id=table.pk)
    poker_sit(user=bob, table_id=table.pk)
    with pytest.raises(ApplicationError) as exc:
        poker_sit(user=carol, table_id=table.pk)
    assert exc.value.code == "table_full"
    poker_waitlist_join(user=carol, table_id=table.pk)
    poker_waitlist_join(user=dave, table_id=table.pk)
    with pytest.raises(ApplicationError) as exc:
        poker_waitlist_join(user=alice, table_id=table.pk)
    assert exc.value.code == "already_seated"
    from django.db import transaction

    with transaction.atomic():  # on_commit callbacks run in a TestCase only when asked
        pass
    poker_leave(user=alice, table_id=table.pk)
    from poker.services import poker_waitlist_promote

    seat = PokerSeat.objects.filter(player=carol).first() or poker_waitlist_promote(table_id=table.pk)
    assert seat is not None and seat.player_id == carol.pk  # first come, first served
    assert balance(carol) == 100_000 - 2000
    assert list(table.waiting.values_list("player_id", flat=True)) == [dave.pk]
    reconcile()


def test_sitting_out_twenty_hands_stands_the_player_up(make_player, poker_table):
    alice, bob, carol = make_player(), make_player(), make_player()
    hold(poker_table)
    for user in (alice, bob, carol):
        poker_sit(user=user, table_id=poker_table.pk)
    poker_sit_out(user=carol, table_id=poker_table.pk)
    from poker.services import poker_hand_cancel, poker_hand_start

    for n in range(20):
        hand = poker_hand_start(table_id=poker_table.pk)
        assert carol.pk not in {s["user_id"] for s in hand.seats}
        poker_hand_cancel(hand_id=hand.pk, reason="test: next hand")
        seat = PokerSeat.objects.filter(player=carol).first()
        if n < 19:
            assert seat is not None and seat.hands_sat_out == n + 1
    assert not PokerSeat.objects.filter(player=carol).exists()
    assert balance(carol) == 100_000
    reconcile()


def test_a_seated_player_who_excludes_themself_is_dealt_out_and_cashed_out(make_player, poker_table):
    alice, bob, carol = make_player(), make_player(), make_player()
    hold(poker_table)
    for user in (alice, bob, carol):
        poker_sit(user=user, table_id=poker_table.pk)
    responsible.self_exclude(player=carol, months=6)
    from poker.services import poker_hand_start

    hand = poker_hand_start(table_id=poker_table.pk)
    assert carol.pk not in {s["user_id"] for s in hand.seats}
    assert not PokerSeat.objects.filter(player=carol).exists()
    assert balance(carol) == 100_000
    reconcile()


def test_at_a_table_of_two_a_player_who_excludes_themself_is_cashed_out_when_the_next_hand_is_due(
    make_player, poker_table
):
    """No next hand can start with one player left; the excluded one is stood up anyway."""
    from poker.services import poker_hand_start, poker_next_hand

    alice, bob = make_player(), make_player()
    hold(poker_table)
    for user in (alice, bob):
        poker_sit(user=user, table_id=poker_table.pk)
    hand = play_out(poker_hand_start(table_id=poker_table.pk), seats_of(poker_table.hands.get(), [alice, bob]))
    responsible.self_exclude(player=bob, months=6)
    bob_stack = PokerSeat.objects.get(player=bob).stack
    PokerTable.objects.filter(pk=poker_table.pk).update(next_hand_at=timezone.now() - timedelta(seconds=1))

    assert poker_next_hand(table_id=poker_table.pk) is None  # alice alone: no hand
    assert not PokerSeat.objects.filter(player=bob).exists()
    assert balance(bob) == 100_000 - 2000 + bob_stack
    assert PokerSeat.objects.filter(player=alice).exists() and poker_table.hands.count() == 1
    assert hand.state == PokerHand.State.ENDED
    cash_out = Transaction.objects.get(kind=Transaction.Kind.POKER_CASH_OUT)
    assert "self-excluded" in cash_out.memo
    reconcile()
