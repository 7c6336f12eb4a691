"""Pre-actions over the poker websocket and the REST API: a player ticks a box, their own
sockets read it back, the other player's sockets hear nothing of it (not even that a box
exists), the box plays the moment the turn comes; bad input is refused with its code."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from django.utils import timezone

from casino.asgi import websocket_urlpatterns
from casino.stud.engine import seeded_deck
from poker import replay
from poker.models import PokerHand, PokerTable
from poker.services import poker_hand_start, poker_sit
from tests import sockets
from tests.sockets import answered, ws_connect

router = URLRouter(websocket_urlpatterns)
FIXED_DECK, _ = seeded_deck("ab" * 32, "fixed-deck", 1)
KINDS = ("check_fold", "call_any")  # a box's kinds: in no message but its player's


def _deal(table, players) -> PokerHand:
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))
    for user in players:
        poker_sit(user=user, table_id=table.pk)
    return poker_hand_start(table_id=table.pk, deck=FIXED_DECK)


def _of(messages, type_: str) -> list[dict]:
    return [m for m in messages if m["type"] == type_]


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_box_ticked_over_the_socket_is_the_players_alone_and_plays_at_their_turn(make_player, make_poker_table):
    table = await database_sync_to_async(make_poker_table)()
    ann, ben = await database_sync_to_async(make_player)(), await database_sync_to_async(make_player)()
    hand = await database_sync_to_async(_deal)(table, [ann, ben])
    seat_of = {s["user_id"]: s["seat"] for s in hand.seats}
    # The bring-in is the first to act: the other one ticks a box.
    first, waiting = (ann, ben) if hand.to_act == seat_of[ann.pk] else (ben, ann)
    f, _ = await ws_connect(router, f"/ws/poker/{table.pk}/", first)
    w, _ = await ws_connect(router, f"/ws/poker/{table.pk}/", waiting)
    w2, _ = await ws_connect(router, f"/ws/poker/{table.pk}/", waiting)  # the same player's second tab
    for comm in (f, w, w2):
        await sockets.drain(comm)
    await w.send_json_to({"action": "preact", "id": "p1", "hand_id": hand.pk, "kind": "call_any"})
    mine = await answered(w)
    assert _of(mine, "ack")
    private = _of(mine, "private")
    assert private and private[-1]["you"]["preaction"] == {"kind": "call_any", "amount": "0.00", "street": 3}
    other_tab = await sockets.drain_until(w2, lambda got: bool(_of(got, "private")))
    assert _of(other_tab, "private")[-1]["you"]["preaction"]["kind"] == "call_any"
    assert await sockets.drain(f) == [], "the other player hears nothing of the box"
    # A fresh snapshot of the other player knows nothing of it either.
    f2, snapshot = await ws_connect(router, f"/ws/poker/{table.pk}/", first)
    assert snapshot["view"]["you"]["preaction"] is None
    assert not any(word in json.dumps(snapshot) for word in KINDS)
    # The bring-in: the waiting player's call any plays in the same step.
    await f.send_json_to({"action": "act", "id": "a1", "hand_id": hand.pk, "kind": "bring_in"})
    seen = await sockets.drain_until(
        f, lambda got: any(m["type"] == "event" and m["event"].get("version") == 2 for m in got)
    )
    events = [m["event"] for m in seen if m["type"] == "event" and m["event"]["kind"] == "poker.hand"]
    assert [e["version"] for e in events] == [1, 2]
    actions = [[a["seat"], a["action"]] for e in events for a in e["events"] if a["type"] == "action"]
    assert actions == [[seat_of[first.pk], "bring_in"], [seat_of[waiting.pk], "call"]]
    assert not any(word in json.dumps(seen) for word in (*KINDS, "preaction"))
    theirs = await sockets.drain_until(w, lambda got: any(m["type"] == "private" for m in got))
    assert _of(theirs, "private")[-1]["you"]["preaction"] is None  # played: the box is cleared
    later = json.dumps(await sockets.drain(f2))
    assert not any(word in later for word in KINDS)
    for comm in (f, w, w2, f2):
        await comm.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_bad_input_over_the_socket_is_refused_with_its_code_and_changes_nothing(make_player, make_poker_table):
    table = await database_sync_to_async(make_poker_table)()
    ann, ben = await database_sync_to_async(make_player)(), await database_sync_to_async(make_player)()
    hand = await database_sync_to_async(_deal)(table, [ann, ben])
    seat_of = {s["user_id"]: s["seat"] for s in hand.seats}
    waiting = ben if hand.to_act == seat_of[ann.pk] else ann
    first = ann if waiting is ben else ben
    w, _ = await ws_connect(router, f"/ws/poker/{table.pk}/", waiting)
    f, _ = await ws_connect(router, f"/ws/poker/{table.pk}/", first)
    cases = [
        ({"hand_id": [hand.pk], "kind": "check"}, "hand_id_required"),
        ({"hand_id": hand.pk}, "kind_required"),
        ({"hand_id": hand.pk, "kind": ["check"]}, "kind_invalid"),
        ({"hand_id": hand.pk, "kind": "raise"}, "kind_invalid"),
        ({"hand_id": hand.pk, "kind": "call", "amount": [1]}, "amount_invalid"),
        ({"hand_id": hand.pk, "kind": "call", "amount": "one"}, "amount_invalid"),
        ({"hand_id": hand.pk, "kind": "call", "amount": 1.5}, "amount_invalid"),
        ({"hand_id": hand.pk, "kind": "call", "amount": "1.00"}, "nothing_to_call"),
        ({"hand_id": hand.pk + 1000, "kind": "check"}, "hand_not_found"),
    ]
    before = await database_sync_to_async(
        lambda: PokerHand.objects.values("version", "actions", "preactions").get(pk=hand.pk)
    )()
    for message, code in cases:
        await w.send_json_to({"action": "preact", "id": code, **message})
        got = await answered(w)
        errors = _of(got, "error")
        assert [e["code"] for e in errors] == [code], (message, got)
        assert not _of(got, "private")
    await f.send_json_to({"action": "preact", "id": "turn", "hand_id": hand.pk, "kind": "check_fold"})
    assert [e["code"] for e in _of(await answered(f), "error")] == ["your_turn"]
    after = await database_sync_to_async(
        lambda: PokerHand.objects.values("version", "actions", "preactions").get(pk=hand.pk)
    )()
    assert after == before and after["preactions"] == {}
    assert await sockets.drain(f) == []
    for comm in (w, f):
        await comm.disconnect()


@pytest.mark.django_db
def test_the_api_ticks_and_clears_a_box_and_its_schema_says_so(api, make_player, make_poker_table):
    from tests.tables.test_api_schema import Schema, call

    table = make_poker_table()
    ann, ben = make_player(), make_player()
    hand = _deal(table, [ann, ben])
    seat_of = {s["user_id"]: s["seat"] for s in hand.seats}
    waiting = ben if hand.to_act == seat_of[ann.pk] else ann
    first = ann if waiting is ben else ben
    schema = Schema(json.loads(api(ann).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").content))
    operation = schema.document["paths"]["/api/poker/tables/{table_id}/preaction/"]["post"]
    assert {"200", "400", "409"} <= set(operation["responses"])
    url = f"/api/poker/tables/{table.pk}/preaction/"
    client = api(waiting)
    answer = call(schema, client, "post", url, {"hand_id": hand.pk, "kind": "check_fold"})
    assert answer.status_code == 200 and answer.json()["you"]["preaction"]["kind"] == "check_fold"
    theirs = call(schema, api(first), "get", f"/api/poker/tables/{table.pk}/").json()
    assert theirs["you"]["preaction"] is None and "check_fold" not in json.dumps(theirs)
    for body, status, code in [
        ({"hand_id": hand.pk, "kind": ["check"]}, 400, "kind_invalid"),
        ({"hand_id": [hand.pk], "kind": "check"}, 400, "hand_id_invalid"),
        ({"hand_id": hand.pk}, 400, "kind_required"),
        ({"hand_id": hand.pk, "kind": "call", "amount": ["1.00"]}, 400, "amount_invalid"),
        ({"hand_id": hand.pk, "kind": "fold"}, 409, "fold_not_allowed"),
    ]:
        response = call(schema, client, "post", url, body)
        refused = response.json()
        # A body the serializer refuses says so (code "invalid") with each field's own code.
        said = refused["extra"]["codes"][code.rsplit("_", 1)[0]] if refused["code"] == "invalid" else refused["code"]
        assert (response.status_code, said) == (status, code), refused
    assert call(schema, api(first), "post", url, {"hand_id": hand.pk, "kind": "check"}).json()["code"] == "your_turn"
    hand.refresh_from_db()
    assert hand.preactions == {str(seat_of[waiting.pk]): {"kind": "check_fold", "call": 0, "street": 3}}
    cleared = call(schema, client, "post", url, {"hand_id": hand.pk, "kind": None})
    assert cleared.status_code == 200 and cleared.json()["you"]["preaction"] is None
    # Ticked again, then the bring-in: the fold plays at once (a check is not free).
    call(schema, client, "post", url, {"hand_id": hand.pk, "kind": "check_fold"})
    call(schema, api(first), "post", f"/api/poker/tables/{table.pk}/act/", {"hand_id": hand.pk, "action": "bring_in"})
    hand.refresh_from_db()
    assert hand.state == PokerHand.State.ENDED
    assert hand.actions[-1] == [seat_of[waiting.pk], "fold", None]
    assert replay.hand_state(hand).is_over


# --- refusals with details, read in the player's language --------------------------------


def _facing(table, players) -> tuple[PokerHand, dict]:
    """Three players dealt, the bring-in posted: ``{"next": to act, "waiting": facing the bring-in}``."""
    from poker.services import poker_act

    hand = _deal(table, players)
    by_seat = {s["seat"]: next(u for u in players if u.pk == s["user_id"]) for s in hand.seats}
    order = sorted(by_seat)
    first = order.index(hand.to_act)
    turn = [by_seat[order[(first + i) % len(order)]] for i in range(len(order))]
    poker_act(user=turn[0], table_id=table.pk, hand_id=hand.pk, action="bring_in")
    hand.refresh_from_db()
    return hand, {"next": turn[1], "waiting": turn[2]}


@pytest.mark.django_db
def test_a_box_refused_over_the_api_names_the_amount_to_call_in_the_reader_s_money(api, browser, make_player):
    from django.urls import reverse

    table = make_poker_table_now()
    hand, who = _facing(table, [make_player(), make_player(), make_player()])
    url = f"/api/poker/tables/{table.pk}/preaction/"
    body = {"hand_id": hand.pk, "kind": "call", "amount": "9.00"}
    german = api(who["waiting"]).post(url, body, format="json", HTTP_ACCEPT_LANGUAGE="de")
    english = api(who["waiting"]).post(url, body, format="json")
    assert german.status_code == english.status_code == 409
    assert german.json()["code"] == english.json()["code"] == "amount_changed"
    assert german.json()["extra"] == english.json()["extra"] == {"call_amount": "1.00"}
    assert german.json()["message"] == "Der Betrag zum Mitgehen ist jetzt 1,00\u00a0€."
    assert english.json()["message"] == "The amount to call is €1.00 now."
    # The page's own route (the socket is down): an unknown box, in German.
    page = browser(who["waiting"]).post(
        reverse("poker-table-preact", args=[table.pk]),
        json.dumps({"hand_id": hand.pk, "kind": "dance"}),
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="de",
    )
    assert page.status_code == 400 and page.json()["code"] == "kind_invalid"
    assert page.json()["message"] == (
        "Unbekanntes Kästchen; eines von check_fold, check, call, call_any, fold, oder null hebt es auf."
    )
    hand.refresh_from_db()
    assert hand.preactions == {}


def make_poker_table_now():
    from tests.factories import PokerTableFactory

    return PokerTableFactory(game="seven_stud", preset="2-4")


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_german_player_s_box_refusals_over_the_socket_read_german_with_their_codes(make_player):
    from casino.i18n import user_language_set

    def setup():
        table = make_poker_table_now()
        players = [make_player(), make_player(), make_player()]
        hand, who = _facing(table, players)
        user_language_set(user=who["waiting"], language="de")
        return table, hand, who

    table, hand, who = await database_sync_to_async(setup)()
    german, _ = await ws_connect(router, f"/ws/poker/{table.pk}/", who["waiting"])
    english, _ = await ws_connect(router, f"/ws/poker/{table.pk}/", who["next"])
    await sockets.drain(german)
    await sockets.drain(english)
    cases = [
        (
            {"hand_id": hand.pk, "kind": "call", "amount": "9,00"},
            "amount_changed",
            "Der Betrag zum Mitgehen ist jetzt 1,00\u00a0€.",
        ),
        (
            {"hand_id": hand.pk, "kind": "raise"},
            "kind_invalid",
            "Unbekanntes Kästchen; eines von check_fold, check, call, call_any, fold, oder null hebt es auf.",
        ),
        (
            {"hand_id": hand.pk},
            "kind_required",
            "Wählen Sie ein Kästchen: 'kind' ist eines von check_fold, check, call, call_any, fold, "
            "oder null hebt es auf.",
        ),
    ]
    for message, code, words in cases:
        await german.send_json_to({"action": "preact", "id": code, **message})
        errors = _of(await answered(german), "error")
        assert [(e["code"], e["message"]) for e in errors] == [(code, words)], errors
    await english.send_json_to({"action": "preact", "id": "x", "hand_id": hand.pk, "kind": "raise"})
    errors = _of(await answered(english), "error")
    assert [e["code"] for e in errors] == ["kind_invalid"]
    assert errors[0]["message"].startswith("Unknown pre-action; one of check_fold")
    for comm in (german, english):
        await comm.disconnect()
