"""A hand from the seats to the payout, as players and the dealer see it."""

from __future__ import annotations

import pytest

from casino.game import fair
from casino.game.cards import cards_to_str
from casino.game.rules import deal
from casino.http.errors import Conflict
from jackpot.models import JackpotHit
from jackpot.selectors import ledger_total, pool_meter, pool_reconcile
from tables.models import Hand, HandSeat
from tables.selectors import hand_view, seat_public_view
from tables.services.hands import hand_bet, hand_cancel, hand_decide
from tables.services.seats import table_leave, table_sit
from wallets.models import Account, Transaction
from wallets.selectors import account_balance_from_legs, wallet_balances

DEALER_AK = "Ac Kd 7h 4s 2c"  # ace-king high: qualifies
DEALER_QJ = "Qc Jd 7h 4s 2c"  # does not qualify


def _play(table, players_and_bets, decisions):
    """Sit everyone, bet (which deals), decide (which settles); return the settled hand."""
    for player, _, _ in players_and_bets:
        table_sit(user=player, table_id=table.pk)
    for player, ante, jackpot in players_and_bets:
        hand_seat = hand_bet(user=player, table_id=table.pk, ante=ante, jackpot=jackpot)
    for player, action in decisions:
        hand_decide(user=player, hand_id=hand_seat.hand_id, action=action)
    return Hand.objects.get(pk=hand_seat.hand_id)


def _available(player) -> int:
    return wallet_balances(user=player).available


def test_sitting_opens_a_hand_whose_commitment_is_shown_before_any_bet(table, make_player):
    player = make_player()
    seat = table_sit(user=player, table_id=table.pk)
    assert seat.number == 1
    hand = Hand.objects.get(table=table)
    view = hand_view(hand=hand, viewer=player)
    assert view["state"] == "betting" and view["commitment"] == fair.commitment_of(hand.server_seed)
    assert view["server_seed"] is None


def test_the_ante_holds_the_raise_so_that_a_raise_cannot_fail(table, make_player):
    player = make_player(balance=10_000)
    table_sit(user=player, table_id=table.pk)
    table_sit(user=make_player(), table_id=table.pk)  # a second player keeps the hand in betting
    hand_bet(user=player, table_id=table.pk, ante=1_000, jackpot=True)
    balances = wallet_balances(user=player)
    assert (balances.available, balances.in_play) == (10_000 - 3_050, 3_050)


def test_win_against_a_qualifying_dealer_pays_ante_1_to_1_and_raise_by_the_qualified_column(
    table, make_player, rig_deck
):
    player = make_player(balance=10_000)
    rig_deck(["2h 6h 9h Jh Kh"], DEALER_AK)  # flush: 6 to 1 on the 24h table
    hand = _play(table, [(player, 200, False)], [(player, "raise")])
    seat = hand.hand_seats.get()
    assert (seat.outcome, seat.paytable_line) == ("win", "qualified:flush")
    assert (seat.ante_return, seat.raise_return, seat.net) == (400, 400 + 6 * 400, 200 + 2_400)
    assert _available(player) == 10_000 + 2_600
    assert hand.dealer_qualified is True


def test_dealer_not_qualifying_pays_the_ante_and_pushes_the_raise(table, make_player, rig_deck):
    player = make_player(balance=10_000)
    rig_deck(["2h 6h 9h Jh Kh"], DEALER_QJ)
    hand = _play(table, [(player, 200, False)], [(player, "raise")])
    seat = hand.hand_seats.get()
    assert (seat.outcome, seat.net) == ("dealer_not_qualified", 200)
    assert _available(player) == 10_200


def test_full_house_is_paid_on_the_raise_even_when_the_dealer_does_not_qualify(table, make_player, rig_deck):
    player = make_player(balance=10_000)
    rig_deck(["3h 3d 3s 9c 9d"], DEALER_QJ)  # full house: 3 to 1 in the not-qualified column
    hand = _play(table, [(player, 200, False)], [(player, "raise")])
    seat = hand.hand_seats.get()
    assert seat.paytable_line == "not_qualified:full_house"
    assert seat.net == 200 + 3 * 400
    assert _available(player) == 10_000 + 1_400


def test_the_classic_table_pays_a_flush_5_to_1(make_table, make_player, rig_deck):
    table = make_table(paytable="classic")
    player = make_player(balance=10_000)
    rig_deck(["2h 6h 9h Jh Kh"], DEALER_AK)
    hand = _play(table, [(player, 100, False)], [(player, "raise")])
    assert hand.hand_seats.get().net == 100 + 5 * 200


