"""Caribbean Stud and the poker room number their tables and hands apart, so a Caribbean
table and hand and a poker table and hand can have the same ids: every filter, recall,
export and link of the auditors shows one game's transactions, never the other's."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.db import connection
from django.urls import reverse

from poker.models import PokerHand, PokerTable
from tests.factories import PokerTableFactory
from tests.poker.test_audit import play_with_a_fold, seat_three
from wallets.models import POKER_KINDS, Transaction

pytestmark = pytest.mark.django_db


def next_id_is(model, value: int) -> None:
    """The next row of ``model`` gets the id ``value`` (none of its rows exists yet)."""
    table = model._meta.db_table
    assert not model.objects.exists()
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT setval(pg_get_serial_sequence(%s, 'id'), %s, false)", [table, value])
        else:
            cursor.execute("DELETE FROM sqlite_sequence WHERE name = %s", [table])
            cursor.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)", [table, value - 1])


@pytest.fixture
def twins(table, make_player, play_hand):
    """Caribbean table "Nassau" and its hand, and a poker table and its hand of the same ids."""
    hand = play_hand([(make_player(50_000, "alice"), 100, True, "raise")])
    next_id_is(PokerTable, table.pk)
    poker_table = PokerTableFactory(name="Vegas Stud")
    players = seat_three(poker_table, make_player)
    next_id_is(PokerHand, hand.pk)
    poker_hand, _ = play_with_a_fold(poker_table, players)
    assert (poker_table.pk, poker_hand.pk) == (table.pk, hand.pk)
    caribbean = set(
        Transaction.objects.filter(table_ref=table.pk).exclude(kind__in=POKER_KINDS).values_list("pk", flat=True)
    )
    poker = set(Transaction.objects.filter(table_ref=table.pk, kind__in=POKER_KINDS).values_list("pk", flat=True))
    assert caribbean and poker  # both games posted at "the same" table
    return {
        "table": table.pk,
        "hand": hand.pk,
        "poker_table": poker_table,
        "caribbean": caribbean,
        "poker": poker,
        "caribbean_hand": set(
            Transaction.objects.filter(pk__in=caribbean, hand_ref=hand.pk).values_list("pk", flat=True)
        ),
        "poker_hand": set(Transaction.objects.filter(pk__in=poker, hand_ref=hand.pk).values_list("pk", flat=True)),
    }


def ledger(client, **params) -> list[dict]:
    response = client.get(reverse("api-auditor-ledger"), {**params, "limit": 500})
    assert response.status_code == 200, response.json()
    return response.json()["results"]


def test_the_api_filters_a_table_and_a_hand_of_one_game(twins, api, auditor):
    client = api(auditor)
    table, hand = twins["table"], twins["hand"]
    rows = ledger(client, game="caribbean", hand=hand)
    assert {r["transaction"] for r in rows} == twins["caribbean_hand"]
    assert {(r["game"], r["table_name"]) for r in rows} == {("caribbean", "Nassau")}
    rows = ledger(client, game="poker", hand=hand)
    assert {r["transaction"] for r in rows} == twins["poker_hand"]
    assert {(r["game"], r["kind"], r["table_name"]) for r in rows} == {("poker", "poker_hand", "Vegas Stud")}
    rows = ledger(client, game="caribbean", table=table)
    assert {r["transaction"] for r in rows} == twins["caribbean"]
    assert not {r["kind"] for r in rows} & set(POKER_KINDS)
    body = client.get(reverse("api-auditor-ledger"), {"game": "poker", "table": table}).json()
    assert {r["transaction"] for r in body["results"]} == twins["poker"]  # the buy-ins and the hand
    assert {r["table_name"] for r in body["results"]} == {"Vegas Stud"}
    assert (body["filters"]["game"], body["filters"]["table"]) == ("poker", table)
    everything = ledger(client)  # no table, no hand: both games, each row saying its own
    assert {r["game"] for r in everything if r["transaction"] in twins["poker"]} == {"poker"}
    assert {r["game"] for r in everything if r["transaction"] in twins["caribbean"]} == {"caribbean"}


@pytest.mark.parametrize("params", [{"hand": 1}, {"table": 1}, {"table": 1, "hand": 1, "game": ""}])
def test_a_table_or_hand_without_its_game_is_refused(params, twins, api, browser, auditor):
    response = api(auditor).get(reverse("api-auditor-ledger"), params)
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"code", "message", "extra"} and body["code"] == "game_required"
    assert "game" in body["extra"]["fields"] and "caribbean or poker" in body["message"]
    page = browser(auditor).get(reverse("staff-auditor-ledger"), params)
    assert page.status_code == 400 and "Say which game" in page.content.decode()
    assert browser(auditor).get(reverse("staff-auditor-ledger-csv"), params).status_code == 400
    refused = api(auditor).post(reverse("api-auditor-exports"), {"format": "csv", **params}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_export"
    assert refused.json()["extra"]["codes"]["game"] == "game_required"


def test_a_table_the_game_does_not_have_is_refused(twins, api, auditor):
    missing = PokerTable.objects.order_by("-pk").first().pk + 1
    body = api(auditor).get(reverse("api-auditor-ledger"), {"game": "poker", "table": missing}).json()
    assert body["code"] == "invalid_filters" and "table" in body["extra"]["fields"]
    body = api(auditor).get(reverse("api-auditor-ledger"), {"game": "chess"}).json()
    assert body["code"] == "invalid_filters" and "game" in body["extra"]["fields"]


def test_the_ledger_page_shows_one_games_table(twins, browser, auditor):
    client = browser(auditor)
    page = client.get(reverse("staff-auditor-ledger"), {"game": "poker", "table": twins["table"]})
    assert page.status_code == 200
    assert {t.pk for t in page.context["rows"]} == twins["poker"]
    html = page.content.decode()
    assert "Poker · Vegas Stud" in html and "Nassau" not in html
    assert reverse("staff-auditor-poker-hand", args=[twins["hand"]]) in html
    assert reverse("staff-auditor-hand", args=[twins["hand"]]) not in html
    # the page's export links keep the game
    assert f"?game=poker&amp;table={twins['table']}" in html


def test_each_recall_lists_its_own_games_transactions_and_links_to_them(twins, api, browser, auditor):
    hand = twins["hand"]
    recall = api(auditor).get(reverse("api-auditor-hand", args=[hand])).json()
    assert {t["transaction"] for t in recall["transactions"]} == twins["caribbean_hand"]
    assert {t["table_name"] for t in recall["transactions"]} == {"Nassau"}
    assert recall["verification"]["verified"], recall["verification"]
    page = browser(auditor).get(reverse("staff-auditor-hand", args=[hand]))
    assert {t.pk for t in page.context["recall"].transactions} == twins["caribbean_hand"]
    assert f"?game=caribbean&amp;hand={hand}" in page.content.decode()

    poker = api(auditor).get(reverse("api-auditor-poker-hand", args=[hand])).json()
    assert {t["transaction"] for t in poker["transactions"]} == twins["poker_hand"]
    assert {t["table_name"] for t in poker["transactions"]} == {"Vegas Stud"}
    page = browser(auditor).get(reverse("staff-auditor-poker-hand", args=[hand]))
    assert {t.pk for t in page.context["recall"].transactions} == twins["poker_hand"]
    assert f"?game=poker&amp;hand={hand}" in page.content.decode()
    # the links lead to the hand's own transactions
    linked = browser(auditor).get(reverse("staff-auditor-ledger") + f"?game=poker&hand={hand}")
    assert {t.pk for t in linked.context["rows"]} == twins["poker_hand"]


def test_the_exports_carry_the_game_and_filter_by_it(twins, api, auditor):
    client = api(auditor)
    response = client.get(reverse("api-auditor-ledger-csv"), {"game": "caribbean", "table": twins["table"]})
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode(), newline="")))
    assert {int(r["transaction"]) for r in rows} == twins["caribbean"] and {r["game"] for r in rows} == {"caribbean"}
    response = client.get(reverse("api-auditor-ledger-jsonl"), {"game": "poker", "hand": twins["hand"]})
    rows = [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]
    assert {r["transaction"] for r in rows} == twins["poker_hand"] and {r["game"] for r in rows} == {"poker"}
    manifest = client.get(reverse("api-auditor-export-manifest", args=[int(response["X-Export-Id"])])).json()
    assert (manifest["filters"]["game"], manifest["filters"]["hand"]) == ("poker", twins["hand"])
    everything = list(
        csv.DictReader(
            io.StringIO(b"".join(client.get(reverse("api-auditor-ledger-csv")).streaming_content).decode(), newline="")
        )
    )
    games = {int(r["transaction"]): r["game"] for r in everything}
    assert {games[t] for t in twins["poker"]} == {"poker"} and {games[t] for t in twins["caribbean"]} == {"caribbean"}
    assert {r["game"] for r in everything if r["kind"] == "deposit"} == {""}

    started = client.post(
        reverse("api-auditor-exports"),
        {"format": "csv", "game": "poker", "table": twins["table"]},
        format="json",
        HTTP_IDEMPOTENCY_KEY="poker-table",
    )
    assert started.status_code == 202, started.json()
    assert (started.json()["filters"]["game"], started.json()["filters"]["table"]) == ("poker", twins["table"])
