"""Tables from presets or a manager's config, the time bank, the all-in allowance, and events
that carry no hidden card and are sent only after commit."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from casino.http.errors import ApplicationError
from poker import replay, services
from poker.models import PokerAllowance, PokerHand, PokerSeat, PokerTable
from poker.services import (
    poker_act,
    poker_hand_start,
    poker_sit,
    poker_table_close,
    poker_table_create,
    poker_table_open,
)
from tests.poker.helpers import seats_of
from wallets.models import Transaction

pytestmark = pytest.mark.django_db

CUSTOM = {
    "table": "2-6 spread",
    "limit": {"type": "spread", "min_bet": "2.00", "max_bet": "6.00", "unit": "0.50"},
    "buy_in": "60.00",
    "ante": "0.50",
    "bring_in": "1.00",
    "bring_in_rule": "highest",
    "max_seats": 6,
    "rake_rule": {"percent": "4", "cap": "2.00", "no_first_round": True},
}


def hold(table):
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))


def test_a_manager_made_table_is_validated_and_kept_as_its_config():
    table = poker_table_create(name="Custom", game="seven_stud", config=CUSTOM, max_seats=6, actor=None)
    config = replay.table_config(table)
    assert (config.buy_in, config.limit.unit, config.bring_in_rule, config.rake.cap) == (6000, 50, "highest", 200)
    assert table.preset == "" and table.max_seats == 6 and table.rake_account.kind == "house"

    def refused(code, **kwargs):
        with pytest.raises(ApplicationError) as exc:
            poker_table_create(**{"name": "Another", "game": "seven_stud", "actor": None, **kwargs})
        assert exc.value.code == code, exc.value.message

    refused("config_invalid", config={**CUSTOM, "bring_in": "6.00"})  # not below the spread's top
    refused("config_invalid", game="soko", config=CUSTOM)  # spread is for seven card stud only
    refused("config_invalid", config={**CUSTOM, "ante": "0.005"})
    refused("config_invalid", config={"limit": "fixed"})
    refused("config_invalid", preset="2-4", config=CUSTOM)
    refused("config_invalid", preset="3-7")
    refused("game_invalid", game="holdem", preset="2-4")
    refused("seats_invalid", preset="2-4", max_seats=9)
    refused("table_name_taken", name="Custom", preset="2-4")
    refused("table_name_taken", name=" CUSTOM ", preset="2-4")  # reads as the same table
    refused("name_invalid", name="Cus\u0000tom", preset="2-4")  # PostgreSQL refuses NUL in text
    refused("name_invalid", name="Custom\u200b", preset="2-4")  # looks like "Custom"
    assert PokerTable.objects.count() == 1


def test_a_closed_table_seats_nobody_and_deals_no_new_hand(make_player, poker_table):
    alice, bob, carol = make_player(), make_player(), make_player()
    poker_sit(user=alice, table_id=poker_table.pk)
    poker_sit(user=bob, table_id=poker_table.pk)
    hand = PokerHand.objects.get()
    poker_table_close(actor=None, table_id=poker_table.pk)
    with pytest.raises(ApplicationError) as exc:
        poker_sit(user=carol, table_id=poker_table.pk)
    assert exc.value.code == "table_closed"
    users = seats_of(hand, [alice, bob])
    state = replay.hand_state(hand)
    poker_act(user=users[state.to_act], table_id=poker_table.pk, hand_id=hand.pk, action="bring_in")
    hand.refresh_from_db()
    poker_act(user=users[replay.hand_state(hand).to_act], table_id=poker_table.pk, hand_id=hand.pk, action="fold")
    hand.refresh_from_db()
    assert hand.state == "ended"  # the live hand played to its end
    assert PokerTable.objects.get(pk=poker_table.pk).next_hand_at is None
    with pytest.raises(ApplicationError) as exc:
        poker_hand_start(table_id=poker_table.pk)
    assert exc.value.code == "table_closed"
    poker_table_open(actor=None, table_id=poker_table.pk)
    assert PokerHand.objects.filter(state="live").count() == 1  # opened again: the next hand is dealt


def test_the_time_bank_refills_every_ten_hands_up_to_sixty_seconds(make_player, poker_table):
    alice, bob = make_player(), make_player()
    hold(poker_table)
    poker_sit(user=alice, table_id=poker_table.pk)
    poker_sit(user=bob, table_id=poker_table.pk)
    PokerSeat.objects.filter(player=alice).update(hands_dealt=9, time_bank_ms=30_000)
    PokerSeat.objects.filter(player=bob).update(hands_dealt=19, time_bank_ms=58_000)
    hand = poker_hand_start(table_id=poker_table.pk)
    assert PokerSeat.objects.get(player=alice).time_bank_ms == 35_000
    assert PokerSeat.objects.get(player=bob).time_bank_ms == 60_000
    seat = PokerSeat.objects.get(number=hand.to_act)
    assert hand.decision_deadline == hand.turn_started_at + timedelta(seconds=10, milliseconds=seat.time_bank_ms)


def test_the_all_in_allowance_is_one_per_24_hours(make_player, poker_table):
    alice, bob = make_player(), make_player()
    hold(poker_table)
    poker_sit(user=alice, table_id=poker_table.pk)
    poker_sit(user=bob, table_id=poker_table.pk)
    for user in (alice, bob):
        PokerAllowance.objects.create(player=user, used_at=timezone.now() - timedelta(hours=2))
    hand = poker_hand_start(table_id=poker_table.pk)
    PokerHand.objects.filter(pk=hand.pk).update(decision_deadline=timezone.now() - timedelta(seconds=1))
    services.poker_timeout(hand_id=hand.pk, version=0)
    hand.refresh_from_db()
    labels = [e["action"] for e in hand.record["events"] if e["type"] == "action" and e["action"] != "ante"]
    assert labels == ["timeout_fold"] and hand.state == "ended" and hand.rake == 0


def test_events_carry_no_hidden_card_and_go_out_after_commit(
    make_player, poker_table, sent, django_capture_on_commit_callbacks
):
    alice, bob, carol = make_player(), make_player(), make_player()
    hold(poker_table)
    for user in (alice, bob, carol):
        poker_sit(user=user, table_id=poker_table.pk)
    with django_capture_on_commit_callbacks(execute=True):
        hand = poker_hand_start(table_id=poker_table.pk)
    state = replay.hand_state(hand)
    hidden = {c for p in state.players for c in state.down_cards(p.seat)}
    from casino.game.cards import card_to_str

    hidden = {card_to_str(c) for c in hidden}
    table_msgs = [e for g, e in sent if g == services.GROUPS.table(poker_table.pk)]
    assert table_msgs and table_msgs[-1]["kind"] == "poker.hand" and "server_seed" not in table_msgs[-1]
    text = repr(table_msgs)
    assert not any(f"'{card}'" in text for card in hidden)
    for group, event in sent:
        if group.startswith("poker.player."):
            assert event["kind"] in ("hand.private", "wallet.changed") and not any(
                f"'{c}'" in repr(event) for c in hidden
            )
    nudged = {g for g, e in sent if e.get("kind") == "hand.private"}
    assert nudged == {services.GROUPS.player(u.pk) for u in (alice, bob, carol)}


def test_a_rolled_back_step_sends_nothing(
    make_player, poker_table, sent, monkeypatch, django_capture_on_commit_callbacks
):
    alice, bob = make_player(), make_player()
    hold(poker_table)
    poker_sit(user=alice, table_id=poker_table.pk)
    poker_sit(user=bob, table_id=poker_table.pk)
    hand = poker_hand_start(table_id=poker_table.pk)
    users = seats_of(hand, [alice, bob])
    poker_act(user=users[hand.to_act], table_id=poker_table.pk, hand_id=hand.pk, action="bring_in")
    hand.refresh_from_db()
    real = services.ledger_post

    def dies(**kwargs):
        if kwargs["kind"] == Transaction.Kind.POKER_HAND:
            raise RuntimeError("died")
        return real(**kwargs)

    monkeypatch.setattr(services, "ledger_post", dies)
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True) as callbacks, pytest.raises(RuntimeError):
        poker_act(user=users[hand.to_act], table_id=poker_table.pk, hand_id=hand.pk, action="fold")
    assert callbacks == [] and sent == []
