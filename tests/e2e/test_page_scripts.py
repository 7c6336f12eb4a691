"""The smaller pages' scripts, in Chromium: each an ES module that imports the shared helpers.

1. The lobby keeps its free seats current: a player who sits down elsewhere takes a seat
   off the lobby within a refresh, with no reload and no script error.
2. The auditor replays a hand's deal card by card: the page starts the replay at the first
   card and the buttons step through the deal in order.
"""

from __future__ import annotations

import pytest

from tests.e2e.conftest import sign_in

TIMEOUT_MS = 15_000
TABLE = "Montego Bay"

SIT = """
import json
from django.contrib.auth import get_user_model
from tables.models import Table
from tables.services.seats import table_sit
table = Table.objects.get(name="{table}")
table_sit(user=get_user_model().objects.get(username="{username}"), table_id=table.pk)
print(json.dumps(table.pk))
"""

PLAY_A_HAND = """
import json
from django.contrib.auth import get_user_model
from tables.models import Hand, Table
from tables.services.hands import hand_bet, hand_decide
from tables.services.seats import table_sit
User = get_user_model()
table = Table.objects.get(name="{table}")
players = [User.objects.get(username=name) for name in ("erin", "frank")]
for player in players:
    table_sit(user=player, table_id=table.pk)
for player in players:
    hand_bet(user=player, table_id=table.pk, ante=100, jackpot=False)
hand = Hand.objects.get(table=table, state="decisions")
for player in players:
    hand_decide(user=player, hand_id=hand.pk, action="fold")
print(json.dumps(hand.pk))
"""


@pytest.fixture
def page(chromium, casino_server):
    context = chromium.new_context(viewport={"width": 1366, "height": 768})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors
    yield page
    context.close()


def test_the_lobby_takes_a_seat_off_a_table_when_a_player_sits_there(page, casino_server):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    base = casino_server.base_url
    sign_in(page, base, "dave")
    card = page.locator(".table-card", has_text=TABLE)
    free = card.locator("[data-free-seats]")
    before = int(free.inner_text())
    casino_server.query(SIT.format(table=TABLE, username="grace"))
    expect(free).to_have_text(str(before - 1))  # the lobby's next refresh (every 4 s)
    page.goto(base + "/wallet/")
    assert page.js_errors == []


def test_the_auditor_replays_a_hand_card_by_card(page, casino_server):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    base = casino_server.base_url
    hand = casino_server.query(PLAY_A_HAND.format(table="Nassau"))
    sign_in(page, base, "auditor")
    page.goto(f"{base}/staff/auditor/hands/{hand}/")
    status = page.locator('[data-replay="status"]')
    expect(status).to_have_text("No card dealt yet.")
    cells = page.locator("#deal td[data-step]")
    total = cells.count()
    assert total == 15  # two seats and the dealer, five cards each
    page.get_by_role("button", name="Next card ▶").click()
    expect(status).to_contain_text(f"Card 1 of {total}: deck position")
    expect(page.locator("#deal td.is-hidden")).to_have_count(total - 1)
    page.get_by_role("button", name="Show all").click()
    expect(page.locator("#deal td.is-hidden")).to_have_count(0)
    assert page.js_errors == []
