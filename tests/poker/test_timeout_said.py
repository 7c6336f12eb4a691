"""A time-out is said at the table: the public event carries what the clock did and the
bet that came back; the timed-out player's own view (their allowance, their time bank) is
re-read at once, though the hand goes on without them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from poker import replay, services
from poker.models import PokerHand, PokerTable
from poker.selectors import poker_private_view
from poker.services import poker_act, poker_hand_start, poker_sit
from tests.poker.helpers import seats_of

pytestmark = pytest.mark.django_db


def test_the_timed_out_player_is_told_at_once_what_is_left_of_their_allowance(
    make_player, poker_table, sent, django_capture_on_commit_callbacks
):
    players = [make_player() for _ in range(3)]
    PokerTable.objects.filter(pk=poker_table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))
    for user in players:
        poker_sit(user=user, table_id=poker_table.pk)
    hand = poker_hand_start(table_id=poker_table.pk)
    users = seats_of(hand, players)
    poker_act(user=users[hand.to_act], table_id=poker_table.pk, hand_id=hand.pk, action="bring_in")
    hand.refresh_from_db()
    late = users[hand.to_act]
    assert poker_private_view(table_id=poker_table.pk, hand_id=hand.pk, user=late)["you"]["all_in_allowance_left"]
    PokerHand.objects.filter(pk=hand.pk).update(decision_deadline=timezone.now() - timedelta(seconds=1))
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.poker_timeout(hand_id=hand.pk, version=hand.version)
    hand.refresh_from_db()
    assert hand.is_live, "three players: the hand goes on"
    public = [e for g, e in sent if g == services.GROUPS.table(poker_table.pk) and e["kind"] == "poker.hand"]
    said = [e for e in public[-1]["events"] if e["type"] == "action"]
    assert said[0]["action"] == "timeout_all_in" and "allowance" not in repr(public)  # nobody else hears the count
    nudged = {g for g, e in sent if e.get("kind") == "hand.private"}
    assert services.GROUPS.player(late.pk) in nudged
    mine = poker_private_view(table_id=poker_table.pk, hand_id=hand.pk, user=late)["you"]
    assert (mine["all_in_allowance_left"], mine["time_bank"]) == (False, 0)
    assert replay.hand_state(hand).player(said[0]["seat"]).protected