def test_losing_to_the_dealer_loses_ante_and_raise_and_a_tie_pushes_both(table, make_player, rig_deck):
    loser, tied = make_player(balance=10_000), make_player(balance=10_000)
    rig_deck(["As Kc 8d 5h 3c", "Ah Ks 7c 4d 2h"], "Ad Kh 7d 4c 2s")  # seat 2 ties the dealer exactly
    hand = _play(table, [(loser, 100, False), (tied, 100, False)], [(loser, "raise"), (tied, "raise")])
    by_player = {s.player_id: s for s in hand.hand_seats.all()}
    assert (by_player[loser.pk].outcome, by_player[loser.pk].net) == ("win", 100 + 200)
    assert (by_player[tied.pk].outcome, by_player[tied.pk].net) == ("push", 0)
    assert _available(tied) == 10_000


def test_a_loss_takes_ante_and_raise(table, make_player, rig_deck):
    player = make_player(balance=10_000)
    rig_deck(["As Qc 8d 5h 3c"], DEALER_AK)
    hand = _play(table, [(player, 100, False)], [(player, "raise")])
    assert (hand.hand_seats.get().outcome, _available(player)) == ("lose", 10_000 - 300)


def test_fold_forfeits_the_ante_and_returns_the_held_raise_at_once(table, make_player, rig_deck):
    folder, other = make_player(balance=10_000), make_player(balance=10_000)
    rig_deck(["3d 5d 8h 9s Jc", "As Ks 8d 5h 3c"], DEALER_AK)
    for p in (folder, other):
        table_sit(user=p, table_id=table.pk)
    hand_bet(user=folder, table_id=table.pk, ante=300, jackpot=False)
    hand_seat = hand_bet(user=other, table_id=table.pk, ante=300, jackpot=False)
    hand_decide(user=folder, hand_id=hand_seat.hand_id, action="fold")
    assert wallet_balances(user=folder).available == 10_000 - 300  # hold back, ante still in play
    hand_decide(user=other, hand_id=hand_seat.hand_id, action="raise")
    seat = HandSeat.objects.get(player=folder)
    assert (seat.outcome, seat.net) == ("fold", -300)
    assert _available(folder) == 9_700


def test_the_jackpot_bet_is_judged_on_the_first_five_cards_even_after_a_fold(table, make_player, rig_deck):
    player = make_player(balance=10_000)
    rig_deck(["5c 6d 7d 8s 9c"], DEALER_AK)  # a straight: €3 from the house
    hand = _play(table, [(player, 100, True)], [(player, "fold")])
    seat = hand.hand_seats.get()
    assert (seat.jackpot_win, seat.net) == (300, 300 - 100 - 50)
    assert _available(player) == 10_000 + 150


def test_a_royal_flush_with_the_jackpot_bet_wins_the_whole_meter(table, make_player, rig_deck, pool):
    player = make_player(balance=10_000)
    rig_deck(["Ah Kh Qh Jh Th"], DEALER_AK)
    meter_at_deal = pool_meter(pool=pool) + 35
    hand = _play(table, [(player, 100, True)], [(player, "raise")])
    seat = hand.hand_seats.get()
    assert seat.jackpot_win == meter_at_deal
    assert seat.net == 100 + 200 * 200 + meter_at_deal - 50  # ante 1:1, raise 200:1, meter, minus the chip
    assert pool_meter(pool=pool) == pool.seed_amount
    assert JackpotHit.objects.get().hand_ref == hand.pk
    assert pool_reconcile(pool=pool).ok


def test_two_royal_flushes_in_one_hand_are_paid_right_to_left(table, make_player, rig_deck, pool):
    left, right = make_player(), make_player()
    rig_deck(["Ah Kh Qh Jh Th", "As Ks Qs Js Ts"], "2c 3d 4h 8s 9c")
    meter_at_deal = pool_meter(pool=pool) + 70
    hand = _play(table, [(left, 100, True), (right, 100, True)], [(left, "fold"), (right, "fold")])
    wins = {s.seat_number: s.jackpot_win for s in hand.hand_seats.all()}
    assert wins == {2: meter_at_deal, 1: pool.seed_amount}  # seat 2 settles first
    assert list(JackpotHit.objects.order_by("id").values_list("seat_number", flat=True)) == [2, 1]
    assert pool_reconcile(pool=pool).ok


