"""Every auditor page and endpoint: auditors are let in; players, cashiers and managers get
403 (the API in its one error shape); anonymous visitors are sent to sign in."""

from __future__ import annotations

import pytest
from django.urls import reverse

from backoffice.models import ExportJob
from casino.access.roles import AUDITOR, CASHIER, MANAGER, PLAYER

PAGES = [
    ("staff-auditor", None),
    ("staff-auditor-ledger", None),
    ("staff-auditor-ledger-csv", None),
    ("staff-auditor-ledger-jsonl", None),
    ("staff-auditor-exports", None),
    ("staff-auditor-export", "job"),
    ("staff-auditor-export-download", "job"),
    ("staff-auditor-export-manifest", "job"),
    ("staff-auditor-hand-lookup", None),
    ("staff-auditor-hand", "hand"),
    ("staff-auditor-players", None),
    ("staff-auditor-player", "player"),
    ("staff-auditor-reports", None),
    ("staff-auditor-jackpot", None),
    ("staff-auditor-pool", "pool"),
    ("staff-auditor-integrity", None),
]
APIS = [
    ("api-auditor-ledger", None),
    ("api-auditor-ledger-csv", None),
    ("api-auditor-ledger-jsonl", None),
    ("api-auditor-exports", None),
    ("api-auditor-export", "job"),
    ("api-auditor-export-download", "job"),
    ("api-auditor-export-manifest", "job"),
    ("api-auditor-hand", "hand"),
    ("api-auditor-players", None),
    ("api-auditor-player", "player"),
    ("api-auditor-report", None),
    ("api-auditor-pools", None),
    ("api-auditor-pool", "pool"),
    ("api-auditor-integrity", None),
]
NON_AUDITORS = [PLAYER, CASHIER, MANAGER]


def url_of(name: str, arg: str | None, objects: dict) -> str:
    url = reverse(name, args=[objects[arg]] if arg else [])
    if name == "staff-auditor-hand-lookup":
        url += f"?hand={objects['hand']}"
    return url


@pytest.mark.parametrize("name,arg", PAGES)
def test_an_auditor_opens_every_page(name, arg, audit_objects, browser, auditor):
    response = browser(auditor).get(url_of(name, arg, audit_objects))
    if name == "staff-auditor-hand-lookup":
        assert response.status_code == 302 and response["Location"] == reverse(
            "staff-auditor-hand", args=[audit_objects["hand"]]
        )
    else:
        assert response.status_code == 200
        if response.streaming:
            b"".join(response.streaming_content)


@pytest.mark.parametrize("role", NON_AUDITORS)
@pytest.mark.parametrize("name,arg", PAGES)
def test_players_cashiers_and_managers_are_refused_every_page(name, arg, role, audit_objects, browser, people):
    response = browser(people[role]).get(url_of(name, arg, audit_objects))
    assert response.status_code == 403


@pytest.mark.parametrize("name,arg", PAGES)
def test_anonymous_visitors_are_sent_to_sign_in(name, arg, audit_objects, browser):
    url = url_of(name, arg, audit_objects)
    response = browser().get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login") + "?next=")


@pytest.mark.parametrize("name,arg", APIS)
def test_an_auditor_reads_every_endpoint(name, arg, audit_objects, api, auditor):
    response = api(auditor).get(url_of(name, arg, audit_objects))
    assert response.status_code == 200
    if response.streaming:
        b"".join(response.streaming_content)


@pytest.mark.parametrize("role", NON_AUDITORS)
@pytest.mark.parametrize("name,arg", APIS)
def test_non_auditors_get_403_in_the_error_shape(name, arg, role, audit_objects, api, people):
    response = api(people[role]).get(url_of(name, arg, audit_objects))
    assert response.status_code == 403
    assert response.json() == {"code": "forbidden", "message": "This needs the auditor role.", "extra": {}}


@pytest.mark.parametrize("name,arg", APIS)
def test_anonymous_api_calls_are_refused(name, arg, audit_objects, api):
    response = api().get(url_of(name, arg, audit_objects))
    assert response.status_code in (401, 403)
    assert set(response.json()) == {"code", "message", "extra"}


@pytest.mark.parametrize("role", NON_AUDITORS)
def test_only_auditors_start_an_export(role, audit_objects, api, browser, people):
    before = ExportJob.objects.count()
    response = api(people[role]).post(reverse("api-auditor-exports"), {"format": "csv"}, format="json")
    assert response.status_code == 403 and response.json()["code"] == "forbidden"
    client = browser(people[role])
    assert client.post(reverse("staff-auditor-exports"), {"format": "csv"}).status_code == 403
    assert ExportJob.objects.count() == before


def test_anonymous_cannot_start_an_export(audit_objects, api, browser):
    before = ExportJob.objects.count()
    assert api().post(reverse("api-auditor-exports"), {"format": "csv"}, format="json").status_code in (401, 403)
    assert browser().post(reverse("staff-auditor-exports"), {"format": "csv"}).status_code == 302
    assert ExportJob.objects.count() == before


def test_the_audit_link_appears_for_auditors_only(audit_objects, browser, people):
    audit = reverse("staff-auditor")
    assert f'href="{audit}"' in browser(people[AUDITOR]).get(reverse("staff-auditor-ledger")).content.decode()
    assert f'href="{audit}"' not in browser(people[MANAGER]).get(reverse("lobby")).content.decode()
