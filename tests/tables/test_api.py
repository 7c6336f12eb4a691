"""The REST API as a player's client uses it: every bad request gets a clear code and changes nothing."""

from __future__ import annotations

import pytest

from casino.access.roles import AUDITOR
from tables.models import Hand, HandSeat, Seat
from wallets.models import Transaction
from wallets.selectors import wallet_balances


def _snapshot(*players):
    return (
        Transaction.objects.count(),
        HandSeat.objects.count(),
        Seat.objects.count(),
        [(wallet_balances(user=p).available, wallet_balances(user=p).in_play) for p in players],
    )


def _error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"code", "message", "extra"} and body["code"] == code, body
    assert body["message"]
    return body


def test_lobby_shows_tables_by_tier_with_free_seats_and_the_live_meter(make_table, tier_high, make_player, api):
    low, _ = make_table("Low"), make_table("High", tier=tier_high)
    player = make_player()
    api(player).post(f"/api/tables/{low.pk}/sit/", {}, format="json")
    tables = api(player).get("/api/lobby/").json()["tables"]
    assert [(t["name"], t["min_ante"], t["max_ante"], t["free_seats"]) for t in tables] == [
        ("Low", "0.50", "10.00", 3),
        ("High", "10.00", "100.00", 4),
    ]
    assert tables[0]["jackpot_meter"] == "10000.00"


def test_a_whole_hand_through_the_api(table, seated, api):
    alice, bob = seated
    r = api(alice).post(f"/api/tables/{table.pk}/bet/", {"ante": "2.50", "jackpot": True}, format="json")
    assert r.status_code == 201 and r.json()["state"] == "betting"
    hand = api(bob).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json").json()
    assert hand["state"] == "decisions"
    assert api(alice).post(f"/api/hands/{hand['id']}/raise/").status_code == 200
    final = api(bob).post(f"/api/hands/{hand['id']}/fold/").json()
    assert final["state"] == "settled" and final["server_seed"]
    assert set(final) >= {
        "id",
        "table",
        "nonce",
        "commitment",
        "server_seed",
        "client_seed",
        "paytable",
        "dealer",
        "seats",
    }
    assert set(final["dealer"]) >= {"cards", "qualified"}
    seat = final["seats"][0]
    assert set(seat) >= {"seat", "player", "ante", "jackpot_bet", "decision", "cards", "category", "net", "jackpot_win"}
    assert (seat["ante"], seat["jackpot_bet"], seat["decision"]) == ("2.50", "0.50", "raise")
    wallet = api(alice).get("/api/wallet/").json()
    assert wallet["in_play"] == "0.00"
    assert wallet["available"] == f"{(10_000 + int(seat['net'].replace('.', ''))) / 100:.2f}"
    statement = api(alice).get("/api/wallet/statement/").json()
    assert len(statement["results"]) >= 2 and "count" not in statement
    assert statement["results"][0]["hand"] == hand["id"]
    history = api(alice).get("/api/hands/").json()["results"]
    assert history[0]["id"] == hand["id"] and history[0]["net"] == seat["net"]


@pytest.mark.parametrize(
    "ante,code",
    [
        ("0.49", "ante_out_of_range"),
        ("10.01", "ante_out_of_range"),
        ("1.005", "amount_invalid"),
        ("-1.00", "amount_invalid"),
        ("0", "amount_not_positive"),
        ("abc", "amount_invalid"),
        ("NaN", "amount_invalid"),
        ("Infinity", "amount_invalid"),
        ("1e30", "amount_invalid"),
        ("100000000000.01", "amount_too_large"),
        (1, "amount_invalid"),
        (True, "amount_invalid"),
        (None, "amount_invalid"),
        ({"value": 1}, "amount_invalid"),
        ([1], "amount_invalid"),
    ],
)
def test_a_bad_ante_is_refused_and_changes_nothing(table, seated, api, ante, code):
    alice, bob = seated
    before = _snapshot(alice, bob)
    r = api(alice).post(f"/api/tables/{table.pk}/bet/", {"ante": ante, "jackpot": True}, format="json")
    _error(r, 400, code)
    assert _snapshot(alice, bob) == before


def test_a_json_number_ante_is_refused(table, seated, api):
    """The API documents amounts as decimal strings; a JSON number is refused, not guessed at."""
    alice, bob = seated
    before = _snapshot(alice, bob)
    r = api(alice).post(f"/api/tables/{table.pk}/bet/", data=b'{"ante": 1.10}', content_type="application/json")
    _error(r, 400, "amount_invalid")
    assert _snapshot(alice, bob) == before


