"""Pre-actions, PokerStars' boxes: a player ticks check/fold, check, call, call any or fold
before their turn; the server plays it the moment the turn comes if it is still legal,
without the clock, else clears it; a bet that changes the amount to call clears a check or
a call; a box plays once; the next player's box follows in the same step. Bad input
changes nothing, and nobody but the player ever hears of their box."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from casino.http.errors import ApplicationError
from casino.stud.engine import seeded_deck
from poker import replay, services
from poker.models import PokerHand, PokerSeat, PokerTable
from poker.selectors import poker_private_view, poker_table_view
from poker.services import poker_act, poker_hand_cancel, poker_hand_start, poker_preact, poker_sit
from tests.poker.helpers import seats_of

pytestmark = pytest.mark.django_db

FIXED_DECK, _ = seeded_deck("ab" * 32, "fixed-deck", 1)
KINDS = ("check_fold", "call_any")  # a box's kinds: in no message or view but its player's


def _deal(table, players) -> tuple[PokerHand, dict]:
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))
    for user in players:
        poker_sit(user=user, table_id=table.pk)
    hand = poker_hand_start(table_id=table.pk, deck=FIXED_DECK)
    return hand, seats_of(hand, players)


def _order(hand: PokerHand) -> list[int]:
    """The seats still to decide this hand, in turn order from the player to act."""
    state = replay.hand_state(hand)
    seats = sorted(p.seat for p in state.players if p.can_act)
    first = state.to_act
    return [n for n in seats if n >= first] + [n for n in seats if n < first]


def _act(hand: PokerHand, user, action: str, amount: int | None = None) -> PokerHand:
    poker_act(user=user, table_id=hand.table_id, hand_id=hand.pk, action=action, amount=amount)
    hand.refresh_from_db()
    return hand


def _tick(hand: PokerHand, user, kind, amount=None):
    return poker_preact(user=user, table_id=hand.table_id, hand_id=hand.pk, kind=kind, amount=amount)


def _box(hand: PokerHand, user):
    return poker_private_view(table_id=hand.table_id, hand_id=hand.pk, user=user)["you"]["preaction"]


def _fourth_street(table, players) -> tuple[PokerHand, dict]:
    """The bring-in, everyone calls it: fourth street, every player in."""
    hand, users = _deal(table, players)
    first, *others = _order(hand)
    hand = _act(hand, users[first], "bring_in")
    for seat in others:
        hand = _act(hand, users[seat], "call")
    assert replay.hand_state(hand).street == 4
    return hand, users


def _public(sent, table) -> list[dict]:
    return [e for g, e in sent if g == services.GROUPS.table(table.pk)]


def test_call_any_and_check_fold_play_in_turn_the_moment_the_turn_comes_without_the_clock(
    make_player, poker_table, sent, django_capture_on_commit_callbacks
):
    players = [make_player(username=name) for name in ("ann", "ben", "cat")]
    hand, users = _deal(poker_table, players)
    bring_in, caller, folder = _order(hand)
    banks = dict(PokerSeat.objects.filter(table=poker_table).values_list("number", "time_bank_ms"))
    assert _tick(hand, users[caller], "call_any") == {"kind": "call_any", "call": 0, "street": 3}
    _tick(hand, users[folder], "check_fold")
    assert _box(hand, users[folder])["kind"] == "check_fold"
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        hand = _act(hand, users[bring_in], "bring_in")
    # One step: the bring-in, then ben's call of it, then cat's fold (a check is not free).
    assert hand.actions[-3:] == [[bring_in, "bring_in", None], [caller, "call", None], [folder, "fold", None]]
    assert hand.version == 3 and hand.preactions == {}
    state = replay.hand_state(hand)
    assert state.street == 4 and state.player(folder).folded and state.player(caller).bet == 0
    assert hand.to_act in (bring_in, caller)
    assert _box(hand, users[caller]) is None and _box(hand, users[folder]) is None
    # Played at once: nobody's time bank moved.
    assert dict(PokerSeat.objects.filter(table=poker_table).values_list("number", "time_bank_ms")) == banks
    # The table saw three steps, one version each, as if ben and cat had acted at once.
    hands = [e for e in _public(sent, poker_table) if e["kind"] == "poker.hand"]
    assert [e["version"] for e in hands] == [1, 2, 3]
    assert [e["to_act"] for e in hands[:2]] == [caller, folder]
    assert [[a["seat"], a["action"]] for e in hands for a in e["events"] if a["type"] == "action"] == [
        [bring_in, "bring_in"],
        [caller, "call"],
        [folder, "fold"],
    ]
    assert not any(word in repr(_public(sent, poker_table)) for word in (*KINDS, "preaction"))


def test_check_plays_while_checking_is_free_and_a_bet_clears_it(make_player, poker_table):
    players = [make_player(), make_player()]
    hand, users = _fourth_street(poker_table, players)
    first, second = _order(hand)
    _tick(hand, users[second], "check")
    hand = _act(hand, users[first], "check")
    assert hand.actions[-2:] == [[first, "check", None], [second, "check", None]]
    state = replay.hand_state(hand)
    assert state.street == 5
    first, second = _order(hand)
    _tick(hand, users[second], "check")
    bet = state.legal().bet_to[0]
    hand = _act(hand, users[first], "bet", bet)
    assert hand.actions[-1] == [first, "bet", bet], "the check was not played: there is a bet to call"
    assert hand.to_act == second and hand.preactions == {}
    assert _box(hand, users[second]) is None
    assert replay.hand_state(hand).legal().call_amount == bet  # their turn, as usual, with their clock
    assert hand.decision_deadline is not None


@pytest.mark.parametrize("kind,played", [("check_fold", "fold"), ("call_any", "call")])
def test_check_fold_folds_and_call_any_calls_when_a_bet_comes(make_player, poker_table, kind, played):
    players = [make_player(), make_player()]
    hand, users = _fourth_street(poker_table, players)
    first, second = _order(hand)
    _tick(hand, users[second], kind)
    bet = replay.hand_state(hand).legal().bet_to[0]
    hand = _act(hand, users[first], "bet", bet)
    assert hand.actions[-2:] == [[first, "bet", bet], [second, played, None]]
    if played == "fold":
        assert hand.state == PokerHand.State.ENDED and hand.record["pots"][0]["winners"] == [first]
    else:
        assert replay.hand_state(hand).street == 5 and hand.is_live


@pytest.mark.parametrize("raised", [False, True])
def test_a_call_plays_only_for_the_amount_it_was_ticked_for(make_player, poker_table, raised):
    players = [make_player() for _ in range(3)]
    hand, users = _fourth_street(poker_table, players)
    first, second, third = _order(hand)
    bet = replay.hand_state(hand).legal().bet_to[0]
    hand = _act(hand, users[first], "bet", bet)
    assert _tick(hand, users[third], "call", bet)["call"] == bet
    if not raised:
        hand = _act(hand, users[second], "call")
        assert hand.actions[-2:] == [[second, "call", None], [third, "call", None]]
        assert replay.hand_state(hand).street == 5
        return
    raise_to = replay.hand_state(hand).legal().raise_to[0]
    hand = _act(hand, users[second], "raise", raise_to)
    assert hand.actions[-1] == [second, "raise", raise_to]
    assert hand.to_act == third and hand.preactions == {}, "the bet it was ticked for changed: cleared"
    assert _box(hand, users[third]) is None


def test_fold_plays_facing_a_bet(make_player, poker_table):
    players = [make_player() for _ in range(3)]
    hand, users = _fourth_street(poker_table, players)
    first, second, third = _order(hand)
    bet = replay.hand_state(hand).legal().bet_to[0]
    hand = _act(hand, users[first], "bet", bet)
    _tick(hand, users[third], "fold")
    hand = _act(hand, users[second], "call")
    assert hand.actions[-2:] == [[second, "call", None], [third, "fold", None]]
    assert replay.hand_state(hand).street == 5


def test_a_box_plays_once_and_the_next_bet_is_the_players_own_turn(make_player, poker_table):
    players = [make_player() for _ in range(3)]
    hand, users = _fourth_street(poker_table, players)
    first, second, third = _order(hand)
    _tick(hand, users[second], "call_any")
    bet = replay.hand_state(hand).legal().bet_to[0]
    hand = _act(hand, users[first], "bet", bet)
    assert hand.actions[-1] == [second, "call", None]
    raise_to = replay.hand_state(hand).legal().raise_to[0]
    hand = _act(hand, users[third], "raise", raise_to)
    hand = _act(hand, users[first], "call")
    assert hand.to_act == second and hand.actions[-1] == [first, "call", None], "call any played once, not again"
    assert replay.hand_state(hand).legal().call_amount == raise_to - bet


def test_a_new_street_clears_a_box_ticked_on_the_last_one(make_player, poker_table):
    players = [make_player() for _ in range(3)]
    hand, users = _deal(poker_table, players)
    bring_in, second, third = _order(hand)
    hand = _act(hand, users[bring_in], "bring_in")
    hand = _act(hand, users[second], "call")
    _tick(hand, users[second], "call_any")  # ben acted this round: his box waits for his next turn
    hand = _act(hand, users[third], "call")
    state = replay.hand_state(hand)
    assert state.street == 4 and hand.preactions == {}
    assert hand.actions[-1] == [third, "call", None] and hand.to_act in (bring_in, second, third)


def test_the_hands_end_and_its_cancellation_clear_every_box(make_player, poker_table):
    players = [make_player() for _ in range(3)]
    hand, users = _deal(poker_table, players)
    bring_in, second, third = _order(hand)
    hand = _act(hand, users[bring_in], "bring_in")
    _tick(hand, users[bring_in], "call_any")
    hand = _act(hand, users[second], "fold")
    hand = _act(hand, users[third], "fold")
    assert hand.state == PokerHand.State.ENDED and hand.preactions == {}
    hand = poker_hand_start(table_id=poker_table.pk, deck=FIXED_DECK)
    users = seats_of(hand, players)
    waiting = _order(hand)[1]
    _tick(hand, users[waiting], "check_fold")
    poker_hand_cancel(hand_id=hand.pk, reason="test")
    hand.refresh_from_db()
    assert hand.state == PokerHand.State.CANCELLED and hand.preactions == {}


def test_a_box_can_be_changed_and_cleared_before_the_turn(make_player, poker_table):
    players = [make_player() for _ in range(3)]
    hand, users = _deal(poker_table, players)
    bring_in, second, _third = _order(hand)
    _tick(hand, users[second], "check")
    _tick(hand, users[second], "call_any")
    assert _box(hand, users[second]) == {"kind": "call_any", "amount": "0.00", "street": 3}
    assert _tick(hand, users[second], None) is None
    assert _box(hand, users[second]) is None
    hand = _act(hand, users[bring_in], "bring_in")
    assert hand.to_act == second and hand.actions[-1] == [bring_in, "bring_in", None]


# --------------------------------------------------------------------------- refusals

# (the moment, who asks, what they send, the refusal). Ann brings in, then ben, then cat,
# who ticked call any at the deal. Moments: "dealt" (the bring-in is to come), "facing" (the
# bring-in is in, ben to act, cat faces it), "folded" (ben folded; cat's box called).
REFUSALS = [
    ("dealt", "ben", {"kind": "raise"}, "kind_invalid"),
    ("dealt", "ben", {"kind": ["check"]}, "kind_invalid"),
    ("dealt", "ben", {"kind": {"kind": "check"}}, "kind_invalid"),
    ("dealt", "ben", {"kind": "call", "amount": "1.00"}, "amount_invalid"),
    ("dealt", "ben", {"kind": "call", "amount": [100]}, "amount_invalid"),
    ("dealt", "ben", {"kind": "call", "amount": -100}, "amount_invalid"),
    ("dealt", "ben", {"kind": "call", "amount": True}, "amount_invalid"),
    ("dealt", "ben", {"kind": "check", "amount": 0}, "amount_invalid"),
    ("dealt", "ben", {"kind": "call"}, "amount_required"),
    ("dealt", "ben", {"kind": "call", "amount": 100}, "nothing_to_call"),
    ("dealt", "ben", {"kind": "fold"}, "fold_not_allowed"),
    ("dealt", "ann", {"kind": "check_fold"}, "your_turn"),
    ("dealt", "dan", {"kind": "check"}, "not_in_hand"),
    ("dealt", "ben", {"kind": "check", "hand_id": [0]}, "hand_not_found"),
    ("dealt", "ben", {"kind": "check", "hand_id": "self"}, "hand_not_found"),
    ("dealt", "ben", {"kind": "check", "hand_id": 10**9}, "hand_not_found"),
    ("dealt", "ben", {"kind": "check", "table_id": "other"}, "hand_not_found"),
    ("facing", "cat", {"kind": "check"}, "check_not_allowed"),
    ("facing", "cat", {"kind": "call", "amount": 200}, "amount_changed"),
    ("folded", "ben", {"kind": "call_any"}, "folded"),
]


@pytest.mark.parametrize("moment,who,sent_in,code", REFUSALS)
def test_a_refusal_has_its_code_and_changes_nothing(
    make_player, make_poker_table, poker_table, sent, django_capture_on_commit_callbacks, moment, who, sent_in, code
):
    players = [make_player(username=name) for name in ("p1", "p2", "p3")]
    hand, users = _deal(poker_table, players)
    bring_in, second, third = _order(hand)
    people = {"ann": users[bring_in], "ben": users[second], "cat": users[third], "dan": make_player()}
    _tick(hand, people["cat"], "call_any")  # a box already ticked, which a refusal leaves as it is
    if moment in ("facing", "folded"):
        hand = _act(hand, people["ann"], "bring_in")
    if moment == "folded":
        hand = _act(hand, people["ben"], "fold")
    table_id = poker_table.pk
    if sent_in.get("table_id") == "other":
        table_id = make_poker_table().pk  # another table's: its hand is not this one
    hand_id = sent_in.get("hand_id", hand.pk)
    if hand_id == [0]:
        hand_id = [hand.pk]
    elif hand_id == "self":
        hand_id = str(hand.pk)
    before = PokerHand.objects.values("version", "actions", "preactions", "to_act").get(pk=hand.pk)
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(ApplicationError) as refused:
        poker_preact(
            user=people[who], table_id=table_id, hand_id=hand_id, kind=sent_in["kind"], amount=sent_in.get("amount")
        )
    assert refused.value.code == code
    assert PokerHand.objects.values("version", "actions", "preactions", "to_act").get(pk=hand.pk) == before
    assert sent == [], "a refusal sends nothing"
    if code == "amount_changed":
        assert refused.value.extra == {"call_amount": "1.00"}


def test_a_box_for_a_hand_that_is_over_is_refused(make_player, poker_table):
    players = [make_player(), make_player()]
    hand, users = _deal(poker_table, players)
    first, second = _order(hand)
    hand = _act(hand, users[first], "bring_in")
    hand = _act(hand, users[second], "fold")
    assert hand.state == PokerHand.State.ENDED
    with pytest.raises(ApplicationError) as refused:
        _tick(hand, users[second], "check_fold")
    assert refused.value.code == "hand_over"
    hand.refresh_from_db()
    assert hand.preactions == {}


# --------------------------------------------------------------------------- privacy


def test_only_the_player_sees_their_box(make_player, poker_table, sent, django_capture_on_commit_callbacks):
    players = [make_player(username=name) for name in ("ann", "ben", "cat")]
    hand, users = _deal(poker_table, players)
    bring_in, second, third = _order(hand)
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        _tick(hand, users[second], "call_any")
    # The tick itself: a bare nudge to ben's own group, nothing to the table, nobody else.
    assert sent == [
        (
            services.GROUPS.player(users[second].pk),
            {"kind": "hand.private", "hand": hand.pk, "table": poker_table.pk},
        )
    ]
    assert poker_table_view(table=poker_table, user=users[second])["you"]["preaction"]["kind"] == "call_any"
    for seat in (bring_in, third):
        view = poker_table_view(table=poker_table, user=users[seat])
        assert view["you"]["preaction"] is None
        assert not any(word in repr(view) for word in KINDS)
        assert (
            poker_private_view(table_id=poker_table.pk, hand_id=hand.pk, user=users[seat])["you"]["preaction"] is None
        )
    assert not any(word in repr(poker_table_view(table=poker_table, user=None)) for word in (*KINDS, "preaction"))
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        _act(hand, users[bring_in], "bring_in")
    assert not any(word in repr(sent) for word in (*KINDS, "preaction"))
    nudged = {g for g, e in sent if e.get("kind") == "hand.private"}
    assert services.GROUPS.player(users[second].pk) in nudged  # ben's box went: his own view says so


def test_the_page_route_ticks_a_box_while_the_socket_is_down_and_refuses_bad_input(browser, make_player, poker_table):
    players = [make_player() for _ in range(2)]
    hand, users = _deal(poker_table, players)
    first, second = _order(hand)
    url = reverse("poker-table-preact", args=[poker_table.pk])
    for user, body, status, code in [
        (users[second], "not json", 400, "malformed"),
        (users[second], {"kind": "check"}, 400, "hand_id_invalid"),
        (users[second], {"hand_id": hand.pk}, 400, "kind_required"),
        (users[second], {"hand_id": hand.pk, "kind": "dance"}, 400, "kind_invalid"),
        (users[second], {"hand_id": hand.pk, "kind": "call", "amount": 100}, 400, "amount_invalid"),
        (users[first], {"hand_id": hand.pk, "kind": "check"}, 409, "your_turn"),
    ]:
        data = body if isinstance(body, str) else json.dumps(body)
        response = browser(user).post(url, data, content_type="application/json")
        assert (response.status_code, response.json()["code"]) == (status, code), body
    hand.refresh_from_db()
    assert hand.preactions == {}
    response = browser(users[second]).post(
        url, json.dumps({"hand_id": hand.pk, "kind": "call_any"}), content_type="application/json"
    )
    assert response.status_code == 200
    assert response.json()["you"]["preaction"] == {"kind": "call_any", "amount": "0.00", "street": 3}
    assert (
        browser(users[first]).get(reverse("poker-table-state", args=[poker_table.pk])).json()["you"]["preaction"]
        is None
    )
