"""The cashier's desk: the four-eyes threshold, reversals, the daily cash report."""

from __future__ import annotations

from datetime import date

import pytest

from casino.access.roles import AUDITOR, MANAGER
from casino.http.errors import InsufficientFunds
from wallets.models import Transaction
from wallets.selectors import cash_report, wallet_balances
from wallets.services import cashier_withdraw


def _post(client, path, body=None, key="k-1"):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    return client.post(path, body or {}, format="json", **headers)


def test_a_deposit_above_the_threshold_waits_for_a_second_staff_member(cashier, second_cashier, make_player, api):
    player = make_player(balance=0)
    r = _post(api(cashier), "/api/cashier/deposits/", {"player": player.pk, "amount": "1000.01"}, key="big")
    assert r.status_code == 202 and r.json()["status"] == "pending"
    assert wallet_balances(user=player).available == 0
    request_id = r.json()["request"]
    own = _post(api(cashier), f"/api/cashier/requests/{request_id}/approve/", key="a1")
    assert (own.status_code, own.json()["code"]) == (403, "four_eyes")
    ok = _post(api(second_cashier), f"/api/cashier/requests/{request_id}/approve/", key="a2")
    assert ok.status_code == 200 and ok.json()["status"] == "executed" and ok.json()["decided_by"] == "second-cashier"
    assert wallet_balances(user=player).available == 100_001
    again = _post(api(second_cashier), f"/api/cashier/requests/{request_id}/approve/", key="a3")
    assert (again.status_code, again.json()["code"]) == (409, "cash_request_decided")
    assert wallet_balances(user=player).available == 100_001


def test_up_to_the_threshold_money_moves_at_once(cashier, make_player, api):
    player = make_player(balance=0)
    r = _post(api(cashier), "/api/cashier/deposits/", {"player": player.pk, "amount": "1000.00"})
    assert r.status_code == 201 and r.json()["status"] == "executed"
    assert wallet_balances(user=player).available == 100_000


def test_a_manager_may_approve_and_a_rejected_request_moves_nothing(cashier, make_user, make_player, api):
    manager = make_user(MANAGER)
    player = make_player(balance=500_000)
    r = _post(api(cashier), "/api/cashier/withdrawals/", {"player": player.pk, "amount": "2000.00"}, key="w")
    rejected = _post(api(manager), f"/api/cashier/requests/{r.json()['request']}/reject/", {"reason": "ID missing"})
    assert rejected.json()["status"] == "rejected" and rejected.json()["reason"] == "ID missing"
    assert wallet_balances(user=player).available == 500_000
    r = _post(api(cashier), "/api/cashier/withdrawals/", {"player": player.pk, "amount": "2000.00"}, key="w2")
    approved = _post(api(manager), f"/api/cashier/requests/{r.json()['request']}/approve/", key="ok")
    assert approved.json()["status"] == "executed"
    assert wallet_balances(user=player).available == 300_000


def test_a_waiting_withdrawal_holds_its_money_so_the_approval_always_pays(cashier, second_cashier, make_player, api):
    player = make_player(balance=150_000)
    r = _post(api(cashier), "/api/cashier/withdrawals/", {"player": player.pk, "amount": "1500.00"}, key="w")
    assert r.status_code == 202 and r.json()["hold"] is not None
    # Meanwhile nothing else can take the money out of the wallet: it is held.
    with pytest.raises(InsufficientFunds):
        cashier_withdraw(cashier=cashier, player=player, amount=60_000, idempotency_key="elsewhere")
    ok = _post(api(second_cashier), f"/api/cashier/requests/{r.json()['request']}/approve/", key="a")
    assert ok.status_code == 200 and ok.json()["status"] == "executed"
    assert wallet_balances(user=player).available == 0


def test_pending_requests_are_listed_for_approvers_only(cashier, make_user, make_player, api):
    player = make_player(balance=0)
    _post(api(cashier), "/api/cashier/deposits/", {"player": player.pk, "amount": "5000.00"}, key="big")
    listed = api(make_user(MANAGER)).get("/api/cashier/requests/").json()["requests"]
    assert [(r["player"], r["amount"], r["status"]) for r in listed] == [(player.pk, "5000.00", "pending")]
    assert api(make_user(AUDITOR)).get("/api/cashier/requests/").status_code == 403
    assert api(player).get("/api/cashier/requests/").status_code == 403


def test_a_cashiers_mistake_is_undone_by_a_reversing_transaction(cashier, make_player, api):
    player = make_player(balance=0)
    r = _post(api(cashier), "/api/cashier/deposits/", {"player": player.pk, "amount": "50.00"}, key="typo")
    txn = r.json()["transaction"]
    undo = _post(api(cashier), "/api/cashier/reversals/", {"transaction": txn, "reason": "typed 50 for 5"}, key="undo")
    assert undo.status_code == 201 and undo.json()["reverses"] == txn
    assert wallet_balances(user=player).available == 0
    assert Transaction.objects.filter(pk=txn).exists()  # the original stays
    twice = _post(api(cashier), "/api/cashier/reversals/", {"transaction": txn, "reason": "again"}, key="undo2")
    assert (twice.status_code, twice.json()["code"]) == (409, "already_reversed")


def test_only_desk_movements_can_be_reversed_at_the_desk(cashier, table, make_player, api):
    from tables.services.hands import hand_bet
    from tables.services.seats import table_sit

    player = make_player(balance=10_000)
    table_sit(user=player, table_id=table.pk)
    table_sit(user=make_player(), table_id=table.pk)
    hand_bet(user=player, table_id=table.pk, ante=100, jackpot=False)
    bet = Transaction.objects.get(kind="bet")
    r = _post(api(cashier), "/api/cashier/reversals/", {"transaction": bet.pk, "reason": "no"}, key="x")
    assert (r.status_code, r.json()["code"]) == (409, "not_reversible")


def test_the_daily_cash_report_balances(cashier, make_player, api):
    player = make_player(balance=0)
    _post(api(cashier), "/api/cashier/deposits/", {"player": player.pk, "amount": "300.00"}, key="d1")
    _post(api(cashier), "/api/cashier/withdrawals/", {"player": player.pk, "amount": "120.00"}, key="w1")
    report = {r.cashier: r for r in cash_report(day=date.today())}["cashier"]
    # the player fixture's own deposit of 0 adds nothing; make_player(balance=0) deposits nothing
    assert (report.opening, report.deposits, report.withdrawals, report.closing) == (0, 30_000, 12_000, 18_000)
    body = api(cashier).get(f"/api/cashier/report/?date={date.today().isoformat()}").json()
    assert {
        "cashier": "cashier",
        "opening": "0.00",
        "deposits": "300.00",
        "withdrawals": "120.00",
        "reversals": "0.00",
        "closing": "180.00",
    } in body["drawers"]
    bad = api(cashier).get("/api/cashier/report/?date=yesterday")
    assert (bad.status_code, bad.json()["code"]) == (400, "date_invalid")


def test_find_a_player_by_name_or_id(cashier, make_player, api):
    player = make_player(balance=2_500, username="maria")
    make_player(username="marco")
    found = api(cashier).get("/api/cashier/players/?q=mari").json()["players"]
    assert [(p["username"], p["available"]) for p in found] == [("maria", "25.00")]
    assert api(cashier).get(f"/api/cashier/players/?q={player.pk}").json()["players"][0]["username"] == "maria"
    assert api(cashier).get("/api/cashier/players/?q=").json()["players"] == []
