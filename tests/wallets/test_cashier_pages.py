"""The cashier's desk pages: a cashier serves a player at the counter."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from casino.access.roles import AUDITOR, CASHIER, MANAGER
from wallets.models import CashRequest, Transaction
from wallets.selectors import wallet_balances


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_cashier_finds_a_player_and_deposits(cashier, make_player):
    player = make_player(balance=0, username="rosa")
    desk = signed_in(cashier)
    found = desk.get("/staff/cashier/", {"q": "ros"})
    assert b"rosa" in found.content
    page = desk.get(f"/staff/cashier/players/{player.pk}/")
    key = re.search(rb'name="key" value="(d-[0-9a-f]+)"', page.content).group(1).decode()
    for _ in range(2):  # a double submit of the same form moves money once
        desk.post(f"/staff/cashier/players/{player.pk}/move/", {"kind": "deposit", "amount": "75.50", "key": key})
    assert wallet_balances(user=player).available == 7_550


def test_a_big_withdrawal_is_approved_on_the_desk_by_a_second_cashier(cashier, make_user, make_player):
    other = make_user(CASHIER)
    player = make_player(balance=300_000)
    signed_in(cashier).post(
        f"/staff/cashier/players/{player.pk}/move/", {"kind": "withdrawal", "amount": "2500", "key": "k"}
    )
    request = CashRequest.objects.get()
    assert request.status == "pending" and wallet_balances(user=player).available == 50_000  # held until decided
    page = signed_in(cashier).get("/staff/cashier/")
    assert b"Another staff member must decide" in page.content
    signed_in(cashier).post(f"/staff/cashier/requests/{request.pk}/decide/", {"decision": "approve"})
    assert CashRequest.objects.get().status == "pending"
    signed_in(other).post(f"/staff/cashier/requests/{request.pk}/decide/", {"decision": "approve"})
    assert CashRequest.objects.get().status == "executed"
    assert wallet_balances(user=player).available == 50_000


def test_a_mistake_is_reversed_from_the_player_page(cashier, make_player):
    player = make_player(balance=0)
    desk = signed_in(cashier)
    desk.post(f"/staff/cashier/players/{player.pk}/move/", {"kind": "deposit", "amount": "90", "key": "oops"})
    txn = Transaction.objects.get(kind="deposit", legs__account__owner=player)
    desk.post(
        f"/staff/cashier/players/{player.pk}/reverse/", {"transaction": txn.pk, "reason": "wrong player", "key": "r"}
    )
    assert wallet_balances(user=player).available == 0
    assert b"Reversed" in desk.get(f"/staff/cashier/players/{player.pk}/").content


def test_bad_amounts_on_the_desk_show_an_error_and_move_nothing(cashier, make_player):
    player = make_player(balance=1_000)
    desk = signed_in(cashier)
    before = Transaction.objects.count()
    for amount in ("", "-5", "abc", "1.234", "99999999999999"):
        response = desk.post(
            f"/staff/cashier/players/{player.pk}/move/",
            {"kind": "deposit", "amount": amount, "key": amount},
            follow=True,
        )
        assert response.status_code == 200 and b"flash-error" in response.content, amount
    response = desk.post(
        f"/staff/cashier/players/{player.pk}/move/", {"kind": "withdrawal", "amount": "10.01", "key": "w"}, follow=True
    )
    assert b"does not cover" in response.content
    assert Transaction.objects.count() == before


@pytest.mark.parametrize("role", ["player", AUDITOR])
def test_the_desk_is_closed_to_players_and_auditors(make_user, make_player, role):
    player = make_player(balance=1_000)
    client = signed_in(make_user(role))
    assert client.get("/staff/cashier/").status_code == 403
    assert (
        client.post(f"/staff/cashier/players/{player.pk}/move/", {"kind": "deposit", "amount": "5"}).status_code == 403
    )
    assert wallet_balances(user=player).available == 1_000


def test_a_manager_sees_and_decides_requests_but_does_not_move_cash(make_user, make_player):
    manager = make_user(MANAGER)
    player = make_player(balance=1_000)
    client = signed_in(manager)
    assert client.get("/staff/cashier/").status_code == 200
    assert client.get("/staff/cashier/report/").status_code == 200
    assert (
        client.post(f"/staff/cashier/players/{player.pk}/move/", {"kind": "deposit", "amount": "5"}).status_code == 403
    )


def test_the_report_page_shows_each_drawer(cashier, make_player):
    player = make_player(balance=0)
    signed_in(cashier).post(
        f"/staff/cashier/players/{player.pk}/move/", {"kind": "deposit", "amount": "40", "key": "d"}
    )
    page = signed_in(cashier).get("/staff/cashier/report/").content.decode()
    assert "cashier" in page and "€40.00" in page


def test_anonymous_staff_pages_redirect_to_sign_in(make_player):
    assert Client().get("/staff/cashier/").status_code == 302
