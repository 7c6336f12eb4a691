"""The cashier's desk through the API: deposits, withdrawals, idempotency, roles."""

from __future__ import annotations

import pytest

from casino.access.roles import AUDITOR, MANAGER
from wallets.models import Transaction
from wallets.selectors import wallet_balances


def _post(client, path, body, key="k-1"):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    return client.post(path, body, format="json", **headers)


def test_cashier_deposits_and_withdraws_for_a_player(cashier, make_player, api):
    player = make_player(balance=0)
    r = _post(api(cashier), "/api/cashier/deposits/", {"player": player.pk, "amount": "250.00"}, key="dep-1")
    assert r.status_code == 201 and r.json()["available"] == "250.00"
    r = _post(api(cashier), "/api/cashier/withdrawals/", {"player": player.pk, "amount": "100.50"}, key="wd-1")
    assert r.status_code == 201 and r.json()["available"] == "149.50"
    assert api(player).get("/api/wallet/").json()["available"] == "149.50"


def test_a_deposit_repeated_with_its_key_moves_money_once(cashier, make_player, api):
    player = make_player(balance=0)
    body = {"player": player.pk, "amount": "40.00"}
    first = _post(api(cashier), "/api/cashier/deposits/", body, key="same")
    again = _post(api(cashier), "/api/cashier/deposits/", body, key="same")
    assert first.json()["transaction"] == again.json()["transaction"]
    assert wallet_balances(user=player).available == 4_000
    assert Transaction.objects.filter(kind=Transaction.Kind.DEPOSIT, legs__account__owner=player).count() == 1


@pytest.mark.parametrize(
    "body,status,code",
    [
        ({"player": "x", "amount": "1.00"}, 400, "invalid"),
        ({"amount": "1.00"}, 400, "invalid"),
        ({"player": 1}, 400, "invalid"),
        ({"player": None, "amount": "1.00"}, 400, "invalid"),
        ({"player": 999999, "amount": "1.00"}, 404, "player_not_found"),
        ({"player": "PLAYER", "amount": "-5"}, 400, "amount_invalid"),
        ({"player": "PLAYER", "amount": "0.001"}, 400, "amount_invalid"),
        ({"player": "PLAYER", "amount": "1e20"}, 400, "amount_invalid"),
        ({"player": "PLAYER", "amount": "100000000000.01"}, 400, "amount_too_large"),
        ({"player": "PLAYER", "amount": "0"}, 400, "amount_not_positive"),
        ({"player": "PLAYER", "amount": "ten"}, 400, "amount_invalid"),
    ],
)
def test_bad_deposits_are_refused_and_change_nothing(cashier, make_player, api, body, status, code):
    player = make_player(balance=0)
    body = {k: (player.pk if v == "PLAYER" else v) for k, v in body.items()}
    before = Transaction.objects.count()
    r = _post(api(cashier), "/api/cashier/deposits/", body)
    assert (r.status_code, r.json()["code"]) == (status, code)
    assert Transaction.objects.count() == before


def test_a_deposit_needs_an_idempotency_key(cashier, make_player, api):
    player = make_player(balance=0)
    r = _post(api(cashier), "/api/cashier/deposits/", {"player": player.pk, "amount": "1.00"}, key=None)
    assert (r.status_code, r.json()["code"]) == (400, "idempotency_key_required")


def test_a_withdrawal_above_the_balance_is_refused(cashier, make_player, api):
    player = make_player(balance=1_000)
    r = _post(api(cashier), "/api/cashier/withdrawals/", {"player": player.pk, "amount": "10.01"})
    assert (r.status_code, r.json()["code"]) == (409, "insufficient_funds")
    assert wallet_balances(user=player).available == 1_000


@pytest.mark.parametrize("role", ["player", MANAGER, AUDITOR])
def test_only_cashiers_move_cash(make_user, make_player, api, role):
    player = make_player(balance=0)
    r = _post(api(make_user(role)), "/api/cashier/deposits/", {"player": player.pk, "amount": "1.00"})
    assert (r.status_code, r.json()["code"]) == (403, "forbidden")
    assert wallet_balances(user=player).available == 0


def test_staff_are_not_players_to_deposit_for(cashier, make_user, api):
    manager = make_user(MANAGER)
    r = _post(api(cashier), "/api/cashier/deposits/", {"player": manager.pk, "amount": "1.00"})
    assert (r.status_code, r.json()["code"]) == (404, "player_not_found")
