"""A poker hand's change is saved against the version its step read, with its stuck-hand
clock (``updated_at``) moved as ``save()`` would move it."""

from __future__ import annotations

import pytest

from poker.models import PokerHand

pytestmark = pytest.mark.django_db


def test_a_poker_hand_s_auto_updated_clock_moves_with_its_change(make_player, poker_table):
    from poker.services import poker_sit

    for _ in range(2):
        poker_sit(user=make_player(), table_id=poker_table.pk)  # the second deals the first hand
    hand = PokerHand.objects.get(table=poker_table, state=PokerHand.State.LIVE)
    before = PokerHand.objects.get(pk=hand.pk).updated_at
    hand.version += 1
    hand.save_version("to_act", "updated_at")  # as save(update_fields=…): named, it moves
    after = PokerHand.objects.get(pk=hand.pk)
    assert after.version == hand.version and after.updated_at > before
