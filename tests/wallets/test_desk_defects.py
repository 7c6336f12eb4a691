"""The money desk's rules: withdrawals above the balance refused, the four-eyes rule for
reversals, and the threshold as a daily aggregate per player."""

from __future__ import annotations

import pytest
from django.test import Client

from casino.access.roles import CASHIER, MANAGER
from wallets.models import CashRequest, Transaction
from wallets.selectors import wallet_balances
from wallets.services import desk_total_today

THRESHOLD = "1000.00"  # CASHIER_APPROVAL_THRESHOLD's default, 100_000 cents


@pytest.fixture(autouse=True)
def _threshold(settings):
    settings.CASHIER_APPROVAL_THRESHOLD = 100_000


def _post(client, path, body=None, key="k-1"):
    return client.post(path, body or {}, format="json", HTTP_IDEMPOTENCY_KEY=key)


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- 1. a withdrawal above the balance is refused at once -------------------------------


def test_a_big_withdrawal_above_the_balance_is_refused_at_once_and_nothing_is_queued(cashier, make_player, api):
    player = make_player(balance=150_000)
    r = _post(api(cashier), "/api/cashier/withdrawals/", {"player": player.pk, "amount": "2500.00"}, key="w")
    assert (r.status_code, r.json()["code"]) == (409, "insufficient_funds")
    assert r.json()["extra"]["available"] == "1500.00"
    assert not CashRequest.objects.exists()
    assert wallet_balances(user=player).available == 150_000


def test_withdrawals_already_waiting_count_against_the_balance(cashier, make_player, api):
    player = make_player(balance=300_000)
    first = _post(api(cashier), "/api/cashier/withdrawals/", {"player": player.pk, "amount": "2000.00"}, key="w1")
    assert first.status_code == 202
    second = _post(api(cashier), "/api/cashier/withdrawals/", {"player": player.pk, "amount": "2000.00"}, key="w2")
    assert (second.status_code, second.json()["code"]) == (409, "insufficient_funds")
    assert second.json()["extra"]["pending"] == "2000.00"
    assert CashRequest.objects.count() == 1


def test_the_desk_form_refuses_a_withdrawal_above_the_balance_beside_the_form(cashier, make_player):
    player = make_player(balance=150_000)
    r = signed_in(cashier).post(
        f"/staff/cashier/players/{player.pk}/move/", {"kind": "withdrawal", "amount": "2500", "key": "w"}, follow=True
    )
    assert r.status_code == 200 and not CashRequest.objects.exists()
    assert "does not cover" in str(r.context["withdrawal_form"].non_field_errors())


def test_an_approver_sees_the_players_balance_beside_every_pending_request(cashier, make_user, make_player, api):
    manager = make_user(MANAGER)
    player = make_player(balance=312_345, username="balance-shown")
    _post(api(cashier), "/api/cashier/withdrawals/", {"player": player.pk, "amount": "2000.00"}, key="w")
    listed = api(manager).get("/api/cashier/requests/").json()["requests"]
    # The waiting withdrawal holds its amount: what is left to play beside it.
    assert [(r["amount"], r["available"]) for r in listed] == [("2000.00", "1123.45")]
    assert listed[0]["hold"] == Transaction.objects.get(kind="desk_hold").pk
    page = signed_in(manager).get("/staff/cashier/")
    row = next(r for r in page.context["pending"] if r["player"] == player)
    assert row["available"] == 112_345  # cents: the template formats them
    assert "€1,123.45" in page.content.decode()


