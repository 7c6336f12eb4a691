"""My tables: the player's own poker tables tiled, at most four, each its table page drawn
compact in a frame that only this site may frame; the links that lead there."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from casino.access.roles import CASHIER
from poker.services import poker_sit

pytestmark = pytest.mark.django_db

MY_TABLES = "/poker/my-tables/"


def _tiles(html: str) -> list[str]:
    """The tiles' frames, by the address each one shows."""
    return re.findall(r'<iframe class="tile-frame" src="([^"]+)"', html)


def _tile_url(table) -> str:
    return reverse("poker-table-tile", args=[table.pk])


def test_my_tables_tiles_the_players_own_tables_four_at_most_and_names_the_others(
    browser, make_player, make_poker_table
):
    ann, ben = make_player(username="ann"), make_player(username="ben")
    tables = [make_poker_table(name=f"Table {n}") for n in range(1, 7)]
    for table in tables[:5]:  # ann sits at five, in this order
        poker_sit(user=ann, table_id=table.pk)
    for table in (tables[0], tables[5]):  # ben at the first and at one of his own
        poker_sit(user=ben, table_id=table.pk)

    html = browser(ann).get(MY_TABLES).content.decode()
    assert _tiles(html) == [_tile_url(t) for t in tables[:4]]
    more = re.search(r'<p class="tiles-more" id="tiles-more">(.*?)</p>', html, re.S).group(1)
    assert "Only 4 tables fit here. Your other tables:" in more
    assert f'<a href="{reverse("poker-table", args=[tables[4].pk])}">Table 5</a>' in more
    assert "Table 6" not in html  # ben's table, where ann has no seat
    assert 'class="tile-name"' in html and "Seven Card Stud · €2.00/€4.00 fixed limit" in html
    assert "js/poker_tiles.js" in html

    ben_html = browser(ben).get(MY_TABLES).content.decode()
    assert _tiles(ben_html) == [_tile_url(tables[0]), _tile_url(tables[5])]
    assert 'id="tiles-more"' not in ben_html
    assert "Table 2" not in ben_html


def test_with_no_table_the_page_says_so_and_leads_to_the_poker_room(browser, make_player):
    html = browser(make_player()).get(MY_TABLES).content.decode()
    assert _tiles(html) == []
    assert "You do not sit at any poker table yet" in html
    assert f'<a class="btn" href="{reverse("poker-lobby")}">To the poker room</a>' in html
    assert "poker_tiles.js" not in html


def test_my_tables_is_for_signed_in_players(browser, make_user):
    response = browser().get(MY_TABLES)
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={MY_TABLES}"
    assert browser(make_user(CASHIER)).get(MY_TABLES).status_code == 403


def test_my_tables_reads_german(browser, make_player, make_poker_table):
    ann = make_player(username="ann")
    tables = [make_poker_table(name=f"Tisch {n}") for n in range(1, 6)]
    for table in tables:
        poker_sit(user=ann, table_id=table.pk)
    html = browser(ann).get(MY_TABLES, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert '<html lang="de">' in html
    assert "<h1>Meine Tische</h1>" in html
    assert "Hier haben nur 4 Tische Platz. Ihre weiteren Tische:" in html
    assert "Kein Tisch wartet auf Sie." in html
    assert "Tische, die auf Sie warten, nach vorn holen" in html
    assert 'title="Der Live-Tisch Tisch 1"' in html
    assert "2,00\u00a0€/4,00\u00a0€" in html
    assert "My tables" not in html and "Only 4 tables" not in html

    empty = browser(make_player()).get(MY_TABLES, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Sie sitzen noch an keinem Pokertisch" in empty and "Zum Pokerraum" in empty


def test_a_tile_is_the_table_page_without_the_site_around_it_framed_by_this_site_alone(
    browser, make_player, poker_table
):
    ann = make_player(username="ann")
    poker_sit(user=ann, table_id=poker_table.pk)
    client = browser(ann)

    tile = client.get(_tile_url(poker_table))
    assert tile.status_code == 200
    assert tile["X-Frame-Options"] == "SAMEORIGIN"
    assert "frame-ancestors 'self'" in tile["Content-Security-Policy"]
    html = tile.content.decode()
    assert '<body class="is-tile">' in html and '<base target="_top">' in html  # its links open the whole window
    assert 'id="poker-app"' in html and 'id="poker-actions"' in html and '"tile": true' in html
    for left_out in (
        'class="site-header"',
        'class="site-footer"',
        'id="reality-check"',
        'id="notes-panel"',
        'id="hand-log"',
    ):
        assert left_out not in html, left_out
    assert "js/poker_tile_frame.js" in html

    page = client.get(reverse("poker-table", args=[poker_table.pk]))
    assert page["X-Frame-Options"] == "DENY"  # the table's own page is framed by nobody
    assert "frame-ancestors 'none'" in page["Content-Security-Policy"]
    assert 'class="site-header"' in page.content.decode() and "poker_tile_frame.js" not in page.content.decode()
    assert client.get(MY_TABLES)["X-Frame-Options"] == "DENY"

    assert browser().get(_tile_url(poker_table)).status_code == 302  # signed out: the sign-in page


def test_the_lobby_and_a_table_lead_to_my_tables_once_the_player_sits_at_two(browser, make_player, make_poker_table):
    ann = make_player(username="ann")
    first, second = make_poker_table(name="First"), make_poker_table(name="Second")
    poker_sit(user=ann, table_id=first.pk)
    client = browser(ann)
    table_page = client.get(reverse("poker-table", args=[first.pk])).content.decode()
    assert 'id="my-tables-link"' not in table_page
    lobby = client.get(reverse("poker-lobby")).content.decode()
    assert re.search(r'<a href="/poker/my-tables/" id="my-tables-link">My tables</a>', lobby)

    poker_sit(user=ann, table_id=second.pk)
    table_page = client.get(reverse("poker-table", args=[first.pk])).content.decode()
    assert re.search(r'id="my-tables-link">My tables side by side \(2\)</a>', table_page)
    lobby = client.get(reverse("poker-lobby")).content.decode()
    assert re.search(r'id="my-tables-link">My tables side by side \(2\)</a>', lobby)
    german = client.get(reverse("poker-lobby"), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert re.search(r'id="my-tables-link">Meine Tische nebeneinander \(2\)</a>', german)
