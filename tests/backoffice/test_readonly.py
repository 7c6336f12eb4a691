"""Auditors read everything and change nothing: using every page and endpoint, the export
start included, leaves the ledger, the balances, the hands and the pools as they were."""

from __future__ import annotations

import pytest
from django.urls import reverse

from backoffice.models import ExportJob
from jackpot.models import JackpotHit, JackpotPool
from tables.models import Hand, HandSeat, Seat
from wallets.models import Account, LedgerSeal, Leg, Transaction

from .test_access import APIS, PAGES, url_of


def snapshot() -> dict:
    return {
        "transactions": list(Transaction.objects.order_by("id").values_list("id", "mac")),
        "legs": Leg.objects.count(),
        "seals": LedgerSeal.objects.count(),
        "balances": list(Account.objects.order_by("id").values_list("id", "balance")),
        "hands": list(Hand.objects.order_by("id").values_list("id", "state", "version")),
        "hand_seats": list(HandSeat.objects.order_by("id").values_list("id", "net", "decision")),
        "seats": list(Seat.objects.order_by("id").values_list("id", "number")),
        "hits": JackpotHit.objects.count(),
        "pools": list(JackpotPool.objects.order_by("id").values_list("id", "seed_amount", "is_active")),
    }


@pytest.fixture
def objects(casino_day, auditor, pool):
    from backoffice import exports
    from wallets.selectors import LedgerFilters

    job = ExportJob.objects.create(
        format="jsonl", mode="file", filters=LedgerFilters().describe(), ledger_upto=10**9, requested_by=auditor
    )
    exports.export_file_run(job_id=job.pk)
    return {"job": job.pk, "hand": casino_day["hands"][0].pk, "player": casino_day["alice"].pk, "pool": pool.pk}


def test_nothing_changes_when_an_auditor_uses_every_page_and_endpoint(
    objects, browser, api, auditor, django_capture_on_commit_callbacks
):
    before = snapshot()
    exports_before = ExportJob.objects.count()
    page, client = browser(auditor), api(auditor)
    for name, arg in PAGES:
        response = page.get(url_of(name, arg, objects))
        if response.streaming:
            b"".join(response.streaming_content)
    for name, arg in APIS:
        response = client.get(url_of(name, arg, objects))
        if response.streaming:
            b"".join(response.streaming_content)
    with django_capture_on_commit_callbacks(execute=True):
        assert page.post(reverse("staff-auditor-exports"), {"format": "csv"}).status_code == 302
        assert client.post(reverse("api-auditor-exports"), {"format": "jsonl"}, format="json").status_code == 202
    assert snapshot() == before
    assert ExportJob.objects.count() > exports_before  # the register is the one thing that grows


@pytest.mark.parametrize("name,arg", [(n, a) for n, a in PAGES if n != "staff-auditor-exports"])
def test_no_auditor_page_accepts_a_post(name, arg, audit_objects, browser, auditor):
    assert browser(auditor).post(url_of(name, arg, audit_objects)).status_code == 405


@pytest.mark.parametrize("name,arg", [(n, a) for n, a in APIS if n != "api-auditor-exports"])
@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_no_auditor_endpoint_writes(name, arg, method, audit_objects, api, auditor):
    response = getattr(api(auditor), method)(url_of(name, arg, audit_objects), {}, format="json")
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"