def test_every_seat_is_settled_right_to_left(table, make_player):
    players = [make_player() for _ in range(4)]
    hand = _play(table, [(p, 100, True) for p in players], [(p, "raise") for p in players])
    settlements = Transaction.objects.filter(hand_ref=hand.pk, kind=Transaction.Kind.SETTLEMENT).order_by("id")
    assert [t.idempotency_key.split(":")[3] for t in settlements] == ["4", "3", "2", "1"]


def test_a_settled_hand_is_provably_fair_and_replays_to_the_same_cards(table, make_player):
    players = [make_player() for _ in range(3)]
    hand = _play(table, [(p, 100, False) for p in players], [(p, "raise") for p in players])
    assert fair.commitment_of(hand.server_seed) == hand.commitment
    seeds = list(hand.hand_seats.order_by("seat_number").values_list("client_seed", flat=True))
    assert hand.client_seed == ":".join(seeds)
    player_hands, dealer = deal(fair.shuffled_deck(hand.server_seed, hand.client_seed, hand.nonce), 3)
    assert [s.cards for s in hand.hand_seats.order_by("seat_number")] == [cards_to_str(h) for h in player_hands]
    assert hand.dealer_cards == cards_to_str(dealer)


def test_hidden_cards_and_the_server_seed_stay_hidden_until_settlement(table, make_player):
    alice, bob = make_player(), make_player()
    for p in (alice, bob):
        table_sit(user=p, table_id=table.pk)
    hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=False)
    hand_seat = hand_bet(user=bob, table_id=table.pk, ante=100, jackpot=False)
    hand = Hand.objects.get(pk=hand_seat.hand_id)
    for viewer, own_seat in ((alice, 1), (bob, 2), (None, None)):
        view = hand_view(hand=hand, viewer=viewer)
        assert view["server_seed"] is None
        assert view["dealer"]["cards"][:4] == [None] * 4 and view["dealer"]["cards"][4] == hand.dealer_cards[4]
        for seat in view["seats"]:
            visible = seat["seat"] == own_seat
            assert (seat["cards"] == HandSeat.objects.get(hand=hand, seat_number=seat["seat"]).cards) is visible
            assert (seat["category"] is not None) is visible
    for hs in hand.hand_seats.all():  # the seat every reader of the table is sent: nobody's cards
        public = seat_public_view(hand=hand, hand_seat=hs, player="anyone")
        assert public["cards"] == [None] * 5 and public["category"] is public["hand_name"] is None
    hand_decide(user=alice, hand_id=hand.pk, action="fold")
    hand_decide(user=bob, hand_id=hand.pk, action="fold")
    hand.refresh_from_db()
    view = hand_view(hand=hand, viewer=alice)
    assert view["server_seed"] == hand.server_seed
    assert all(None not in s["cards"] for s in view["seats"]) and None not in view["dealer"]["cards"]
    shown = [seat_public_view(hand=hand, hand_seat=hs, player="anyone") for hs in hand.hand_seats.all()]
    assert all(None not in s["cards"] and s["category"] for s in shown)  # the hand is over: all is shown


def test_the_next_hand_opens_after_settlement_with_a_new_commitment(table, make_player):
    player = make_player()
    first = _play(table, [(player, 100, False)], [(player, "fold")])
    nxt = Hand.objects.get(table=table, state=Hand.State.BETTING)
    assert nxt.nonce == first.nonce + 1 and nxt.commitment != first.commitment


def test_leaving_with_money_in_play_is_refused_and_between_hands_allowed(table, make_player):
    player, other = make_player(), make_player()
    for p in (player, other):
        table_sit(user=p, table_id=table.pk)
    hand_bet(user=player, table_id=table.pk, ante=100, jackpot=False)
    with pytest.raises(Conflict) as refused:
        table_leave(user=player, table_id=table.pk)
    assert refused.value.code == "money_in_play"
    table_leave(user=other, table_id=table.pk)  # had no bet: free to go
    assert not table.seats.filter(player=other).exists()


