"""Odd input at the API: odd digits, NUL bytes, non-object bodies, huge limits, HTML 404s.

Every failure of the API is the JSON error shape ``{"code", "message", "extra"}`` with a
4xx status; no input a client can send is a 500.
"""

from __future__ import annotations

import pytest

from casino.access.roles import AUDITOR, CASHIER, MANAGER
from casino.http.pagination import CursorPagination
from casino.http.validation import parse_int


def _error(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) == {"code", "message", "extra"}, body
    assert body["message"]
    if code is not None:
        assert body["code"] == code, body
    return body


@pytest.fixture
def staff(make_user, make_player, api):
    clients = {role: api(make_user(role)) for role in (AUDITOR, CASHIER, MANAGER)}
    clients["player"] = api(make_player(balance=5_000))
    for client in clients.values():
        client.raise_request_exception = False
    return clients


@pytest.mark.parametrize("raw", ["²", "٣", "５", " 5", "5\n", "+5", "-5", "5.0", "", "1" * 25, True, None, 1.5])
def test_the_one_integer_parser_takes_ascii_digits_only(raw):
    with pytest.raises(Exception) as caught:
        parse_int(raw, field="limit", minimum=0)
    assert getattr(caught.value, "code", None) == "limit_invalid"


def test_the_one_integer_parser_reads_plain_numbers():
    assert parse_int("0042", field="x") == 42
    assert parse_int(7, field="x") == 7


@pytest.mark.parametrize(
    "role,url,code",
    [
        (CASHIER, "/api/cashier/players/?q=²", None),
        (AUDITOR, "/api/auditor/players/?q=²", None),
        (AUDITOR, "/api/auditor/ledger/?player=²", None),
        (CASHIER, "/api/cashier/players/?q=a%00b", "q_invalid"),
        (AUDITOR, "/api/auditor/ledger/?limit=²", "limit_invalid"),
        (AUDITOR, "/api/auditor/ledger/?limit=99999999999999999999", "limit_invalid"),
        (AUDITOR, "/api/auditor/ledger/?limit=1001", "limit_too_large"),
        (AUDITOR, "/api/auditor/ledger/?offset=99999999999999999999", "offset_invalid"),
        ("player", "/api/hands/?limit=99999999999999999999", "limit_invalid"),
        ("player", "/api/hands/?limit=0", "limit_invalid"),
        ("player", "/api/wallet/statement/?limit=5000", "limit_too_large"),
        ("player", "/api/wallet/statement/?offset=²", "offset_invalid"),
        (MANAGER, "/api/manager/audit/?limit=99999999999999999999", "limit_invalid"),
        (MANAGER, "/api/manager/audit/?actor=a%00", "actor_invalid"),
        (MANAGER, "/api/manager/audit/?object_id=a%00", "object_id_invalid"),
    ],
)
def test_odd_query_values_are_a_clear_400_never_a_500(staff, role, url, code):
    response = staff[role].get(url)
    if code is None and response.status_code == 200:
        return  # a search for "²" that finds nothing is an honest answer too
    _error(response, 400, code)


@pytest.mark.parametrize(
    "role,url,field",
    [
        ("player", "/api/hands/?limit=5&limit=500", "limit"),
        ("player", "/api/wallet/statement/?limit=1&limit=1", "limit"),
        (AUDITOR, "/api/auditor/ledger/?game=caribbean&game=poker", "game"),
        (CASHIER, "/api/cashier/players/?q=al&q=bo", "q"),
        (MANAGER, "/api/manager/audit/?actor=a&actor=b", "actor"),
    ],
)
def test_a_query_parameter_given_twice_is_refused_not_read_once(staff, role, url, field):
    body = _error(staff[role].get(url), 400, f"{field}_invalid")
    assert body["extra"] == {"field": field}
    assert staff[role].get(url.split("&")[0]).status_code == 200  # once, the same request is answered


def test_a_repeated_query_parameter_is_refused_in_the_reader_s_language(staff):
    body = _error(staff["player"].get("/api/hands/?limit=5&limit=6", HTTP_ACCEPT_LANGUAGE="de"), 400, "limit_invalid")
    assert body["message"] != "'limit' is given once."


def test_a_superscript_search_finds_nothing_and_is_no_error(staff):
    assert staff[CASHIER].get("/api/cashier/players/?q=²").json() == {"players": []}
    assert staff[AUDITOR].get("/api/auditor/players/?q=²").json() == {"results": []}


def test_a_too_large_limit_says_the_maximum(staff):
    body = _error(staff["player"].get("/api/hands/?limit=1001"), 400, "limit_too_large")
    assert body["extra"]["max_limit"] == CursorPagination.max_limit


def test_a_zero_limit_says_the_range_a_page_takes(staff):
    body = _error(staff["player"].get("/api/hands/?limit=0"), 400, "limit_invalid")
    assert body["message"] == f"'limit' is from 1 to {CursorPagination.max_limit}."
    assert (body["extra"]["min"], body["extra"]["max"]) == (1, CursorPagination.max_limit)


