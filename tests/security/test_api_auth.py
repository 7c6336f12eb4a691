"""401 with WWW-Authenticate, tokens that expire and can be revoked, no-store on
every signed-in answer, Swagger UI served from this site under CSP."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.factories import PASSWORD
from tests.security.conftest import token_sign_in

pytestmark = pytest.mark.django_db


def _token_client(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@pytest.mark.parametrize(
    "method,url",
    [("get", "/api/lobby/"), ("get", "/api/wallet/"), ("post", "/api/hands/1/fold/"), ("get", "/api/auditor/ledger/")],
)
def test_an_unauthenticated_call_is_401_with_www_authenticate(method, url):
    response = getattr(APIClient(), method)(url)
    assert response.status_code == 401, response.content
    assert response["WWW-Authenticate"] == "Token"
    assert response.json()["code"] == "not_authenticated"


def test_a_wrong_token_is_401_with_www_authenticate():
    response = _token_client("0" * 40).get("/api/lobby/")
    assert response.status_code == 401 and response["WWW-Authenticate"] == "Token"
    assert response.json()["code"] == "authentication_failed"


def test_a_token_says_when_it_expires_and_stops_working_then(make_player, settings):
    make_player(username="alice")
    body = token_sign_in("alice").json()
    assert set(body) == {"token", "expires_at"}
    token = Token.objects.get(key=body["token"])
    from django.utils.dateparse import parse_datetime

    assert parse_datetime(body["expires_at"]) == token.created + settings.API_TOKEN_LIFETIME
    assert _token_client(body["token"]).get("/api/wallet/").status_code == 200
    Token.objects.filter(pk=token.pk).update(
        created=timezone.now() - settings.API_TOKEN_LIFETIME - timedelta(seconds=1)
    )
    expired = _token_client(body["token"]).get("/api/wallet/")
    assert expired.status_code == 401 and expired["WWW-Authenticate"] == "Token"
    assert expired.json()["code"] == "token_expired"
    fresh = token_sign_in("alice").json()
    assert fresh["token"] != body["token"]  # signing in again gives a new token, not the expired one
    assert _token_client(fresh["token"]).get("/api/wallet/").status_code == 200


def test_the_default_token_lifetime_is_thirty_days(settings):
    assert settings.API_TOKEN_LIFETIME == timedelta(days=30)


def test_a_token_is_revoked_by_delete(make_player):
    make_player(username="alice")
    token = token_sign_in("alice").json()["token"]
    client = _token_client(token)
    assert client.delete("/api/auth/token/").status_code == 204
    assert not Token.objects.filter(key=token).exists()
    assert client.get("/api/wallet/").status_code == 401
    assert APIClient().delete("/api/auth/token/").status_code == 401


@pytest.mark.parametrize("url", ["/api/wallet/", "/api/lobby/", "/api/wallet/statement/"])
def test_signed_in_api_answers_are_never_stored(make_player, url):
    make_player(username="alice")
    token = token_sign_in("alice").json()["token"]
    response = _token_client(token).get(url)
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]


@pytest.mark.parametrize("url", ["/wallet/", "/", "/responsible-gaming/"])
def test_signed_in_pages_are_never_stored(make_player, url):
    client = Client()
    client.force_login(make_player())
    response = client.get(url)
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]


def test_auditor_pages_are_never_stored(make_user):
    from casino.access.roles import AUDITOR

    client = Client()
    client.force_login(make_user(AUDITOR))
    response = client.get("/staff/auditor/")
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]


def test_swagger_ui_comes_from_this_site_under_a_strict_csp(make_player):
    client = Client()
    client.force_login(make_player())
    page = client.get("/api/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "cdn.jsdelivr.net" not in html and "unpkg" not in html and "https://" not in html
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in html
    assert "<style" not in html and "<script>" not in html  # nothing inline: the CSP forbids it
    csp = page["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200 and b"SwaggerUIBundle" in script.content


def test_the_token_endpoint_refuses_a_body_that_is_not_its_two_fields(make_player):
    make_player(username="tina")
    client = APIClient()
    listed = client.post("/api/auth/token/", [{"username": "tina"}], format="json")
    assert listed.status_code == 400 and listed.json()["code"] == "body_not_object"
    extra = client.post(
        "/api/auth/token/", {"username": "tina", "password": PASSWORD, "lifetime": "forever"}, format="json"
    )
    assert extra.status_code == 400 and extra.json()["code"] == "unknown_field"
    assert extra.json()["extra"] == {"fields": ["lifetime"], "allowed": ["password", "username"]}
    assert not Token.objects.filter(user__username="tina").exists()


def test_revoking_a_token_takes_no_fields(make_player):
    make_player(username="tom")
    token = token_sign_in("tom").json()["token"]
    client = _token_client(token)
    refused = client.delete("/api/auth/token/", {"user": "someone-else"}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "unknown_field"
    assert Token.objects.filter(key=token).exists()
    assert client.delete("/api/auth/token/").status_code == 204
