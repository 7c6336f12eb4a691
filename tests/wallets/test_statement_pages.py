"""The wallet's statement a page at a time by cursor: "Older →" and "← Newer" walk every
movement once, newest first; an old page-number link reads the newest page; a bad cursor
is a 400 page with its error; a page reads about a page of legs however long the
player's history, and counts nothing."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from casino.money import money
from tests.conftest import require_postgres
from tests.plans import rows_read
from wallets import views
from wallets.models import Account, Leg, Transaction
from wallets.services import house_bankroll

pytestmark = pytest.mark.django_db

GERMAN = {"HTTP_ACCEPT_LANGUAGE": "de"}
AMOUNTS = re.compile(r'data-label="Amount" class="num[^"]*">([^<]+)<')


def _grow(player, count: int) -> list[int]:
    """``count`` movements into the player's wallet, 1 cent, 2 cents, …: their legs' ids."""
    wallet = Account.objects.get(owner=player, kind=Account.Kind.PLAYER_WALLET)
    house = house_bankroll()
    at = timezone.now()
    txns = Transaction.objects.bulk_create(
        Transaction(idempotency_key=f"grow:{player.pk}:{n}", fingerprint="", kind="deposit", created_at=at)
        for n in range(count)
    )
    legs = Leg.objects.bulk_create(
        leg
        for n, t in enumerate(txns)
        for leg in (
            Leg(transaction=t, account=wallet, side="C", amount=n + 1),
            Leg(transaction=t, account=house, side="D", amount=n + 1),
        )
    )
    return [leg.pk for leg in legs if leg.account_id == wallet.pk]


def _shown(player) -> list[str]:
    """The statement's amounts as the page writes them, newest first."""
    legs = Leg.objects.filter(account__owner=player, account__kind=Account.Kind.PLAYER_WALLET).order_by("-id")
    return [money(leg.signed_amount, signed=True) for leg in legs]


def _link(page: str, rel: str) -> str | None:
    found = re.search(rf'href="\?((?:before|after)=\d+)#statement" rel="{rel}"', page)
    return found.group(1) if found else None


def test_older_and_newer_walk_every_movement_once_newest_first(browser, make_player, monkeypatch):
    monkeypatch.setattr(views, "STATEMENT_PAGE_SIZE", 7)
    player = make_player(balance=10_000)
    _grow(player, 30)  # 31 movements: 5 pages of 7 (the last of 3)
    client = browser(player)
    pages, query = [], ""
    while True:
        page = client.get(reverse("wallet") + (f"?{query}" if query else "")).content.decode()
        pages.append(AMOUNTS.findall(page))
        assert ('rel="prev"' in page) == (len(pages) > 1) and ("« Newest" in page) == (len(pages) > 1)
        query = _link(page, "next")
        if query is None:
            break
    assert [len(p) for p in pages] == [7, 7, 7, 7, 3]
    assert [amount for p in pages for amount in p] == _shown(player)  # each once, newest first
    back = [pages[-1]]
    query = _link(page, "prev")
    while query is not None:
        page = client.get(reverse("wallet") + f"?{query}").content.decode()
        back.append(AMOUNTS.findall(page))
        query = _link(page, "prev")
    assert back == pages[::-1]


@pytest.mark.parametrize("query", ["?page=2", "?page=9999", "?page=x", "?page=", "?before=", "?after="])
def test_an_old_page_number_reads_the_newest_page(query, browser, make_player):
    player = make_player(balance=10_000)
    _grow(player, 30)
    client = browser(player)
    newest = client.get(reverse("wallet")).content.decode()
    response = client.get(reverse("wallet") + query)
    assert response.status_code == 200
    assert AMOUNTS.findall(response.content.decode()) == AMOUNTS.findall(newest) == _shown(player)[:25]


