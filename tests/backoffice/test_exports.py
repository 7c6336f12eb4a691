"""Exports of the payout ledger: streamed CSV and JSON Lines, file exports by a Celery task,
their manifests; the contents reconcile with the wallets and the jackpot meter."""

from __future__ import annotations

import asyncio
import base64
import csv
import hashlib
import io
import json
import threading
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pytest
from django.db import connection
from django.http import StreamingHttpResponse
from django.test import AsyncRequestFactory
from django.urls import reverse

from backoffice import exports, tasks
from backoffice.auditor import responses
from backoffice.models import ExportJob
from jackpot.selectors import pool_meter
from wallets.models import Account, Leg, Transaction
from wallets.selectors import LedgerFilters
from wallets.services import cashier_deposit

COLUMNS = [
    "transaction",
    "leg",
    "time",
    "kind",
    "account",
    "account_kind",
    "owner",
    "side",
    "amount",
    "game",
    "table",
    "hand",
    "memo",
    "mac",
]


def cents(text: str) -> int:
    value = Decimal(text) * 100
    assert value == value.to_integral_value(), text
    return int(value)


def csv_rows(body: bytes) -> list[dict]:
    text = body.decode("utf-8")
    assert text.endswith("\r\n")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    assert reader.fieldnames == COLUMNS
    return list(reader)


def jsonl_rows(body: bytes) -> list[dict]:
    lines = body.decode("utf-8").split("\n")
    assert lines[-1] == ""  # every row ends with a newline
    rows = [json.loads(line) for line in lines[:-1]]
    assert all(list(row) == COLUMNS for row in rows)
    return rows


def streamed(client, name: str, **params):
    response = client.get(reverse(name), params)
    assert response.status_code == 200
    assert isinstance(response, StreamingHttpResponse)
    body = b"".join(response.streaming_content)
    return response, body


def manifest_of(client, response) -> dict:
    job_id = int(response["X-Export-Id"])
    assert f"/exports/{job_id}/manifest/" in response["Link"]
    manifest = client.get(reverse("api-auditor-export-manifest", args=[job_id]))
    assert manifest.status_code == 200
    return json.loads(manifest.content)


def per_account(rows) -> dict[str, int]:
    sums: dict[str, int] = defaultdict(int)
    for row in rows:
        sums[row["account"]] += cents(row["amount"])
    return sums


def check_totals(rows, manifest) -> None:
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    transactions: dict[str, set] = defaultdict(set)
    for row in rows:
        amount = cents(row["amount"])
        by_kind[row["kind"]][0 if amount < 0 else 1] += abs(amount)
        transactions[row["kind"]].add(str(row["transaction"]))
    assert set(by_kind) == set(manifest["totals_by_kind"])
    for kind, (debits, credits) in by_kind.items():
        totals = manifest["totals_by_kind"][kind]
        assert (cents(totals["debits"]), cents(totals["credits"]), cents(totals["net"])) == (
            debits,
            credits,
            credits - debits,
        )
        assert totals["transactions"] == len(transactions[kind])
    assert manifest["row_count"] == len(rows)
    assert manifest["transaction_count"] == len({row["transaction"] for row in rows})


@pytest.mark.parametrize("name,parse", [("api-auditor-ledger-csv", csv_rows), ("api-auditor-ledger-jsonl", jsonl_rows)])
def test_the_whole_ledger_reconciles_with_every_balance_and_the_jackpot_meter(
    name, parse, casino_day, api, auditor, pool
):
    client = api(auditor)
    response, body = streamed(client, name)
    rows = parse(body)
    assert len(rows) == Leg.objects.count()
    sums = per_account(rows)
    for account in Account.objects.all():
        assert sums.get(account.code, 0) == account.balance, account.code
    assert sums[pool.meter_account.code] == pool_meter(pool=pool)
    by_transaction: dict[str, int] = defaultdict(int)
    for row in rows:
        by_transaction[str(row["transaction"])] += cents(row["amount"])
    assert set(by_transaction.values()) == {0}  # every transaction balances
    manifest = manifest_of(client, response)
    check_totals(rows, manifest)
    for kind, totals in manifest["totals_by_kind"].items():
        assert totals["transactions"] == Transaction.objects.filter(kind=kind).count()
    assert manifest["totals"]["net"] == "0.00"
    assert manifest["sha256"] == hashlib.sha256(body).hexdigest() and manifest["bytes"] == len(body)


