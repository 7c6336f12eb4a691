"""A client can play through the REST API without polling blind.

The response that settles a hand names the next hand; responses carry ``server_time``;
the hand view says whose turn it is and what the caller may do; bet and decision
responses carry the wallet; a hand the caller is not in is 404 for every verb.
"""

from __future__ import annotations

import pytest
from django.utils.dateparse import parse_datetime

from tables.models import Hand

pytestmark = pytest.mark.django_db


def test_the_hand_view_says_whose_turn_and_what_you_may_do(table, seated, api):
    alice, bob = seated
    first = api(alice).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json").json()
    assert first["state"] == "betting"
    assert first["turn"] == {"phase": "betting", "seats": [2], "deadline": first["betting_deadline"]}
    assert first["your_seat"] == 1 and first["allowed_actions"] == []  # alice has bet; she waits
    bobs_view = api(bob).get(f"/api/tables/{table.pk}/hand/").json()
    assert bobs_view["your_seat"] == 2 and bobs_view["allowed_actions"] == ["bet"]
    dealt = api(bob).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json").json()
    assert dealt["state"] == "decisions"
    assert dealt["turn"] == {"phase": "decisions", "seats": [1, 2], "deadline": dealt["decision_deadline"]}
    assert dealt["allowed_actions"] == ["fold", "raise"]
    after = api(alice).post(f"/api/hands/{dealt['id']}/raise/").json()
    assert after["turn"]["seats"] == [2] and after["allowed_actions"] == []


def test_bet_and_decision_responses_carry_the_wallet_and_server_time(table, seated, api):
    alice, bob = seated
    bet = api(alice).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json").json()
    # the ante and the held raise (2x) are in play
    assert bet["wallet"] == {"currency": "EUR", "available": "97.00", "in_play": "3.00", "total": "100.00"}
    assert parse_datetime(bet["server_time"]) is not None
    hand = api(bob).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json").json()
    folded = api(alice).post(f"/api/hands/{hand['id']}/fold/").json()
    assert folded["wallet"]["in_play"] == "1.00" and folded["wallet"]["available"] == "99.00"
    for url in (
        "/api/lobby/",
        f"/api/tables/{table.pk}/",
        "/api/wallet/",
        "/api/jackpot/",
        f"/api/hands/{hand['id']}/",
    ):
        assert parse_datetime(api(alice).get(url).json()["server_time"]) is not None, url


def test_the_response_that_settles_a_hand_names_the_next_hand(table, seated, api):
    alice, bob = seated
    api(alice).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json")
    hand = api(bob).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json").json()
    assert hand["next_hand"] is None
    api(alice).post(f"/api/hands/{hand['id']}/fold/")
    settled = api(bob).post(f"/api/hands/{hand['id']}/fold/").json()
    assert settled["state"] == "settled"
    following = Hand.objects.filter(table=table).exclude(pk=hand["id"]).get()
    assert settled["next_hand"] == {"id": following.pk, "url": f"/api/hands/{following.pk}/", "state": "betting"}
    assert settled["allowed_actions"] == []
    # the next hand: both may bet again
    assert api(alice).get(f"/api/tables/{table.pk}/hand/").json()["id"] == following.pk


@pytest.mark.parametrize("verb", ["get", "post", "put", "patch", "delete"])
@pytest.mark.parametrize("suffix", ["", "fold/", "raise/"])
def test_a_hand_you_are_not_in_is_404_for_every_verb(table, seated, make_player, api, verb, suffix):
    alice, bob = seated
    api(alice).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json")
    hand_id = Hand.objects.get(table=table).pk
    stranger = make_player()
    for who in (stranger, bob):  # bob sits at the table but has no ante in this hand
        response = getattr(api(who), verb)(f"/api/hands/{hand_id}/{suffix}")
        assert response.status_code == 404, (who, response.content)
        assert response.json()["code"] == "hand_not_found"
    missing = getattr(api(stranger), verb)(f"/api/hands/{hand_id + 1000}/{suffix}")
    assert missing.status_code == 404 and missing.json()["code"] == "hand_not_found"


def test_field_errors_carry_specific_codes(table, seated, api):
    alice, _ = seated
    wrong_seat = api(alice).post(f"/api/tables/{table.pk}/sit/", {"seat": 9}, format="json").json()
    assert wrong_seat["code"] == "seat_invalid"
    body = api(alice).post(f"/api/tables/{table.pk}/bet/", {"jackpot": "perhaps"}, format="json").json()
    assert body["extra"]["codes"] == {"ante": "ante_required", "jackpot": "jackpot_invalid"}
    exclusion = (
        api(alice)
        .post("/api/responsible-gaming/self-exclusion/", {"months": "six", "confirm": True}, format="json")
        .json()
    )
    assert exclusion["extra"]["codes"] == {"months": "months_invalid"}
