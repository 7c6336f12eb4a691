"""Every answer under ``/api/`` is the JSON error shape ``{"code", "message", "extra"}``,
whatever the method and however odd the path: an unknown path is a 404 ``not_found``
(never the HTML CSRF page: there is nothing there to protect), a known endpoint called
from a browser session without its CSRF token a 403 ``csrf_failed``."""

from __future__ import annotations

import pytest
from django.http import HttpResponse
from django.middleware.csrf import get_token
from django.test import Client
from django.urls import include, path
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

METHODS = ["get", "post", "put", "patch", "delete", "options", "head"]
ODD_PATHS = [
    "/api/nope/",
    "/api/x%0A",
    "/api/x%0A/",
    "/api/%0A",
    "/api/x%0D%0AX-Injected:%201",
    "/api/%00",
    "/api/lobby/%00",
    "/api/x%FF%FE",
    "/api/" + "a" * 4000,
    "/api/" + "é/" * 500,
    "/api/ünïcødé/😀/",
    "/api/lobby/garbage",
    "/api/lobby/;x=1",
    "/api/lobby/../../etc/passwd",
    "/api/tables/99999999999999999999/",
    "/api/cashier/requests/abc/approve/",
    "/api",
    "/api/",
    "/api//",
]


def assert_error(response, status: int, code: str) -> dict | None:
    assert response.status_code == status, (response.status_code, response.content[:200])
    assert response["Content-Type"] == "application/json", response["Content-Type"]
    if response.request["REQUEST_METHOD"] == "HEAD":
        return None
    body = response.json()
    assert set(body) == {"code", "message", "extra"} and body["code"] == code and body["message"], body
    return body


@pytest.fixture
def callers(make_player):
    """A browser session that checks CSRF as a browser's would, a token client, and
    someone signed in to nothing."""
    player = make_player()
    session = Client(enforce_csrf_checks=True)
    session.force_login(player)
    token = APIClient(enforce_csrf_checks=True)
    token.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=player).key}")
    clients = {"session": session, "token": token, "anonymous": Client(enforce_csrf_checks=True)}
    for client in clients.values():
        client.raise_request_exception = False
    return clients


@pytest.mark.parametrize("caller", ["session", "token", "anonymous"])
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("url", ODD_PATHS)
def test_every_odd_path_is_a_json_404_whatever_the_method(callers, caller, method, url):
    assert_error(getattr(callers[caller], method)(url), 404, "not_found")


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_a_known_endpoint_without_its_csrf_token_is_a_json_403(callers, method):
    body = assert_error(
        getattr(callers["session"], method)("/api/responsible-gaming/reality-check/", {"minutes": 30}),
        403,
        "csrf_failed",
    )
    assert "CSRF" in body["message"]


def test_the_endpoints_still_work_for_tokens_and_for_sessions_with_their_csrf_token(callers):
    assert callers["token"].get("/api/wallet/").status_code == 200
    answered = callers["token"].post("/api/responsible-gaming/reality-check/", {"minutes": 30}, format="json")
    assert answered.status_code == 200, answered.content
    session = callers["session"]
    assert session.get("/api/wallet/").status_code == 200
    session.get("/responsible-gaming/")  # the page sets the CSRF cookie its scripts send back
    csrf = session.cookies["csrftoken"].value
    answered = session.post(
        "/api/responsible-gaming/reality-check/",
        {"minutes": 45},
        content_type="application/json",
        HTTP_X_CSRFTOKEN=csrf,
    )
    assert answered.status_code == 200, answered.content
    assert session.get("/api/responsible-gaming/").json()["reality_check_minutes"] == 45


def test_a_wrong_method_on_a_known_endpoint_is_a_json_405(callers):
    assert_error(callers["token"].put("/api/lobby/"), 405, "method_not_allowed")


# --- a plain Django view under /api/ (not a DRF one) that forgets to exempt itself --------


def _plain(request):
    get_token(request)
    return HttpResponse("ok")


urlpatterns = [path("api/plain/", _plain), path("", include("casino.urls"))]


def test_a_plain_view_under_the_api_that_fails_csrf_answers_json_and_pages_keep_their_page(settings, callers):
    settings.ROOT_URLCONF = __name__
    assert_error(callers["anonymous"].post("/api/plain/"), 403, "csrf_failed")
    page = callers["anonymous"].post("/accounts/login/", {"username": "x", "password": "y"})
    assert page.status_code == 403 and page["Content-Type"].startswith("text/html")
