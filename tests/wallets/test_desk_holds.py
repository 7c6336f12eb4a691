"""A desk movement that waits for a second staff member and takes money out of the wallet
(a withdrawal, the reversal of a deposit) holds that money while it waits: the player
cannot play it away, the approval always pays it, a rejection gives it back."""

from __future__ import annotations

import pytest

from casino.http.errors import InsufficientFunds
from tables.services.hands import hand_bet
from tables.services.seats import table_sit
from tests.wallets.test_cashier_desk import _post
from wallets.integrity import ledger_verify
from wallets.models import Account, CashRequest, Transaction
from wallets.selectors import cash_report, desk_held, wallet_balances
from wallets.services import cash_request_create, cashier_deposit


def _withdraw(api, cashier, player, amount: str, key: str = "w"):
    return _post(api(cashier), "/api/cashier/withdrawals/", {"player": player.pk, "amount": amount}, key=key)


def _wallet_kinds(player) -> list[str]:
    wallet = Account.objects.get(owner=player, kind=Account.Kind.PLAYER_WALLET)
    return list(Transaction.objects.filter(legs__account=wallet).order_by("id").values_list("kind", flat=True))


def test_a_waiting_withdrawal_takes_its_amount_out_of_play_at_once(cashier, make_player, api, table, browser):
    player = make_player(balance=201_000)
    r = _withdraw(api, cashier, player, "2000.00")
    assert r.status_code == 202 and r.json()["status"] == "pending"
    assert wallet_balances(user=player).available == 1_000
    assert desk_held(user=player) == 200_000

    # The player plays with what is left, and no more.
    table_sit(user=player, table_id=table.pk)
    table_sit(user=make_player(), table_id=table.pk)
    with pytest.raises(InsufficientFunds):
        hand_bet(user=player, table_id=table.pk, ante=1_000, jackpot=False)  # 10.00 + the 20.00 raise held
    hand_bet(user=player, table_id=table.pk, ante=300, jackpot=False)

    # What the player reads: the hold beside the wallet, still theirs in the total.
    body = api(player).get("/api/wallet/").json()
    shown = (body["available"], body["in_play"], body["desk_held"], body["total"])
    assert shown == ("1.00", "9.00", "2000.00", "10.00")
    page = browser(player).get("/wallet/").content.decode()
    assert 'id="wallet-desk-held">€2,000.00<' in page
    assert 'id="wallet-total">€2,010.00<' in page
    german = browser(player).get("/wallet/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "<dt>Auszahlung wartet auf Freigabe</dt>" in german


def test_the_approval_pays_the_held_money_and_the_ledger_tells_each_step(
    cashier, second_cashier, make_player, api, browser
):
    player = make_player(balance=250_000)
    request = _withdraw(api, cashier, player, "2000.00").json()["request"]
    confirm = browser(second_cashier).get(f"/staff/cashier/requests/{request}/approve/").content.decode()
    assert "<dt>Held for approval</dt><dd>€2,000.00</dd>" in confirm
    assert "<dt>After approval</dt><dd>€500.00</dd>" in confirm  # the wallet does not move again

    ok = _post(api(second_cashier), f"/api/cashier/requests/{request}/approve/", key="a")
    assert ok.status_code == 200 and ok.json()["status"] == "executed"
    assert wallet_balances(user=player).available == 50_000 and desk_held(user=player) == 0
    assert _wallet_kinds(player)[-3:] == ["desk_hold", "desk_release", "withdrawal"]
    report = {r.cashier: r for r in cash_report(day=Transaction.objects.last().created_at.date())}["cashier"]
    assert report.withdrawals == 200_000  # the drawer paid it once
    assert ledger_verify().ok


def test_a_rejection_gives_the_held_money_back(cashier, second_cashier, make_player, api):
    player = make_player(balance=250_000)
    request = _withdraw(api, cashier, player, "2000.00").json()["request"]
    no = _post(api(second_cashier), f"/api/cashier/requests/{request}/reject/", {"reason": "ID missing"}, key="n")
    assert no.status_code == 200 and no.json()["status"] == "rejected"
    assert wallet_balances(user=player).available == 250_000 and desk_held(user=player) == 0
    assert _wallet_kinds(player)[-2:] == ["desk_hold", "desk_release"]
    again = _post(api(second_cashier), f"/api/cashier/requests/{request}/approve/", key="a")
    assert (again.status_code, again.json()["code"]) == (409, "cash_request_decided")
    assert wallet_balances(user=player).available == 250_000


def test_a_waiting_reversal_of_a_deposit_holds_the_deposit(settings, cashier, second_cashier, make_player, api):
    settings.CASHIER_APPROVAL_THRESHOLD = 5_000
    player = make_player(balance=0)
    deposit = cashier_deposit(cashier=cashier, player=player, amount=8_000, idempotency_key="d")
    undo = _post(api(cashier), "/api/cashier/reversals/", {"transaction": deposit.pk, "reason": "twice"}, key="r")
    assert undo.status_code == 202
    assert (wallet_balances(user=player).available, desk_held(user=player)) == (0, 8_000)
    ok = _post(api(second_cashier), f"/api/cashier/requests/{undo.json()['request']}/approve/", key="a")
    assert ok.json()["status"] == "executed"
    assert (wallet_balances(user=player).available, desk_held(user=player)) == (0, 0)
    assert Transaction.objects.get(reverses=deposit).kind == "reversal"
    assert ledger_verify().ok


def test_a_deposit_waiting_for_approval_holds_nothing(cashier, make_player, api):
    player = make_player(balance=10_000)
    r = _post(api(cashier), "/api/cashier/deposits/", {"player": player.pk, "amount": "5000.00"}, key="big")
    assert r.status_code == 202 and r.json()["hold"] is None
    assert (wallet_balances(user=player).available, desk_held(user=player)) == (10_000, 0)


def test_the_same_request_sent_twice_holds_once(cashier, make_player, api):
    player = make_player(balance=250_000)
    first = _withdraw(api, cashier, player, "2000.00")
    second = _withdraw(api, cashier, player, "2000.00")
    assert first.json()["request"] == second.json()["request"]
    assert (wallet_balances(user=player).available, desk_held(user=player)) == (50_000, 200_000)
    assert Transaction.objects.filter(kind="desk_hold").count() == 1


def test_a_withdrawal_waiting_from_before_holds_still_counts_and_is_paid(cashier, second_cashier, make_player, api):
    """A request that waited when holds came holds nothing: it counts against the balance
    and approval pays it from the wallet, as then."""
    player = make_player(balance=300_000)
    old = CashRequest.objects.create(
        kind="withdrawal", player=player, amount=200_000, requested_by=cashier, idempotency_key="old"
    )
    refused = _withdraw(api, cashier, player, "1500.00", key="new")
    assert (refused.status_code, refused.json()["code"]) == (409, "insufficient_funds")
    assert refused.json()["extra"] == {"available": "1000.00", "pending": "2000.00", "needed": "1500.00"}
    ok = _post(api(second_cashier), f"/api/cashier/requests/{old.pk}/approve/", key="a")
    assert ok.json()["status"] == "executed" and wallet_balances(user=player).available == 100_000
    assert _wallet_kinds(player)[-1] == "withdrawal"


def test_the_database_refuses_a_hold_account_below_zero(make_player):
    from django.db import IntegrityError, transaction

    player = make_player(balance=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.create(
            code=f"desk_held:{player.pk}", kind=Account.Kind.DESK_HELD, name="h", owner=player, balance=-1
        )


@pytest.mark.django_db(transaction=True)
def test_an_approval_and_a_rejection_at_the_same_moment_release_the_hold_once(
    cashier, second_cashier, make_user, make_player
):
    from casino.access.roles import MANAGER
    from tests.conftest import require_postgres, run_together
    from wallets.services import cash_request_approve, cash_request_reject

    require_postgres()
    manager = make_user(MANAGER)
    player = make_player(balance=250_000)
    request = cash_request_create(
        cashier=cashier, player=player, kind="withdrawal", amount=200_000, idempotency_key="w"
    )
    assert request.status == "pending"
    results, errors = run_together(
        lambda: cash_request_approve(approver=second_cashier, request_id=request.pk).status,
        lambda: cash_request_reject(approver=manager, request_id=request.pk, reason="no ID").status,
    )
    decided = [r for r in results if r is not None]
    assert len(decided) == 1 and [type(e).__name__ for e in errors if e] == ["Conflict"]
    assert Transaction.objects.filter(kind="desk_release").count() == 1
    available = 50_000 if decided == ["executed"] else 250_000
    assert (wallet_balances(user=player).available, desk_held(user=player)) == (available, 0)
    assert ledger_verify().ok


@pytest.mark.django_db(transaction=True)
def test_a_bet_and_a_waiting_withdrawal_at_the_same_moment_never_spend_the_money_twice(cashier, make_player, table):
    from tests.conftest import require_postgres, run_together

    require_postgres()
    player = make_player(balance=200_500)  # €2,005: the withdrawal of €2,000 or a €3 ante (€9 with its raise)
    table_sit(user=player, table_id=table.pk)
    table_sit(user=make_player(), table_id=table.pk)
    results, errors = run_together(
        lambda: (
            cash_request_create(
                cashier=cashier, player=player, kind="withdrawal", amount=200_000, idempotency_key="w"
            ).status
        ),
        lambda: hand_bet(user=player, table_id=table.pk, ante=300, jackpot=False) and "bet",
    )
    refused = [type(e).__name__ for e in errors if e]
    assert refused == ["InsufficientFunds"], (results, errors)  # whichever came second
    balances = wallet_balances(user=player)
    assert balances.available >= 0 and balances.available + balances.in_play + desk_held(user=player) == 200_500
    assert ledger_verify().ok
