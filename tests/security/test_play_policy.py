"""The services that put a player's money at a table ask the policy themselves: whoever
lacks the ``play`` grant (never had it, or lost it since the page or the socket let them
in) is refused by ``table_sit``, ``hand_bet``, ``hand_decide``, ``poker_sit``,
``poker_top_up`` and ``poker_act`` with ``forbidden``, and nothing moves; given the grant
back, the same call goes through."""

from __future__ import annotations

import random

import pytest
from django.contrib.auth import get_user_model

from casino.access.roles import PLAYER
from casino.http.errors import PermissionDenied
from casino.stud.bots import get_strategy
from poker import replay
from poker.models import PokerHand, PokerSeat
from poker.services import poker_act, poker_sit, poker_top_up
from tables.models import Hand, HandSeat, Seat
from tables.services.hands import hand_bet, hand_decide
from tables.services.seats import table_sit
from tests.factories import PokerTableFactory
from wallets.models import Transaction
from wallets.selectors import wallet_balances

pytestmark = pytest.mark.django_db


def _without_play(user, groups):
    user.groups.remove(groups[PLAYER])
    return get_user_model().objects.get(pk=user.pk)  # as the next request or socket message sees it


def _with_play(user, groups):
    user.groups.add(groups[PLAYER])
    return get_user_model().objects.get(pk=user.pk)


def _everything(*players) -> tuple:
    return (
        Transaction.objects.count(),
        tuple(Seat.objects.order_by("pk").values_list("pk", "table_id", "number", "player_id")),
        tuple(Hand.objects.order_by("pk").values_list("pk", "state", "version")),
        tuple(HandSeat.objects.order_by("pk").values_list("pk", "ante", "raise_amount", "decision")),
        tuple(PokerSeat.objects.order_by("pk").values_list("pk", "number", "player_id", "stack")),
        tuple(PokerHand.objects.order_by("pk").values_list("pk", "state", "version")),
        tuple(wallet_balances(user=p) for p in players),
    )


def _refused(call, *players) -> None:
    before = _everything(*players)
    with pytest.raises(PermissionDenied) as refused:
        call()
    assert refused.value.code == "forbidden" and refused.value.extra == {"action": "play"}
    assert _everything(*players) == before


def test_the_caribbean_services_refuse_a_user_without_the_play_grant(groups, make_player, table, make_table):
    alice, bob = make_player(), make_player()
    table_sit(user=alice, table_id=table.pk)
    table_sit(user=bob, table_id=table.pk)
    hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=False)

    bob = _without_play(bob, groups)
    _refused(lambda: hand_bet(user=bob, table_id=table.pk, ante=100, jackpot=False), alice, bob)
    _refused(lambda: table_sit(user=bob, table_id=make_table("Havana").pk), alice, bob)

    bob = _with_play(bob, groups)
    hand_bet(user=bob, table_id=table.pk, ante=100, jackpot=False)  # every seat has bet: dealt
    hand = Hand.objects.get(table=table, state=Hand.State.DECISIONS)

    bob = _without_play(bob, groups)
    _refused(lambda: hand_decide(user=bob, hand_id=hand.pk, action="raise"), alice, bob)
    _refused(lambda: hand_decide(user=bob, table_id=table.pk, action="fold"), alice, bob)

    bob = _with_play(bob, groups)
    assert hand_decide(user=bob, hand_id=hand.pk, action="fold").decision == HandSeat.Decision.FOLD


@pytest.fixture
def poker_table(db):
    replay.forget_all()  # the room's state cache, as tests/poker/conftest.py keeps it fresh
    yield PokerTableFactory(game="seven_stud", preset="2-4")
    replay.forget_all()


def test_the_poker_services_refuse_a_user_without_the_play_grant(groups, make_player, poker_table):
    alice, bob, carol = make_player(), make_player(), make_player()
    _refused(lambda: poker_sit(user=_without_play(carol, groups), table_id=poker_table.pk), carol)

    poker_sit(user=alice, table_id=poker_table.pk)
    poker_sit(user=bob, table_id=poker_table.pk)  # two players: the hand starts
    hand = PokerHand.objects.get(table=poker_table)
    state = replay.hand_state(hand)
    by_seat = {s["seat"]: s["user_id"] for s in hand.seats}
    actor = get_user_model().objects.get(pk=by_seat[state.to_act])
    action = get_strategy("calling_station")(state, random.Random(0))  # a legal action

    actor = _without_play(actor, groups)
    _refused(
        lambda: poker_act(user=actor, table_id=poker_table.pk, hand_id=hand.pk, action=action.kind, amount=action.to),
        alice,
        bob,
    )
    _refused(lambda: poker_top_up(user=actor, table_id=poker_table.pk), alice, bob)

    actor = _with_play(actor, groups)
    acted = poker_act(user=actor, table_id=poker_table.pk, hand_id=hand.pk, action=action.kind, amount=action.to)
    assert acted.version == hand.version + 1
