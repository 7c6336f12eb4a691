"""The hand history a page at a time by cursor: "Older →" and "← Newer" walk every hand
once in the order the history has always shown (the time each hand shows, the end else the
opening; hands of the same time by hand number, newest first); an old page-number link
reads the newest page; a bad cursor is a 400 page with its error; a page reads about a
page of rows however many hands the player has played, and counts nothing."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tables import views
from tables.models import Hand, HandSeat
from tables.selectors import player_hand_seats
from tables.services.hands import hand_bet
from tables.services.seats import table_sit
from tests.conftest import require_postgres
from tests.cursor_pages import BAD_CURSORS, link, walk
from tests.plans import rows_read

pytestmark = pytest.mark.django_db

GERMAN = {"HTTP_ACCEPT_LANGUAGE": "de"}


def _played(player, table, count: int) -> list[int]:
    """The player's live hand at ``table`` and ``count`` settled copies of it, their times
    out of the hands' order and shared by twos and threes; the hands' ids as the history
    has always listed them (``player_hand_seats``)."""
    table_sit(user=player, table_id=table.pk)
    live = Hand.objects.get(
        pk=hand_bet(user=player, table_id=table.pk, ante=table.tier.min_ante, jackpot=False).hand_id
    )
    seat = HandSeat.objects.get(hand=live, player=player)
    hand_values = {f.attname: getattr(live, f.attname) for f in Hand._meta.concrete_fields if not f.primary_key}
    seat_values = {
        f.attname: getattr(seat, f.attname)
        for f in HandSeat._meta.concrete_fields
        if f.attname not in ("id", "hand_id")
    }
    ended = [seat.history_at + timedelta(seconds=1 + (n * 7 % count) // 3) for n in range(count)]
    hands = Hand.objects.bulk_create(
        Hand(**{**hand_values, "nonce": live.nonce + 1 + n, "state": Hand.State.SETTLED, "settled_at": ended[n]})
        for n in range(count)
    )
    HandSeat.objects.bulk_create(
        HandSeat(**{**seat_values, "net": -100, "history_at": hand.settled_at}, hand=hand) for hand in hands
    )
    return list(player_hand_seats(user=player).values_list("hand_id", flat=True))


def _hands(page: str) -> list[int]:
    return [int(n) for n in re.findall(r'<th scope="row"><a href="/hands/(\d+)/"', page)]


def test_older_and_newer_walk_every_hand_once_in_the_historys_order(browser, table, make_player, monkeypatch):
    monkeypatch.setattr(views, "HISTORY_PAGE_SIZE", 4)
    player = make_player()
    order = _played(player, table, 17)  # 18 hands: 5 pages of 4 (the last of 2)
    times = dict(HandSeat.objects.filter(player=player).values_list("hand_id", "history_at"))
    assert len(set(times.values())) < len(order) and order != sorted(order, reverse=True)  # ties, out of id order
    client = browser(player)
    pages, back = walk(lambda query: client.get(reverse("hand-history") + f"?{query}").content.decode(), _hands)
    assert [len(p) for p in pages] == [4, 4, 4, 4, 2]
    assert [hand for p in pages for hand in p] == order  # each once, in the order it always had
    assert back == pages[::-1]


@pytest.mark.parametrize("query", ["?page=2", "?page=9999", "?page=x"])
def test_an_old_page_number_reads_the_newest_page(query, browser, table, make_player):
    player = make_player()
    order = _played(player, table, 30)
    response = browser(player).get(reverse("hand-history") + query)
    assert response.status_code == 200 and _hands(response.content.decode()) == order[:25]


@pytest.mark.parametrize("query,code", BAD_CURSORS)
def test_a_bad_cursor_is_a_400_page_with_its_error(query, code, browser, table, make_player):
    player = make_player()
    _played(player, table, 3)
    response = browser(player).get(reverse("hand-history") + f"?{query}")
    assert response.status_code == 400
    page = response.content.decode()
    assert f'role="alert" data-code="{code}"' in page and f'href="{reverse("hand-history")}"' in page


def test_another_players_hand_is_no_cursor(browser, table, make_table, make_player):
    alice, bob = make_player(), make_player()
    theirs = _played(bob, make_table("Havana"), 2)
    mine = _played(alice, table, 2)
    client = browser(alice)
    assert client.get(reverse("hand-history") + f"?before={mine[0]}").status_code == 200
    response = client.get(reverse("hand-history") + f"?before={theirs[0]}")
    assert response.status_code == 400 and 'data-code="cursor_not_found"' in response.content.decode()


def test_the_german_history_pages_in_german(browser, table, make_player, monkeypatch):
    monkeypatch.setattr(views, "HISTORY_PAGE_SIZE", 3)
    player = make_player()
    _played(player, table, 8)
    client = browser(player)
    first = client.get(reverse("hand-history"), **GERMAN).content.decode()
    assert "Ältere →" in first and "Older →" not in first and "Neuere" not in first
    second = client.get(reverse("hand-history") + f"?{link(first, 'next')}", **GERMAN).content.decode()
    assert "« Neueste" in second and "← Neuere" in second and "Ältere →" in second
    assert "Newest" not in second and "Newer" not in second
    refused = client.get(reverse("hand-history") + "?before=999999", **GERMAN).content.decode()
    assert "Diese Liste hat keinen Eintrag 999999" in refused and "« Neueste" in refused


def test_a_page_counts_nothing(browser, table, make_player):
    player = make_player()
    order = _played(player, table, 40)
    client = browser(player)
    for query in ("", f"?before={order[30]}", f"?after={order[10]}"):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(reverse("hand-history") + query).status_code == 200
        assert not [q["sql"] for q in queries if "COUNT(" in q["sql"].upper()]


def test_a_page_reads_a_page_of_hands_however_many_were_played(browser, table, make_player):
    # With a Paginator, the page counted every hand the player ever played first.
    require_postgres()
    player = make_player()
    order = _played(player, table, 2_000)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE tables_hand")
        cursor.execute("ANALYZE tables_handseat")
    client = browser(player)
    for query in ("", f"?before={order[1_000]}", f"?after={order[1_000]}", f"?before={order[-30]}"):
        before = rows_read("tables_handseat")
        assert client.get(reverse("hand-history") + query).status_code == 200
        read = rows_read("tables_handseat") - before
        assert read < 200, (query, read)
