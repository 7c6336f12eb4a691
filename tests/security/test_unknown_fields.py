"""A request that names a field its endpoint does not take is refused, not half carried out.

A misspelt optional field used to be dropped in silence: a bet whose jackpot chip was sent
as ``jackpott`` went through without the chip, a desk deposit's ``memmo`` without its note.
Every body the player, poker, wallet, cashier and auditor APIs read now names their own
fields only: an unknown one is ``unknown_field`` (400, naming it and the fields the
endpoint takes), and nothing moves, as the manager's API always did.
"""

from __future__ import annotations

import pytest

from tables.models import HandSeat
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
