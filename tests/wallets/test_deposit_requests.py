"""A newcomer's deposit request: asked on the wallet page, funded at the desk.

The request moves nothing; the cashier completes it through the desk's own deposit path
(one ledger transaction, the approval threshold and four eyes included), and the player
reads its status on the wallet page. Bad input changes nothing.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client

from casino.access.roles import CASHIER, MANAGER
from casino.http.errors import Conflict, NotFound, ValidationError
from wallets import responsible, services
from wallets.models import CashRequest, DepositRequest, Transaction
from wallets.selectors import wallet_balances


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _key(page) -> str:
    return re.search(rb'name="key" value="([0-9a-f]{32})"', page.content).group(1).decode()


def _ask(client, amount: str, key: str | None = None):
    key = key or _key(client.get("/wallet/"))
    return client.post("/wallet/deposit/", {"amount": amount, "key": key})


def test_a_newcomer_requests_50_the_cashier_completes_it_and_the_player_sees_it(cashier, make_player):
    player = make_player(balance=0, username="newcomer")
    me = signed_in(player)
    page = me.get("/wallet/")
    assert "Your wallet is empty" in page.content.decode()
    response = _ask(me, "50")
    assert response.status_code == 302
    request = DepositRequest.objects.get(player=player)
    assert (request.amount, request.status) == (5_000, "requested")
    assert wallet_balances(user=player).available == 0  # a request moves nothing

    wallet = me.get("/wallet/").content.decode()
    assert re.search(r"€50\.00</td>\s*<td[^>]*><span class=\"req-status status-requested\">Requested", wallet)

    desk = signed_in(cashier)
    counter = desk.get(f"/staff/cashier/players/{player.pk}/").content.decode()
    assert f'href="/staff/cashier/deposit-requests/{request.pk}/complete/">Complete…</a>' in counter
    queue = desk.get("/staff/cashier/").content.decode()
    assert "Deposit requests from players" in queue and "newcomer" in queue and "€50.00" in queue
    confirm = desk.get(f"/staff/cashier/deposit-requests/{request.pk}/complete/").content.decode()
    assert "€50.00" in confirm and "After the deposit" in confirm and "It is credited at once." in confirm
    assert wallet_balances(user=player).available == 0  # the confirmation page moves nothing
    for _ in range(2):  # a double click completes once
        desk.post(f"/staff/cashier/deposit-requests/{request.pk}/complete/")

    assert wallet_balances(user=player).available == 5_000
    request.refresh_from_db()
    assert request.status == "completed" and request.decided_by == cashier and request.decided_at is not None
    deposit = Transaction.objects.get(kind="deposit", legs__account__owner=player)
    assert request.cash_request.transaction == deposit and deposit.actor == cashier
    wallet = me.get("/wallet/").content.decode()
    assert 'status-completed">Completed' in wallet and "Your wallet is empty" not in wallet
    assert "No player is waiting for a deposit" in desk.get("/staff/cashier/").content.decode()


def test_the_table_says_the_wallet_is_empty_and_bet_is_disabled_until_funded(cashier, make_player, table):
    player = make_player(balance=0)
    me = signed_in(player)
    page = me.get(f"/tables/{table.pk}/").content.decode()
    assert "Your wallet is empty — " in page and 'href="/wallet/#deposit">request a deposit</a>' in page
    assert re.search(
        r'<fieldset class="bet-fieldset" disabled><button type="submit" class="btn btn-bet" id="btn-bet"', page
    )
    services.cashier_deposit(cashier=cashier, player=player, amount=5_000, idempotency_key="fund")
    page = me.get(f"/tables/{table.pk}/").content.decode()
    assert "Your wallet is empty" not in page and "bet-fieldset" not in page


@pytest.mark.parametrize(
    ("amount", "message"),
    [
        ("fifty", "must be an amount such as"),
        ("50,00", "must be an amount such as"),
        ("-5", "must be an amount such as"),
        ("0", "must be more than zero"),
        ("0.00", "must be more than zero"),
        ("1e3", "must be an amount such as"),
        ("99999999999999", "too large"),
        ("", "This field is required"),
    ],
)
def test_a_bad_amount_is_shown_beside_the_field_and_nothing_is_asked(make_player, amount, message):
    player = make_player(balance=0)
    response = _ask(signed_in(player), amount)
    body = response.content.decode()
    assert response.status_code == 200 and "No deposit was requested" in body
    field = re.search(r'<div class="field has-error">.*?</div>', body, re.S).group(0)
    assert 'id="deposit-amount"' in field and message in field and 'aria-invalid="true"' in field
    assert not DepositRequest.objects.exists()


def test_a_request_above_the_deposit_limit_is_refused_with_the_open_requests_counted(make_player):
    player = make_player(balance=0)
    responsible.limit_set(player=player, kind="deposit", period="day", amount=10_000)
    me = signed_in(player)
    assert _ask(me, "60").status_code == 302
    refused = _ask(me, "50")  # 60 open + 50 would pass the 100 a day
    assert "This would pass your deposit limit of €100.00 per day" in refused.content.decode()
    assert list(DepositRequest.objects.values_list("amount", flat=True)) == [6_000]


def test_a_self_excluded_player_cannot_request_a_deposit(make_player):
    player = make_player(balance=0)
    responsible.self_exclude(player=player, months=6)
    refused = _ask(signed_in(player), "50")
    assert "excluded yourself from play" in refused.content.decode()
    assert not DepositRequest.objects.exists()


def test_a_double_submit_asks_once_and_the_key_cannot_change_amount(make_player):
    player = make_player(balance=0)
    me = signed_in(player)
    key = _key(me.get("/wallet/"))
    _ask(me, "50", key)
    _ask(me, "50", key)
    assert DepositRequest.objects.count() == 1
    with pytest.raises(Conflict) as error:
        services.deposit_request_create(player=player, amount=9_000, idempotency_key=key)
    assert error.value.code == "idempotency_key_reused"
    assert DepositRequest.objects.get().amount == 5_000


def test_another_players_request_cannot_be_cancelled(make_player):
    alice, bob = make_player(balance=0), make_player(balance=0)
    theirs = services.deposit_request_create(player=alice, amount=5_000, idempotency_key="a")
    response = signed_in(bob).post(f"/wallet/deposit/{theirs.pk}/cancel/", follow=True)
    assert "Nothing was cancelled: You have no such deposit request." in response.content.decode()
    theirs.refresh_from_db()
    assert theirs.status == "requested"
    with pytest.raises(NotFound):
        services.deposit_request_cancel(player=bob, request_id=theirs.pk)
    signed_in(alice).post(f"/wallet/deposit/{theirs.pk}/cancel/")
    theirs.refresh_from_db()
    assert theirs.status == "cancelled"
    with pytest.raises(Conflict):
        services.deposit_request_complete(request_id=theirs.pk, completed_by=alice)


def test_a_player_cannot_complete_a_request_and_a_rejection_shows_its_reason(cashier, make_player):
    player = make_player(balance=0)
    request = services.deposit_request_create(player=player, amount=5_000, idempotency_key="k")
    assert signed_in(player).post(f"/staff/cashier/deposit-requests/{request.pk}/complete/").status_code == 403
    desk = signed_in(cashier)
    empty = desk.post(f"/staff/cashier/deposit-requests/{request.pk}/reject/", {"reason": ""})
    assert empty.status_code == 400 and "This field is required" in empty.content.decode()
    desk.post(f"/staff/cashier/deposit-requests/{request.pk}/reject/", {"reason": "No payment arrived"})
    request.refresh_from_db()
    assert request.status == "rejected" and wallet_balances(user=player).available == 0
    wallet = signed_in(player).get("/wallet/").content.decode()
    assert 'status-rejected">Rejected' in wallet and "No payment arrived" in wallet


def test_above_the_threshold_a_second_staff_member_approves_and_then_it_is_completed(
    settings, cashier, make_user, make_player
):
    settings.CASHIER_APPROVAL_THRESHOLD = 10_000
    manager = make_user(MANAGER)
    player = make_player(balance=0)
    request = services.deposit_request_create(player=player, amount=20_000, idempotency_key="big")
    confirm = signed_in(cashier).get(f"/staff/cashier/deposit-requests/{request.pk}/complete/").content.decode()
    assert "it will wait for a second staff member&#x27;s approval" in confirm
    signed_in(cashier).post(f"/staff/cashier/deposit-requests/{request.pk}/complete/")
    request.refresh_from_db()
    assert request.status == "requested" and request.cash_request.status == "pending"
    assert wallet_balances(user=player).available == 0
    assert "waiting for a second approval" in signed_in(player).get("/wallet/").content.decode()
    with pytest.raises(Conflict):  # the player cannot pull it back once the desk took it
        services.deposit_request_cancel(player=player, request_id=request.pk)
    with pytest.raises(Conflict):  # nor another cashier complete it a second time
        services.deposit_request_complete(request_id=request.pk, completed_by=make_user(CASHIER))

    signed_in(manager).post(f"/staff/cashier/requests/{request.cash_request.pk}/decide/", {"decision": "approve"})
    request.refresh_from_db()
    assert request.status == "completed" and request.decided_by == manager
    assert wallet_balances(user=player).available == 20_000


def test_a_rejected_waiting_deposit_rejects_the_players_request(settings, cashier, make_user, make_player):
    settings.CASHIER_APPROVAL_THRESHOLD = 10_000
    player = make_player(balance=0)
    request = services.deposit_request_create(player=player, amount=20_000, idempotency_key="big")
    request = services.deposit_request_complete(request_id=request.pk, completed_by=cashier)
    other = make_user(CASHIER)
    services.cash_request_reject(approver=other, request_id=request.cash_request_id, reason="Card declined")
    request.refresh_from_db()
    assert (request.status, request.reason) == ("rejected", "Card declined")
    assert CashRequest.objects.get().status == "rejected" and wallet_balances(user=player).available == 0


def test_the_service_refuses_what_the_form_would_and_limits_open_requests(make_player):
    player = make_player(balance=0)
    for bad in (0, -1, 10**14, "50"):
        with pytest.raises(ValidationError):
            services.deposit_request_create(player=player, amount=bad, idempotency_key=f"bad-{bad}")
    for n in range(services.MAX_OPEN_DEPOSIT_REQUESTS):
        services.deposit_request_create(player=player, amount=1_000, idempotency_key=f"k{n}")
    with pytest.raises(Conflict) as error:
        services.deposit_request_create(player=player, amount=1_000, idempotency_key="one-more")
    assert error.value.code == "deposit_requests_open"
    assert DepositRequest.objects.count() == services.MAX_OPEN_DEPOSIT_REQUESTS


@pytest.mark.django_db(transaction=True)
def test_on_postgres_the_completion_balances_and_commits(cashier, make_player):
    from tests.conftest import require_postgres

    require_postgres()
    player = make_player(balance=0)
    request = services.deposit_request_create(player=player, amount=5_000, idempotency_key="pg")
    services.deposit_request_complete(request_id=request.pk, completed_by=cashier, reference="psp-123")
    request.refresh_from_db()
    assert request.status == "completed" and request.reference == "psp-123"
    assert wallet_balances(user=player).available == 5_000


@pytest.mark.django_db(transaction=True)
def test_on_postgres_two_cashiers_completing_at_once_move_the_money_once(cashier, make_user, make_player):
    from tests.conftest import require_postgres, run_together

    require_postgres()
    other = make_user(CASHIER)
    player = make_player(balance=0)
    request = services.deposit_request_create(player=player, amount=5_000, idempotency_key="race")
    results, errors = run_together(
        lambda: services.deposit_request_complete(request_id=request.pk, completed_by=cashier),
        lambda: services.deposit_request_complete(request_id=request.pk, completed_by=other),
    )
    assert errors == [None, None]  # the second one finds it completed and returns it
    assert {r.status for r in results} == {"completed"}
    assert wallet_balances(user=player).available == 5_000
    assert Transaction.objects.filter(kind="deposit", legs__account__owner=player).count() == 1
    assert CashRequest.objects.filter(player=player).count() == 1


@pytest.mark.django_db(transaction=True)
def test_on_postgres_open_requests_racing_past_a_limit_are_refused(make_player):
    from tests.conftest import require_postgres, run_together

    require_postgres()
    player = make_player(balance=0)
    responsible.limit_set(player=player, kind="deposit", period="day", amount=10_000)
    results, errors = run_together(
        *[
            lambda n=n: services.deposit_request_create(player=player, amount=6_000, idempotency_key=f"tab-{n}")
            for n in range(2)
        ]
    )
    assert sorted(type(e).__name__ for e in errors if e) == ["Conflict"]  # the player's lock orders them
    assert DepositRequest.objects.filter(player=player).count() == 1
