"""Signing up, in, and out: the player's first steps, and the service behind the form."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from casino.access.policy import allowed
from casino.http.errors import ValidationError
from casino.services import player_signup
from wallets.models import Account
from wallets.selectors import wallet_balances

GOOD = {
    "username": "newplayer",
    "email": "new@example.com",
    "password1": "felt-and-chips-42",
    "password2": "felt-and-chips-42",
}


def test_sign_up_creates_a_signed_in_player_with_a_wallet_and_goes_to_the_lobby(browser, groups):
    client = browser()
    response = client.post(reverse("signup"), GOOD)
    assert response.status_code == 302 and response["Location"] == reverse("lobby")
    user = get_user_model().objects.get(username="newplayer")
    assert allowed(user, "play") and user.email == "new@example.com" and user.check_password(GOOD["password1"])
    kinds = set(Account.objects.filter(owner=user).values_list("kind", flat=True))
    assert kinds == {Account.Kind.PLAYER_WALLET, Account.Kind.PLAYER_IN_PLAY}
    assert wallet_balances(user=user).available == 0
    lobby = client.get(reverse("lobby"))
    assert lobby.status_code == 200 and "Welcome, newplayer" in lobby.content.decode()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"username": ""}, "This field is required."),
        ({"username": "bad name!"}, "letters, digits and @ . + - _ only"),
        ({"username": "Alice"}, "This user name is taken."),
        ({"email": "not-an-email"}, "Enter a valid email address."),
        ({"password1": "short", "password2": "short"}, "This password is too short."),
        ({"password1": "password123", "password2": "password123"}, "This password is too common."),
        ({"password1": "84736251947", "password2": "84736251947"}, "This password is entirely numeric."),
        ({"password1": "newplayer1", "password2": "newplayer1"}, "too similar to the"),
        ({"password2": "something-else-42"}, "The two passwords differ."),
    ],
)
def test_bad_sign_up_shows_the_error_beside_the_field_and_creates_nothing(browser, make_player, changes, message):
    alice = make_player(username="alice")
    alice.email = "alice@example.com"
    alice.save()
    users, accounts = get_user_model().objects.count(), Account.objects.count()
    response = browser().post(reverse("signup"), {**GOOD, **changes})
    assert response.status_code == 400
    page = response.content.decode()
    assert message in page
    assert 'aria-invalid="true"' in page and 'role="alert"' in page
    assert get_user_model().objects.count() == users and Account.objects.count() == accounts


def test_the_service_refuses_with_stable_codes(groups, make_player):
    make_player(username="taken")
    cases = [
        (dict(username="", password="felt-and-chips-42", email="a@example.com"), "username_invalid", "username"),
        (dict(username="TAKEN", password="felt-and-chips-42", email="a@example.com"), "username_taken", "username"),
        (dict(username="fresh", password="felt-and-chips-42", email="nope"), "email_invalid", "email"),
        (dict(username="fresh", password="1234", email="a@example.com"), "password_invalid", "password"),
    ]
    for kwargs, code, field in cases:
        with pytest.raises(ValidationError) as caught:
            player_signup(**kwargs)
        assert caught.value.code == code and caught.value.extra["field"] == field


def test_password_errors_list_every_validator_message(groups):
    with pytest.raises(ValidationError) as caught:
        player_signup(username="fresh", password="1234", email="a@example.com")
    messages = caught.value.extra["messages"]
    assert any("too short" in m for m in messages) and any("entirely numeric" in m for m in messages)


def test_sign_in_goes_to_the_lobby_and_sign_out_back_to_the_sign_in(browser, make_player):
    make_player(username="dora")
    client = browser()
    page = client.get(reverse("login")).content.decode()
    assert '<label for="id_username">User name</label>' in page and '<label for="id_password">Password</label>' in page
    response = client.post(reverse("login"), {"username": "dora", "password": "pw-test-123"})
    assert response.status_code == 302 and response["Location"] == reverse("lobby")
    assert client.get(reverse("lobby")).status_code == 200
    assert client.post(reverse("logout")).status_code == 302
    assert client.get(reverse("lobby")).status_code == 302


def test_wrong_password_shows_an_error(browser, make_player):
    make_player(username="dora")
    response = browser().post(reverse("login"), {"username": "dora", "password": "wrong"})
    assert response.status_code == 200 and 'role="alert"' in response.content.decode()


def test_a_signed_in_user_is_sent_from_the_sign_up_and_sign_in_pages_to_the_lobby(browser, make_player):
    client = browser(make_player())
    assert client.get(reverse("signup"))["Location"] == reverse("lobby")
    assert client.get(reverse("login"))["Location"] == reverse("lobby")
