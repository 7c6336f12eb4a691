"""Whole hands through the room: bots to the end, side pots, rake, refusals (SPEC B1-B4)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db.models import Sum
from django.utils import timezone

from casino.game.cards import card_to_str
from casino.http.errors import ApplicationError
from casino.stud.engine import cents, seeded_deck, verify_record
from poker import replay
from poker.models import PokerHand, PokerSeat, PokerTable
from poker.selectors import poker_lobby_rows, poker_table_view, stud_hand_name
from poker.services import poker_act, poker_hand_start, poker_sit, poker_sit_in, poker_sit_out
from tests.poker.helpers import play_out, seats_of
from wallets.models import Account, Leg, Transaction

pytestmark = pytest.mark.django_db

FIXED_DECK, _ = seeded_deck("ab" * 32, "fixed-deck", 1)


def hold(table):
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))


def seat_players(table, players):
    hold(table)
    for user in players:
        poker_sit(user=user, table_id=table.pk)


def ledger_balanced():
    assert Account.objects.aggregate(t=Sum("balance"))["t"] == 0
    for txn in Transaction.objects.filter(kind__startswith="poker_"):
        assert sum(leg.signed_amount for leg in txn.legs.all()) == 0


@pytest.mark.parametrize(
    "game,preset", [("seven_stud", "2-4"), ("seven_stud", "1-3"), ("five_stud", "1-2"), ("soko", "5-10")]
)
def test_bots_play_hands_to_the_end_and_every_cent_reconciles(make_player, make_poker_table, game, preset):
    table = make_poker_table(game=game, preset=preset)
    players = [make_player() for _ in range(4)]
    seat_players(table, players)
    buy_in = replay.table_config(table).buy_in
    for n in range(4):
        if PokerSeat.objects.filter(table=table, stack__gt=0).count() < 2:
            break
        hand = poker_hand_start(table_id=table.pk)
        hand = play_out(hand, seats_of(hand, players), strategy="random_legal", seed=n)
        assert hand.state == PokerHand.State.ENDED
        verify_record(hand.record)  # the stored record is exactly what the engine does with its seeds
        assert [[s, k, t] for s, k, t in hand.actions] == [
            [s, a.kind, a.to] for s, a in replay.hand_state(hand).actions
        ]
        net = {int(seat): cents(v) for seat, v in hand.record["net"].items()}
        assert sum(net.values()) + hand.rake == 0
        assert hand.rake == cents(hand.record["rake"])
        assert Transaction.objects.filter(kind=Transaction.Kind.POKER_HAND, hand_ref=hand.pk).count() == (
            1 if any(net.values()) else 0
        )
    stacks = sum(PokerSeat.objects.filter(table=table).values_list("stack", flat=True))
    rake = Account.objects.get(pk=table.rake_account_id).balance
    assert stacks + rake == 4 * buy_in
    ledger_balanced()
    call_command("reconcile_poker")


def _two_handed_fold_to_the_bring_in(table, players):
    """Hand 1 between the first two players: the bring-in posts, the other folds."""
    hand = poker_hand_start(table_id=table.pk)
    users = seats_of(hand, players)
    state = replay.hand_state(hand)
    poker_act(user=users[state.to_act], table_id=table.pk, hand_id=hand.pk, action="bring_in")
    hand.refresh_from_db()
    state = replay.hand_state(hand)
    poker_act(user=users[state.to_act], table_id=table.pk, hand_id=hand.pk, action="fold")
    hand.refresh_from_db()
    return hand


def test_no_rake_when_the_hand_ends_in_the_first_round(make_player, poker_table):
    alice, bob = make_player(), make_player()
    seat_players(poker_table, [alice, bob])
    hand = _two_handed_fold_to_the_bring_in(poker_table, [alice, bob])
    assert hand.state == PokerHand.State.ENDED and hand.rake == 0
    assert sorted(cents(v) for v in hand.record["net"].values()) == [-25, 25]  # the antes; the bring-in came back
    assert Account.objects.get(pk=poker_table.rake_account_id).balance == 0
    call_command("reconcile_poker")


def test_side_pots_are_awarded_as_the_record_says_and_the_rake_is_capped(make_player, make_poker_table):
    poker_table = make_poker_table(preset="5-10")  # buy-in 50, ante 0.50: all-in pots pass 60, the cap's 3.00
    alice, bob, carol = make_player(), make_player(), make_player()
    seat_players(poker_table, [alice, bob, carol])
    poker_sit_out(user=carol, table_id=poker_table.pk)
    _two_handed_fold_to_the_bring_in(poker_table, [alice, bob, carol])
    poker_sit_in(user=carol, table_id=poker_table.pk)
    stacks = sorted(PokerSeat.objects.values_list("stack", flat=True))
    assert stacks == [4950, 5000, 5050]
    before = {s.number: s.stack for s in PokerSeat.objects.all()}
    hand = poker_hand_start(table_id=poker_table.pk, deck=FIXED_DECK)
    hand = play_out(hand, seats_of(hand, [alice, bob, carol]), strategy="aggressive")
    record = hand.record
    assert len(record["pots"]) >= 2, record["pots"]
    short = next(n for n, s in before.items() if s == 4950)
    assert short not in record["pots"][1]["eligible"]
    for pot in record["pots"]:
        assert sum(cents(v) for v in pot["shares"].values()) + cents(pot["rake"]) == cents(pot["amount"])
    assert hand.pot_total == sum(cents(p["amount"]) for p in record["pots"])
    assert hand.pot_total > 6000 and hand.rake == 300  # capped at 3.00 per hand
    after = {s.number: s.stack for s in PokerSeat.objects.all()}
    for seat, amount in record["net"].items():
        assert after[int(seat)] - before[int(seat)] == cents(amount)
    legs = Leg.objects.filter(transaction__kind=Transaction.Kind.POKER_HAND, transaction__hand_ref=hand.pk)
    assert sum(leg.signed_amount for leg in legs if leg.account_id == poker_table.rake_account_id) == 300
    call_command("reconcile_poker")


def test_out_of_turn_another_seat_and_bad_actions_change_nothing(make_player, poker_table):
    alice, bob, carol, dave = make_player(), make_player(), make_player(), make_player()
    seat_players(poker_table, [alice, bob, carol])
    hand = poker_hand_start(table_id=poker_table.pk, deck=FIXED_DECK)
    users = seats_of(hand, [alice, bob, carol])
    state = replay.hand_state(hand)
    waiting = next(u for s, u in users.items() if s != state.to_act)
    actor = users[state.to_act]

    def refused(code, user, action, amount=None, hand_id=None):
        with pytest.raises(ApplicationError) as exc:
            poker_act(user=user, table_id=poker_table.pk, hand_id=hand_id or hand.pk, action=action, amount=amount)
        assert exc.value.code == code, exc.value.message
        fresh = PokerHand.objects.get(pk=hand.pk)
        assert fresh.version == hand.version and fresh.actions == hand.actions

    refused("not_your_turn", waiting, "bring_in")
    refused("not_in_hand", dave, "bring_in")
    refused("action_invalid", actor, "dance")
    refused("action_invalid", actor, "timeout")
    refused("amount_required", actor, "complete")
    refused("amount_invalid", actor, "complete", amount=-5)
    refused("hand_not_found", actor, "bring_in", hand_id=10**9)
    refused("fold_not_allowed", actor, "fold")  # the bring-in is forced
    refused("check_not_allowed", actor, "check")
    refused("bet_size_invalid", actor, "complete", amount=150)  # the small bet is 2.00
    poker_act(user=actor, table_id=poker_table.pk, hand_id=hand.pk, action="complete", amount=200)
    hand.refresh_from_db()
    assert hand.version == 1
    # Another player's stake at 2.00: a raise must be to exactly 4.00 in fixed limit.
    nxt = users[replay.hand_state(hand).to_act]
    refused("bet_size_invalid", nxt, "raise", amount=500)
    refused("check_not_allowed", nxt, "check")
    with pytest.raises(ApplicationError) as exc:
        poker_act(user=actor, table_id=poker_table.pk + 1, hand_id=hand.pk, action="call")
    assert exc.value.code in ("table_not_found", "hand_not_found")


def test_the_raise_cap_with_three_players(make_player, poker_table):
    players = [make_player() for _ in range(3)]
    seat_players(poker_table, players)
    hand = poker_hand_start(table_id=poker_table.pk, deck=FIXED_DECK)
    users = seats_of(hand, players)
    state = replay.hand_state(hand)
    poker_act(user=users[state.to_act], table_id=poker_table.pk, hand_id=hand.pk, action="complete", amount=200)
    to = 200
    for _ in range(3):
        hand.refresh_from_db()
        state = replay.hand_state(hand)
        to += 200
        poker_act(user=users[state.to_act], table_id=poker_table.pk, hand_id=hand.pk, action="raise", amount=to)
    hand.refresh_from_db()
    state = replay.hand_state(hand)
    assert "raise" not in state.legal().actions
    with pytest.raises(ApplicationError) as exc:
        poker_act(user=users[state.to_act], table_id=poker_table.pk, hand_id=hand.pk, action="raise", amount=to + 200)
    assert exc.value.code == "raise_cap_reached"


def test_the_snapshot_shows_own_down_cards_only_and_the_legal_actions(make_player, poker_table):
    alice, bob = make_player(), make_player()
    seat_players(poker_table, [alice, bob])
    hand = poker_hand_start(table_id=poker_table.pk)
    state = replay.hand_state(hand)
    users = seats_of(hand, [alice, bob])
    for seat, user in users.items():
        view = poker_table_view(table=poker_table, user=user)
        rows = {r["seat"]: r for r in view["seats"]}
        assert rows[seat]["down"] == [card_to_str(c) for c in state.down_cards(seat)]
        assert len(rows[seat]["down"]) == 2
        other = next(s for s in users if s != seat)
        assert "down" not in rows[other] and rows[other]["down_count"] == 2 and len(rows[other]["up"]) == 1
        assert "server_seed" not in view["hand"]
        assert view["hand"]["commitment"] == hand.commitment
        assert (view["you"]["legal"] is not None) == (seat == state.to_act)
        for event in view["hand"]["events"]:
            if event["type"] == "deal" and not event["up"]:
                assert event["seat"] == seat or event["card"] is None
    spectator = poker_table_view(table=poker_table, user=None)
    assert all("down" not in r for r in spectator["seats"]) and spectator["you"] is None
    rows = poker_lobby_rows()
    assert rows[0]["players"] == 2 and rows[0]["buy_in"] == "20.00" and rows[0]["stakes"] == "2-4"


def test_after_the_showdown_the_snapshot_names_the_shown_hands_and_says_when_the_seed_is_revealed(
    make_player, poker_table
):
    alice, bob = make_player(), make_player()
    seat_players(poker_table, [alice, bob])
    hand = poker_hand_start(table_id=poker_table.pk, deck=FIXED_DECK)
    hand = play_out(hand, seats_of(hand, [alice, bob]), strategy="calling_station")
    view = poker_table_view(table=poker_table, user=alice)["hand"]
    assert view["id"] == hand.pk and view["is_over"] and "server_seed" not in view
    assert view["seed_revealed_at"] == (hand.ended_at + timedelta(hours=24)).isoformat()
    shown = [h for h in view["showdown"] if h["shown"]]
    assert shown and all(h["hand_name"] == stud_hand_name(h["category"], h["best_five"]) for h in shown)
    assert all(set(h) == {"seat", "shown"} for h in view["showdown"] if not h["shown"])