def test_the_player_s_page_shows_the_movements_waiting_for_a_second_staff_member(cashier, make_user, make_player, api):
    player = make_player(balance=300_000)
    _post(api(cashier), "/api/cashier/withdrawals/", {"player": player.pk, "amount": "2000.00"}, key="w")
    waiting = CashRequest.objects.get()
    page = f"/staff/cashier/players/{player.pk}/"

    own = signed_in(cashier).get(page).content.decode()
    assert f"#{waiting.pk} Withdrawal €2,000.00 · asked by cashier" in own
    assert "another staff member decides" in own and f"/staff/cashier/requests/{waiting.pk}/approve/" not in own
    assert "€3,000.00" in own  # the available balance: nothing has moved yet

    other = signed_in(make_user(CASHIER, "cashier2")).get(page).content.decode()
    assert f'<a href="/staff/cashier/requests/{waiting.pk}/approve/">Approve…</a>' in other
    german = signed_in(cashier).get(page, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Wartet auf eine zweite Person" in german and "eine andere Person entscheidet" in german

    waiting.status = CashRequest.Status.REJECTED
    waiting.save(update_fields=["status"])
    assert 'id="player-waiting"' not in signed_in(cashier).get(page).content.decode()


# --- 4. four eyes on reversals --------------------------------------------------------------


def _approved_withdrawal(cashier, second_cashier, player, api) -> int:
    r = _post(api(cashier), "/api/cashier/withdrawals/", {"player": player.pk, "amount": "2500.00"}, key="w-big")
    ok = _post(api(second_cashier), f"/api/cashier/requests/{r.json()['request']}/approve/", key="ok")
    assert ok.json()["status"] == "executed"
    return ok.json()["transaction"]


def test_a_reversal_above_the_threshold_waits_for_a_second_staff_member(cashier, second_cashier, make_player, api):
    player = make_player(balance=300_000)
    withdrawal = _approved_withdrawal(cashier, second_cashier, player, api)
    assert wallet_balances(user=player).available == 50_000
    undo = _post(
        api(cashier), "/api/cashier/reversals/", {"transaction": withdrawal, "reason": "never paid out"}, key="u"
    )
    assert undo.status_code == 202
    body = undo.json()
    assert (body["status"], body["kind"], body["reverses"], body["amount"]) == (
        "pending",
        "reversal",
        withdrawal,
        "2500.00",
    )
    assert wallet_balances(user=player).available == 50_000
    assert not Transaction.objects.filter(kind=Transaction.Kind.REVERSAL).exists()
    own = _post(api(cashier), f"/api/cashier/requests/{body['request']}/approve/", key="self")
    assert (own.status_code, own.json()["code"]) == (403, "four_eyes")
    again = _post(api(cashier), "/api/cashier/reversals/", {"transaction": withdrawal, "reason": "again"}, key="u2")
    assert (again.status_code, again.json()["code"]) == (409, "reversal_pending")
    ok = _post(api(second_cashier), f"/api/cashier/requests/{body['request']}/approve/", key="ok2")
    assert ok.status_code == 200 and ok.json()["status"] == "executed"
    assert wallet_balances(user=player).available == 300_000
    reversal = Transaction.objects.get(kind=Transaction.Kind.REVERSAL)
    assert reversal.reverses_id == withdrawal and reversal.actor == cashier


def test_a_reversal_is_refused_at_once_when_the_wallet_no_longer_holds_the_deposit(
    cashier, second_cashier, make_player, api
):
    player = make_player(balance=0)
    r = _post(api(cashier), "/api/cashier/deposits/", {"player": player.pk, "amount": "2000.00"}, key="d")
    _post(api(second_cashier), f"/api/cashier/requests/{r.json()['request']}/approve/", key="ok")
    deposit = CashRequest.objects.get().transaction_id
    from wallets.services import cashier_withdraw

    cashier_withdraw(cashier=cashier, player=player, amount=150_000, idempotency_key="spent")
    undo = _post(api(cashier), "/api/cashier/reversals/", {"transaction": deposit, "reason": "wrong player"}, key="u")
    assert (undo.status_code, undo.json()["code"]) == (409, "insufficient_funds")
    assert CashRequest.objects.count() == 1


def test_a_reversal_from_the_page_above_the_threshold_waits_too(cashier, second_cashier, make_player, api):
    player = make_player(balance=300_000)
    withdrawal = _approved_withdrawal(cashier, second_cashier, player, api)
    desk = signed_in(cashier)
    r = desk.post(
        f"/staff/cashier/players/{player.pk}/reverse/",
        {"transaction": withdrawal, "reason": "never paid out", "key": "r"},
        follow=True,
    )
    assert "waits for a second staff member" in r.content.decode()
    assert wallet_balances(user=player).available == 50_000
    page = desk.get(f"/staff/cashier/players/{player.pk}/").content.decode()
    assert "Reversal waiting for approval" in page


# --- 5. the threshold is a daily aggregate per player -------------------------------------


def test_five_deposits_of_the_threshold_do_not_all_execute(cashier, second_cashier, make_player, api):
    player = make_player(balance=0)
    statuses = [
        _post(api(cashier), "/api/cashier/deposits/", {"player": player.pk, "amount": THRESHOLD}, key=f"d{i}").json()[
            "status"
        ]
        for i in range(5)
    ]
    assert statuses == ["executed", "pending", "pending", "pending", "pending"]
    assert wallet_balances(user=player).available == 100_000
    assert desk_total_today(player=player) == 500_000


def test_small_pieces_add_up_to_the_threshold(cashier, make_player, api):
    player = make_player(balance=0)
    codes = [
        _post(
            api(cashier), "/api/cashier/deposits/", {"player": player.pk, "amount": "300.00"}, key=f"d{i}"
        ).status_code
        for i in range(4)
    ]
    assert codes == [201, 201, 201, 202]  # 900 moved; the fourth would make 1200
    assert wallet_balances(user=player).available == 90_000


def test_two_cashiers_and_both_kinds_share_the_players_daily_total(cashier, second_cashier, make_player, api):
    player = make_player(balance=0)
    assert (
        _post(api(cashier), "/api/cashier/deposits/", {"player": player.pk, "amount": "600.00"}, key="a").status_code
        == 201
    )
    assert (
        _post(
            api(second_cashier), "/api/cashier/withdrawals/", {"player": player.pk, "amount": "300.00"}, key="b"
        ).status_code
        == 201
    )
    late = _post(api(second_cashier), "/api/cashier/deposits/", {"player": player.pk, "amount": "200.00"}, key="c")
    assert late.status_code == 202  # 600 + 300 + 200 > 1000
    other = make_player(balance=0)
    assert (
        _post(api(cashier), "/api/cashier/deposits/", {"player": other.pk, "amount": "1000.00"}, key="o").status_code
        == 201
    )


def test_a_rejected_request_does_not_count_and_yesterday_does_not_count(cashier, second_cashier, make_player, api):
    player = make_player(balance=0)
    big = _post(api(cashier), "/api/cashier/deposits/", {"player": player.pk, "amount": "5000.00"}, key="big")
    _post(api(second_cashier), f"/api/cashier/requests/{big.json()['request']}/reject/", {"reason": "no ID"}, key="no")
    assert (
        _post(api(cashier), "/api/cashier/deposits/", {"player": player.pk, "amount": "1000.00"}, key="ok").status_code
        == 201
    )
    CashRequest.objects.update(requested_at="2000-01-01T12:00:00Z")
    assert desk_total_today(player=player) == 0
    assert (
        _post(api(cashier), "/api/cashier/deposits/", {"player": player.pk, "amount": "1000.00"}, key="ok2").status_code
        == 201
    )


@pytest.mark.parametrize("query", ["\u00b2", "\u0665", "ab\x00c", "9" * 40])
def test_the_desk_search_answers_odd_text_without_an_error(cashier, make_player, query):
    make_player(balance=0, username="maria")
    page = signed_in(cashier).get("/staff/cashier/", {"q": query})
    assert page.status_code == 200 and "maria" not in page.content.decode()


@pytest.mark.django_db(transaction=True)
def test_two_desks_at_the_same_moment_cannot_both_stay_under_the_threshold(cashier, second_cashier, make_player):
    from tests.conftest import require_postgres, run_together
    from wallets.services import cash_request_create

    require_postgres()
    player = make_player(balance=0)

    def deposit(who, key):
        return lambda: (
            cash_request_create(cashier=who, player=player, kind="deposit", amount=60_000, idempotency_key=key).status
        )

    results, errors = run_together(deposit(cashier, "a"), deposit(second_cashier, "b"))
    assert errors == [None, None]
    assert sorted(results) == ["executed", "pending"]
    assert wallet_balances(user=player).available == 60_000


def test_a_tampered_kind_or_transaction_is_an_error_on_the_page_and_moves_nothing(cashier, make_player):
    player = make_player(balance=10_000)
    desk = signed_in(cashier)
    r = desk.post(f"/staff/cashier/players/{player.pk}/move/", {"kind": "gift", "amount": "5", "key": "x"})
    assert r.status_code == 200 and "Kind: Select a valid choice" in r.content.decode()
    r = desk.post(f"/staff/cashier/players/{player.pk}/reverse/", {"transaction": "\u00b2", "reason": "x", "key": "y"})
    assert r.status_code == 200 and "Nothing was reversed" in r.content.decode()
    assert not CashRequest.objects.exists() and wallet_balances(user=player).available == 10_000


def test_a_cashier_who_decides_their_own_request_is_told_why_nothing_happened(cashier, make_player, api):
    player = make_player(balance=300_000)
    _post(api(cashier), "/api/cashier/withdrawals/", {"player": player.pk, "amount": "2000.00"}, key="w")
    waiting = CashRequest.objects.get()
    page = (
        signed_in(cashier)
        .post(f"/staff/cashier/requests/{waiting.pk}/decide/", {"decision": "approve"}, follow=True)
        .content.decode()
    )
    assert f"Request #{waiting.pk} was not decided: A second staff member must approve" in page
    waiting.refresh_from_db()
    assert waiting.status == CashRequest.Status.PENDING and wallet_balances(user=player).available == 100_000  # held
