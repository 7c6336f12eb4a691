"""The manager's overview of every table (the page and ``GET /api/manager/tables/``):
each table's seats and live hand, read in a fixed number of queries however many
tables the casino runs (it was two or three queries a table)."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tables.services.hands import hand_bet
from tables.services.seats import table_sit

pytestmark = pytest.mark.django_db


def _queries(call) -> tuple[object, int]:
    with CaptureQueriesContext(connection) as captured:
        result = call()
    return result, len(captured)


def test_the_overview_shows_every_live_hand_in_as_many_queries_for_twelve_tables_as_for_two(
    make_table, make_player, manager, browser, api
):
    tables = [make_table(name=f"Overview {i}") for i in range(2)]
    pages, apis = browser(manager), api(manager)
    for _ in range(2):  # the second time: a signed-in manager's usual call
        page, few = _queries(lambda: pages.get(reverse("staff-manager")))
        listed, few_api = _queries(lambda: apis.get("/api/manager/tables/"))
    assert page.status_code == 200 and listed.status_code == 200
    tables += [make_table(name=f"Overview {i}") for i in range(2, 12)]
    betting, waiting = tables[3], tables[7]
    ann, ben = make_player(), make_player()
    table_sit(user=ann, table_id=betting.pk)
    table_sit(user=ben, table_id=betting.pk)
    hand = hand_bet(user=ann, table_id=betting.pk, ante=100, jackpot=False).hand
    table_sit(user=make_player(), table_id=waiting.pk)
    waiting_hand = waiting.hands.get()

    page, many = _queries(lambda: pages.get(reverse("staff-manager")))
    assert many == few, "the overview's queries grow with the tables"
    html = re.sub(r"\s+", " ", page.content.decode())
    assert f"#{hand.pk} in play (1 bet)" in html
    assert f"#{waiting_hand.pk} waiting for bets" in html

    listed, many_api = _queries(lambda: apis.get("/api/manager/tables/"))
    assert many_api == few_api, "the API's queries grow with the tables"
    rows = {row["id"]: row for row in listed.json()["tables"]}
    assert len(rows) == 12
    assert (rows[betting.pk]["seated"], rows[betting.pk]["live_hand"], rows[betting.pk]["hand_in_progress"]) == (
        2,
        hand.pk,
        True,
    )
    assert (rows[waiting.pk]["seated"], rows[waiting.pk]["live_hand"], rows[waiting.pk]["hand_in_progress"]) == (
        1,
        waiting_hand.pk,
        False,
    )
    assert (rows[tables[0].pk]["seated"], rows[tables[0].pk]["live_hand"]) == (0, None)
