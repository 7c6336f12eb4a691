"""Every staff input through a form or a serializer: a bad one is refused with its reason and
changes nothing."""

from __future__ import annotations

import re

from django.test import Client

from wallets.models import DepositRequest
from wallets.selectors import wallet_balances


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_too_long_payment_reference_completes_no_deposit(cashier, make_player):
    player = make_player(balance=0, username="newcomer")
    me = signed_in(player)
    key = re.search(rb'name="key" value="([0-9a-f]{32})"', me.get("/wallet/").content).group(1).decode()
    me.post("/wallet/deposit/", {"amount": "50", "key": key})
    request = DepositRequest.objects.get(player=player)
    desk = signed_in(cashier)
    url = f"/staff/cashier/deposit-requests/{request.pk}/complete/"
    confirm = desk.get(url).content.decode()  # the confirmation asks for the reference, optional
    assert '<label for="deposit-reference">Payment reference</label>' in confirm
    assert re.search(r'<input type="text" name="reference" maxlength="100"[^>]*id="deposit-reference"', confirm)

    refused = desk.post(url, {"reference": "x" * 101}, follow=True).content.decode()
    assert "The deposit was not made" in refused and "at most 100 characters" in refused
    request.refresh_from_db()
    assert request.status == "requested" and wallet_balances(user=player).available == 0

    desk.post(url, {"reference": "  psp-123  "})
    request.refresh_from_db()
    assert request.status == "completed" and request.reference == "psp-123"
    assert wallet_balances(user=player).available == 5_000


def test_the_cash_report_date_is_read_by_a_serializer(cashier):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(cashier)
    assert client.get("/api/cashier/report/", {"date": "2026-02-30"}).json()["code"] == "date_invalid"
    assert client.get("/api/cashier/report/", {"date": "2026-01-02"}).json()["date"] == "2026-01-02"
    assert client.get("/api/cashier/report/").status_code == 200


def test_the_audit_log_filters_go_through_one_form_on_the_page_and_the_api(manager):
    from rest_framework.test import APIClient

    page = signed_in(manager).get("/staff/manager/audit/", {"actor": "a\x00b", "action": "table.update"})
    assert page.status_code == 200
    assert "The filter actor is left out: Null characters are not allowed." in page.content.decode()
    client = APIClient()
    client.force_authenticate(manager)
    refused = client.get("/api/manager/audit/", {"object_type": "x" * 151})
    assert refused.status_code == 400 and refused.json()["code"] == "object_type_invalid"
    assert client.get("/api/manager/audit/", {"actor": "nobody"}).json()["results"] == []
