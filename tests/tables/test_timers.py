"""The time bank (SPEC A4): betting window, decision deadline, the pair extension, sit-outs."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from casino.live import deadlines
from casino.live.deadlines import sweep_deadlines
from tables.events import GAME
from tables.models import Hand, HandSeat
from tables.services.hands import hand_bet, hand_decide, hand_expire, hand_seat_disconnected
from tables.services.seats import table_sit
from tables.timers import hands_due
from wallets.selectors import wallet_balances

DEALER_AK = "Ac Kd 7h 4s 2s"


@pytest.fixture
def clock(monkeypatch):
    """A controllable clock: ``clock.advance(seconds)``."""
    real_now = timezone.now

    class Clock:
        offset = timedelta()

        def advance(self, seconds: float) -> None:
            self.offset += timedelta(seconds=seconds)

    clock = Clock()
    monkeypatch.setattr(timezone, "now", lambda: real_now() + clock.offset)
    return clock


def _seat(table, *players):
    for p in players:
        table_sit(user=p, table_id=table.pk)


def _hand(table) -> Hand:
    return Hand.objects.filter(table=table).order_by("-id").first()


def test_the_first_ante_opens_a_15_second_window_after_which_the_hand_is_dealt(table, make_player, clock):
    early, late = make_player(), make_player()
    _seat(table, early, late)
    hand_bet(user=early, table_id=table.pk, ante=100, jackpot=False)
    hand = _hand(table)
    assert hand.betting_deadline is not None
    clock.advance(14)
    assert sweep_deadlines() == 0 and _hand(table).state == Hand.State.BETTING
    clock.advance(2)
    assert hands_due() == [hand.pk]
    sweep_deadlines()
    hand.refresh_from_db()
    assert hand.state == Hand.State.DECISIONS
    assert list(hand.hand_seats.values_list("player_id", flat=True)) == [early.pk]  # late sits this one out


def test_no_pair_out_of_time_is_folded(table, make_player, rig_deck, clock):
    player = make_player(balance=10_000)
    rig_deck(["2c 5d 8h 9s Jc"], DEALER_AK)
    _seat(table, player)
    hand_bet(user=player, table_id=table.pk, ante=100, jackpot=False)
    clock.advance(21)
    sweep_deadlines()
    seat = HandSeat.objects.get(player=player)
    assert (seat.decision, seat.decided_by_timeout, seat.outcome) == ("fold", True, "fold")
    assert wallet_balances(user=player).available == 10_000 - 100


def test_a_pair_out_of_time_gets_one_60_second_extension_then_is_folded(table, make_player, rig_deck, clock):
    player = make_player(balance=10_000)
    rig_deck(["9c 9d 2h 5s Jc"], DEALER_AK)
    _seat(table, player)
    hand_bet(user=player, table_id=table.pk, ante=100, jackpot=False)
    clock.advance(21)
    sweep_deadlines()
    seat = HandSeat.objects.get(player=player)
    assert seat.decision == "" and seat.extension_used
    assert seat.decision_deadline > timezone.now() + timedelta(seconds=59)
    clock.advance(30)
    assert sweep_deadlines() == 0
    assert HandSeat.objects.get(player=player).decision == ""
    clock.advance(31)
    sweep_deadlines()
    seat.refresh_from_db()
    assert (seat.decision, seat.decided_by_timeout) == ("fold", True)
    assert _hand(table).state == Hand.State.BETTING  # settled; the next hand is open


def test_the_operator_may_raise_a_pair_whose_extension_ran_out(table, make_player, rig_deck, clock):
    table.pair_timeout_action = "raise"
    table.save(update_fields=["pair_timeout_action"])
    player = make_player(balance=10_000)
    rig_deck(["9c 9d 2h 5s Jc"], DEALER_AK)
    _seat(table, player)
    hand_bet(user=player, table_id=table.pk, ante=100, jackpot=False)
    clock.advance(21)
    sweep_deadlines()
    clock.advance(61)
    sweep_deadlines()
    seat = HandSeat.objects.get(player=player)
    assert (seat.decision, seat.decided_by_timeout, seat.raise_amount) == ("raise", True, 200)


def test_a_dropped_connection_with_a_pair_extends_the_time_once(table, make_player, rig_deck, clock):
    pair, nothing = make_player(), make_player()
    rig_deck(["9c 9d 2h 5s Jc", "3c 6d 8h Ts Qc"], DEALER_AK)
    _seat(table, pair, nothing)
    for p in (pair, nothing):
        hand_bet(user=p, table_id=table.pk, ante=100, jackpot=False)
    base = HandSeat.objects.get(player=pair).decision_deadline
    hand_seat_disconnected(user=pair, table_id=table.pk)
    hand_seat_disconnected(user=nothing, table_id=table.pk)
    hand_seat_disconnected(user=pair, table_id=table.pk)  # only once
    assert HandSeat.objects.get(player=pair).decision_deadline == base + timedelta(seconds=60)
    assert HandSeat.objects.get(player=nothing).decision_deadline == base
    clock.advance(21)
    sweep_deadlines()
    assert HandSeat.objects.get(player=nothing).decision == "fold"
    assert HandSeat.objects.get(player=pair).decision == ""
    clock.advance(60)
    sweep_deadlines()
    assert HandSeat.objects.get(player=pair).decision == "fold"


def test_a_stale_timer_changes_nothing(table, make_player, clock):
    player = make_player()
    _seat(table, player)
    hand_bet(user=player, table_id=table.pk, ante=100, jackpot=False)
    hand = _hand(table)
    hand_decide(user=player, hand_id=hand.pk, action="raise")
    version = Hand.objects.get(pk=hand.pk).version
    clock.advance(100)
    hand_expire(hand_id=hand.pk)  # the countdown of the settled hand fires late
    assert Hand.objects.get(pk=hand.pk).version == version


def test_a_countdown_for_a_hand_that_moved_on_reads_once_and_locks_nothing(table, make_player, rig_deck, clock):
    player = make_player()
    rig_deck(["2c 5d 8h 9s Jc"], DEALER_AK)
    _seat(table, player)
    hand_bet(user=player, table_id=table.pk, ante=100, jackpot=False)  # the only seat bet: dealt at once
    hand = _hand(table)
    version = hand.version
    clock.advance(16)  # the betting window's countdown fires, the hand long dealt
    with CaptureQueriesContext(connection) as queries:
        deadlines.expire(GAME, hand.pk)
    assert len(queries) == 1 and "FOR UPDATE" not in queries[0]["sql"]
    assert Hand.objects.get(pk=hand.pk).version == version

    clock.advance(60)  # the decision's countdown: due, enforced under the locks
    deadlines.expire(GAME, hand.pk)
    assert HandSeat.objects.get(hand=hand).decision == "fold"
    assert Hand.objects.get(pk=hand.pk).state == Hand.State.SETTLED


def test_three_rounds_sat_out_in_a_row_stand_a_player_up(table, make_player, clock):
    active, idle = make_player(), make_player()
    _seat(table, active, idle)
    for round_ in range(3):
        assert table.seats.filter(player=idle).exists(), round_
        hand_bet(user=active, table_id=table.pk, ante=100, jackpot=False)
        clock.advance(16)
        sweep_deadlines()
        hand = Hand.objects.get(table=table, state=Hand.State.DECISIONS)
        hand_decide(user=active, hand_id=hand.pk, action="fold")
    assert not table.seats.filter(player=idle).exists()
    assert table.seats.filter(player=active).exists()


def test_a_bet_resets_the_sit_out_count(table, make_player, clock):
    active, sometimes = make_player(), make_player()
    _seat(table, active, sometimes)
    for round_ in range(5):
        hand_bet(user=active, table_id=table.pk, ante=100, jackpot=False)
        if round_ % 2:
            hand_bet(user=sometimes, table_id=table.pk, ante=100, jackpot=False)
        else:
            clock.advance(16)
            sweep_deadlines()
        hand = Hand.objects.get(table=table, state=Hand.State.DECISIONS)
        for hs in hand.hand_seats.all():
            hand_decide(user=hs.player, hand_id=hand.pk, action="fold")
    assert table.seats.filter(player=sometimes).exists()


@pytest.fixture
def countdowns(settings, monkeypatch):
    """Countdown tasks on (``CASINO_TIMERS=celery``), each one sent recorded as ((game, hand), eta)."""
    from casino.live import tasks

    settings.CASINO_TIMERS = "celery"
    sent = []
    monkeypatch.setattr(tasks.hand_deadline, "apply_async", lambda args, eta: sent.append((tuple(args), eta)))
    return sent


def test_a_hand_still_waiting_gets_its_countdown_from_the_sweep_shortly_before_the_deadline_once(
    table, make_player, clock, countdowns, django_capture_on_commit_callbacks
):
    early, late = make_player(), make_player()
    _seat(table, early, late)
    with django_capture_on_commit_callbacks(execute=True):
        hand_bet(user=early, table_id=table.pk, ante=100, jackpot=False)  # opens the 15 s window
    hand = _hand(table)
    assert countdowns == []  # 15 s away: the step sent none
    clock.advance(11)
    sweep_deadlines()
    assert countdowns == []  # 4 s away
    clock.advance(1)
    sweep_deadlines()
    sweep_deadlines()
    assert countdowns == [((GAME, hand.pk), hand.betting_deadline)]  # 3 s away: armed, once
    clock.advance(3)
    deadlines.expire(GAME, hand.pk)  # the countdown at the deadline deals
    assert _hand(table).state == Hand.State.DECISIONS


def test_a_hand_that_moves_on_in_time_never_sends_a_countdown(
    table, make_player, rig_deck, clock, countdowns, django_capture_on_commit_callbacks
):
    players = [make_player(), make_player()]
    rig_deck(["2c 5d 8h 9s Jc", "3c 6d 8c Ts Qc"], DEALER_AK)
    _seat(table, *players)
    with django_capture_on_commit_callbacks(execute=True):
        for player in players:  # the last bet deals: a 20 s decision deadline
            hand_bet(user=player, table_id=table.pk, ante=100, jackpot=False)
        hand = _hand(table)
        for player in players:
            hand_decide(user=player, hand_id=hand.pk, action="fold")
    for _ in range(25):
        clock.advance(1)
        sweep_deadlines()
    assert countdowns == []
    assert Hand.objects.get(pk=hand.pk).state == Hand.State.SETTLED


def test_a_pairs_extension_is_a_deadline_of_its_own_and_gets_its_countdown(
    table, make_player, rig_deck, clock, countdowns
):
    pair = make_player()
    rig_deck(["9c 9d 2h 5s Jc"], DEALER_AK)
    _seat(table, pair)
    hand_bet(user=pair, table_id=table.pk, ante=100, jackpot=False)
    hand = _hand(table)
    seat = HandSeat.objects.get(hand=hand)
    clock.advance(18)
    sweep_deadlines()
    assert countdowns == [((GAME, hand.pk), seat.decision_deadline)]
    clock.advance(3)
    deadlines.expire(GAME, hand.pk)  # out of time with a pair: the extension
    seat.refresh_from_db()
    assert seat.extension_used and seat.decision == ""
    clock.advance(58)
    sweep_deadlines()
    assert countdowns[1:] == [((GAME, hand.pk), seat.decision_deadline)]


@pytest.mark.django_db(transaction=True)
def test_with_the_broker_down_one_countdown_is_tried_then_none_for_a_while_and_the_sweeper_still_deals(
    table, make_player, clock, settings, monkeypatch
):
    # A send to a broker that is down held its thread 0.6-0.7 s: at every bet and decision
    # while the outage lasted, when the steps sent every countdown.
    from kombu.exceptions import OperationalError

    from casino import intervals
    from casino.live import tasks

    settings.CASINO_TIMERS = "celery"
    seconds = [1000.0]
    monkeypatch.setattr(deadlines, "broker", deadlines.Broker(clock=lambda: seconds[0]))
    tried = []

    def unreachable(args, eta):
        tried.append(tuple(args))
        raise OperationalError("Error 111 connecting to 127.0.0.1:6399. Connection refused.")

    monkeypatch.setattr(tasks.hand_deadline, "apply_async", unreachable)
    players = [make_player() for _ in range(3)]
    _seat(table, *players)
    seat = hand_bet(user=players[0], table_id=table.pk, ante=100, jackpot=False)  # opens the betting window
    clock.advance(13)
    sweep_deadlines()  # 2 s before the window closes: its countdown is tried
    assert tried == [(GAME, seat.hand_id)]
    hand_bet(user=players[1], table_id=table.pk, ante=100, jackpot=False)
    clock.advance(3)
    sweep_deadlines()  # the sweeper deals
    assert _hand(table).state == Hand.State.DECISIONS
    clock.advance(18)
    sweep_deadlines()  # the decisions' deadline is near, but no try inside the pause
    assert tried == [(GAME, seat.hand_id)]

    for _ in range(3):  # past the decision deadline and any pair's extension
        clock.advance(61)
        sweep_deadlines()  # the sweeper enforces what no countdown was sent for
    assert Hand.objects.get(pk=seat.hand_id).state == Hand.State.SETTLED

    seconds[0] += intervals.BROKER_RETRY_AFTER  # the pause is over, and the broker is back
    monkeypatch.setattr(tasks.hand_deadline, "apply_async", lambda args, eta: tried.append(tuple(args)))
    nxt = hand_bet(user=players[0], table_id=table.pk, ante=100, jackpot=False)  # opens the next hand's window
    assert nxt.hand_id != seat.hand_id
    clock.advance(13)
    sweep_deadlines()
    assert tried == [(GAME, seat.hand_id), (GAME, nxt.hand_id)]
