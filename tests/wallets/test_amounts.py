"""One parser for every amount a person types or sends.

Plain ASCII decimal strings (``^[0-9]+(\\.[0-9]{1,2})?$``) only; anything else is
``amount_invalid`` and moves nothing, on the API and on the HTML forms alike.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client

from casino.http.errors import ValidationError
from casino.money import MAX_AMOUNT_CENTS, to_cents
from wallets.models import CashRequest, GamingLimit, Transaction
from wallets.selectors import wallet_balances

GARBAGE = [
    "1e999999999",  # was a 500 (decimal.Overflow)
    "1e3",
    "1E3",
    "1_000",
    "+5",
    "-5",
    "-0",
    " 5\n",
    "5 ",
    " 5",
    "5\n",
    "\u0665",  # Arabic-Indic five
    "\u0661\u0660.\u0660\u0660",
    "\uff15",  # full-width five
    "\u00b2",  # superscript two
    "5\u00b2",
    "1.005",
    "1.",
    ".5",
    "1,00",
    "0x10",
    "NaN",
    "Infinity",
    "",
    "ten",
    "1.0.0",
    "5\x00",
    5,  # a JSON number: the API documents decimal strings
    0,
    5.0,
    1.5,
    True,
    False,
    None,
    [1],
    {"value": 1},
    Decimal("5"),
]


@pytest.mark.parametrize("value", GARBAGE, ids=repr)
def test_the_parser_refuses_everything_but_a_plain_decimal_string(value):
    with pytest.raises(ValidationError) as caught:
        to_cents(value, field="amount")
    assert caught.value.code == "amount_invalid"
    assert caught.value.extra["field"] == "amount"


@pytest.mark.parametrize(
    "text,cents",
    [("5", 500), ("05", 500), ("12.5", 1250), ("12.50", 1250), ("0.01", 1), ("100000000000", MAX_AMOUNT_CENTS)],
)
def test_plain_decimal_strings_become_exact_cents(text, cents):
    assert to_cents(text) == cents


def test_zero_and_too_large_keep_their_own_codes():
    with pytest.raises(ValidationError) as zero:
        to_cents("0.00")
    assert zero.value.code == "amount_not_positive"
    assert to_cents("0", allow_zero=True) == 0
    with pytest.raises(ValidationError) as large:
        to_cents("100000000000.01")
    assert large.value.code == "amount_too_large"
    with pytest.raises(ValidationError) as huge:
        to_cents("9" * 5000)  # long, but a plain string: no overflow, no 500
    assert huge.value.code == "amount_too_large"


API_AMOUNTS = ["1e999999999", "1e3", "1_000", "+5", " 5\n", "\u0665", "\uff15", "\u00b2", 5, 5.0, True]


def _key(value) -> str:
    return f"k-{abs(hash(repr(value)))}"


@pytest.mark.parametrize("value", API_AMOUNTS, ids=repr)
@pytest.mark.parametrize("path", ["/api/cashier/deposits/", "/api/cashier/withdrawals/"])
def test_the_cashier_api_refuses_odd_amounts_and_moves_nothing(cashier, make_player, api, path, value):
    player = make_player(balance=500_000)
    before = Transaction.objects.count()
    r = api(cashier).post(path, {"player": player.pk, "amount": value}, format="json", HTTP_IDEMPOTENCY_KEY=_key(value))
    assert (r.status_code, r.json()["code"]) == (400, "amount_invalid")
    assert Transaction.objects.count() == before and not CashRequest.objects.exists()
    assert wallet_balances(user=player).available == 500_000


@pytest.mark.parametrize("value", API_AMOUNTS, ids=repr)
def test_the_limit_api_refuses_odd_amounts_and_sets_nothing(make_player, api, value):
    player = make_player(balance=0)
    r = api(player).post(
        "/api/responsible-gaming/limits/", {"kind": "deposit", "period": "day", "amount": value}, format="json"
    )
    assert (r.status_code, r.json()["code"]) == (400, "amount_invalid")
    assert not GamingLimit.objects.filter(player=player).exists()


@pytest.mark.parametrize("value", ["1e999999999", "1e3", "1_000", "+5", " 5\n", "\u0665", "\uff15", "\u00b2"], ids=repr)
def test_the_desk_form_refuses_odd_amounts_beside_the_field(cashier, make_player, value):
    player = make_player(balance=500_000)
    client = Client()
    client.force_login(cashier)
    before = Transaction.objects.count()
    r = client.post(
        f"/staff/cashier/players/{player.pk}/move/", {"kind": "deposit", "amount": value, "key": "d-1"}, follow=True
    )
    assert r.status_code == 200
    assert Transaction.objects.count() == before and not CashRequest.objects.exists()
    assert wallet_balances(user=player).available == 500_000
    form = r.context["deposit_form"]
    assert "amount" in form.errors
    assert 'aria-invalid="true"' in r.content.decode()


@pytest.mark.parametrize("value", ["1e999999999", "1e3", "+5", "\u0665", "\uff15", "\u00b2"], ids=repr)
def test_the_limit_form_refuses_odd_amounts_beside_the_field(make_player, value):
    player = make_player(balance=0)
    client = Client()
    client.force_login(player)
    r = client.post("/responsible-gaming/", {"action": "limit", "kind": "deposit", "period": "day", "amount": value})
    assert r.status_code == 200
    assert "amount" in r.context["limit_form"].errors
    assert not GamingLimit.objects.filter(player=player).exists()


def test_several_players_wallets_read_at_once_match_each_read_alone(make_player, django_assert_num_queries):
    from wallets.selectors import wallets_balances

    rich, poor = make_player(balance=123_456), make_player(balance=1)
    with django_assert_num_queries(1):
        both = wallets_balances(user_ids=[rich.pk, poor.pk])
    assert both == {rich.pk: wallet_balances(user=rich), poor.pk: wallet_balances(user=poor)}
    assert both[rich.pk].available == 123_456 and both[poor.pk].available == 1
