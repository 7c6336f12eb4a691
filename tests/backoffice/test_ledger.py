"""The ledger browser: transactions and their legs, filtered, paginated, newest first."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from backoffice.auditor import views as views_auditor
from wallets.models import Account, Leg, Transaction


def _ids(response) -> list[int]:
    return [row["transaction"] for row in response.json()["results"]]


def test_newest_first_and_paginated(casino_day, browser, auditor, monkeypatch):
    monkeypatch.setattr(views_auditor, "LEDGER_PAGE_SIZE", 5)
    client = browser(auditor)
    newest = list(Transaction.objects.order_by("-id").values_list("id", flat=True))
    first = client.get(reverse("staff-auditor-ledger"))
    assert [row.pk for row in first.context["rows"]] == newest[:5]
    assert f"before={newest[4]}" in first.content.decode() and "after=" not in first.content.decode()
    second = client.get(reverse("staff-auditor-ledger") + f"?kind=&before={newest[4]}")
    assert [row.pk for row in second.context["rows"]] == newest[5:10]
    back = client.get(reverse("staff-auditor-ledger") + f"?after={newest[5]}")
    assert [row.pk for row in back.context["rows"]] == newest[:5]
    assert client.get(reverse("staff-auditor-ledger") + "?offset=10").status_code == 400


def _walk(client, params) -> list[int]:
    """Every id of the ledger's pages, following the next links to the end."""
    ids, url, seen = [], reverse("api-auditor-ledger"), 0
    body = client.get(url, params).json()
    while True:
        ids += _ids_of(body)
        seen += 1
        assert seen < 100
        if not body["next"]:
            return ids
        body = client.get(body["next"]).json()


def _ids_of(body) -> list[int]:
    return [row["transaction"] for row in body["results"]]


def test_the_api_pages_by_cursor_both_ways_and_counts_nothing(casino_day, api, auditor):
    client = api(auditor)
    newest = list(Transaction.objects.order_by("-id").values_list("id", flat=True))
    assert _walk(client, {"limit": 3}) == newest
    first = client.get(reverse("api-auditor-ledger"), {"limit": 3}).json()
    assert "count" not in first and first["previous"] is None
    second = client.get(first["next"]).json()
    assert _ids_of(second) == newest[3:6]
    assert _ids_of(client.get(second["previous"]).json()) == newest[:3]
    alice = casino_day["alice"]
    touched = sorted(
        set(Leg.objects.filter(account__owner=alice).values_list("transaction_id", flat=True)), reverse=True
    )
    assert _walk(client, {"player": "alice", "limit": 2}) == touched
    bets = list(Transaction.objects.filter(kind="bet", id__in=touched).order_by("-id").values_list("id", flat=True))
    assert _walk(client, {"player": "alice", "kind": "bet", "limit": 1}) == bets


@pytest.mark.parametrize(
    "params,field,code",
    [
        ({"offset": "5"}, "offset", "offset_not_supported"),
        ({"offset": "x"}, "offset", "offset_invalid"),
        ({"before": "x"}, "before", "before_invalid"),
        ({"before": "9", "after": "3"}, "after", "invalid_page"),
        ({"after": "0"}, "after", "after_invalid"),
    ],
)
def test_a_bad_cursor_is_refused_with_its_field(params, field, code, casino_day, api, auditor):
    response = api(auditor).get(reverse("api-auditor-ledger"), params)
    assert response.status_code == 400
    assert response.json()["code"] == code and response.json()["extra"]["field"] == field
    assert api(auditor).get(reverse("api-auditor-ledger"), {"offset": "0"}).status_code == 200


def test_a_repeated_cursor_is_refused_as_on_every_page(casino_day, api, browser, auditor):
    newest = list(Transaction.objects.order_by("-id").values_list("id", flat=True))
    response = api(auditor).get(reverse("api-auditor-ledger"), {"before": [newest[0], newest[2]], "limit": 2})
    assert response.status_code == 400
    assert response.json()["code"] == "before_invalid" and response.json()["extra"] == {"field": "before"}
    page = browser(auditor).get(reverse("staff-auditor-ledger"), {"after": [newest[3], newest[2]]})
    assert page.status_code == 400 and "&#x27;after&#x27; is given once." in page.content.decode()


def test_rows_show_euros_and_link_to_the_hand_recall(casino_day, browser, auditor):
    hand = casino_day["hands"][0]
    page = browser(auditor).get(reverse("staff-auditor-ledger") + f"?game=caribbean&hand={hand.pk}").content.decode()
    assert reverse("staff-auditor-hand", args=[hand.pk]) in page
    # the royal flush's prize: the meter (seed + 70 % of two chips) to alice's wallet
    assert "+€10,000.70" in page and "\u2212€10,000.70" in page
    # each transaction's kind in words, its code kept in the title
    assert '<span class="kind kind-jackpot_prize" title="jackpot_prize">Jackpot prize paid</span>' in page
    german = browser(auditor).get(
        reverse("staff-auditor-ledger") + f"?game=caribbean&hand={hand.pk}", HTTP_ACCEPT_LANGUAGE="de"
    )
    assert 'title="jackpot_prize">Jackpot-Gewinn ausgezahlt</span>' in german.content.decode()


