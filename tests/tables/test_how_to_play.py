"""The lobby's "How to play" and the table's rule line come from the pay table's data."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from casino.game.evaluator import Category
from casino.game.paytables import PAYTABLES, PayTable
from tables.services.config import paytable_save


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _howto(client) -> str:
    html = client.get("/").content.decode()
    start = html.index('id="howto"')
    return _text(html[start : html.index("</section>", start)])


@pytest.fixture
def client(make_player):
    client = Client()
    client.force_login(make_player(balance=0))
    return client


def test_the_default_pay_table_says_a_full_house_or_better_is_paid_when_the_dealer_does_not_qualify(make_table, client):
    make_table("Nassau", paytable="24h")
    howto = _howto(client)
    assert "full house or better" in howto
    assert "royal flush 100 to 1, straight flush 25 to 1, four of a kind 5 to 1, full house 3 to 1" in howto
    assert "the raise is returned." not in howto  # the old hand-written sentence, false for this table


def test_a_table_that_pays_nothing_extra_says_the_raise_is_returned(make_table, client):
    make_table("Classic", paytable="classic")
    howto = _howto(client)
    assert "the raise is returned." in howto and "also wins on the raise" not in howto
    assert "1 to 1 for one pair or less up to 100 to 1 for a royal flush" in howto


def test_an_operators_own_pay_table_is_described_by_its_own_odds(make_table, tier_low, pool, client):
    from tables.services.config import table_create

    odd = PayTable(
        name="generous",
        qualified={c: 1 + int(c) for c in Category},
        not_qualified={
            Category.ROYAL_FLUSH: 40,
            Category.STRAIGHT_FLUSH: 30,
            Category.FOUR_OF_A_KIND: 20,
            Category.FULL_HOUSE: 10,
            Category.FLUSH: 2,
        },
    )
    table_create(name="Generous", tier=tier_low, paytable=paytable_save(name="generous", table=odd), pool=pool)
    make_table("Classic", paytable="classic")
    howto = _howto(client)
    assert "pay table “generous”" in howto and "pay table “classic”" in howto
    assert "flush or better" in howto and "flush 2 to 1" in howto


def test_the_table_page_states_its_own_pay_tables_rule(make_table, client):
    table = make_table("Nassau", paytable="classic")
    page = _text(client.get(f"/tables/{table.pk}/").content.decode())
    assert "the raise is returned." in page and "full house or better" not in page
    default = make_table("Other", paytable="24h")
    page = _text(client.get(f"/tables/{default.pk}/").content.decode())
    assert "full house or better" in page


def test_the_default_pay_table_is_what_the_tests_assume():
    assert PAYTABLES["24h"].raise_odds(Category.FULL_HOUSE, dealer_qualified=False) == 3
    assert PAYTABLES["24h"].raise_odds(Category.FLUSH, dealer_qualified=False) is None
