"""The auditor's side of the poker room: hand recall with mucked and folded
cards, the hands list, rake per table and day against the ledger, the hand-record exports
and their manifests, and the reconciliation page."""

from __future__ import annotations

import hashlib
import html
import json
import random
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from backoffice.models import ExportJob
from casino.access.roles import CASHIER
from casino.cents import parse_cents
from casino.money import money
from casino.stud.bots import get_strategy
from casino.stud.engine import Action, verify_record
from poker import replay
from poker.models import PokerHand, PokerTable
from poker.presentation import shown_hand_name
from poker.selectors import stud_hand_name
from poker.services import poker_act, poker_hand_cancel, poker_hand_start, poker_sit
from tests.poker.helpers import play_out, seats_of
from wallets.models import Account, Leg, Transaction
from wallets.services import ledger_post

pytestmark = pytest.mark.django_db

GERMAN = {"HTTP_ACCEPT_LANGUAGE": "de"}


def hold(table):
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))


def seat_three(table, make_player):
    players = [make_player(username=name) for name in ("ann", "ben", "cat")]
    hold(table)
    for p in players:
        poker_sit(user=p, table_id=table.pk)
    return players


def play_with_a_fold(table, players, *, seed: int = 3) -> tuple[PokerHand, int]:
    """Deal one hand; the first seat that may fold after the bring-in folds, the others call down."""
    hand = poker_hand_start(table_id=table.pk)
    users = seats_of(hand, players)
    calling = get_strategy("calling_station")
    rng = random.Random(seed)
    folder = None
    for _ in range(200):
        hand.refresh_from_db()
        if not hand.is_live:
            break
        state = replay.hand_state(hand)
        legal = state.legal()
        if (
            folder is None
            and "fold" in legal.actions
            and state.to_act is not None
            and any(e.get("action") == "bring_in" for e in state.events if e["type"] == "action")
        ):
            folder = state.to_act
            action = Action("fold")
        else:
            action = calling(state, rng)
        poker_act(user=users[state.to_act], table_id=table.pk, hand_id=hand.pk, action=action.kind, amount=action.to)
    hand.refresh_from_db()
    assert hand.state == PokerHand.State.ENDED and folder is not None
    return hand, folder


@pytest.fixture
def played(poker_table, make_player):
    players = seat_three(poker_table, make_player)
    hand, folder = play_with_a_fold(poker_table, players)
    hold(poker_table)
    return poker_table, players, hand, folder


def down_cards(record, seat):
    return [e["card"] for e in record["events"] if e["type"] == "deal" and e["seat"] == seat and not e["up"]]


# --------------------------------------------------------------------------- recall


