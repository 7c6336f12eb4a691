"""The auditors' API as its schema says: the export register, a file export from request to
manifest, the retry of a failed one, the hand recall, the report and a pool's history are
validated live, strictly, against the schema (the helper of ``tests/tables/test_api_schema``);
and no operation of the schema is a bare object any more."""

from __future__ import annotations

import pytest

from backoffice import exports
from backoffice.models import ExportJob
from casino.access.roles import AUDITOR
from tests.tables.test_api_schema import call, schema  # noqa: F401 - ``schema`` is the fixture

pytestmark = pytest.mark.django_db


def _bare(node) -> bool:
    return (
        isinstance(node, dict)
        and node.get("type") == "object"
        and not ({"properties", "additionalProperties", "$ref"} & set(node))
    )


def test_no_operation_of_the_schema_is_a_bare_object(schema):
    opaque = []
    for path, operations in schema.document["paths"].items():
        for method, operation in operations.items():
            if not isinstance(operation, dict):
                continue
            bodies = [
                ("request", c.get("schema")) for c in operation.get("requestBody", {}).get("content", {}).values()
            ]
            for status, response in operation.get("responses", {}).items():
                bodies += [(status, c.get("schema")) for c in response.get("content", {}).values()]
            opaque += [f"{method.upper()} {path} {where}" for where, body in bodies if _bare(body) or body == {}]
    assert opaque == []
    auditor = {p: ops for p, ops in schema.document["paths"].items() if p.startswith("/api/auditor/")}
    assert "/api/auditor/exports/{job_id}/retry/" in auditor and "/api/auditor/hands/{hand_id}/" in auditor


def test_the_auditors_exports_match_the_schema(
    schema, casino_day, make_user, api, monkeypatch, django_capture_on_commit_callbacks
):
    auditor = api(make_user(AUDITOR, "auditor2"))
    call(schema, auditor, "get", "/api/auditor/exports/")  # an empty register
    with django_capture_on_commit_callbacks(execute=True) as callbacks:  # Celery runs eagerly, after the commit
        started = call(
            schema,
            auditor,
            "post",
            "/api/auditor/exports/",
            {"format": "csv", "player": "alice"},
            HTTP_IDEMPOTENCY_KEY="exp-1",
        )
    assert started.status_code == 202 and len(callbacks) == 1
    job = started.json()["id"]
    done = call(schema, auditor, "get", f"/api/auditor/exports/{job}/").json()
    assert done["status"] == "done" and done["manifest"]["csv_formula_guard"] and done["urls"]["download"]
    assert (
        done["filters"]["player"]["username"] == "alice" and done["manifest"]["row_count"] == done["rows_written"] > 0
    )
    manifest = call(schema, auditor, "get", f"/api/auditor/exports/{job}/manifest/").json()
    assert manifest["sha256"] == done["sha256"] and manifest["totals_by_kind"]
    call(
        schema,
        auditor,
        "post",
        "/api/auditor/exports/",
        {"format": "csv", "player": "alice"},
        HTTP_IDEMPOTENCY_KEY="exp-1",
    )  # replay
    call(
        schema, auditor, "post", "/api/auditor/exports/", {"format": "jsonl"}, HTTP_IDEMPOTENCY_KEY="exp-1"
    )  # 409 reused key
    call(schema, auditor, "post", "/api/auditor/exports/", {"format": "xls"})  # 400
    call(schema, auditor, "post", f"/api/auditor/exports/{job}/retry/")  # 409 export_not_retryable

    # A file export whose worker fails, then its retry.
    def failing(**kwargs):
        raise RuntimeError("the disk is full")
        yield b""  # pragma: no cover

    real = exports.export_chunks
    monkeypatch.setattr(exports, "export_chunks", failing)
    with django_capture_on_commit_callbacks(execute=True):
        failed = call(schema, auditor, "post", "/api/auditor/exports/", {"format": "jsonl"}).json()
    failed = call(schema, auditor, "get", f"/api/auditor/exports/{failed['id']}/").json()
    assert failed["status"] == "failed" and failed["error"] and failed["urls"]["retry"] and failed["manifest"] is None
    call(schema, auditor, "get", f"/api/auditor/exports/{failed['id']}/manifest/")  # 409 export_not_ready
    monkeypatch.setattr(exports, "export_chunks", real)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        retried = call(
            schema, auditor, "post", f"/api/auditor/exports/{failed['id']}/retry/", HTTP_IDEMPOTENCY_KEY="retry-1"
        )
    assert retried.status_code == 202 and len(callbacks) == 1
    assert call(schema, auditor, "get", f"/api/auditor/exports/{failed['id']}/").json()["status"] == "done"
    call(schema, auditor, "get", f"/api/auditor/exports/{failed['id']}/manifest/")
    register = call(schema, auditor, "get", "/api/auditor/exports/").json()
    assert [row["id"] for row in register["results"]][:2] == [failed["id"], job]

    call(schema, auditor, "get", "/api/auditor/exports/999999/")  # 404
    call(schema, auditor, "post", "/api/auditor/exports/999999/retry/")  # 404
    call(schema, auditor, "get", "/api/auditor/exports/999999/manifest/")  # 404
    call(schema, api(casino_day["alice"]), "get", "/api/auditor/exports/")  # 403
    call(schema, api(), "get", "/api/auditor/exports/")  # 401
    assert {status for _, _, status in schema.checked} >= {200, 202, 400, 401, 403, 404, 409}
    assert ExportJob.objects.filter(status=ExportJob.Status.DONE).count() == 2


def test_the_auditors_recall_report_and_pool_history_match_the_schema(
    schema, casino_day, table, pool, make_player, make_user, api
):
    auditor = api(make_user(AUDITOR, "auditor2"))
    royal, *_ = casino_day["hands"]
    recall = call(schema, auditor, "get", f"/api/auditor/hands/{royal.pk}/").json()
    assert recall["verification"]["checks"]  # (the deck is rigged: its shuffle check fails, as it should)
    assert recall["deal"] and recall["jackpot"]["hits"] and recall["seats"][0]["raise"]
    for hand in casino_day["hands"][1:]:
        call(schema, auditor, "get", f"/api/auditor/hands/{hand.pk}/")
    # A hand still in play: cards and seeds withheld (nulls the schema allows).
    carol = make_player(10_000, "carol")
    api(carol).post(f"/api/tables/{table.pk}/sit/", {}, format="json")
    open_hand = api(carol).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json").json()
    live = call(schema, auditor, "get", f"/api/auditor/hands/{open_hand['id']}/").json()
    assert live["server_seed"] is None and live["dealer"]["cards"] is None and live["deal"] == []
    call(schema, auditor, "get", "/api/auditor/hands/999999/")  # 404

    report = call(schema, auditor, "get", "/api/auditor/reports/daily/").json()
    assert report["rows"] and report["by_table"] and report["theoretical"] and report["total"]["day"] is None
    call(schema, auditor, "get", f"/api/auditor/reports/daily/?table={table.pk}&date_from=2020-01-01")
    call(schema, auditor, "get", "/api/auditor/reports/daily/?date_from=2026-05-02&date_to=2026-05-01")  # 400

    history = call(schema, auditor, "get", f"/api/auditor/jackpot/pools/{pool.pk}/").json()
    assert history["days"] and history["hits"] and history["events"] and history["reconciliation"]["ok"]
    call(schema, auditor, "get", "/api/auditor/jackpot/pools/999999/")  # 404
    call(schema, api(carol), "get", f"/api/auditor/jackpot/pools/{pool.pk}/")  # 403
    assert {status for _, _, status in schema.checked} >= {200, 400, 403, 404}