@pytest.mark.parametrize(
    "body,status,code",
    [
        ({}, 400, "invalid"),
        ({"ante": "1.00", "jackpot": "perhaps"}, 400, "invalid"),
    ],
)
def test_malformed_bets_are_refused(table, seated, api, body, status, code):
    alice, bob = seated
    before = _snapshot(alice, bob)
    _error(api(alice).post(f"/api/tables/{table.pk}/bet/", body, format="json"), status, code)
    assert _snapshot(alice, bob) == before


def test_malformed_json_is_refused(table, seated, api):
    alice, _ = seated
    r = api(alice).post(f"/api/tables/{table.pk}/bet/", data=b"{ante: ", content_type="application/json")
    _error(r, 400, "malformed_request")


def test_a_bet_after_the_deal_is_refused(table, seated, api):
    alice, bob = seated
    api(alice).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json")
    api(bob).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json")
    before = _snapshot(alice, bob)
    _error(api(alice).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json"), 409, "betting_closed")
    assert _snapshot(alice, bob) == before


def test_a_second_bet_on_the_same_hand_is_refused(table, seated, api):
    alice, bob = seated
    api(alice).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json")
    before = _snapshot(alice, bob)
    _error(api(alice).post(f"/api/tables/{table.pk}/bet/", {"ante": "2.00"}, format="json"), 409, "already_bet")
    assert _snapshot(alice, bob) == before


def test_a_raise_or_fold_before_the_deal_or_without_an_ante_is_refused(table, seated, make_player, api):
    alice, bob = seated
    api(alice).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json")
    hand_id = Hand.objects.get(table=table).pk
    before = _snapshot(alice, bob)
    _error(api(alice).post(f"/api/hands/{hand_id}/raise/"), 409, "not_dealt")
    _error(
        api(bob).post(f"/api/hands/{hand_id}/raise/"), 404, "hand_not_found"
    )  # not in the hand: it does not exist for bob
    assert _snapshot(alice, bob) == before


def test_a_fold_twice_and_acting_for_another_players_seat_are_refused(table, seated, make_player, api):
    alice, bob = seated
    stranger = make_player()
    api(alice).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json")
    hand = api(bob).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json").json()
    api(alice).post(f"/api/hands/{hand['id']}/fold/")
    before = _snapshot(alice, bob)
    _error(api(alice).post(f"/api/hands/{hand['id']}/fold/"), 409, "already_decided")
    _error(api(alice).post(f"/api/hands/{hand['id']}/raise/"), 409, "already_decided")
    _error(api(stranger).post(f"/api/hands/{hand['id']}/raise/", {"seat": 2}, format="json"), 404, "hand_not_found")
    assert HandSeat.objects.get(player=bob).decision == ""
    assert _snapshot(alice, bob) == before


def test_a_fifth_player_cannot_sit_and_a_taken_seat_cannot_be_taken(table, make_player, api):
    players = [make_player() for _ in range(5)]
    _error(api(players[1]).post(f"/api/tables/{table.pk}/sit/", {"seat": 9}, format="json"), 400, "seat_invalid")
    assert api(players[0]).post(f"/api/tables/{table.pk}/sit/", {"seat": 2}, format="json").status_code == 201
    _error(api(players[1]).post(f"/api/tables/{table.pk}/sit/", {"seat": 2}, format="json"), 409, "seat_taken")
    _error(api(players[0]).post(f"/api/tables/{table.pk}/sit/", {}, format="json"), 409, "already_seated")
    for p in players[1:4]:
        assert api(p).post(f"/api/tables/{table.pk}/sit/", {}, format="json").status_code == 201
    _error(api(players[4]).post(f"/api/tables/{table.pk}/sit/", {}, format="json"), 409, "table_full")
    assert table.seats.count() == 4


def test_a_bet_without_funds_for_ante_chip_and_raise_is_refused(table, make_player, api):
    poor = make_player(balance=349)  # 1.00 ante + 0.50 chip + 2.00 held raise = 3.50
    api(poor).post(f"/api/tables/{table.pk}/sit/", {}, format="json")
    before = _snapshot(poor)
    _error(
        api(poor).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00", "jackpot": True}, format="json"),
        409,
        "insufficient_funds",
    )
    assert _snapshot(poor) == before


def test_a_bet_without_a_seat_is_refused(table, seated, make_player, api):
    _error(api(make_player()).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json"), 409, "not_seated")


def test_unknown_tables_and_hands_are_not_found(seated, api):
    alice, _ = seated
    _error(api(alice).get("/api/tables/999999/"), 404, "table_not_found")
    _error(api(alice).post("/api/tables/999999/sit/", {}, format="json"), 404, "table_not_found")
    _error(api(alice).post("/api/tables/999999/bet/", {"ante": "1.00"}, format="json"), 404, "table_not_found")
    _error(api(alice).get("/api/hands/999999/"), 404, "hand_not_found")
    _error(api(alice).post("/api/hands/999999/fold/"), 404, "hand_not_found")


def test_a_player_cannot_read_another_players_hand_but_an_auditor_can(table, seated, make_player, make_user, api):
    alice, bob = seated
    api(alice).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json")
    hand_id = Hand.objects.get(table=table).pk
    _error(api(make_player()).get(f"/api/hands/{hand_id}/"), 404, "hand_not_found")
    assert api(make_user(AUDITOR)).get(f"/api/hands/{hand_id}/").status_code == 200


def test_the_current_hand_shows_only_my_cards_and_the_dealers_up_card(table, seated, api):
    alice, bob = seated
    api(alice).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json")
    api(bob).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json")
    view = api(alice).get(f"/api/tables/{table.pk}/hand/").json()
    mine, theirs = view["seats"]
    assert None not in mine["cards"] and theirs["cards"] == [None] * 5
    assert view["dealer"]["cards"][:4] == [None] * 4 and view["dealer"]["up_card"]
    assert view["server_seed"] is None and "server_seed" not in str(theirs)


def test_a_repeated_request_with_the_same_idempotency_key_bets_once(table, seated, api):
    alice, bob = seated
    client = api(alice)
    headers = {"HTTP_IDEMPOTENCY_KEY": "bet-1"}
    first = client.post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json", **headers)
    again = client.post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json", **headers)
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true" and again.json()["id"] == first.json()["id"]
    assert HandSeat.objects.filter(player=alice).count() == 1
    assert wallet_balances(user=alice).in_play == 300
    other = client.post(f"/api/tables/{table.pk}/bet/", {"ante": "2.00"}, format="json", **headers)
    _error(other, 409, "idempotency_key_reused")


def test_leave_with_money_in_play_is_refused_through_the_api(table, seated, api):
    alice, _ = seated
    api(alice).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json")
    _error(api(alice).post(f"/api/tables/{table.pk}/leave/"), 409, "money_in_play")
    assert table.seats.filter(player=alice).exists()


def test_anonymous_requests_are_refused(table, api):
    r = api().get("/api/lobby/")
    assert r.status_code in (401, 403) and r.json()["code"] == "not_authenticated"
    _error(
        api().post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json"), r.status_code, "not_authenticated"
    )


def test_staff_cannot_play(table, make_user, api):
    from casino.access.roles import CASHIER

    _error(api(make_user(CASHIER)).post(f"/api/tables/{table.pk}/sit/", {}, format="json"), 403, "forbidden")


def test_token_authentication_works(table, make_player, api):
    player = make_player(username="tokenuser")
    token = api().post("/api/auth/token/", {"username": "tokenuser", "password": "pw-test-123"}, format="json")
    assert token.status_code == 200
    client = api()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    assert client.get("/api/wallet/").json()["available"] == "1000.00"
    assert player.pk


def test_openapi_schema_and_docs_are_served(make_player, api):
    client = api(make_player())
    schema = client.get("/api/schema/")
    assert schema.status_code == 200 and b"/api/tables/{table_id}/bet/" in schema.content
    assert client.get("/api/docs/").status_code == 200


def test_the_api_names_the_hands_in_the_readers_language(table, seated, api, rig_deck):
    """A German table reloaded reads its hands back through the API: their names in German,
    as the page and the live table word them; in English for an English reader."""
    alice, bob = seated
    rig_deck(["Kh 9c 7d 4s 2h", "Th Td 2c 5s 9h"], "Ac Kd 7h 4c 3s")
    api(alice).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json")
    hand = api(bob).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json").json()
    api(alice).post(f"/api/hands/{hand['id']}/fold/")
    api(bob).post(f"/api/hands/{hand['id']}/fold/")

    german = api(alice).get(f"/api/hands/{hand['id']}/", HTTP_ACCEPT_LANGUAGE="de").json()
    assert [seat["hand_name"] for seat in german["seats"]] == ["König hoch", "Paar Zehnen"]
    assert german["dealer"]["hand_name"] == "Ass-König hoch"
    row = api(alice).get("/api/hands/?limit=1", HTTP_ACCEPT_LANGUAGE="de").json()["results"][0]
    assert row["hand_name"] == "König hoch"

    english = api(alice).get(f"/api/hands/{hand['id']}/", HTTP_ACCEPT_LANGUAGE="en").json()
    assert [seat["hand_name"] for seat in english["seats"]] == ["king high", "pair of tens"]
    assert english["dealer"]["hand_name"] == "ace-king high"
    assert api(alice).get("/api/hands/?limit=1", HTTP_ACCEPT_LANGUAGE="en").json()["results"][0]["hand_name"] == (
        "king high"
    )
