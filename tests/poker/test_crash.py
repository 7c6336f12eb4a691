"""Crash safety: a hand resumes from its stored actions; a stuck one is cancelled
with every chip back in its owner's stack; a step that dies midway leaves nothing behind."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from casino.http.errors import ApplicationError
from casino.live.deadlines import sweep_deadlines
from casino.stud.engine import hand_record, verify_record
from poker import replay, services
from poker.models import PokerAllowance, PokerHand, PokerSeat, PokerTable
from poker.services import poker_act, poker_hand_cancel, poker_hand_start, poker_sit, poker_timeout
from tests.poker.helpers import play_out, seats_of
from wallets.models import Transaction


def hold(table):
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))


def start(table, players):
    hold(table)
    for user in players:
        poker_sit(user=user, table_id=table.pk)
    return poker_hand_start(table_id=table.pk)


def act_once(hand, users, kind=None):
    hand.refresh_from_db()
    state = replay.hand_state(hand)
    legal = state.legal()
    for choice in ([kind] if kind else []) + ["bring_in", "call", "check"]:
        if choice in legal.actions:
            poker_act(user=users[state.to_act], table_id=hand.table_id, hand_id=hand.pk, action=choice)
            hand.refresh_from_db()
            return hand
    raise AssertionError(f"no passive action in {legal.actions}")


@pytest.mark.django_db
def test_a_hand_resumes_from_its_stored_actions_after_a_restart(make_player, poker_table):
    players = [make_player() for _ in range(3)]
    hand = start(poker_table, players)
    users = seats_of(hand, players)
    for _ in range(4):
        hand = act_once(hand, users)
    before = hand_record(replay.hand_state(hand))
    replay.forget_all()  # a new process: nothing in memory
    fresh = PokerHand.objects.get(pk=hand.pk)
    assert hand_record(replay.hand_state(fresh)) == before
    hand = play_out(fresh, users, strategy="calling_station")
    verify_record(hand.record)
    assert Transaction.objects.filter(kind=Transaction.Kind.POKER_HAND, hand_ref=hand.pk).count() == 1
    call_command("reconcile_poker")


@pytest.mark.django_db(transaction=True)
def test_a_step_that_dies_while_posting_leaves_the_hand_where_it_was(make_player, poker_table, monkeypatch):
    players = [make_player() for _ in range(2)]
    hand = start(poker_table, players)
    users = seats_of(hand, players)
    hand = act_once(hand, users, "bring_in")
    version, actions = hand.version, list(hand.actions)
    real = services.ledger_post

    def dies(**kwargs):
        if kwargs["kind"] == Transaction.Kind.POKER_HAND:
            raise RuntimeError("the server died here")
        return real(**kwargs)

    monkeypatch.setattr(services, "ledger_post", dies)
    state = replay.hand_state(hand)
    with pytest.raises(RuntimeError):
        poker_act(user=users[state.to_act], table_id=poker_table.pk, hand_id=hand.pk, action="fold")
    hand.refresh_from_db()
    assert hand.is_live and hand.version == version and hand.actions == actions
    assert not Transaction.objects.filter(kind=Transaction.Kind.POKER_HAND).exists()
    assert sorted(PokerSeat.objects.values_list("stack", flat=True)) == [2000, 2000]
    monkeypatch.setattr(services, "ledger_post", real)
    poker_act(user=users[state.to_act], table_id=poker_table.pk, hand_id=hand.pk, action="fold")
    hand.refresh_from_db()
    assert hand.state == PokerHand.State.ENDED
    assert Transaction.objects.filter(kind=Transaction.Kind.POKER_HAND, hand_ref=hand.pk).count() == 1
    call_command("reconcile_poker")


@pytest.mark.django_db
def test_cancel_returns_every_chip_put_in_to_its_owner(make_player, poker_table):
    players = [make_player() for _ in range(3)]
    hand = start(poker_table, players)
    users = seats_of(hand, players)
    stacks = dict(PokerSeat.objects.values_list("number", "stack"))
    for _ in range(5):
        hand = act_once(hand, users)
    assert replay.hand_state(hand).pot > 0
    hand = poker_hand_cancel(hand_id=hand.pk, reason="test")
    assert hand.state == PokerHand.State.CANCELLED and hand.record["complete"] is False
    assert dict(PokerSeat.objects.values_list("number", "stack")) == stacks
    assert not Transaction.objects.filter(kind=Transaction.Kind.POKER_HAND).exists()
    assert poker_hand_cancel(hand_id=hand.pk, reason="again").cancel_reason == "test"  # idempotent
    with pytest.raises(ApplicationError) as exc:
        poker_act(user=players[0], table_id=poker_table.pk, hand_id=hand.pk, action="call")
    assert exc.value.code == "hand_over"
    call_command("reconcile_poker")
    assert poker_hand_start(table_id=poker_table.pk).number == hand.number + 1


@pytest.mark.django_db
def test_the_sweeper_cancels_a_stuck_hand(make_player, poker_table):
    players = [make_player() for _ in range(2)]
    hand = start(poker_table, players)
    long_ago = timezone.now() - services.stuck_after() - timedelta(seconds=1)
    PokerHand.objects.filter(pk=hand.pk).update(updated_at=long_ago, decision_deadline=long_ago)
    assert hand.pk in services.poker_deadlines_due(timezone.now())
    sweep_deadlines()
    hand.refresh_from_db()
    assert hand.state == PokerHand.State.CANCELLED
    assert sorted(PokerSeat.objects.values_list("stack", flat=True)) == [2000, 2000]


@pytest.mark.django_db
def test_the_time_out_rule_applies_at_the_deadline_and_a_stale_call_does_nothing(make_player, poker_table):
    players = [make_player() for _ in range(2)]
    hand = start(poker_table, players)
    assert hand.decision_deadline > timezone.now()
    assert poker_timeout(hand_id=hand.pk, version=hand.version) is None  # not yet
    state = replay.hand_state(hand)
    seat = state.to_act
    PokerHand.objects.filter(pk=hand.pk).update(decision_deadline=timezone.now() - timedelta(seconds=1))
    assert sweep_deadlines() >= 1
    hand.refresh_from_db()
    assert hand.version == 1 and hand.actions[0] == [seat, "timeout_all_in", None]
    label = next(e["action"] for e in replay.hand_state(hand).events if e["type"] == "action" and e["action"] != "ante")
    # The forced bring-in cannot be checked: the player is all-in for what they put in (the allowance).
    assert label == "timeout_all_in"
    owner = next(s["user_id"] for s in hand.seats if s["seat"] == seat)
    assert PokerAllowance.objects.filter(player_id=owner).exists()
    assert PokerSeat.objects.get(number=seat).time_bank_ms == 0
    assert poker_timeout(hand_id=hand.pk, version=0) is None  # stale
    hand.refresh_from_db()
    assert hand.version == 1


@pytest.mark.django_db
def test_the_next_hand_starts_after_the_pause(make_player, poker_table):
    players = [make_player() for _ in range(2)]
    hand = start(poker_table, players)
    hand = play_out(hand, seats_of(hand, players), strategy="calling_station")
    table = PokerTable.objects.get(pk=poker_table.pk)
    assert table.next_hand_at is not None and not PokerHand.objects.filter(state="live").exists()
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() - timedelta(seconds=1))
    sweep_deadlines()
    assert PokerHand.objects.filter(table=table, state="live", number=hand.number + 1).exists()


@pytest.mark.django_db
def test_after_a_cancel_the_snapshot_shows_no_hand(make_player, poker_table):
    from poker.selectors import poker_table_view

    players = [make_player() for _ in range(2)]
    hand = start(poker_table, players)
    assert poker_table_view(table=poker_table, user=players[0])["hand"]["id"] == hand.pk
    poker_hand_cancel(hand_id=hand.pk, reason="test")
    view = poker_table_view(table=poker_table, user=players[0])
    assert view["hand"] is None and [r["stack"] for r in view["seats"][:2]] == ["20.00", "20.00"]
