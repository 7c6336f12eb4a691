"""Every link a signed-in person is shown leads somewhere they may go, and the shared
pages speak to the reader's role.

The lobbies and the tables are open to every role (staff watch them), but some of their
links are a player's own pages ("My poker hands", "My hands", the wallet): a cashier or an
auditor following one met "Not for this account". Here each role opens the pages every
role shares, follows each link on them once, and must find none refused or missing; the
tables' fairness lines send only players to their own hands, in whole sentences in German
as in English.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django.urls import reverse

from casino.access.roles import AUDITOR, CASHIER, MANAGER, PLAYER
from poker.services import poker_sit
from tests.factories import PokerTableFactory

pytestmark = pytest.mark.django_db

HREF = re.compile(r'<a\b[^>]*\bhref="([^"#][^"]*)"')
# Links that change something or leave with a file, not a page to open.
NOT_PAGES = ("/accounts/logout/", "/i18n/", ".txt", ".csv", ".jsonl")


def _links(html: str) -> set[str]:
    found = set()
    for href in HREF.findall(html):
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or not parts.path.startswith("/"):
            continue  # another site's
        if any(mark in parts.path for mark in NOT_PAGES) or parts.path.startswith("/static/"):
            continue
        found.add(parts.path + (f"?{parts.query}" if parts.query else ""))
    return found


@pytest.fixture
def shared_pages(table, make_player):
    """The pages every role opens: both lobbies and a table of each game, with players at them."""
    poker_table = PokerTableFactory(game="seven_stud", preset="2-4")
    for name in ("ann", "ben"):
        poker_sit(user=make_player(balance=10_000, username=name), table_id=poker_table.pk)
    return {
        "lobby": reverse("lobby"),
        "poker lobby": reverse("poker-lobby"),
        "table": reverse("table", args=[table.pk]),
        "poker table": reverse("poker-table", args=[poker_table.pk]),
    }


@pytest.mark.parametrize("role", [PLAYER, CASHIER, MANAGER, AUDITOR])
def test_every_link_on_the_shared_pages_opens_for_the_role_that_sees_it(role, shared_pages, browser, make_user):
    client = browser(make_user(role))
    links = set()
    for page in shared_pages.values():
        response = client.get(page)
        assert response.status_code == 200, page
        links |= _links(response.content.decode())
    assert links, "the pages link somewhere"
    refused = {}
    for link in sorted(links):
        status = client.get(link).status_code
        if status not in (200, 302):
            refused[link] = status
    assert refused == {}, f"a {role} is shown links that refuse them"


def test_staff_are_not_sent_to_a_players_hand_history_from_the_poker_room(shared_pages, browser, make_user):
    poker_lobby, poker_table = shared_pages["poker lobby"], shared_pages["poker table"]
    for role in (CASHIER, MANAGER, AUDITOR):
        client = browser(make_user(role))
        for page in (poker_lobby, poker_table):
            assert reverse("poker-hands") not in _links(client.get(page).content.decode()), (role, page)
    auditor_lobby = browser(make_user(AUDITOR)).get(poker_lobby).content.decode()
    assert reverse("staff-auditor-poker-hands") in _links(auditor_lobby)
    player_lobby = browser(make_user(PLAYER)).get(poker_lobby).content.decode()
    assert reverse("poker-hands") in _links(player_lobby)


def test_the_footer_points_a_player_to_their_hands_and_staff_to_none(browser, make_user):
    player_page = browser(make_user(PLAYER)).get(reverse("lobby")).content.decode()
    cashier_page = browser(make_user(CASHIER)).get(reverse("lobby")).content.decode()
    assert "check any of your hands under" in player_page
    assert "check any of your hands under" not in cashier_page
    assert "Every deck is provably fair." in cashier_page


def _fairness_line(html: str) -> str:
    line = re.search(r'<h2 id="fair-title">.*?<p class="aside">(.*?)</p>', html, re.S)
    assert line, "the table says when its seed is revealed"
    return re.sub(r"\s+", " ", line.group(1))


@pytest.mark.parametrize(
    "language,said,recompute",
    [
        ("en", "The server seed is revealed 1 day after the hand (sooner,", "Your browser can then recompute the deck"),
        ("de", "Der Server-Seed wird 1 Tag nach der Hand offengelegt (früher", "Ihr Browser kann das Deck dann unter"),
    ],
)
def test_the_poker_table_says_when_its_seed_is_revealed_in_a_whole_sentence(
    language, said, recompute, shared_pages, browser, make_user
):
    poker_table = shared_pages["poker table"]
    player_line = _fairness_line(
        browser(make_user(PLAYER)).get(poker_table, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    )
    staff_line = _fairness_line(
        browser(make_user(CASHIER)).get(poker_table, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    )
    assert said in player_line and recompute in player_line
    assert f'href="{reverse("poker-hands")}"' in player_line
    assert said in staff_line and recompute not in staff_line and "href" not in staff_line


def test_a_caribbean_table_sends_only_its_players_to_their_hands_to_recompute_a_deck(shared_pages, browser, make_user):
    table = shared_pages["table"]
    player_page = browser(make_user(PLAYER)).get(table).content.decode()
    auditor_page = browser(make_user(AUDITOR)).get(table, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "your browser can recompute the deck under “My hands”" in _fairness_line(player_page)
    assert _fairness_line(auditor_page) == "Nach der Hand wird der Server-Seed offengelegt."
