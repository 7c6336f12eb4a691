"""The player's poker hands a page at a time by cursor: "Older →" and "← Newer" walk every
hand once in the order the history has always shown (the hand's end, then the hand number,
newest first); an old page-number link reads the newest page; a bad cursor is a 400 page
with its error; a page reads about a page of rows however many hands the player has
played, and counts nothing."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from poker import views
from poker.models import PokerHand, PokerHandPlayer
from poker.selectors import poker_hands_of_player
from tests.conftest import require_postgres
from tests.cursor_pages import BAD_CURSORS, link, walk
from tests.plans import rows_read

pytestmark = pytest.mark.django_db

GERMAN = {"HTTP_ACCEPT_LANGUAGE": "de"}


def played(player, table, count: int, *, first_number: int = 1) -> list[int]:
    """``count`` ended hands at ``table`` that ``player`` was dealt into, their ends out of
    the hands' order and shared by twos and threes; the hands' ids as the history lists
    them (``poker_hands_of_player``)."""
    now = timezone.now()
    hands = PokerHand.objects.bulk_create(
        PokerHand(
            table=table,
            number=first_number + n,
            server_seed="0" * 64,
            commitment="0" * 64,
            client_seed="",
            seats=[{"seat": 1, "player": player.username, "user_id": player.pk, "stack": 10_000, "client_seed": ""}],
            state=PokerHand.State.ENDED,
            pot_total=200,
            ended_at=now - timedelta(hours=1) + timedelta(seconds=(n * 7 % count) // 3),
        )
        for n in range(count)
    )
    PokerHandPlayer.objects.bulk_create(
        PokerHandPlayer(hand=hand, player=player, seat=1, net=-100, ended_at=hand.ended_at) for hand in hands
    )
    return list(poker_hands_of_player(user=player).values_list("hand_id", flat=True))


def _hands(page: str) -> list[int]:
    return [int(n) for n in re.findall(r'<th scope="row"><a href="/poker/hands/(\d+)/"', page)]


def test_older_and_newer_walk_every_hand_once_in_the_historys_order(browser, poker_table, make_player, monkeypatch):
    monkeypatch.setattr(views, "HISTORY_PAGE_SIZE", 4)
    player = make_player()
    order = played(player, poker_table, 18)  # 5 pages of 4 (the last of 2)
    ends = dict(PokerHandPlayer.objects.filter(player=player).values_list("hand_id", "ended_at"))
    assert len(set(ends.values())) < len(order) and order != sorted(order, reverse=True)  # ties, out of id order
    client = browser(player)
    pages, back = walk(lambda query: client.get(reverse("poker-hands") + f"?{query}").content.decode(), _hands)
    assert [len(p) for p in pages] == [4, 4, 4, 4, 2]
    assert [hand for p in pages for hand in p] == order  # each once, in the order it always had
    assert back == pages[::-1]


@pytest.mark.parametrize("query", ["?page=2", "?page=9999", "?page=x"])
def test_an_old_page_number_reads_the_newest_page(query, browser, poker_table, make_player):
    player = make_player()
    order = played(player, poker_table, 30)
    response = browser(player).get(reverse("poker-hands") + query)
    assert response.status_code == 200 and _hands(response.content.decode()) == order[:25]


@pytest.mark.parametrize("query,code", BAD_CURSORS)
def test_a_bad_cursor_is_a_400_page_with_its_error(query, code, browser, poker_table, make_player):
    player = make_player()
    played(player, poker_table, 3)
    response = browser(player).get(reverse("poker-hands") + f"?{query}")
    assert response.status_code == 400
    page = response.content.decode()
    assert f'role="alert" data-code="{code}"' in page and f'href="{reverse("poker-hands")}"' in page


def test_another_players_hand_is_no_cursor(browser, poker_table, make_player):
    alice, bob = make_player(), make_player()
    theirs = played(bob, poker_table, 2)
    mine = played(alice, poker_table, 2, first_number=100)
    client = browser(alice)
    assert client.get(reverse("poker-hands") + f"?before={mine[0]}").status_code == 200
    response = client.get(reverse("poker-hands") + f"?before={theirs[0]}")
    assert response.status_code == 400 and 'data-code="cursor_not_found"' in response.content.decode()


def test_the_german_history_pages_in_german(browser, poker_table, make_player, monkeypatch):
    monkeypatch.setattr(views, "HISTORY_PAGE_SIZE", 3)
    player = make_player()
    played(player, poker_table, 8)
    client = browser(player)
    first = client.get(reverse("poker-hands"), **GERMAN).content.decode()
    assert "Ältere →" in first and "Older →" not in first and "Neuere" not in first
    second = client.get(reverse("poker-hands") + f"?{link(first, 'next')}", **GERMAN).content.decode()
    assert "« Neueste" in second and "← Neuere" in second and "Ältere →" in second
    refused = client.get(reverse("poker-hands") + "?before=999999", **GERMAN).content.decode()
    assert "Diese Liste hat keinen Eintrag 999999" in refused and "« Neueste" in refused


def test_a_page_counts_nothing(browser, poker_table, make_player):
    player = make_player()
    order = played(player, poker_table, 40)
    client = browser(player)
    for query in ("", f"?before={order[30]}", f"?after={order[10]}"):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(reverse("poker-hands") + query).status_code == 200
        assert not [q["sql"] for q in queries if "COUNT(" in q["sql"].upper()]


def test_a_page_reads_a_page_of_hands_however_many_were_played(browser, poker_table, make_player):
    # With a Paginator, the page counted every hand the player ever played first.
    require_postgres()
    player = make_player()
    order = played(player, poker_table, 2_000)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE poker_pokerhand")
        cursor.execute("ANALYZE poker_pokerhandplayer")
    client = browser(player)
    for query in ("", f"?before={order[1_000]}", f"?after={order[1_000]}", f"?before={order[-30]}"):
        for table in ("poker_pokerhandplayer", "poker_pokerhand"):
            before = rows_read(table)
            assert client.get(reverse("poker-hands") + query).status_code == 200
            read = rows_read(table) - before
            assert read < 200, (query, table, read)