def test_the_auditor_recalls_every_card_of_a_hand_with_a_fold_and_a_muck(played, browser, auditor, api):
    table, players, hand, folder = played
    record = hand.record
    page = browser(auditor).get(reverse("staff-auditor-poker-hand", args=[hand.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    # The folded seat's down cards are on the page (players never see them).
    folded = down_cards(record, folder)
    assert len(folded) == 2
    for code in folded:
        assert f'data-card="{code}"' in html
    # Every down card of every seat, and every burn, as dealt.
    for seat in hand.seats:
        for code in down_cards(record, seat["seat"]):
            assert f'data-card="{code}"' in html
    for burn in (e["card"] for e in record["events"] if e["type"] == "burn"):
        assert f"<code>{burn}</code>" in html
    assert hand.server_seed in html and "✓ Verified on the server" in html

    body = api(auditor).get(reverse("api-auditor-poker-hand", args=[hand.pk])).json()
    assert body["verified"] is True and all(c["ok"] for c in body["checks"])
    seats = {s["seat"]: s for s in body["seats"]}
    assert [c["card"] for c in seats[folder]["cards"] if not c["up"]] == folded
    assert seats[folder]["folded_on"] is not None
    assert body["server_seed"] == hand.server_seed
    assert body["rake"] == record["rake"] and body["pots"][0]["amount"] == record["pots"][0]["amount"]
    actions = [a for st in body["streets"] for a in st["actions"]]
    assert any(a["seat"] == folder and a["action"] == "fold" for a in actions)
    assert sum(1 for st in body["streets"] for a in st["actions"] if a["action"] == "ante") == 3
    # A loser at showdown who did not show is recalled as mucked, with the cards.
    mucked = [h for h in record["showdown"] if not h["shown"]]
    for h in mucked:
        assert seats[h["seat"]]["showdown"] == "mucked" and seats[h["seat"]]["category"] == h["category"]
    # The player view of the same hand hides the folded cards: the auditor's is the only full one.
    winner = next(u for u in players if u.username == next(s["player"] for s in hand.seats if s["seat"] != folder))
    mine = browser(winner).get(reverse("poker-hand", args=[hand.pk])).content.decode()
    assert all(f'data-card="{code}"' not in mine for code in folded)


def test_an_auditor_reads_a_recalled_poker_hand_in_german(played, browser, auditor, api):
    table, players, hand, folder = played
    url = reverse("staff-auditor-poker-hand", args=[hand.pk])
    page = html.unescape(browser(auditor).get(url, **GERMAN).content.decode())
    showdown = hand.record["showdown"]
    with translation.override("de"):
        german_names = [shown_hand_name(h["category"], h["best_five"]) for h in showdown]
    english_names = [stud_hand_name(h["category"], h["best_five"]) for h in showdown]
    for german, english in zip(german_names, english_names, strict=True):
        assert f"<td>{german}</td>" in page and f"<td>{english[0].upper() + english[1:]}</td>" not in page
    for street in ("Third Street", "Fourth Street", "Fifth Street", "Sixth Street", "Seventh Street (River)"):
        assert f"<h3>{street}</h3>" in page
    for german in (
        "vor den Antes gespeichertes Commitment",
        "Die Stud-Engine hat das Deck der Seeds ausgegeben",
        "gespeicherten Aktionen des Raums ergeben beim Nachspielen das gespeicherte Protokoll",
        "Ergebnisse zusammen",
        "bucht jedes Ergebnis auf seinen Stack",
    ):
        assert german in page
    for english in (
        "3rd street",
        "4th street",
        "<h3>River</h3>",
        "commitment stored before the antes",
        "The stud engine dealt",
        "stored actions replay",
        "results sum to",
        "posts each result",
    ):
        assert english not in page

    english_page = html.unescape(browser(auditor).get(url).content.decode())
    assert "<h3>Third street</h3>" in english_page and "<h3>Seventh street</h3>" in english_page
    assert all(f"<td>{name[0].upper() + name[1:]}</td>" in english_page for name in english_names)
    assert "The stud engine dealt the seeds' deck" in english_page

    # The API answers in the requester's language; the checks' names and the actions stay.
    body = api(auditor).get(reverse("api-auditor-poker-hand", args=[hand.pk]), **GERMAN).json()
    assert [c["name"] for c in body["checks"]] == ["commitment", "replay", "stored_actions", "chips", "ledger"]
    assert body["streets"][0]["title"] == "Third Street" and body["streets"][-1]["title"] == "Seventh Street (River)"
    named = {s["seat"]: s["hand_name"] for s in body["seats"] if s["showdown"]}
    assert named == {h["seat"]: name for h, name in zip(showdown, german_names, strict=True)}
    checks = {c["name"]: c for c in body["checks"]}
    assert checks["replay"]["detail"].startswith("Die Stud-Engine")


def test_live_and_cancelled_hands_read_german_to_a_german_auditor(poker_table, make_player, browser, auditor, api):
    seat_three(poker_table, make_player)
    hand = poker_hand_start(table_id=poker_table.pk)
    url = reverse("api-auditor-poker-hand", args=[hand.pk])
    checks = api(auditor).get(url, **GERMAN).json()["checks"]
    assert [(c["name"], c["label"], c["ok"]) for c in checks] == [("over", "Hand vorbei", None)]
    assert checks[0]["detail"] == "Noch im Spiel: Der Server-Seed und die verdeckten Karten bleiben verborgen."
    poker_hand_cancel(hand_id=hand.pk, reason="test: the server stopped")
    checks = api(auditor).get(url, **GERMAN).json()["checks"]
    assert [(c["name"], c["label"], c["ok"]) for c in checks] == [("cancelled", "Storniert, nichts gebucht", True)]
    page = html.unescape(
        browser(auditor).get(reverse("staff-auditor-poker-hand", args=[hand.pk]), **GERMAN).content.decode()
    )
    assert "Keine Abrechnung im Hauptbuch: Jeder Chip blieb in seinem Stack." in page
    assert "No settlement in the ledger" not in page and "Cancelled, nothing posted" not in page


def test_a_forged_record_fails_the_recall_checks(played, api, auditor):
    table, players, hand, folder = played
    record = json.loads(json.dumps(hand.record))
    first = next(e for e in record["events"] if e["type"] == "deal" and not e["up"])
    first["card"] = "As" if first["card"] != "As" else "Kd"
    PokerHand.objects.filter(pk=hand.pk).update(record=record)
    replay.forget_all()
    body = api(auditor).get(reverse("api-auditor-poker-hand", args=[hand.pk])).json()
    checks = {c["name"]: c["ok"] for c in body["checks"]}
    assert body["verified"] is False and checks["replay"] is False and checks["stored_actions"] is False
    assert checks["commitment"] is True


def test_a_live_hand_withholds_down_cards_and_the_server_seed(poker_table, make_player, api, auditor):
    players = seat_three(poker_table, make_player)
    hand = poker_hand_start(table_id=poker_table.pk)
    body = api(auditor).get(reverse("api-auditor-poker-hand", args=[hand.pk])).json()
    assert body["server_seed"] is None and body["record"] is None
    cards = [c for s in body["seats"] for c in s["cards"]]
    assert cards and all(c["card"] is None for c in cards if not c["up"])
    assert all(c["card"] for c in cards if c["up"])
    assert [c["ok"] for c in body["checks"]] == [None]
    assert len(players) == 3


def test_live_and_cancelled_hands_are_recalled_as_such(poker_table, make_player, browser, auditor, api):
    seat_three(poker_table, make_player)
    hand = poker_hand_start(table_id=poker_table.pk)
    page = browser(auditor).get(reverse("staff-auditor-poker-hand", args=[hand.pk])).content.decode()
    assert "still in play" in page and hand.server_seed not in page
    live = api(auditor).get(reverse("api-auditor-poker-hands"), {"state": "live"}).json()
    assert [r["hand"] for r in live["results"]] == [hand.pk]
    assert browser(auditor).get(reverse("staff-auditor-poker-hand-text", args=[hand.pk])).status_code == 404
    poker_hand_cancel(hand_id=hand.pk, reason="test: the server stopped")
    body = api(auditor).get(reverse("api-auditor-poker-hand", args=[hand.pk])).json()
    assert body["state"] == "cancelled" and body["server_seed"] is None and body["transactions"] == []
    assert [(c["name"], c["ok"]) for c in body["checks"]] == [("cancelled", True)]
    page = browser(auditor).get(reverse("staff-auditor-poker-hand", args=[hand.pk])).content.decode()
    assert "Cancelled" in page and "test: the server stopped" in page
    assert api(auditor).get(reverse("api-auditor-poker-hands"), {"state": "live"}).json()["results"] == []


def test_the_hands_list_filters_by_table_and_links_the_recall(played, make_poker_table, browser, auditor, api):
    table, players, hand, folder = played
    other = make_poker_table(game="five_stud", preset="1-2")
    page = browser(auditor).get(reverse("staff-auditor-poker-hands"), {"table": table.pk})
    assert page.status_code == 200
    assert reverse("staff-auditor-poker-hand", args=[hand.pk]) in page.content.decode()
    empty = browser(auditor).get(reverse("staff-auditor-poker-hands"), {"table": other.pk}).content.decode()
    assert reverse("staff-auditor-poker-hand", args=[hand.pk]) not in empty
    today = timezone.localdate()
    later = browser(auditor).get(
        reverse("staff-auditor-poker-hands"), {"date_from": (today + timedelta(days=1)).isoformat()}
    )
    assert reverse("staff-auditor-poker-hand", args=[hand.pk]) not in later.content.decode()
    bad = browser(auditor).get(
        reverse("staff-auditor-poker-hands"),
        {"date_from": today.isoformat(), "date_to": (today - timedelta(days=1)).isoformat()},
    )
    assert bad.status_code == 400
    listed = api(auditor).get(reverse("api-auditor-poker-hands"), {"table": table.pk}).json()
    assert [r["hand"] for r in listed["results"]] == [hand.pk]
    refused = api(auditor).get(reverse("api-auditor-poker-hands"), {"table": "x"})
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_filters"
    assert api(auditor).get(reverse("api-auditor-poker-hand", args=[10**9])).status_code == 404


@pytest.mark.parametrize(
    "name",
    [
        "staff-auditor-poker-hands",
        "staff-auditor-poker-rake",
        "staff-auditor-poker-reconciliation",
        "staff-auditor-poker-jsonl",
        "staff-auditor-poker-pokerstars",
    ],
)
def test_players_and_cashiers_are_refused_the_poker_audit_pages(name, played, browser, make_user):
    table, players, hand, folder = played
    for user in (players[0], make_user(CASHIER, "desk")):
        assert browser(user).get(reverse(name)).status_code == 403
    assert browser().get(reverse(name)).status_code == 302
    assert not ExportJob.objects.exists()


def test_players_and_cashiers_are_refused_the_poker_audit_api_and_recall(played, browser, api, make_user):
    table, players, hand, folder = played
    for user in (players[0], make_user(CASHIER, "desk")):
        assert browser(user).get(reverse("staff-auditor-poker-hand", args=[hand.pk])).status_code == 403
        assert browser(user).get(reverse("staff-auditor-poker-hand-text", args=[hand.pk])).status_code == 403
        for url in (
            reverse("api-auditor-poker-hand", args=[hand.pk]),
            reverse("api-auditor-poker-rake"),
            reverse("api-auditor-poker-jsonl"),
            reverse("api-auditor-poker-reconciliation"),
        ):
            response = api(user).get(url)
            assert response.status_code == 403 and response.json()["code"]
        refused = api(user).post(reverse("api-auditor-poker-export-request"), {"format": "jsonl"}, format="json")
        assert refused.status_code == 403
        assert browser(user).post(reverse("staff-auditor-poker-export-request"), {"format": "jsonl"}).status_code == 403
    assert not ExportJob.objects.exists()
    assert api().get(reverse("api-auditor-poker-hand", args=[hand.pk])).status_code == 401


# --------------------------------------------------------------------------- rake


def test_rake_report_totals_equal_the_rake_accounts_ledger_balances(
    poker_table, make_poker_table, make_player, browser, auditor, api
):
    second = make_poker_table(game="five_stud", preset="1-2")
    players = seat_three(poker_table, make_player)
    hands = []
    for seed in range(2):
        hand = poker_hand_start(table_id=poker_table.pk)
        hands.append(play_out(hand, seats_of(hand, players), strategy="calling_station", seed=seed))
        hold(poker_table)
    others = [make_player(username=n) for n in ("dan", "eve")]
    hold(second)
    for p in others:
        poker_sit(user=p, table_id=second.pk)
    hand = poker_hand_start(table_id=second.pk)
    hands.append(play_out(hand, seats_of(hand, others), strategy="calling_station"))
    expected = {t.pk: Account.objects.get(pk=t.rake_account_id).balance for t in (poker_table, second)}
    assert all(expected.values()), "each table raked something (showdowns)"
    assert sum(expected.values()) == sum(h.rake for h in hands)

    body = api(auditor).get(reverse("api-auditor-poker-rake")).json()
    by_table = {t["row"]["table_id"]: t for t in body["by_table"]}
    for table_id, balance in expected.items():
        assert by_table[table_id]["row"]["rake"] == f"{balance // 100}.{balance % 100:02d}"
        assert by_table[table_id]["balance_ok"] is True and by_table[table_id]["row"]["ok"] is True
    total = sum(expected.values())
    assert body["total"]["rake"] == body["balance"] == f"{total // 100}.{total % 100:02d}"
    today = timezone.localdate().isoformat()
    assert {r["day"] for r in body["rows"]} == {today}

    page = browser(auditor).get(reverse("staff-auditor-poker-rake"))
    html = page.content.decode()
    assert page.status_code == 200 and f'id="rake-total" data-rake="{total}"' in html
    assert f"€{total // 100}.{total % 100:02d}" in html  # the money filter

    # A range without these days: nothing; a range with today: the same totals, not checked against the balance.
    yesterday = (timezone.localdate() - timedelta(days=1)).isoformat()
    none = api(auditor).get(reverse("api-auditor-poker-rake"), {"date_from": yesterday, "date_to": yesterday}).json()
    assert none["total"]["rake"] == "0.00" and none["rows"] == []
    ranged = api(auditor).get(reverse("api-auditor-poker-rake"), {"date_from": today, "date_to": today}).json()
    assert ranged["total"]["rake"] == body["total"]["rake"] and ranged["whole_ledger"] is False
    one = api(auditor).get(reverse("api-auditor-poker-rake"), {"table": second.pk}).json()
    assert [t["row"]["table_id"] for t in one["by_table"]] == [second.pk]


# --------------------------------------------------------------------------- exports


def test_jsonl_export_manifest_matches_the_bytes_and_the_rows(played, browser, auditor):
    table, players, hand, folder = played
    # A second ended hand, and a live one that the export must leave out.
    hand2 = poker_hand_start(table_id=table.pk)
    hand2 = play_out(hand2, seats_of(hand2, players), strategy="calling_station")
    live = poker_hand_start(table_id=table.pk)
    client = browser(auditor)
    response = client.get(reverse("staff-auditor-poker-jsonl"), {"table": table.pk})
    assert response.status_code == 200 and response["Content-Type"].startswith("application/x-ndjson")
    body = b"".join(response.streaming_content)
    job = ExportJob.objects.get(pk=int(response["X-Export-Id"]))
    assert job.subject == ExportJob.Subject.POKER_HANDS and job.status == ExportJob.Status.DONE
    manifest = json.loads(client.get(reverse("staff-auditor-export-manifest", args=[job.pk])).content)
    lines = body.decode().splitlines()
    assert manifest["sha256"] == hashlib.sha256(body).hexdigest() == job.sha256
    assert manifest["bytes"] == len(body) and manifest["row_count"] == len(lines) == 2
    assert manifest["filters"]["table"] == table.pk and manifest["format"] == "jsonl"
    rows = [json.loads(line) for line in lines]
    assert [r["hand"] for r in rows] == [hand.pk, hand2.pk] and live.pk not in {r["hand"] for r in rows}
    assert rows[0]["record"] == hand.record and rows[0]["table"] == table.name
    verify_record(rows[0]["record"])  # an outside verifier replays the row's record
    assert manifest["hand_totals"]["rake"] == f"{(hand.rake + hand2.rake) / 100:.2f}"
    # The register lists it, with its manifest.
    register = client.get(reverse("staff-auditor-exports")).content.decode()
    assert "Poker hand records" in register and reverse("staff-auditor-export-manifest", args=[job.pk]) in register
    tomorrow = (timezone.localdate() + timedelta(days=1)).isoformat()
    none = client.get(reverse("staff-auditor-poker-jsonl"), {"date_from": tomorrow})
    assert b"".join(none.streaming_content) == b""
    empty = ExportJob.objects.get(pk=int(none["X-Export-Id"])).manifest
    assert (
        empty["row_count"] == 0
        and empty["sha256"] == hashlib.sha256(b"").hexdigest()
        and empty["filters"]["date_from"] == tomorrow
    )
    detail = client.get(reverse("staff-auditor-export", args=[job.pk])).content.decode()
    assert manifest["sha256"] in detail and "Hands, pots and rake per table" in detail and table.name in detail


def test_pokerstars_export_shows_every_hand_with_every_card(played, browser, api, auditor):
    table, players, hand, folder = played
    response = api(auditor).get(reverse("api-auditor-poker-pokerstars"))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    body = b"".join(response.streaming_content)
    text = body.decode()
    assert text.count("PokerStars Hand #") == 1
    for code in down_cards(hand.record, folder):
        assert code in text  # the folded seat's hole cards: the auditor's view
    manifest = api(auditor).get(reverse("api-auditor-export-manifest", args=[int(response["X-Export-Id"])]))
    data = json.loads(b"".join(manifest.streaming_content) if manifest.streaming else manifest.content)
    assert data["sha256"] == hashlib.sha256(body).hexdigest() and data["bytes"] == len(body) and data["row_count"] == 1
    detail = api(auditor).get(reverse("api-auditor-export", args=[data["export"]])).json()
    assert detail["subject"] == "poker_hands" and detail["manifest"]["sha256"] == data["sha256"]
    single = browser(auditor).get(reverse("staff-auditor-poker-hand-text", args=[hand.pk]))
    assert single.status_code == 200 and single.content.decode().strip() == text.strip()


def test_an_export_with_bad_filters_is_refused_and_registers_nothing(played, browser, api, auditor):
    response = api(auditor).get(reverse("api-auditor-poker-jsonl"), {"date_from": "yesterday"})
    assert response.status_code == 400 and response.json()["code"] == "invalid_filters"
    assert browser(auditor).get(reverse("staff-auditor-poker-jsonl"), {"table": "nope"}).status_code == 400
    assert not ExportJob.objects.exists()
    # A ledger file export cannot ask for the poker formats.
    refused = api(auditor).post(reverse("api-auditor-exports"), {"format": "pokerstars"}, format="json")
    assert refused.status_code == 400 and not ExportJob.objects.exists()


# --------------------------------------------------------------------------- reconciliation


def test_reconciliation_page_shows_a_tampered_ledger(played, browser, auditor, api):
    table, players, hand, folder = played
    page = browser(auditor).get(reverse("staff-auditor-poker-reconciliation"))
    assert page.status_code == 200 and "✓ Every poker table reconciles." in page.content.decode()
    assert (
        reverse("staff-auditor-poker-reconciliation") in browser(auditor).get(reverse("staff-auditor")).content.decode()
    )
    # Tamper: an extra settlement of this hand moves a euro from the rake to a player's stack.
    seat = table.seats.select_related("account").first()
    rake = Account.objects.get(pk=table.rake_account_id)
    ledger_post(
        kind=Transaction.Kind.POKER_HAND,
        idempotency_key="tamper:1",
        postings=[(seat.account, 100), (rake, -100)],
        memo="forged",
        table_ref=table.pk,
        hand_ref=hand.pk,
        game="poker",
    )
    html = browser(auditor).get(reverse("staff-auditor-poker-reconciliation")).content.decode()
    assert "✗ Some poker tables do not reconcile" in html
    assert f"hand {hand.number} is settled 2 times" in html
    assert f"seat {seat.number}: stack" in html and "but its account holds" in html
    body = api(auditor).get(reverse("api-auditor-poker-reconciliation")).json()
    assert body["ok"] is False and body["results"][0]["problems"]
    assert Leg.objects.filter(transaction__memo="forged").count() == 2


def test_the_ledger_links_a_poker_settlement_to_the_poker_recall(played, browser, auditor):
    table, players, hand, folder = played
    html = (
        browser(auditor)
        .get(reverse("staff-auditor-ledger"), {"game": "poker", "hand": hand.pk, "kind": "poker_hand"})
        .content.decode()
    )
    assert reverse("staff-auditor-poker-hand", args=[hand.pk]) in html
    assert reverse("staff-auditor-hand", args=[hand.pk]) not in html and f"Poker · {table.name}" in html


@pytest.fixture
def background_exports(settings, tmp_path, monkeypatch):
    """File exports to a temporary MEDIA_ROOT; their task runs in the test, after commit."""
    from casino.celery import app

    settings.MEDIA_ROOT = str(tmp_path / "media")
    monkeypatch.setitem(app.conf, "task_always_eager", True)
    return tmp_path / "media" / "exports"


def test_a_file_export_of_the_hands_in_the_background_with_its_manifest(
    played, background_exports, api, browser, auditor, django_capture_on_commit_callbacks
):
    table, players, hand, folder = played
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = api(auditor).post(
            reverse("api-auditor-poker-export-request"),
            {"format": "pokerstars", "table": table.pk},
            format="json",
            HTTP_IDEMPOTENCY_KEY="poker-file-1",
        )
    assert response.status_code == 202 and len(callbacks) == 1, response.content
    job = ExportJob.objects.get(pk=response.json()["id"])
    assert (
        job.subject == ExportJob.Subject.POKER_HANDS
        and job.mode == ExportJob.Mode.FILE
        and job.status == ExportJob.Status.DONE
    )
    data = (background_exports / job.file_name).read_bytes()
    manifest = json.loads((background_exports / f"{job.file_name}.manifest.json").read_bytes())
    assert manifest["sha256"] == hashlib.sha256(data).hexdigest() == job.sha256 and manifest["bytes"] == len(data)
    assert manifest["row_count"] == job.rows_written == 1 and data.decode().count("PokerStars Hand #") == 1
    download = browser(auditor).get(reverse("staff-auditor-export-download", args=[job.pk]))
    assert b"".join(download.streaming_content) == data
    # The page's form starts one too; a bad format is refused and registers nothing.
    with django_capture_on_commit_callbacks(execute=True):
        page = browser(auditor).post(reverse("staff-auditor-poker-export-request"), {"format": "jsonl"})
    assert page.status_code == 302 and ExportJob.objects.count() == 2
    lines = (background_exports / ExportJob.objects.latest("pk").file_name).read_bytes().decode().splitlines()
    assert [json.loads(line)["hand"] for line in lines] == [hand.pk]
    refused = api(auditor).post(reverse("api-auditor-poker-export-request"), {"format": "csv"}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_export" and ExportJob.objects.count() == 2


def test_the_dashboard_recalls_a_poker_hand_by_number(played, browser, auditor):
    table, players, hand, folder = played
    client = browser(auditor)
    assert 'id="poker_hand"' in client.get(reverse("staff-auditor")).content.decode()
    found = client.get(reverse("staff-auditor-poker-hand-lookup"), {"hand": hand.pk})
    assert found.status_code == 302 and found["Location"] == reverse("staff-auditor-poker-hand", args=[hand.pk])
    for bad in (10**9, "x", ""):
        missing = client.get(reverse("staff-auditor-poker-hand-lookup"), {"hand": bad})
        assert missing.status_code == 302 and missing["Location"] == reverse("staff-auditor")


@pytest.mark.parametrize("game,preset", [("five_stud", "1-2"), ("soko", "2-4"), ("seven_stud", "1-3")])
def test_every_game_is_recalled_verified_street_by_street(game, preset, make_poker_table, make_player, api, auditor):
    table = make_poker_table(game=game, preset=preset)
    players = seat_three(table, make_player)
    hand = poker_hand_start(table_id=table.pk)
    hand = play_out(hand, seats_of(hand, players), strategy="random_legal", seed=11)
    body = api(auditor).get(reverse("api-auditor-poker-hand", args=[hand.pk])).json()
    assert body["verified"] is True, body["checks"]
    dealt = sorted(c["card"] for s in body["seats"] for c in s["cards"])
    in_record = sorted(e["card"] for e in hand.record["events"] if e["type"] == "deal")
    assert dealt == in_record and None not in dealt
    first = 2 if game != "seven_stud" else 3
    assert body["streets"][0]["number"] == first
    assert sum(s["won"] != "0.00" for s in body["seats"]) >= 1
    assert (
        sum(int(a["amount"].replace(".", "")) for a in body["awards"]) + int(body["rake"].replace(".", ""))
        == hand.pot_total
    )


# --------------------------------------------------------------------------- a player's page


def test_the_auditors_player_page_shows_poker_hands_and_the_chips_at_the_tables(
    poker_table, make_player, browser, auditor, api
):
    """An auditor looking at a player sees their poker hands (newest first, each with its
    net, one click from its recall) and counts the chips they hold at poker tables in
    their total; another player's hands are not listed."""
    players = seat_three(poker_table, make_player)
    ann = players[0]
    hands = []
    for seed in range(2):
        hand = poker_hand_start(table_id=poker_table.pk)
        hands.append(play_out(hand, seats_of(hand, players), strategy="calling_station", seed=seed))
        hold(poker_table)
    stranger = make_player(username="zed")
    page = browser(auditor).get(reverse("staff-auditor-player", args=[ann.pk])).content.decode()
    links = [reverse("staff-auditor-poker-hand", args=[h.pk]) for h in reversed(hands)]
    assert all(f'href="{link}"' in page for link in links)
    assert page.index(links[0]) < page.index(links[1])  # newest first
    for hand in hands:
        seat = next(s["seat"] for s in hand.seats if s["user_id"] == ann.pk)
        assert money(parse_cents(hand.record["net"][str(seat)]), signed=True) in page  # the record's net
    stack = Account.objects.get(code=f"poker_stack:{poker_table.pk}:{ann.pk}").balance
    assert stack > 0
    assert f"<dt>At poker tables</dt><dd>{money(stack)}</dd>" in page
    wallet = Account.objects.get(owner=ann, kind=Account.Kind.PLAYER_WALLET).balance
    assert f"<dt>Total</dt><dd>{money(stack + wallet)}</dd>" in page  # the chips count
    assert (
        "No poker hands yet."
        in browser(auditor).get(reverse("staff-auditor-player", args=[stranger.pk])).content.decode()
    )
    body = api(auditor).get(reverse("api-auditor-player", args=[ann.pk])).json()  # the API says the same
    assert body["at_poker"] == f"{stack / 100:.2f}"
    assert [row["hand"] for row in body["recent_poker_hands"]] == [h.pk for h in reversed(hands)]
    assert body["recent_poker_hands"][0]["recall"] == reverse("api-auditor-poker-hand", args=[hands[-1].pk])