def test_a_cancelled_hand_returns_every_stake_and_the_jackpot_contribution(table, make_player, pool):
    a, b = make_player(balance=10_000), make_player(balance=10_000)
    meter_before = pool_meter(pool=pool)
    for p in (a, b):
        table_sit(user=p, table_id=table.pk)
    hand_bet(user=a, table_id=table.pk, ante=200, jackpot=True)
    hand_seat = hand_bet(user=b, table_id=table.pk, ante=200, jackpot=True)
    hand_decide(user=a, hand_id=hand_seat.hand_id, action="fold")
    hand_cancel(hand_id=hand_seat.hand_id, reason="dealer error")
    assert _available(a) == _available(b) == 10_000
    assert wallet_balances(user=a).in_play == 0
    assert pool_meter(pool=pool) == meter_before
    assert Hand.objects.get(pk=hand_seat.hand_id).state == Hand.State.CANCELLED
    assert pool_reconcile(pool=pool).ok


def test_after_many_random_hands_every_balance_equals_its_ledger(table, make_player, pool):
    players = [make_player(balance=50_000) for _ in range(4)]
    for round_ in range(15):
        actions = ["raise" if (round_ + i) % 3 else "fold" for i in range(4)]
        _play_round = [(p, 100 + 50 * i, bool((round_ + i) % 2)) for i, p in enumerate(players)]
        if round_ == 0:
            _play(table, _play_round, list(zip(players, actions)))
        else:
            for p, ante, jackpot in _play_round:
                hand_seat = hand_bet(user=p, table_id=table.pk, ante=ante, jackpot=jackpot)
            for p, action in zip(players, actions):
                hand_decide(user=p, hand_id=hand_seat.hand_id, action=action)
    assert Hand.objects.filter(state=Hand.State.SETTLED).count() == 15
    assert ledger_total() == 0
    for account in Account.objects.all():
        assert account.balance == account_balance_from_legs(account=account)
    assert all(wallet_balances(user=p).in_play == 0 for p in players)
    assert pool_reconcile(pool=pool).ok


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("end", ["settled", "cancelled"])
def test_the_result_broadcast_at_the_end_is_what_a_fresh_read_of_the_hand_shows(table, make_player, monkeypatch, end):
    """The settlement's (and a cancellation's) event is built from the rows the step saved;
    it must say exactly what the hand's stored rows say."""
    import json

    from django.core.serializers.json import DjangoJSONEncoder

    from tables import events
    from tables.presentation import event_in_language
    from tables.selectors import hand_live_view

    sent = []
    monkeypatch.setattr(events, "send", lambda group, event: sent.append(event))
    players = [make_player() for _ in range(3)]
    for player in players:
        table_sit(user=player, table_id=table.pk)
    for player in players:
        hand_seat = hand_bet(user=player, table_id=table.pk, ante=100, jackpot=True)
    if end == "settled":
        for player, action in zip(players, ["raise", "fold", "raise"]):
            hand_decide(user=player, hand_id=hand_seat.hand_id, action=action)
    else:
        hand_decide(user=players[0], hand_id=hand_seat.hand_id, action="raise")
        hand_cancel(hand_id=hand_seat.hand_id, reason="a test")
    built = [e() for e in sent if callable(e)]  # built after commit, as the outbox builds it
    built = [b for b in built if b["kind"] != "hand.opened"]  # the hands opened, built after their commits too
    assert [b["kind"] for b in built] == [f"hand.{end}"]

    def normal(view):
        return json.loads(json.dumps(view, cls=DjangoJSONEncoder))

    # As a socket sends it: its explanation lines, sent as data in no language, worded.
    worded = event_in_language(built[0])["result"]
    assert normal(worded) == normal(hand_live_view(hand_id=hand_seat.hand_id, viewer=None))
    assert [s["seat"] for s in built[0]["result"]["seats"]] == [1, 2, 3]


@pytest.mark.django_db(transaction=True)
def test_a_players_view_of_a_hand_is_two_statements_whatever_its_seats(table, make_player):
    """The live table reads a player's view at every deal and settlement: the hand, then
    its seats with their players' names."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tables.selectors import hand_live_view

    players = [make_player() for _ in range(3)]
    for player in players:
        table_sit(user=player, table_id=table.pk)
    for player in players:
        hand_seat = hand_bet(user=player, table_id=table.pk, ante=100, jackpot=False)
    with CaptureQueriesContext(connection) as captured:
        view = hand_live_view(hand_id=hand_seat.hand_id, viewer=players[1])
    assert len(captured.captured_queries) == 2
    assert [s["player"] for s in view["seats"]] == [p.username for p in players]
    assert [s["is_you"] for s in view["seats"]] == [False, True, False]
    assert None not in view["seats"][1]["cards"] and view["seats"][0]["cards"] == [None] * 5
