"""A player's chips at the poker tables: the wallet page shows them beside the wallet and in
the total, each table named with a link to it, until the player leaves it; the cashier's
page of the player shows them too."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from poker.services import poker_leave, poker_sit
from tests.factories import PokerTableFactory

pytestmark = pytest.mark.django_db


def _figures(html: str) -> dict[str, str]:
    """The wallet's figures by their headings."""
    return dict(re.findall(r"<div><dt>([^<]+)</dt><dd[^>]*>([^<]+)</dd></div>", html))


def _chips(html: str) -> list[tuple[str, str, str]]:
    """(link, label, amount) of each table in the chips list."""
    listed = re.search(r'<ul class="holdings" id="holdings"[^>]*>(.*?)</ul>', html, re.S)
    if listed is None:
        return []
    return re.findall(r'<li><a href="([^"]+)">([^<]+)</a>: <strong>([^<]+)</strong></li>', listed.group(1))


def test_the_chips_at_poker_tables_count_in_the_wallet_until_the_player_leaves(make_player, browser):
    player = make_player(50_000)
    first = PokerTableFactory(name="Stud Night", game="seven_stud", preset="2-4")  # buy-in €20.00
    second = PokerTableFactory(name="Spread Corner", game="seven_stud", preset="1-3")  # buy-in €30.00
    poker_sit(user=player, table_id=first.pk)
    poker_sit(user=player, table_id=second.pk, seat_number=3)
    page = browser(player)

    html = page.get(reverse("wallet")).content.decode()
    assert _figures(html) == {
        "Available": "€450.00",
        "In play": "€0.00",
        "At poker tables": "€50.00",
        "Total": "€500.00",
    }
    assert _chips(html) == [
        (f"/poker/tables/{first.pk}/", "Stud Night, seat 1", "€20.00"),
        (f"/poker/tables/{second.pk}/", "Spread Corner, seat 3", "€30.00"),
    ]

    german = page.get(reverse("wallet"), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert _figures(german)["An Pokertischen"] == "50,00\u00a0€"
    assert _chips(german)[1] == (f"/poker/tables/{second.pk}/", "Spread Corner, Platz 3", "30,00\u00a0€")

    poker_leave(user=player, table_id=first.pk)
    poker_leave(user=player, table_id=second.pk)
    html = page.get(reverse("wallet")).content.decode()
    assert _figures(html) == {"Available": "€500.00", "In play": "€0.00", "Total": "€500.00"}
    assert _chips(html) == []


def test_another_player_s_chips_are_not_in_the_wallet(make_player, browser):
    player, other = make_player(50_000), make_player(50_000)
    table = PokerTableFactory(game="seven_stud", preset="2-4")
    poker_sit(user=other, table_id=table.pk)
    html = browser(player).get(reverse("wallet")).content.decode()
    assert _figures(html) == {"Available": "€500.00", "In play": "€0.00", "Total": "€500.00"}
    assert _chips(html) == []


def test_the_cashier_sees_the_chips_a_player_has_at_the_poker_tables(make_player, browser, cashier):
    player = make_player(50_000)
    table = PokerTableFactory(name="Stud Night", game="seven_stud", preset="2-4")
    desk = browser(cashier)
    page = reverse("staff-cashier-player", args=[player.pk])
    assert "At poker tables" not in _figures(desk.get(page).content.decode())

    poker_sit(user=player, table_id=table.pk)
    html = desk.get(page).content.decode()
    assert _figures(html) == {"Available": "€480.00", "In play": "€0.00", "At poker tables": "€20.00"}
    assert re.search(r'id="player-holdings">Stud Night, seat 1: €20.00\. Chips come back to the wallet', html)


def test_the_wallet_api_lists_the_chips_at_poker_tables_beside_the_wallet(make_player, api):
    player, other = make_player(50_000), make_player(50_000)
    table = PokerTableFactory(name="Stud Night", game="seven_stud", preset="2-4")
    poker_sit(user=player, table_id=table.pk, seat_number=2)
    poker_sit(user=other, table_id=PokerTableFactory(game="seven_stud", preset="2-4").pk)  # not the player's

    wallet = api(player).get("/api/wallet/").json()
    assert {key: wallet[key] for key in ("available", "in_play", "total", "held")} == {
        "available": "480.00",
        "in_play": "0.00",
        "total": "480.00",  # the wallet's own: what can be played or withdrawn
        "held": "20.00",
    }
    assert wallet["holdings"] == [
        {"label": "Stud Night, seat 2", "amount": "20.00", "url": f"/poker/tables/{table.pk}/"}
    ]
    german = api(player).get("/api/wallet/", HTTP_ACCEPT_LANGUAGE="de").json()
    assert german["holdings"][0]["label"] == "Stud Night, Platz 2"

    poker_leave(user=player, table_id=table.pk)
    wallet = api(player).get("/api/wallet/").json()
    assert (wallet["available"], wallet["held"], wallet["holdings"]) == ("500.00", "0.00", [])
