"""The shown hands' names a poker table's sockets read: the step writes its public event once
for every socket (in English), and each socket sends it in its reader's language, so a
German reader's live frame says "Paar Zehnen" where an English one says "pair of tens";
the snapshot on (re)connect and the page's state say the same."""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from django.urls import reverse
from django.utils import timezone, translation

from casino.asgi import websocket_urlpatterns
from casino.i18n import user_language_set
from casino.stud.engine import seeded_deck
from poker import replay
from poker.models import PokerHand, PokerTable
from poker.presentation import shown_hand_name
from poker.selectors import stud_hand_name
from poker.services import poker_act, poker_hand_start, poker_sit
from tests import sockets
from tests.sockets import ws_connect

router = URLRouter(websocket_urlpatterns)
FIXED_DECK, _ = seeded_deck("ab" * 32, "fixed-deck", 1)


def _play_to_the_showdown(table, players) -> PokerHand:
    """Deal from a known deck; everyone brings in, calls or checks to the end."""
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))
    for user in players:
        poker_sit(user=user, table_id=table.pk)
    hand = poker_hand_start(table_id=table.pk, deck=FIXED_DECK)
    users = {s["seat"]: next(u for u in players if u.pk == s["user_id"]) for s in hand.seats}
    while hand.is_live:
        state = replay.hand_state(hand)
        legal = state.legal()
        move = "bring_in" if "bring_in" in legal.actions else "check" if "check" in legal.actions else "call"
        poker_act(user=users[state.to_act], table_id=table.pk, hand_id=hand.pk, action=move)
        hand.refresh_from_db()
    return hand


def _ended(messages) -> dict:
    events = [m["event"] for m in messages if m["type"] == "event" and m["event"]["kind"] == "poker.hand"]
    return next(e for e in reversed(events) if e["state"] == "ended")


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_german_reader_s_live_frame_names_the_shown_hands_in_german(make_player, make_poker_table):
    table = await database_sync_to_async(make_poker_table)()

    def people():
        ann, ben, watcher = make_player(), make_player(), make_player()
        user_language_set(user=watcher, language="de")
        return ann, ben, watcher, make_player()

    ann, ben, german_reader, english_reader = await database_sync_to_async(people)()
    german, _ = await ws_connect(router, f"/ws/poker/{table.pk}/", german_reader)
    english, _ = await ws_connect(router, f"/ws/poker/{table.pk}/", english_reader)
    hand = await database_sync_to_async(_play_to_the_showdown)(table, [ann, ben])
    shown = [h for h in hand.record["showdown"] if h["shown"]]
    assert shown, "the known deck goes to a showdown"
    in_german = _ended(await sockets.drain(german))["public"]["hand"]["showdown"]
    in_english = _ended(await sockets.drain(english))["public"]["hand"]["showdown"]
    with translation.override("de"):
        expected = {h["seat"]: shown_hand_name(h["category"], h["best_five"]) for h in shown}
    assert {h["seat"]: h["hand_name"] for h in in_german if h["shown"]} == expected
    assert {h["seat"]: h["hand_name"] for h in in_english if h["shown"]} == {
        h["seat"]: stud_hand_name(h["category"], h["best_five"]) for h in shown
    }
    assert expected != {h["seat"]: h["hand_name"] for h in in_english if h["shown"]}, expected
    # The same event otherwise: only the names differ.
    assert [{k: v for k, v in h.items() if k != "hand_name"} for h in in_german] == [
        {k: v for k, v in h.items() if k != "hand_name"} for h in in_english
    ]
    # A snapshot on (re)connect says the same, the felt's showdown and its showdown event's.
    _, snapshot = await ws_connect(router, f"/ws/poker/{table.pk}/", german_reader)
    view = snapshot["view"]["hand"]
    assert {h["seat"]: h["hand_name"] for h in view["showdown"] if h["shown"]} == expected
    showdown_event = next(e for e in view["events"] if e["type"] == "showdown")
    assert {h["seat"]: h["hand_name"] for h in showdown_event["hands"] if h["shown"]} == expected
    for comm in (german, english):
        await comm.disconnect()


@pytest.mark.django_db
def test_the_poker_page_s_state_names_the_shown_hands_in_german(browser, make_player, make_poker_table):
    table = make_poker_table()
    hand = _play_to_the_showdown(table, [make_player(), make_player()])
    state = browser(make_player()).get(reverse("poker-table-state", args=[table.pk]), HTTP_ACCEPT_LANGUAGE="de")
    names = {h["seat"]: h["hand_name"] for h in state.json()["hand"]["showdown"] if h["shown"]}
    with translation.override("de"):
        assert names == {
            h["seat"]: shown_hand_name(h["category"], h["best_five"]) for h in hand.record["showdown"] if h["shown"]
        }
    assert all(name and name[0].isupper() for name in names.values())  # German nouns: "Paar Zehnen"


def test_stud_hands_are_named_as_stud_players_say_them_in_german():
    with translation.override("de"):
        assert shown_hand_name("three_of_a_kind", ["7s", "7h", "7c", "Ks", "2c"]) == "Drilling Siebenen"
        assert shown_hand_name("four_of_a_kind", ["As", "Ah", "Ac", "Ad", "2c"]) == "Vierling Asse"
        assert shown_hand_name("full_house", ["Ks", "Kh", "Kc", "3s", "3c"]) == "Full House, Könige über Dreien"
        assert shown_hand_name("two_pair", ["As", "Ah", "8c", "8s", "2c"]) == "Zwei Paare, Asse und Achten"
        assert shown_hand_name("four_flush", ["As", "Ks", "7s", "2s", "3d"]) == "Four Card Flush, Ass hoch"
    assert shown_hand_name("three_of_a_kind", ["7s", "7h", "7c", "Ks", "2c"]) == "three sevens"
