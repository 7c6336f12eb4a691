"""Rate limits on the play endpoints (sit, leave, bet, fold, raise): per player, from
settings.CASINO_PLAY_RATE; reading, other players and staff are never slowed."""

from __future__ import annotations

import pytest
from django.conf import settings

from casino.access.roles import CASHIER, MANAGER

pytestmark = pytest.mark.django_db


def test_the_default_rate_is_a_hundred_and_twenty_a_minute():
    assert settings.CASINO_PLAY_RATE == "120/min"


def test_a_burst_of_play_requests_is_refused_with_the_error_shape(settings, make_player, table, api):
    settings.CASINO_PLAY_RATE = "3/min"
    player = api(make_player())
    assert player.post(f"/api/tables/{table.pk}/sit/", {}, format="json").status_code == 201
    assert player.post(f"/api/tables/{table.pk}/leave/", {}, format="json").status_code == 200
    assert player.post(f"/api/tables/{table.pk}/sit/", {}, format="json").status_code == 201
    refused = player.post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json")
    assert refused.status_code == 429
    body = refused.json()
    assert body["code"] == "rate_limited" and set(body) == {"code", "message", "extra"}
    assert int(refused["Retry-After"]) > 0
    # nothing happened: no bet was placed
    assert not table.hands.filter(hand_seats__isnull=False).exists()


def test_decisions_count_too(settings, make_player, table, api):
    settings.CASINO_PLAY_RATE = "2/min"
    user = make_player()
    player = api(user)
    player.post(f"/api/tables/{table.pk}/sit/", {}, format="json")
    hand = player.post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json").json()
    assert player.post(f"/api/hands/{hand['id']}/raise/", format="json").status_code == 429


def test_reading_is_never_throttled(settings, make_player, table, api):
    settings.CASINO_PLAY_RATE = "1/min"
    player = api(make_player())
    player.post(f"/api/tables/{table.pk}/sit/", {}, format="json")
    for path in ("/api/lobby/", f"/api/tables/{table.pk}/", "/api/wallet/", "/api/hands/", "/api/jackpot/") * 3:
        assert player.get(path).status_code == 200, path


def test_the_limit_is_per_player(settings, make_player, table, api):
    settings.CASINO_PLAY_RATE = "1/min"
    first, second = api(make_player()), api(make_player())
    assert first.post(f"/api/tables/{table.pk}/sit/", {}, format="json").status_code == 201
    assert first.post(f"/api/tables/{table.pk}/leave/", {}, format="json").status_code == 429
    assert second.post(f"/api/tables/{table.pk}/sit/", {}, format="json").status_code == 201


def test_staff_endpoints_are_not_play_endpoints(settings, make_user, make_player, api):
    settings.CASINO_PLAY_RATE = "1/min"
    cashier = api(make_user(CASHIER))
    player = make_player(0)
    for n in range(3):
        response = cashier.post(
            "/api/cashier/deposits/",
            {"player": player.pk, "amount": "1.00"},
            format="json",
            HTTP_IDEMPOTENCY_KEY=f"k{n}",
        )
        assert response.status_code == 201
    manager = api(make_user(MANAGER))
    for _ in range(3):
        assert manager.get("/api/manager/tables/").status_code == 200


def test_an_empty_rate_turns_the_limit_off(settings, make_player, table, api):
    settings.CASINO_PLAY_RATE = ""
    player = api(make_player())
    for _ in range(5):
        assert player.post(f"/api/tables/{table.pk}/sit/", {}, format="json").status_code == 201
        assert player.post(f"/api/tables/{table.pk}/leave/", {}, format="json").status_code == 200


def test_normal_play_at_the_default_rate_is_not_slowed(make_player, table, api):
    """Ten hands in a row, as fast as a client can send them: sit, then bet and decide."""
    player = api(make_player(100_000))
    assert player.post(f"/api/tables/{table.pk}/sit/", {}, format="json").status_code == 201
    for _ in range(10):
        bet = player.post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00", "jackpot": True}, format="json")
        assert bet.status_code == 201
        assert player.post(f"/api/hands/{bet.json()['id']}/fold/", format="json").status_code == 200
