"""Signing in: the player page still works; five failures lock a username from an address
for 30 minutes (pages, the admin and the API token alike) with a clear message."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.utils import timezone

from casino.access.roles import MANAGER
from tests.security.conftest import PASSWORD, sign_in, token_sign_in

pytestmark = pytest.mark.django_db


def fail(client, username: str, times: int, *, path: str = "/accounts/login/"):
    response = None
    for _ in range(times):
        response = sign_in(client, username, "not-the-password", path=path)
    return response


def test_the_lockout_defaults_are_five_failures_and_thirty_minutes():
    assert settings.AXES_FAILURE_LIMIT == 5
    assert settings.AXES_COOLOFF_TIME == timedelta(minutes=30)
    assert settings.AXES_LOCKOUT_PARAMETERS == [["username", "ip_address"]]


def test_a_player_signs_in_through_the_page_and_reaches_the_lobby(make_player, browser):
    player = make_player(username="alice")
    client = browser()
    assert client.get("/accounts/login/").status_code == 200
    response = sign_in(client, "alice")
    assert response.status_code == 302 and response["Location"] == "/"
    assert client.session[SESSION_KEY] == str(player.pk)
    assert client.get("/").status_code == 200


def test_sign_in_keeps_the_next_page(make_player, browser):
    make_player(username="alice")
    client = browser()
    response = client.post("/accounts/login/", {"username": "alice", "password": PASSWORD, "next": "/wallet/"})
    assert response["Location"] == "/wallet/"


def test_a_wrong_password_shows_the_form_again_and_signs_nobody_in(make_player, browser):
    make_player(username="alice")
    client = browser()
    response = fail(client, "alice", 1)
    assert response.status_code == 200
    assert b"Please enter a correct" in response.content
    assert SESSION_KEY not in client.session


def test_a_new_player_signs_up_and_is_signed_in(browser, groups):
    client = browser()
    response = client.post(
        "/accounts/signup/",
        {
            "username": "newbie",
            "email": "newbie@example.com",
            "password1": "felt-and-chips-42",
            "password2": "felt-and-chips-42",
        },
    )
    assert response.status_code == 302
    assert SESSION_KEY in client.session


def test_five_failures_lock_the_username_even_with_the_right_password(make_player, browser):
    player = make_player(username="alice")
    client = browser()
    assert fail(client, "alice", 4).status_code == 200  # four: still the form
    fifth = fail(client, "alice", 1)
    assert fifth.status_code == 429
    text = fifth.content.decode()
    assert "Too many failed sign-ins" in text and "30 minutes" in text
    assert fifth["Retry-After"] == str(30 * 60)

    right = sign_in(client, "alice")
    assert right.status_code == 429
    assert SESSION_KEY not in client.session
    assert AccessAttempt.objects.filter(username="alice").exists()
    player.refresh_from_db()
    assert player.is_active  # locked out of signing in, the account itself untouched


def test_the_lock_is_per_username_and_address(make_player, browser):
    make_player(username="alice")
    make_player(username="bob")
    fail(browser(ip="10.0.0.1"), "alice", 5)
    assert sign_in(browser(ip="10.0.0.1"), "alice").status_code == 429
    assert sign_in(browser(ip="10.0.0.2"), "alice").status_code == 302  # alice from elsewhere
    assert sign_in(browser(ip="10.0.0.1"), "bob").status_code == 302  # bob from the same address


def test_the_lock_ends_after_thirty_minutes(make_player, browser):
    make_player(username="alice")
    client = browser()
    fail(client, "alice", 5)
    assert sign_in(client, "alice").status_code == 429
    AccessAttempt.objects.filter(username="alice").update(attempt_time=timezone.now() - timedelta(minutes=31))
    assert sign_in(client, "alice").status_code == 302


def test_a_success_resets_the_count(make_player, browser):
    make_player(username="alice")
    client = browser()
    fail(client, "alice", 4)
    assert sign_in(client, "alice").status_code == 302
    client.post("/accounts/logout/")
    assert fail(client, "alice", 4).status_code == 200  # four more: not locked
    assert sign_in(client, "alice").status_code == 302


def test_an_administrator_unlocks_by_removing_the_attempts(make_player, browser):
    make_player(username="alice")
    fail(browser(), "alice", 5)
    AccessAttempt.objects.filter(username="alice").delete()  # what "delete" in the admin's Access attempts does
    assert sign_in(browser(), "alice").status_code == 302


def test_staff_are_locked_out_the_same_way(make_user, browser):
    make_user(MANAGER, "boss")
    fail(browser(), "boss", 5)
    assert sign_in(browser(), "boss").status_code == 429


def test_the_admin_sign_in_counts_and_is_locked_too(administrator, browser):
    client = browser()
    fail(client, administrator.username, 5, path="/admin/login/")
    response = sign_in(client, administrator.username, path="/admin/login/")
    assert response.status_code == 429
    assert SESSION_KEY not in client.session


def test_the_api_token_endpoint_is_locked_with_the_error_shape(make_player):
    make_player(username="alice")
    for _ in range(4):
        assert token_sign_in("alice", "wrong").status_code == 400
    fifth = token_sign_in("alice", "wrong")
    assert fifth.status_code == 429
    assert fifth.json()["code"] == "account_locked"
    locked = token_sign_in("alice")
    assert locked.status_code == 429
    body = locked.json()
    assert body["code"] == "account_locked" and "Too many failed sign-ins" in body["message"]
    assert body["extra"]["retry_after_seconds"] == 30 * 60
    assert "token" not in body


def test_failures_on_the_page_also_lock_the_token_endpoint(make_player, browser):
    make_player(username="alice")
    fail(browser(), "alice", 5)
    assert token_sign_in("alice").status_code == 429
    assert token_sign_in("alice", ip="10.9.9.9").status_code == 200  # another address


def test_the_sign_in_form_needs_its_csrf_token(make_player, browser):
    make_player(username="alice")
    client = browser(csrf_checks=True)
    response = client.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 403
    assert SESSION_KEY not in client.session


def test_programmatic_authenticate_without_a_request_still_works(make_player):
    """``Client.login`` and code call ``authenticate`` without a request: no lockout, no crash."""
    from django.contrib.auth import authenticate
    from django.test import Client

    make_player(username="alice")
    assert authenticate(username="alice", password=PASSWORD) is not None
    assert Client().login(username="alice", password=PASSWORD)


def test_behind_a_proxy_the_lock_counts_by_the_proxys_client_header(settings, make_player, browser):
    settings.CLIENT_IP_HEADER = "HTTP_X_REAL_IP"
    make_player(username="alice")
    one = browser()
    for _ in range(5):
        one.post("/accounts/login/", {"username": "alice", "password": "nope"}, HTTP_X_REAL_IP="203.0.113.7")
    locked = one.post("/accounts/login/", {"username": "alice", "password": PASSWORD}, HTTP_X_REAL_IP="203.0.113.7")
    assert locked.status_code == 429
    other = browser()  # the same proxy address, another client behind it
    assert (
        other.post(
            "/accounts/login/", {"username": "alice", "password": PASSWORD}, HTTP_X_REAL_IP="198.51.100.2"
        ).status_code
        == 302
    )
