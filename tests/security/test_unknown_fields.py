"""A request that names a field its endpoint does not take is refused, not half carried out.

A misspelt optional field used to be dropped in silence: a bet whose jackpot chip was sent
as ``jackpott`` went through without the chip, a desk deposit's ``memmo`` without its note.
Every body the player, poker, wallet, cashier and auditor APIs read now names their own
fields only: an unknown one is ``unknown_field`` (400, naming it and the fields the
endpoint takes), and nothing moves, as the manager's API always did.
"""

from __future__ import annotations

import pytest

from tables.models import HandSeat, Seat
from wallets.models import GamingLimit, Transaction
from wallets.selectors import wallet_balances

pytestmark = pytest.mark.django_db


def _refused(response, unknown: list[str]) -> dict:
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "unknown_field", body
    assert body["extra"]["fields"] == unknown
    assert "Unknown field(s): " + ", ".join(unknown) in body["message"]
    return body


def test_a_bet_with_its_jackpot_chip_misspelt_is_refused_and_nothing_is_bet(table, make_player, api):
    alice = make_player(balance=10_000)
    client = api(alice)
    assert client.post(f"/api/tables/{table.pk}/sit/", {}, format="json").status_code == 201
    before = wallet_balances(user=alice)
    body = _refused(
        client.post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00", "jackpott": True}, format="json"), ["jackpott"]
    )
    assert body["extra"]["allowed"] == ["ante", "jackpot"]
    assert not HandSeat.objects.filter(player=alice).exists()
    assert wallet_balances(user=alice) == before
    placed = client.post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00", "jackpot": True}, format="json")
    assert placed.status_code == 201  # spelt right, the same bet goes through, with its chip
    assert HandSeat.objects.get(player=alice).jackpot_bet > 0


def test_a_seat_a_limit_and_a_poker_action_refuse_fields_they_do_not_take(table, make_player, api):
    from tests.factories import PokerTableFactory

    alice = make_player(balance=10_000)
    client = api(alice)
    _refused(client.post(f"/api/tables/{table.pk}/sit/", {"seat": 1, "chair": 2}, format="json"), ["chair"])
    _refused(
        client.post(
            "/api/responsible-gaming/limits/",
            {"kind": "loss", "period": "day", "amount": "50.00", "perod": "week"},
            format="json",
        ),
        ["perod"],
    )
    assert not GamingLimit.objects.filter(player=alice).exists()
    poker = PokerTableFactory()
    _refused(
        client.post(
            f"/api/poker/tables/{poker.pk}/act/", {"hand_id": 1, "action": "call", "amonut": "2"}, format="json"
        ),
        ["amonut"],
    )


def test_a_desk_deposit_with_a_misspelt_memo_is_refused_and_no_money_moves(cashier, make_player, api):
    carol = make_player(balance=0)
    desk = api(cashier)
    deposits = Transaction.objects.filter(kind=Transaction.Kind.DEPOSIT).count()
    _refused(
        desk.post(
            "/api/cashier/deposits/",
            {"player": carol.pk, "amount": "50.00", "memmo": "slip 42"},
            format="json",
            HTTP_IDEMPOTENCY_KEY="slip-42",
        ),
        ["memmo"],
    )
    assert Transaction.objects.filter(kind=Transaction.Kind.DEPOSIT).count() == deposits
    assert wallet_balances(user=carol).available == 0


def test_a_fold_or_a_leave_that_names_a_field_is_refused_and_the_hand_stays_as_it_was(table, make_player, api):
    """A fold, a raise and a leave take nothing but their URL: a body naming a hand or a
    seat is refused, not ignored (it would fold or leave what the URL names)."""
    alice, bob = make_player(balance=10_000), make_player(balance=10_000)
    client = api(alice)
    for player in (alice, bob):
        assert api(player).post(f"/api/tables/{table.pk}/sit/", {}, format="json").status_code == 201
    for player in (alice, bob):  # the second bet deals
        assert api(player).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json").status_code == 201
    seat = HandSeat.objects.get(player=alice)
    fold = f"/api/hands/{seat.hand_id}/fold/"
    body = _refused(client.post(fold, {"hand_id": seat.hand_id + 1}, format="json"), ["hand_id"])
    assert body["extra"]["allowed"] == []
    assert client.post(fold, [seat.hand_id], format="json").json()["code"] == "body_not_object"
    _refused(client.post(f"/api/tables/{table.pk}/leave/", {"seat": 1}, format="json"), ["seat"])
    seat.refresh_from_db()
    assert seat.decision == ""  # undecided, and she still sits
    assert Seat.objects.filter(table=table, player=alice).exists()
    assert client.post(fold, {}, format="json").status_code == 200  # an empty object, as the page sends
    seat.refresh_from_db()
    assert seat.decision == "fold"


def test_a_poker_sit_out_and_staff_actions_that_take_no_body_refuse_one(
    table, make_player, cashier, manager, auditor, api
):
    from poker.models import PokerSeat
    from poker.services import poker_sit
    from tables.models import Table
    from tests.factories import PokerTableFactory
    from wallets.models import CashRequest, LedgerVerification
    from wallets.services import cash_request_create

    alice = make_player(balance=10_000)
    poker = PokerTableFactory()
    poker_sit(user=alice, table_id=poker.pk)
    _refused(
        api(alice).post(f"/api/poker/tables/{poker.pk}/sit-out/", {"auto_ante": False}, format="json"), ["auto_ante"]
    )
    assert not PokerSeat.objects.get(table=poker, player=alice).sitting_out

    _refused(api(manager).post(f"/api/manager/tables/{table.pk}/close/", {"reason": "late"}, format="json"), ["reason"])
    assert Table.objects.get(pk=table.pk).is_open

    waiting = cash_request_create(
        cashier=cashier, player=make_player(balance=250_000), kind="withdrawal", amount=200_000, idempotency_key="w"
    )
    approve = f"/api/cashier/requests/{waiting.pk}/approve/"
    _refused(api(manager).post(approve, {"amount": "10.00"}, format="json"), ["amount"])
    assert CashRequest.objects.get(pk=waiting.pk).status == "pending"

    _refused(api(auditor).post("/api/auditor/integrity/verifications/", {"full": True}, format="json"), ["full"])
    assert not LedgerVerification.objects.exists()
