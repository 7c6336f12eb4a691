"""One authorisation policy asked everywhere: the services that move money refuse whom the
policy refuses (whatever page or API let them through), and a grant taken away in the
database closes the page, the API, the service and the menu together."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission

from casino.access.roles import AUDITOR, CASHIER, MANAGER, PLAYER
from casino.http.errors import PermissionDenied
from wallets import services
from wallets.models import CashRequest, DepositRequest, Transaction
from wallets.selectors import wallet_balances

pytestmark = pytest.mark.django_db


def _fresh(user):
    """The user as the next request sees it (no permissions kept on the object)."""
    return get_user_model().objects.get(pk=user.pk)


def _ledger_and_queue() -> tuple:
    return (
        Transaction.objects.count(),
        tuple(CashRequest.objects.order_by("pk").values_list("pk", "status")),
        tuple(DepositRequest.objects.order_by("pk").values_list("pk", "status")),
    )


def _refused(call, action: str) -> None:
    before = _ledger_and_queue()
    with pytest.raises(PermissionDenied) as refused:
        call()
    assert refused.value.code == "forbidden" and refused.value.extra == {"action": action}
    assert _ledger_and_queue() == before


@pytest.fixture
def people(make_user, administrator):
    return {
        PLAYER: make_user(PLAYER),
        MANAGER: make_user(MANAGER),
        AUDITOR: make_user(AUDITOR),
        "superuser administrator": administrator,
    }


@pytest.mark.parametrize("who", [PLAYER, MANAGER, AUDITOR, "superuser administrator"])
def test_only_the_cashier_role_deposits_withdraws_and_reverses(people, who, make_player, cashier):
    actor, player = people[who], make_player(balance=10_000)
    deposit = Transaction.objects.filter(kind=Transaction.Kind.DEPOSIT, legs__account__owner=player).first()
    _refused(
        lambda: services.cashier_deposit(cashier=actor, player=player, amount=500, idempotency_key="x"), "cash.deposit"
    )
    _refused(
        lambda: services.cashier_withdraw(cashier=actor, player=player, amount=500, idempotency_key="x"),
        "cash.withdraw",
    )
    for kind, action in (("deposit", "cash.deposit"), ("withdrawal", "cash.withdraw")):
        _refused(
            lambda: services.cash_request_create(
                cashier=actor, player=player, kind=kind, amount=500, idempotency_key="x"
            ),
            action,
        )
    _refused(
        lambda: services.cashier_reverse(cashier=actor, transaction_id=deposit.pk, reason="oops", idempotency_key="x"),
        "cash.reverse",
    )
    assert wallet_balances(user=player).available == 10_000


@pytest.mark.parametrize("who", [PLAYER, AUDITOR, "superuser administrator"])
def test_only_cashiers_and_managers_approve_or_reject(settings, people, who, make_player, cashier):
    settings.CASHIER_APPROVAL_THRESHOLD = 1_000
    player = make_player(balance=0)
    waiting = services.cash_request_create(
        cashier=cashier, player=player, kind="deposit", amount=5_000, idempotency_key="big"
    )
    assert waiting.status == CashRequest.Status.PENDING
    actor = people[who]
    _refused(lambda: services.cash_request_approve(approver=actor, request_id=waiting.pk), "cash.approve")
    _refused(lambda: services.cash_request_reject(approver=actor, request_id=waiting.pk, reason="no"), "cash.approve")
    done = services.cash_request_approve(approver=people[MANAGER], request_id=waiting.pk)
    assert done.status == CashRequest.Status.EXECUTED and wallet_balances(user=player).available == 5_000


@pytest.mark.parametrize("who", [PLAYER, MANAGER, AUDITOR])
def test_only_the_desk_completes_or_rejects_a_players_deposit_request(people, who, make_player):
    player = make_player(balance=0)
    request = services.deposit_request_create(player=player, amount=2_000, idempotency_key="ask")
    actor = people[who]
    _refused(lambda: services.deposit_request_complete(request_id=request.pk, completed_by=actor), "cash.deposit")
    _refused(
        lambda: services.deposit_request_reject(request_id=request.pk, rejected_by=actor, reason="no"), "cash.deposit"
    )
    request.refresh_from_db()
    assert request.status == DepositRequest.Status.REQUESTED and wallet_balances(user=player).available == 0


ROLE_LINKS = {"Lobby", "Tables", "Wallet", "My hands", "My poker hands", "Limits", "Cashier desk", "Cash approvals"}
ROLE_LINKS |= {"Management", "Poker tables", "Audit"}
ROLE_LINKS |= {"Two-factor", "Admin"}


def _nav(html: str) -> list[str]:
    """The main menu's links that depend on the role (a page may add its own)."""
    nav = re.search(r'<nav class="main-nav".*?</nav>', html, re.S).group(0)
    return [link for link in re.findall(r"<a [^>]*>([^<]+)</a>", nav) if link in ROLE_LINKS]


@pytest.mark.parametrize(
    "role,links",
    [
        (PLAYER, ["Lobby", "Wallet", "My hands", "My poker hands", "Limits"]),
        (CASHIER, ["Tables", "Cashier desk", "Two-factor"]),
        (MANAGER, ["Tables", "Cash approvals", "Management", "Poker tables", "Two-factor"]),
        (AUDITOR, ["Tables", "Management", "Poker tables", "Audit", "Two-factor"]),
    ],
)
def test_the_menus_are_what_the_policy_allows(make_user, browser, role, links):
    html = browser(make_user(role)).get("/").content.decode()
    assert _nav(html) == links
    assert ('id="reality-check"' in html) == (role == PLAYER)


def test_a_grant_taken_away_closes_page_api_service_and_menu_together(
    settings, make_user, make_player, cashier, browser, api
):
    settings.CASHIER_APPROVAL_THRESHOLD = 1_000
    manager = make_user(MANAGER)
    player = make_player(balance=0)
    waiting = services.cash_request_create(
        cashier=cashier, player=player, kind="deposit", amount=5_000, idempotency_key="big"
    )

    assert browser(manager).get("/staff/cashier/").status_code == 200
    assert api(manager).get("/api/cashier/requests/").status_code == 200
    assert "Cash approvals" in _nav(browser(manager).get("/").content.decode())

    Group.objects.get(name=MANAGER).permissions.remove(Permission.objects.get(codename="cash_approve"))

    assert browser(_fresh(manager)).get("/staff/cashier/").status_code == 403
    refused = api(_fresh(manager)).post(f"/api/cashier/requests/{waiting.pk}/approve/")
    assert (refused.status_code, refused.json()["code"]) == (403, "forbidden")
    _refused(lambda: services.cash_request_approve(approver=_fresh(manager), request_id=waiting.pk), "cash.approve")
    assert "Cash approvals" not in _nav(browser(_fresh(manager)).get("/").content.decode())
    # The rest of the manager's role is untouched.
    assert browser(_fresh(manager)).get("/staff/manager/").status_code == 200


def test_a_superuser_administrator_is_no_cashier_on_the_pages_or_the_api(administrator, browser, api, make_player):
    player = make_player(balance=0)
    assert browser(administrator).get("/staff/cashier/").status_code == 403
    r = api(administrator).post(
        "/api/cashier/deposits/", {"player": player.pk, "amount": "5.00"}, format="json", HTTP_IDEMPOTENCY_KEY="k"
    )
    assert r.status_code == 403 and wallet_balances(user=player).available == 0
    assert browser(administrator).get("/admin/").status_code == 200
