"""The auditor's poker hands a page at a time by cursor: "Older →" and "← Newer" walk every
hand of the filters once, newest first by the start (then the hand), the filters kept in
the links; a bad cursor is a 400 page with its error; an old page number reads the newest
page; a page reads about a page of rows however many hands the room has dealt."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from backoffice.auditor import views
from poker.models import PokerHand
from tests.conftest import require_postgres
from tests.plans import rows_read

pytestmark = pytest.mark.django_db

LIST = "staff-auditor-poker-hands"


def dealt(table, count: int, *, first_number: int = 1, state: str = PokerHand.State.ENDED) -> list[PokerHand]:
    """``count`` hands at ``table``, their starts out of the hands' order and shared by twos
    and threes, all within the last hour."""
    now = timezone.now()
    hands = PokerHand.objects.bulk_create(
        PokerHand(
            table=table,
            number=first_number + n,
            server_seed="0" * 64,
            commitment="0" * 64,
            client_seed="",
            seats=[],
            state=state,
            ended_at=now if state == PokerHand.State.ENDED else None,
        )
        for n in range(count)
    )
    for n, hand in enumerate(hands):
        hand.started_at = now - timedelta(hours=1) + timedelta(seconds=(n * 7 % count) // 3)
    PokerHand.objects.bulk_update(hands, ["started_at"])
    return hands


def _newest(**filters) -> list[int]:
    return list(PokerHand.objects.filter(**filters).order_by("-started_at", "-id").values_list("id", flat=True))


def _hands(page: str) -> list[int]:
    return [int(n) for n in re.findall(r'<th scope="row"><a href="/staff/auditor/poker/hands/(\d+)/"', page)]


def _link(page: str, rel: str) -> str | None:
    found = re.search(rf'href="\?([^"#]*)" rel="{rel}"', page)
    return html.unescape(found.group(1)) if found else None


def _walk(client, query: str) -> tuple[list[list[int]], str]:
    pages = []
    while True:
        page = client.get(reverse(LIST) + f"?{query}").content.decode()
        pages.append(_hands(page))
        following = _link(page, "next")
        if following is None:
            return pages, page
        query = following


def test_older_and_newer_walk_every_hand_of_the_filters_once(
    browser, auditor, make_poker_table, monkeypatch, poker_table
):
    monkeypatch.setattr(views, "POKER_PAGE_SIZE", 4)
    other = make_poker_table(game="five_stud", preset="1-2")
    dealt(poker_table, 14)
    dealt(poker_table, 3, first_number=100, state=PokerHand.State.CANCELLED)
    dealt(other, 9)
    mine = _newest(table=poker_table, state=PokerHand.State.ENDED)
    starts = set(PokerHand.objects.filter(table=poker_table).values_list("started_at", flat=True))
    assert len(starts) < len(mine) and mine != sorted(mine, reverse=True)  # ties, out of id order
    client = browser(auditor)
    query = f"table={poker_table.pk}&state=ended"
    pages, last = _walk(client, query)
    assert [len(p) for p in pages] == [4, 4, 4, 2]
    assert [hand for p in pages for hand in p] == mine
    back, link = [pages[-1]], _link(last, "prev")
    while link is not None:
        assert f"table={poker_table.pk}" in link and "state=ended" in link  # the filters stay
        page = client.get(reverse(LIST) + f"?{link}").content.decode()
        back.append(_hands(page))
        link = _link(page, "prev")
    assert back == pages[::-1]
    everything, _ = _walk(client, "")
    assert [hand for p in everything for hand in p] == _newest()


@pytest.mark.parametrize("query", ["page=2", "page=9999", "page=x"])
def test_an_old_page_number_reads_the_newest_page(query, browser, auditor, poker_table):
    dealt(poker_table, 60)
    response = browser(auditor).get(reverse(LIST) + f"?{query}")
    assert response.status_code == 200 and _hands(response.content.decode()) == _newest()[:50]


@pytest.mark.parametrize(
    "query,words",
    [
        ("before=-3", "'before' is a whole number"),
        ("after=abc", "'after' is a whole number"),
        ("before=2&after=1", "not both"),
        ("before=999999", "no entry 999999"),
    ],
)
def test_a_bad_cursor_is_a_400_page_with_its_error(query, words, browser, auditor, poker_table):
    dealt(poker_table, 3)
    response = browser(auditor).get(reverse(LIST) + f"?{query}")
    assert response.status_code == 400 and words in html.unescape(response.content.decode())


def test_a_hand_the_filters_leave_out_is_no_cursor(browser, auditor, poker_table, make_poker_table):
    other = make_poker_table(game="five_stud", preset="1-2")
    theirs = dealt(other, 2)
    dealt(poker_table, 2, first_number=10)
    client = browser(auditor)
    assert client.get(reverse(LIST), {"before": theirs[0].pk}).status_code == 200
    response = client.get(reverse(LIST), {"before": theirs[0].pk, "table": poker_table.pk})
    assert response.status_code == 400 and f"no entry {theirs[0].pk}" in response.content.decode()


def test_a_page_counts_nothing(browser, auditor, poker_table):
    dealt(poker_table, 40)
    newest = _newest()
    client = browser(auditor)
    for query in ("", f"?before={newest[30]}", f"?after={newest[10]}&table={poker_table.pk}"):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(reverse(LIST) + query).status_code == 200
        assert not [q["sql"] for q in queries if "COUNT(" in q["sql"].upper()]


@pytest.mark.parametrize("filters", ["none", "table", "state", "days"])
def test_a_page_reads_a_page_of_hands_however_many_were_dealt(filters, browser, auditor, poker_table, make_poker_table):
    # With a Paginator, each page counted every hand of its filters first, then sorted them.
    require_postgres()
    other = make_poker_table(game="five_stud", preset="1-2")
    dealt(other, 3_000)
    dealt(poker_table, 1_500, first_number=10_000)
    dealt(poker_table, 300, first_number=20_000, state=PokerHand.State.CANCELLED)
    # The other table's hands all newer, the cancelled ones all older: no filter's page is
    # among the newest hands of the room.
    PokerHand.objects.filter(table=other).update(started_at=F("started_at") + timedelta(minutes=30))
    PokerHand.objects.filter(state="cancelled").update(started_at=F("started_at") - timedelta(minutes=30))
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE poker_pokerhand")
    today = timezone.localdate()
    params = {
        "none": {},
        "table": {"table": poker_table.pk},
        "state": {"state": "cancelled"},
        "days": {"date_from": (today - timedelta(days=1)).isoformat(), "date_to": today.isoformat()},
    }[filters]
    lookup = {"none": {}, "table": {"table": poker_table}, "state": {"state": "cancelled"}, "days": {}}[filters]
    newest = _newest(**lookup)
    client = browser(auditor)
    for cursor in ({}, {"before": newest[150]}, {"after": newest[150]}, {"before": newest[-30]}):
        before = rows_read("poker_pokerhand")
        response = client.get(reverse(LIST), {**params, **cursor})
        read = rows_read("poker_pokerhand") - before
        assert response.status_code == 200 and _hands(response.content.decode())
        assert read < 200, (filters, cursor, read)
