"""A player's private notes and colour tags on opponents: written through the API or the
table's panel, shown at the table and in the hand history, read by their author alone."""

from __future__ import annotations

import json

import pytest

from poker.models import PokerHand, PokerNote
from poker.services import poker_sit
from tests.poker.helpers import play_out, seats_of
from tests.tables.test_api_schema import Schema, call

pytestmark = pytest.mark.django_db

SECRET = "Bluffs the river with any two pair"


@pytest.fixture
def schema(api, make_player):
    response = api(make_player()).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    return Schema(json.loads(response.content))


@pytest.fixture
def table_of_three(make_player, poker_table):
    """Ann, Ben and Cat seated at one table, their first hand played out."""
    players = [make_player(balance=10_000, username=name) for name in ("ann", "ben", "cat")]
    for user in players:
        poker_sit(user=user, table_id=poker_table.pk)
    hand = PokerHand.objects.get(table=poker_table, state=PokerHand.State.LIVE)
    return players, play_out(hand, seats_of(hand, players), strategy="calling_station")


def test_a_note_is_shown_to_its_author_alone_at_the_table_and_in_the_history(
    schema, api, browser, table_of_three, poker_table, make_player
):
    (ann, ben, cat), hand = table_of_three
    a, b, c = api(ann), api(ben), api(cat)
    saved = call(
        schema,
        a,
        "post",
        "/api/poker/notes/",
        {"player": "ben", "text": SECRET, "colour": "red"},
        HTTP_IDEMPOTENCY_KEY="note-1",
    ).json()
    assert saved["note"]["text"] == SECRET and saved["note"]["colour"] == "red"

    seat_of = {s["user_id"]: s["seat"] for s in hand.seats}
    view = call(schema, a, "get", f"/api/poker/tables/{poker_table.pk}/").json()
    on_ben = next(s for s in view["seats"] if s["player"] == "ben")
    assert on_ben["note"]["text"] == SECRET and on_ben["note"]["colour"] == "red"
    assert all(s["note"] is None for s in view["seats"] if s["player"] != "ben")
    record = call(schema, a, "get", f"/api/poker/hands/{hand.pk}/").json()["record"]
    assert next(s for s in record["seats"] if s["seat"] == seat_of[ben.pk])["note"]["text"] == SECRET
    assert call(schema, a, "get", "/api/poker/notes/").json()["results"][0]["player"] == "ben"
    assert call(schema, a, "get", "/api/poker/notes/ben/").json()["colour"] == "red"

    # Nobody else reads it: not Ben, not Cat, at the table, in the history, by its name.
    for client in (b, c):
        for url in (f"/api/poker/tables/{poker_table.pk}/", f"/api/poker/hands/{hand.pk}/"):
            assert SECRET not in call(schema, client, "get", url).content.decode()
        assert call(schema, client, "get", "/api/poker/notes/ben/").json()["code"] == "note_not_found"
        assert call(schema, client, "get", "/api/poker/notes/").json()["results"] == []
        assert call(schema, client, "delete", "/api/poker/notes/ben/").status_code == 404
    assert PokerNote.objects.filter(author=ann).count() == 1

    # The pages: the table's panel and seat marks, the hand's page; only Ann's show it.
    assert SECRET in browser(ann).get(f"/poker/tables/{poker_table.pk}/").content.decode()
    assert SECRET in browser(ann).get(f"/poker/hands/{hand.pk}/").content.decode()
    for other in (ben, cat):
        assert SECRET not in browser(other).get(f"/poker/tables/{poker_table.pk}/").content.decode()
        assert SECRET not in browser(other).get(f"/poker/hands/{hand.pk}/").content.decode()

    # Both emptied: the note is gone; DELETE of a note that is not there is a 404.
    assert (
        call(schema, a, "post", "/api/poker/notes/", {"player": "ben", "text": "", "colour": None}).json()["note"]
        is None
    )
    assert not PokerNote.objects.exists()
    assert call(schema, a, "delete", "/api/poker/notes/ben/").json()["code"] == "note_not_found"


def test_the_tables_note_form_saves_and_goes_back_to_the_table(browser, table_of_three, poker_table):
    (ann, ben, _), _ = table_of_three
    page = browser(ann)
    response = page.post(
        "/poker/notes/",
        {"player": "ben", "text": "Calls too much", "colour": "green", "back": f"table:{poker_table.pk}"},
    )
    assert response.status_code == 302 and response["Location"] == f"/poker/tables/{poker_table.pk}/"
    note = PokerNote.objects.get(author=ann)
    assert (note.subject, note.text, note.colour) == (ben, "Calls too much", "green")
    body = page.get(f"/poker/tables/{poker_table.pk}/").content.decode()
    assert "Calls too much" in body and '"colour": "green"' in body  # the panel and the seats' marks
    refused = page.post("/poker/notes/", {"player": "ann", "text": "me", "back": "table:x"}, follow=True)
    assert "not on yourself" in refused.content.decode()
    assert PokerNote.objects.count() == 1


def test_bad_notes_are_refused_with_a_code_and_change_nothing(schema, api, table_of_three, make_player):
    (ann, _, _), _ = table_of_three
    stranger = make_player(username="zed")
    a = api(ann)
    for body, status, code in [
        ({"player": "ann", "text": "me"}, 400, "note_on_self"),
        ({"player": "nobody-by-that-name", "text": "x"}, 404, "player_not_found"),
        ({"player": "zed", "text": "never met"}, 404, "player_not_found"),
        ({"player": "ben", "colour": "pink"}, 400, "invalid"),
        ({"player": "ben", "text": "x" * 2001}, 400, "invalid"),
        ({"player": "ben", "text": "a\x00b"}, 400, "invalid"),
        ({"text": "who?"}, 400, "invalid"),
        ({"player": 7, "text": "x"}, 404, "player_not_found"),
    ]:
        response = call(schema, a, "post", "/api/poker/notes/", body)
        assert (response.status_code, response.json()["code"]) == (status, code), (body, response.json())
    assert call(schema, api(stranger), "post", "/api/poker/notes/", {"player": "ann", "text": "x"}).status_code == 404
    for odd in ("a%00b", "x" * 200, "%C2%B2"):
        assert call(schema, a, "get", f"/api/poker/notes/{odd}/").json()["code"] == "note_not_found"
        assert call(schema, a, "delete", f"/api/poker/notes/{odd}/").json()["code"] == "note_not_found"
    assert not PokerNote.objects.exists()
