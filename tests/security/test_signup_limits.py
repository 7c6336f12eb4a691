"""Sign-up neither reveals which e-mail addresses are registered nor can be run without a
limit (per client address and per e-mail address)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db

PASSWORD = "felt-and-chips-42"


@pytest.fixture(autouse=True)
def _own_cache(settings, tmp_path):
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": str(tmp_path)}
    }


def _sign_up(username: str, email: str, *, ip: str = "10.0.0.1"):
    client = Client(REMOTE_ADDR=ip)
    response = client.post(
        reverse("signup"), {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD}
    )
    return client, response


def test_a_registered_address_gets_the_same_answer_as_a_new_one(make_player):
    alice = make_player(username="alice")
    alice.email = "alice@example.com"
    alice.save()
    _, fresh = _sign_up("newcomer", "newcomer@example.com", ip="10.0.0.2")
    _, taken = _sign_up("another", "ALICE@example.com", ip="10.0.0.3")
    assert fresh.status_code == taken.status_code == 302
    assert fresh["Location"] == taken["Location"]
    assert get_user_model().objects.filter(username="another").exists()  # nothing told it apart
    page = Client(REMOTE_ADDR="10.0.0.4").post(
        reverse("signup"),
        {"username": "bad name!", "email": "alice@example.com", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert "exists already" not in page.content.decode()


def test_sign_ups_from_one_address_are_limited(settings):
    settings.SIGNUP_RATE_PER_IP = "3/hour"
    for n in range(3):
        assert _sign_up(f"p{n}", f"p{n}@example.com")[1].status_code == 302
    _, refused = _sign_up("p9", "p9@example.com")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Too many sign-ups" in refused.content.decode()
    assert not get_user_model().objects.filter(username="p9").exists()
    assert _sign_up("q1", "q1@example.com", ip="10.0.0.77")[1].status_code == 302  # another address


def test_sign_ups_with_one_e_mail_address_are_limited_from_any_client(settings):
    settings.SIGNUP_RATE_PER_EMAIL = "2/day"
    for n in range(2):
        assert _sign_up(f"e{n}", "same@example.com", ip=f"10.1.0.{n}")[1].status_code == 302
    _, refused = _sign_up("e9", "Same@Example.com", ip="10.1.0.9")
    assert refused.status_code == 429
    assert not get_user_model().objects.filter(username="e9").exists()


def test_failed_attempts_count_too(settings):
    settings.SIGNUP_RATE_PER_IP = "2/hour"
    client = Client(REMOTE_ADDR="10.2.0.1")
    for _ in range(2):
        bad = client.post(
            reverse("signup"), {"username": "x", "email": "x@example.com", "password1": "1", "password2": "1"}
        )
        assert bad.status_code == 400
    assert _sign_up("fine", "fine@example.com", ip="10.2.0.1")[1].status_code == 429


def test_the_default_limits(settings):
    assert settings.SIGNUP_RATE_PER_IP == "10/hour" and settings.SIGNUP_RATE_PER_EMAIL == "3/day"
