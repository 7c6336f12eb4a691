"""A poker page opened (or reloaded) at any moment keeps the table's last results: the
snapshot carries the hands settled before the one on the felt, newest first, up to five
(the page's ``RESULTS_KEPT``), read in one query however many there are."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone, translation

from poker.models import PokerHand, PokerTable
from poker.presentation import shown_hand_name
from poker.selectors import PREVIOUS_HANDS, poker_table_view, stud_hand_name
from poker.services import poker_hand_start
from tests.poker.helpers import play_out, seats_of

pytestmark = pytest.mark.django_db


def _play_one(table: PokerTable, players, seed: int) -> PokerHand:
    """The live hand played to its end (calling stations: the stacks last)."""
    hand = PokerHand.objects.get(table=table, state="live")
    hand = play_out(hand, seats_of(hand, players), strategy="calling_station", seed=seed)
    assert hand.state == PokerHand.State.ENDED
    return hand


def _deal(table: PokerTable) -> PokerHand:
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now())
    return poker_hand_start(table_id=table.pk)


def _view_and_queries(table: PokerTable, user) -> tuple[dict, int]:
    with CaptureQueriesContext(connection) as queries:
        view = poker_table_view(table=table, user=user)
    return view, len(queries)


def test_the_snapshot_keeps_the_tables_last_five_results_newest_first_in_one_query(three, poker_table, browser):
    ann = three[0]
    assert poker_table_view(table=poker_table, user=ann)["previous_hands"] == []  # the first hand is dealt
    ended = [_play_one(poker_table, three, 0)]
    _deal(poker_table)
    _, one_back = _view_and_queries(poker_table, ann)
    for seed in range(1, 7):
        ended.append(_play_one(poker_table, three, seed))
        live = _deal(poker_table)
    view, five_back = _view_and_queries(poker_table, ann)
    assert PREVIOUS_HANDS == 5 and len(ended) == 7
    assert view["hand"]["id"] == live.pk and not view["hand"]["is_over"]
    past = view["previous_hands"]
    assert [h["id"] for h in past] == [h.pk for h in reversed(ended)][:5], "the last five, newest first"
    assert five_back == one_back, "five hands back cost what one does: one query"
    seat = seats_of(ended[-1], three)
    for entry in past:
        assert entry["is_over"] and entry["pots"] and any(e["type"] == "award" for e in entry["events"])
        assert {int(s): name for s, name in entry["names"].items()} == {s: u.get_username() for s, u in seat.items()}
        assert entry["your_seat"] == next(s for s, u in seat.items() if u == ann)
    # The same over the page's REST snapshot, and for a spectator (not dealt in).
    rest = browser(ann).get(reverse("poker-table-state", args=[poker_table.pk])).json()
    assert [h["id"] for h in rest["previous_hands"]] == [h["id"] for h in past]
    spectator = poker_table_view(table=poker_table, user=None)["previous_hands"]
    assert [h["id"] for h in spectator] == [h["id"] for h in past]
    assert all(h["your_seat"] is None for h in spectator)


def test_while_a_showdown_is_on_the_felt_the_hands_before_it_come_with_it(three, poker_table):
    ended = [_play_one(poker_table, three, 0)]
    for seed in (1, 2):
        _deal(poker_table)
        ended.append(_play_one(poker_table, three, seed))
    view = poker_table_view(table=poker_table, user=three[1])
    assert view["hand"]["id"] == ended[-1].pk and view["hand"]["is_over"]
    assert [h["id"] for h in view["previous_hands"]] == [ended[1].pk, ended[0].pk], "the felt's hand is not repeated"


def test_a_german_page_reads_the_previous_hands_shown_hands_in_german(three, poker_table, browser, settings):
    for seed in (0, 1):
        _play_one(poker_table, three, seed)
        _deal(poker_table)
    client = browser(three[0])
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "de"
    past = client.get(reverse("poker-table-state", args=[poker_table.pk])).json()["previous_hands"]
    shown = [entry for hand in past for entry in hand["showdown"] if entry["shown"]]
    assert shown, "the calling stations went to a showdown"
    with translation.override("de"):
        assert [e["hand_name"] for e in shown] == [shown_hand_name(e["category"], e["best_five"]) for e in shown]
    assert any(e["hand_name"] != stud_hand_name(e["category"], e["best_five"]) for e in shown), shown