def test_csv_and_jsonl_carry_the_same_rows(casino_day, api, auditor):
    client = api(auditor)
    _, csv_body = streamed(client, "api-auditor-ledger-csv")
    _, jsonl_body = streamed(client, "api-auditor-ledger-jsonl")
    as_text = [{k: "" if v is None else str(v) for k, v in row.items()} for row in jsonl_rows(jsonl_body)]
    assert csv_rows(csv_body) == as_text
    txn = Transaction.objects.get(pk=as_text[0]["transaction"])
    assert as_text[0]["mac"] == txn.mac and as_text[0]["time"] == txn.created_at.isoformat(timespec="microseconds")


@pytest.mark.parametrize("name", ["api-auditor-ledger-csv", "api-auditor-ledger-jsonl"])
def test_an_export_is_the_same_however_few_accounts_and_amounts_its_encoder_remembers(
    name, casino_day, api, auditor, monkeypatch
):
    """The encoder writes an account's columns and an amount once and reuses them; with room
    for a single one of each (every row a miss or a restart), the bytes are the same."""
    client = api(auditor)
    _, body = streamed(client, name)
    monkeypatch.setattr(exports._Parts, "LIMIT", 1)
    _, forgetful = streamed(client, name)
    assert forgetful == body and len(per_account(jsonl_rows(body) if "jsonl" in name else csv_rows(body))) > 3


def test_a_player_export_reconciles_with_the_players_wallet(casino_day, api, auditor):
    client = api(auditor)
    alice = casino_day["alice"]
    response, body = streamed(client, "api-auditor-ledger-csv", player="alice")
    rows = csv_rows(body)
    sums = per_account(rows)
    for account in Account.objects.filter(owner=alice):
        assert sums[account.code] == account.balance
    manifest = manifest_of(client, response)
    assert manifest["filters"]["player"] == {"id": alice.pk, "username": "alice"}
    assert manifest["totals"]["net"] == "0.00"  # whole transactions: the slice still balances
    assert manifest["sha256"] == hashlib.sha256(body).hexdigest()


def test_filters_by_hand_and_kind_and_the_page_link_stream_the_same(casino_day, api, browser, auditor):
    hand = casino_day["hands"][0]
    _, body = streamed(api(auditor), "api-auditor-ledger-jsonl", game="caribbean", hand=hand.pk, kind="jackpot_reset")
    rows = jsonl_rows(body)
    assert {row["kind"] for row in rows} == {"jackpot_reset"} and {row["hand"] for row in rows} == {hand.pk}
    response, page_body = streamed(
        browser(auditor), "staff-auditor-ledger-jsonl", game="caribbean", hand=hand.pk, kind="jackpot_reset"
    )
    assert response["Content-Disposition"].startswith('attachment; filename="ledger-')
    assert jsonl_rows(page_body) == rows


def test_text_that_a_spreadsheet_would_run_is_defused_in_csv_only(table, make_player, cashier, api, auditor):
    player = make_player(0, "victim")
    memo = '=HYPERLINK("http://evil.example","click"), "quoted"'
    cashier_deposit(cashier=cashier, player=player, amount=1_000, idempotency_key="formula", memo=memo)
    client = api(auditor)
    _, csv_body = streamed(client, "api-auditor-ledger-csv", kind="deposit")
    _, jsonl_body = streamed(client, "api-auditor-ledger-jsonl", kind="deposit")
    assert {row["memo"] for row in csv_rows(csv_body)} == {"'" + memo}
    assert {row["memo"] for row in jsonl_rows(jsonl_body)} == {memo}
    assert cents(csv_rows(csv_body)[0]["amount"]) in (-1_000, 1_000)  # amounts keep their minus sign


def test_an_interrupted_download_is_recorded_as_aborted_without_a_hash(casino_day, api, auditor, monkeypatch):
    monkeypatch.setattr(exports, "ROWS_PER_CHUNK", 3)
    response = api(auditor).get(reverse("api-auditor-ledger-csv"))
    chunks = iter(response.streaming_content)
    next(chunks), next(chunks)
    # The client goes away. (Keep the test's transaction's connection open: the server
    # would close it with the request.)
    monkeypatch.setattr(connection, "close_if_unusable_or_obsolete", lambda: None)
    response.close()
    job = ExportJob.objects.get(pk=int(response["X-Export-Id"]))
    assert job.status == ExportJob.Status.ABORTED and job.sha256 == "" and job.manifest is None
    assert api(auditor).get(reverse("api-auditor-export-manifest", args=[job.pk])).json()["code"] == "export_not_ready"


