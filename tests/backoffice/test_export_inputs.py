"""The bodies of the auditors' export requests (``POST /api/auditor/exports/`` and
``POST /api/auditor/poker/hands/exports/``): every value of the wrong shape is a 400
``invalid_export`` in the error shape and registers no export; JSON and form-encoded
bodies are read the same way."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from backoffice.models import ExportJob
from tests.factories import PokerTableFactory

LEDGER = "/api/auditor/exports/"
POKER = "/api/auditor/poker/hands/exports/"
FORM = "application/x-www-form-urlencoded"

BAD_DATES = [["2026-01-01"], {"a": 1}, 20260101, None, True, "2026-02-30", "01/02/2026", "yesterday", "2026-01-01\x00"]
BAD_IDS = [-1, 0, 2**63, 2**70, "abc", "6abc", " 6", "-6", "٦", 6.5, True, None, ["6"], {"id": 6}]


@pytest.fixture
def tables(table):
    return {LEDGER: table, POKER: PokerTableFactory()}


@pytest.fixture
def auditor_api(api, auditor):
    client = api(auditor)
    client.raise_request_exception = False
    return client


def refused(response, field: str, code: str = "invalid") -> dict:
    assert response.status_code == 400, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"code", "message", "extra"} and body["code"] == "invalid_export", body
    assert field in body["extra"]["fields"] and body["extra"]["codes"][field] == f"{field}_{code}", body
    assert not ExportJob.objects.exists()
    return body


@pytest.mark.parametrize("url", [LEDGER, POKER])
@pytest.mark.parametrize("field", ["date_from", "date_to"])
@pytest.mark.parametrize("value", BAD_DATES, ids=repr)
def test_a_date_of_the_wrong_shape_is_refused(auditor_api, url, field, value):
    refused(auditor_api.post(url, {field: value}, format="json"), field, "required" if value is None else "invalid")


@pytest.mark.parametrize("url", [LEDGER, POKER])
@pytest.mark.parametrize("value", BAD_IDS, ids=repr)
def test_a_table_that_is_not_an_id_is_refused(auditor_api, url, value):
    refused(auditor_api.post(url, {"table": value}, format="json"), "table", "required" if value is None else "invalid")


@pytest.mark.parametrize("url", [LEDGER, POKER])
def test_a_table_that_does_not_exist_is_refused(auditor_api, tables, url):
    other = POKER if url == LEDGER else LEDGER
    game = {"game": "caribbean"} if url == LEDGER else {}  # the ledger holds both games' tables
    missing = max(t.pk for t in tables.values()) + 1
    refused(auditor_api.post(url, {"table": missing, **game}, format="json"), "table")
    if tables[other].pk != tables[url].pk:  # a table of the other game is no table here
        refused(auditor_api.post(url, {"table": tables[other].pk, **game}, format="json"), "table")


@pytest.mark.parametrize("filters", [{"table": 1}, {"hand": 1}, {"table": 1, "hand": 1}])
def test_a_ledger_export_of_a_table_or_hand_needs_its_game(auditor_api, table, filters):
    refused(auditor_api.post(LEDGER, filters, format="json"), "game", "required")


@pytest.mark.parametrize("url", [LEDGER, POKER])
def test_the_last_day_before_the_first_is_refused(auditor_api, url):
    body = refused(
        auditor_api.post(url, {"date_from": "2026-01-02", "date_to": "2026-01-01"}, format="json"), "date_to"
    )
    assert "date_from" not in body["extra"]["fields"]


@pytest.mark.parametrize(
    "field,value",
    [
        ("format", "xml"),
        ("format", ["csv"]),
        ("format", {"csv": 1}),
        ("format", None),
        ("format", "pokerstars"),
        ("player", ["alice"]),
        ("player", {"a": 1}),
        ("player", "nobody"),
        ("player", None),
        ("player", "a\x00b"),
        ("player", "x" * 151),
        ("hand", -1),
        ("hand", 0),
        ("hand", 2**64),
        ("hand", "abc"),
        ("hand", ["1"]),
        ("hand", None),
        ("kind", "nope"),
        ("kind", ["deposit"]),
        ("kind", {"deposit": 1}),
        ("kind", None),
    ],
    ids=repr,
)
def test_the_ledger_filters_of_the_wrong_shape_are_refused(auditor_api, field, value):
    refused(auditor_api.post(LEDGER, {field: value}, format="json"), field, "required" if value is None else "invalid")


@pytest.mark.parametrize("value", ["csv", "xml", ["jsonl"], None])
def test_a_poker_export_takes_its_own_formats_only(auditor_api, value):
    refused(
        auditor_api.post(POKER, {"format": value}, format="json"), "format", "required" if value is None else "invalid"
    )


@pytest.mark.parametrize("url", [LEDGER, POKER])
@pytest.mark.parametrize(
    "body",
    [{"date_from": "x"}, {"date_from": "2026-01-02", "date_to": "2026-01-01"}, {"table": "-6"}, {"table": "abc"}],
)
def test_a_form_encoded_request_is_refused_the_same_way(auditor_api, url, body):
    refused(
        auditor_api.post(url, urlencode(body), content_type=FORM),
        next(iter(body)) if "date_to" not in body else "date_to",
    )


@pytest.mark.parametrize("encoding", ["json", "form"])
@pytest.mark.parametrize("url", [LEDGER, POKER])
def test_a_good_request_starts_one_export_with_its_filters(
    auditor_api, tables, url, encoding, django_capture_on_commit_callbacks
):
    table = tables[url]
    body = {"date_from": "2026-01-01", "date_to": "2026-01-31", "table": table.pk}
    if url == LEDGER:
        body["game"] = "caribbean"
    with django_capture_on_commit_callbacks(execute=True):
        if encoding == "json":
            response = auditor_api.post(url, body, format="json")
        else:
            response = auditor_api.post(url, urlencode(body), content_type=FORM)
    assert response.status_code == 202, response.content[:300]
    job = ExportJob.objects.get()
    assert response.json()["id"] == job.pk
    assert job.format == ("csv" if url == LEDGER else "jsonl")
    assert (job.filters["date_from"], job.filters["date_to"], job.filters["table"]) == (
        "2026-01-01",
        "2026-01-31",
        table.pk,
    )


@pytest.mark.parametrize("encoding", ["json", "form"])
def test_empty_filters_are_no_filters_in_both_encodings(auditor_api, encoding, django_capture_on_commit_callbacks):
    body = {
        "format": "jsonl",
        "date_from": "",
        "date_to": "",
        "player": "",
        "game": "",
        "table": "",
        "hand": "",
        "kind": "",
    }
    with django_capture_on_commit_callbacks(execute=True):
        if encoding == "json":
            response = auditor_api.post(LEDGER, body, format="json")
        else:
            response = auditor_api.post(LEDGER, urlencode(body), content_type=FORM)
    assert response.status_code == 202, response.content[:300]
    filters = ExportJob.objects.get().filters
    assert [filters[name] for name in ("date_from", "date_to", "player", "table", "hand", "kind")] == [None] * 6


def test_a_ledger_export_of_one_player_names_the_player(
    auditor_api, make_player, table, django_capture_on_commit_callbacks
):
    alice = make_player(username="alice")
    with django_capture_on_commit_callbacks(execute=True):
        response = auditor_api.post(
            LEDGER,
            {"format": "jsonl", "player": " Alice ", "kind": "deposit", "game": "caribbean", "hand": "7"},
            format="json",
        )
    assert response.status_code == 202, response.content[:300]
    filters = ExportJob.objects.get().filters
    assert (filters["player"], filters["kind"], filters["hand"]) == (
        {"id": alice.pk, "username": "alice"},
        "deposit",
        7,
    )