@pytest.mark.parametrize(
    "role,url",
    [
        ("player", "/api/hands/"),
        ("player", "/api/wallet/statement/"),
        (AUDITOR, "/api/auditor/ledger/"),
        (MANAGER, "/api/manager/audit/"),
    ],
)
def test_every_paginated_list_names_its_max_limit(staff, role, url):
    body = staff[role].get(url + "?limit=1000").json()
    assert body["max_limit"] == CursorPagination.max_limit and "results" in body


@pytest.mark.parametrize("body", [[1], [], "text", 5, True])
def test_a_body_that_is_not_an_object_is_refused(staff, table, body):
    _error(staff[AUDITOR].post("/api/auditor/exports/", body, format="json"), 400, "body_not_object")
    _error(staff["player"].post(f"/api/tables/{table.pk}/sit/", body, format="json"), 400, "body_not_object")


@pytest.mark.parametrize("minutes", ["²", "٣٠", "３０", " 30"])
def test_minutes_in_other_scripts_are_refused(staff, minutes):
    response = staff["player"].post("/api/responsible-gaming/reality-check/", {"minutes": minutes}, format="json")
    body = _error(response, 400)
    assert body["extra"]["codes"] == {"minutes": "minutes_invalid"}
    assert staff["player"].get("/api/responsible-gaming/").json()["reality_check_minutes"] is None


@pytest.mark.parametrize("url", ["/api/nope/", "/api/hands/1/nope/", "/api/tables/abc/", "/api/hands/1"])
def test_an_unknown_api_path_is_a_json_404(staff, url):
    body = _error(staff["player"].get(url), 404, "not_found")
    if url == "/api/hands/1":
        assert body["extra"]["did_you_mean"] == "/api/hands/1/"


def test_an_unknown_api_path_is_refused_in_the_reader_s_language(staff):
    english = _error(staff["player"].get("/api/nope/"), 404, "not_found")["message"]
    german = _error(staff["player"].get("/api/nope/", HTTP_ACCEPT_LANGUAGE="de"), 404, "not_found")["message"]
    assert (english, german) == ("There is no such API endpoint.", "Diesen API-Endpunkt gibt es nicht.")


def test_an_unknown_api_path_is_a_json_404_for_anonymous_callers_too(api):
    client = api()
    _error(client.post("/api/nothing-here/", {}, format="json"), 404, "not_found")


def test_a_body_above_the_upload_limit_is_a_json_413(staff, table, settings):
    body = _error(
        staff["player"].post(
            f"/api/tables/{table.pk}/bet/", {"ante": "1" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10)}, format="json"
        ),
        413,
        "request_too_large",
    )
    assert body["extra"]["max_bytes"] == settings.DATA_UPLOAD_MAX_MEMORY_SIZE


@pytest.mark.parametrize(
    "content_type,body,field",
    [
        ("application/json", '{"player": %(player)s, "amount": "5.00", "amount": "500.00"}', "amount"),
        ("application/json", '{"player": %(player)s, "amount": "5.00", "player": %(other)s}', "player"),
        ("application/x-www-form-urlencoded", "player=%(player)s&amount=5.00&amount=500.00", "amount"),
        (
            "multipart/form-data; boundary=b",
            '--b\r\nContent-Disposition: form-data; name="player"\r\n\r\n%(player)s\r\n'
            '--b\r\nContent-Disposition: form-data; name="amount"\r\n\r\n5.00\r\n'
            '--b\r\nContent-Disposition: form-data; name="amount"\r\n\r\n500.00\r\n--b--\r\n',
            "amount",
        ),
    ],
    ids=["json-amount", "json-player", "form", "multipart"],
)
def test_a_field_given_twice_in_a_body_is_refused_not_read_once(staff, make_player, content_type, body, field):
    from wallets.models import CashRequest, Transaction

    player, other = make_player(balance=5_000), make_player(balance=5_000)
    before = (Transaction.objects.count(), CashRequest.objects.count())
    sent = body % {"player": player.pk, "other": other.pk}
    response = staff[CASHIER].post("/api/cashier/deposits/", sent, content_type=content_type, HTTP_IDEMPOTENCY_KEY="k")
    assert _error(response, 400, f"{field}_invalid")["extra"] == {"field": field}
    assert (Transaction.objects.count(), CashRequest.objects.count()) == before
    once = sent.replace("&amount=500.00", "").replace(', "amount": "500.00"', "").replace(f', "player": {other.pk}', "")
    if content_type.startswith(("application/", "text/")):  # the same request with each field once is carried out
        answer = staff[CASHIER].post(
            "/api/cashier/deposits/", once, content_type=content_type, HTTP_IDEMPOTENCY_KEY="k2"
        )
        assert (answer.status_code, answer.json()["player"], answer.json()["amount"]) == (201, player.pk, "5.00")