def test_a_file_export_by_the_task_writes_the_file_and_its_manifest(
    casino_day, auditor, settings, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        job = exports.export_file_request(user=auditor, fmt="csv", filters=LedgerFilters(kind="settlement"))
    assert len(callbacks) == 1 and job.status == ExportJob.Status.PENDING
    tasks.export_run(job.pk)  # the task function itself
    job.refresh_from_db()
    assert (
        job.status == ExportJob.Status.DONE
        and job.rows_written == job.rows_total == Leg.objects.filter(transaction__kind="settlement").count()
    )
    folder = Path(settings.MEDIA_ROOT) / "exports"
    data = (folder / job.file_name).read_bytes()
    manifest = json.loads((folder / f"{job.file_name}.manifest.json").read_bytes())
    assert manifest == job.manifest
    assert manifest["sha256"] == hashlib.sha256(data).hexdigest() == job.sha256 and manifest["bytes"] == len(data)
    assert manifest["file"] == job.file_name and manifest["filters"]["kind"] == "settlement"
    rows = csv_rows(data)
    check_totals(rows, manifest)
    assert not list(folder.glob(".*.part"))  # nothing half-written is left behind
    # idempotent: a redelivered task leaves a finished export alone
    assert exports.export_file_run(job_id=job.pk) is None
    assert (folder / job.file_name).read_bytes() == data


def test_file_exports_go_to_media_root(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "shared-media")
    assert exports.export_dir() == tmp_path / "shared-media" / "exports"


def test_an_export_started_on_the_page_runs_eagerly_and_is_downloaded(
    casino_day, browser, auditor, django_capture_on_commit_callbacks
):
    client = browser(auditor)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("staff-auditor-exports"), {"format": "jsonl", "player": "bob"})
    job = ExportJob.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("staff-auditor-export", args=[job.pk])
    assert job.status == ExportJob.Status.DONE and job.requested_by == auditor and job.mode == "file"
    page = client.get(response["Location"]).content.decode()
    assert reverse("staff-auditor-export-download", args=[job.pk]) in page and job.sha256 in page
    download = client.get(reverse("staff-auditor-export-download", args=[job.pk]))
    data = b"".join(download.streaming_content)
    assert hashlib.sha256(data).hexdigest() == job.sha256
    assert download["Repr-Digest"] == f"sha-256=:{base64.b64encode(hashlib.sha256(data).digest()).decode()}:"
    assert int(download["Content-Length"]) == len(data)
    rows = jsonl_rows(data)
    bob_accounts = Account.objects.filter(owner=casino_day["bob"])
    sums = per_account(rows)
    assert all(sums[a.code] == a.balance for a in bob_accounts)
    manifest = client.get(reverse("staff-auditor-export-manifest", args=[job.pk]))
    assert json.loads(manifest.content)["sha256"] == job.sha256


def test_the_api_starts_an_export_once_per_idempotency_key_and_shows_progress(
    casino_day, api, auditor, django_capture_on_commit_callbacks
):
    client = api(auditor)
    with django_capture_on_commit_callbacks(execute=True):
        first = client.post(
            reverse("api-auditor-exports"),
            {"format": "csv", "game": "caribbean", "table": casino_day["tables"][1].pk},
            format="json",
            HTTP_IDEMPOTENCY_KEY="exp-1",
        )
        again = client.post(
            reverse("api-auditor-exports"),
            {"format": "csv", "game": "caribbean", "table": casino_day["tables"][1].pk},
            format="json",
            HTTP_IDEMPOTENCY_KEY="exp-1",
        )
    assert first.status_code == again.status_code == 202
    assert first.json()["id"] == again.json()["id"] and ExportJob.objects.count() == 1
    detail = client.get(first["Location"]).json()
    assert (
        detail["status"] == "done"
        and detail["progress_pct"] == 100
        and detail["rows_written"] == detail["rows_total"] > 0
    )
    assert detail["urls"]["download"].endswith(f"/exports/{detail['id']}/download/")
    data = b"".join(client.get(detail["urls"]["download"]).streaming_content)
    assert hashlib.sha256(data).hexdigest() == detail["manifest"]["sha256"]
    invalid = client.post(reverse("api-auditor-exports"), {"format": "xml"}, format="json")
    assert invalid.status_code == 400 and "format" in invalid.json()["extra"]["fields"]


def test_a_file_that_is_not_ready_is_not_served(auditor, api):
    job = ExportJob.objects.create(format="csv", mode="file", filters={}, requested_by=auditor)
    response = api(auditor).get(reverse("api-auditor-export-download", args=[job.pk]))
    assert response.status_code == 409 and response.json()["code"] == "export_not_ready"
    assert api(auditor).get(reverse("api-auditor-export", args=[999_999])).status_code == 404