def test_the_api_filters_by_hand_table_kind_and_player(casino_day, api, auditor):
    client = api(auditor)
    alice = casino_day["alice"]
    hand = casino_day["hands"][0]
    other = casino_day["tables"][1]

    by_hand = client.get(reverse("api-auditor-ledger"), {"game": "caribbean", "hand": hand.pk, "limit": 500})
    assert sorted(_ids(by_hand)) == list(
        Transaction.objects.filter(hand_ref=hand.pk).order_by("id").values_list("id", flat=True)
    )
    assert by_hand.json()["filters"]["hand"] == hand.pk

    by_table = client.get(reverse("api-auditor-ledger"), {"game": "caribbean", "table": other.pk, "limit": 500})
    assert set(_ids(by_table)) == set(Transaction.objects.filter(table_ref=other.pk).values_list("id", flat=True))
    assert all(row["table_name"] == "Bridgetown" for row in by_table.json()["results"])

    prizes = client.get(reverse("api-auditor-ledger"), {"kind": "jackpot_prize"})
    assert {row["kind"] for row in prizes.json()["results"]} == {"jackpot_prize"} and len(prizes.json()["results"]) == 3

    touched = set(Leg.objects.filter(account__owner=alice).values_list("transaction_id", flat=True))
    for text in ("alice", "ALICE", str(alice.pk)):
        rows = client.get(reverse("api-auditor-ledger"), {"player": text, "limit": 500}).json()["results"]
        assert {row["transaction"] for row in rows} == touched
    # a player filter keeps whole transactions: every one still balances
    for row in rows:
        assert sum(int(leg["amount"].replace(".", "")) for leg in row["legs"]) == 0


def test_the_date_range_is_inclusive_whole_days(casino_day, api, auditor):
    client = api(auditor)
    today = timezone.localdate()
    everything = Transaction.objects.count()
    assert len(_walk(client, {"date_from": today, "date_to": today, "limit": 1000})) == everything
    assert _walk(client, {"date_from": today + timedelta(days=1)}) == []
    assert _walk(client, {"date_to": today - timedelta(days=1)}) == []


@pytest.mark.parametrize(
    "params,field",
    [
        ({"player": "nobody"}, "player"),
        ({"date_from": "2026-02-03", "date_to": "2026-02-01"}, "date_to"),
        ({"kind": "gift"}, "kind"),
        ({"hand": "x"}, "hand"),
    ],
)
def test_invalid_filters_are_refused_with_their_field(params, field, casino_day, api, browser, auditor):
    response = api(auditor).get(reverse("api-auditor-ledger"), params)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_filters" and field in body["extra"]["fields"]
    assert browser(auditor).get(reverse("staff-auditor-ledger"), params).status_code == 400


def test_legs_carry_account_owner_side_and_signed_amount(casino_day, api, auditor):
    alice = casino_day["alice"]
    rows = api(auditor).get(reverse("api-auditor-ledger"), {"kind": "deposit", "player": "alice"}).json()["results"]
    (deposit,) = rows
    wallet = Account.objects.get(owner=alice, kind=Account.Kind.PLAYER_WALLET)
    assert {
        "account": wallet.code,
        "account_kind": "player_wallet",
        "owner": "alice",
        "side": "C",
        "amount": "5000.00",
    }.items() <= next(leg for leg in deposit["legs"] if leg["account"] == wallet.code).items()
    assert deposit["mac"] == Transaction.objects.get(pk=deposit["transaction"]).mac


def _grow_ledger(player, count: int) -> None:
    """``count`` balanced transactions from the house to ``player``'s wallet and as many
    between house accounts, then the planner's statistics."""
    from django.db import connection, transaction

    from wallets.services import house_bankroll

    house = house_bankroll()
    other = Account.objects.create(code="grow:other", kind=Account.Kind.HOUSE, name="Other")
    wallet = Account.objects.get(owner=player, kind=Account.Kind.PLAYER_WALLET)
    with transaction.atomic():
        txns = Transaction.objects.bulk_create(
            Transaction(idempotency_key=f"grow:{n}", fingerprint="x", kind="bankroll" if n % 2 else "deposit")
            for n in range(2 * count)
        )
        Leg.objects.bulk_create(
            leg
            for n, t in enumerate(txns)
            for leg in (
                Leg(transaction=t, account=house, side="D", amount=10),
                Leg(transaction=t, account=wallet if n % 2 == 0 else other, side="C", amount=10),
            )
        )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE wallets_leg")
        cursor.execute("ANALYZE wallets_transaction")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("filters", ["player", "kind", "none"])
def test_a_ledger_page_reads_a_page_among_thousands_of_transactions(filters, make_player):
    from tests.conftest import require_postgres
    from tests.plans import read_in_any_plan
    from wallets.selectors import LedgerFilters, ledger_page

    require_postgres()
    player = make_player(balance=1_000)
    _grow_ledger(player, 3000)
    chosen = {"player": LedgerFilters(player=player), "kind": LedgerFilters(kind="deposit"), "none": LedgerFilters()}[
        filters
    ]
    newest = list(
        Transaction.objects.filter(id__in=[t.pk for t in ledger_page(filters=chosen, limit=10_000).rows])
        .order_by("-id")
        .values_list("id", flat=True)
    )
    for table in ("wallets_transaction", "wallets_leg"):
        got, read = read_in_any_plan(lambda: [t.pk for t in ledger_page(filters=chosen, limit=50).rows], table)
        assert got == newest[:50]
        assert read < 15 * 50, f"a page of 50 read {read} rows of {table}"  # among 6,000 transactions, 12,000 legs
        older, read = read_in_any_plan(
            lambda: [t.pk for t in ledger_page(filters=chosen, limit=50, before=newest[999]).rows], table
        )
        assert older == newest[1000:1050]
        assert read < 15 * 50, f"a page deep in the ledger read {read} rows of {table}"


def test_the_pools_reconciliation_names_each_kind_of_movement_in_words(casino_day, browser, auditor):
    page = browser(auditor).get(reverse("staff-auditor-integrity")).content.decode()
    assert "in · Jackpot bets taken" in page and "out · Jackpot prize paid" in page
    assert "in · jackpot_contribution" not in page