@pytest.mark.parametrize(
    "query,code",
    [
        ("before=-1", "before_invalid"),
        ("before=x", "before_invalid"),
        ("before=0", "before_invalid"),
        ("after=1.5", "after_invalid"),
        ("after=%D9%A3", "after_invalid"),  # an Arabic-Indic three: a digit to str.isdigit()
        (f"before={2**62 + 1}", "before_invalid"),
        ("before=99999999999999999999999", "before_invalid"),
        ("before=3&before=4", "before_invalid"),
        ("after=3&after=4", "after_invalid"),
        ("before=9&after=3", "invalid_page"),
    ],
)
def test_a_bad_cursor_is_a_400_page_with_its_error(query, code, browser, make_player):
    player = make_player(balance=10_000)
    response = browser(player).get(reverse("wallet") + f"?{query}")
    assert response.status_code == 400
    page = response.content.decode()
    assert f'role="alert" data-code="{code}"' in page
    assert money(10_000) in page and f'href="{reverse("wallet")}#statement"' in page  # the balance, a way back


def test_a_cursor_past_either_end_reads_the_newest_page(browser, make_player):
    player = make_player(balance=10_000)
    legs = _grow(player, 3)
    client = browser(player)
    newest = AMOUNTS.findall(client.get(reverse("wallet")).content.decode())
    assert AMOUNTS.findall(client.get(reverse("wallet") + f"?after={legs[-1]}").content.decode()) == newest
    assert AMOUNTS.findall(client.get(reverse("wallet") + "?before=1").content.decode()) == newest


def test_the_german_statement_pages_in_german(browser, make_player, monkeypatch):
    monkeypatch.setattr(views, "STATEMENT_PAGE_SIZE", 5)
    player = make_player(balance=10_000)
    _grow(player, 12)
    client = browser(player)
    first = client.get(reverse("wallet"), **GERMAN).content.decode()
    assert "Ältere →" in first and "Older →" not in first and "Neuere" not in first
    second = client.get(reverse("wallet") + f"?{_link(first, 'next')}", **GERMAN).content.decode()
    assert "« Neueste" in second and "← Neuere" in second and "Ältere →" in second
    assert "Newest" not in second and "Newer" not in second
    refused = client.get(reverse("wallet") + "?before=x", **GERMAN).content.decode()
    assert "ganze Zahl" in refused and "« Neueste" in refused


def test_a_page_counts_nothing(browser, make_player):
    player = make_player(balance=10_000)
    legs = _grow(player, 60)
    client = browser(player)
    for query in ("", f"?before={legs[30]}", f"?after={legs[10]}"):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(reverse("wallet") + query).status_code == 200
        assert not [q["sql"] for q in queries if "COUNT(" in q["sql"].upper()]


@pytest.mark.parametrize("mine", [60, 500, 2_000])
def test_a_page_reads_a_page_of_legs_however_long_the_history(browser, make_player, mine):
    # With a Paginator, the page counted every leg of the player's wallet first; with the
    # wallet as an equality, PostgreSQL walked back through the other player's newer legs.
    require_postgres()
    player = make_player(balance=10_000)
    legs = _grow(player, mine)
    other = Account.objects.get(owner=make_player(balance=10_000), kind=Account.Kind.PLAYER_WALLET)
    with connection.cursor() as cursor:  # the rest of the casino: another player's 3,000 movements
        cursor.execute(
            "WITH t AS (INSERT INTO wallets_transaction"
            " (idempotency_key, fingerprint, kind, memo, created_at, mac, game) "
            "SELECT 'other-' || n, '', 'deposit', '', now(), '', '' FROM generate_series(1, 3000) AS n RETURNING id) "
            "INSERT INTO wallets_leg (transaction_id, account_id, side, amount) "
            "SELECT t.id, v.account, v.side, 100 FROM t CROSS JOIN (VALUES (%s, 'C'), (%s, 'D')) AS v(account, side)",
            [other.pk, house_bankroll().pk],
        )
        cursor.execute("ANALYZE wallets_leg")
        cursor.execute("ANALYZE wallets_transaction")
    client = browser(player)
    for query in ("", f"?before={legs[mine // 2]}", f"?after={legs[mine // 2]}", f"?before={legs[30]}"):
        before = {table: rows_read(table) for table in ("wallets_leg", "wallets_transaction")}
        assert client.get(reverse("wallet") + query).status_code == 200
        read = {table: rows_read(table) - n for table, n in before.items()}
        assert all(n < 200 for n in read.values()), (query, read)