def test_a_failed_task_is_recorded_and_leaves_no_file(casino_day, auditor, settings, monkeypatch):
    job = ExportJob.objects.create(
        format="csv", mode="file", filters=LedgerFilters().describe(), ledger_upto=10**9, requested_by=auditor
    )

    def broken(*args, **kwargs):
        yield b"half"
        raise OSError("disk full")

    monkeypatch.setattr(exports, "export_chunks", broken)
    with pytest.raises(OSError):
        exports.export_file_run(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == ExportJob.Status.FAILED and "disk full" in job.error
    assert not list((Path(settings.MEDIA_ROOT) / "exports").glob("*"))


def test_under_asgi_the_export_is_served_one_chunk_at_a_time():
    """Django would read a sync iterator to its end before sending it under ASGI."""
    consumed = []

    def chunks():
        for i in range(3):
            consumed.append(i)
            yield f"chunk {i}\n".encode()

    response = responses.streaming_response(AsyncRequestFactory().get("/"), chunks(), content_type="text/csv")
    assert response.is_async

    async def first_chunk():
        iterator = response.streaming_content.__aiter__()
        chunk = await iterator.__anext__()
        await iterator.aclose()
        return chunk

    assert asyncio.run(first_chunk()) == b"chunk 0\n" and consumed == [0]


@pytest.mark.django_db(transaction=True)
def test_the_task_commits_its_progress_as_it_goes(table, make_player, play_hand, auditor, monkeypatch, settings):
    """Outside a transaction (as on a worker): the progress updates commit between fetches,
    which on PostgreSQL means a WITH HOLD cursor; the rows still stream in chunks."""
    player = make_player(100_000, "alice")
    for _ in range(3):
        play_hand([(player, 100, True, "raise")])
    monkeypatch.setattr(exports, "ROWS_PER_CHUNK", 4)
    monkeypatch.setattr(exports, "PROGRESS_SECONDS", 0)
    job = ExportJob.objects.create(
        format="jsonl", mode="file", filters=LedgerFilters().describe(), ledger_upto=10**9, requested_by=auditor
    )
    real_chunks, seen = exports.export_chunks, []

    def read_elsewhere():  # another thread, another connection: sees only what has committed
        seen.append(ExportJob.objects.values_list("rows_written", flat=True).get(pk=job.pk))
        connection.close()

    def spy_chunks(**kwargs):
        for chunk in real_chunks(**kwargs):
            yield chunk
            reader = threading.Thread(target=read_elsewhere)
            reader.start()
            reader.join()

    monkeypatch.setattr(exports, "export_chunks", spy_chunks)
    assert not connection.in_atomic_block
    exports.export_file_run(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == "done" and job.rows_written == Leg.objects.count()
    assert seen == sorted(seen) and len(set(seen)) > 2  # rows written grew, committed, chunk by chunk


def test_every_export_sends_the_media_type_its_schema_documents(casino_day, api, auditor, settings, tmp_path):
    """What the published schema says an export's 200 is, each streamed export and each
    finished file sends (a client picks its parser by it)."""
    from drf_spectacular.generators import SchemaGenerator

    from poker.audit import PokerHandFilters

    settings.MEDIA_ROOT = str(tmp_path)
    documented = {
        path: [media for media in operation["responses"]["200"]["content"] if media != "application/json"]
        for path, operations in SchemaGenerator().get_schema(request=None, public=True)["paths"].items()
        for method, operation in operations.items()
        if method == "get" and "200" in operation["responses"] and "content" in operation["responses"]["200"]
    }
    client = api(auditor)
    sent = {}
    for path in [path for path, media in documented.items() if media and "{" not in path]:
        response = client.get(path)
        assert response.status_code == 200, path
        b"".join(response.streaming_content)
        sent[path] = response["Content-Type"].split(";")[0]
    download = "/api/auditor/exports/{job_id}/download/"
    for request, fmt, filters in [
        (exports.export_file_request, "csv", LedgerFilters()),
        (exports.export_file_request, "jsonl", LedgerFilters()),
        (exports.poker_export_request, "pokerstars", PokerHandFilters()),
    ]:
        job = exports.export_file_run(job_id=request(user=auditor, fmt=fmt, filters=filters).pk)
        response = client.get(download.replace("{job_id}", str(job.pk)))
        assert response.status_code == 200, fmt
        b"".join(response.streaming_content)
        sent[f"{download} ({fmt})"] = response["Content-Type"].split(";")[0]
    assert len(sent) == 7, sent
    assert {path: media for path, media in sent.items() if media not in documented[path.split(" ")[0]]} == {}
