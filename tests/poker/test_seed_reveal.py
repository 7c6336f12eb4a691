"""A poker hand's server seed reaches its players only ``POKER_SEED_REVEAL_DELAY`` after the
hand ended (SPEC B4, "Seed reveal"): it recomputes the whole deck, so it would show every
folded and mucked down card. Until then every player-facing path (the table's events and
snapshots, the hand history, its fair check data, the PokerStars text) says when it will be
revealed and holds no seed; auditors see it at once."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from casino.game.cards import card_to_str
from casino.stud.engine import seeded_deck
from poker.models import PokerHand, PokerTable
from tests.poker.helpers import play_out, seats_of

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def ended(poker_table, three, sent, django_capture_on_commit_callbacks):
    """Ann, Ben and Cat's first hand, played to its end just now (its events sent)."""
    hand = PokerHand.objects.get(table=poker_table, state="live")
    with django_capture_on_commit_callbacks(execute=True):
        hand = play_out(hand, seats_of(hand, three), strategy="random_legal", seed=3)
    assert hand.state == PokerHand.State.ENDED
    return hand


def _dealt(hand: PokerHand, players) -> list:
    return list(seats_of(hand, players).values())


def _fair(html: str) -> dict:
    return json.loads(re.search(r'<script id="poker-fair" type="application/json">(.*?)</script>', html, re.S).group(1))


def _player_payloads(client, hand: PokerHand) -> dict[str, str]:
    return {
        "snapshot": client.get(reverse("poker-table-state", args=[hand.table_id])).content.decode(),
        "table page": client.get(reverse("poker-table", args=[hand.table_id])).content.decode(),
        "history": client.get(reverse("poker-hands")).content.decode(),
        "hand page": client.get(reverse("poker-hand", args=[hand.pk])).content.decode(),
        "pokerstars": client.get(reverse("poker-hand-pokerstars", args=[hand.pk])).content.decode(),
    }


def test_a_just_ended_hand_keeps_its_seed_from_every_player_and_says_when_it_is_revealed(
    ended,
    three,
    sent,
    browser,
    auditor,
    api,
):
    seed = ended.server_seed
    revealed_at = ended.ended_at + settings.POKER_SEED_REVEAL_DELAY
    assert revealed_at - ended.ended_at == timezone.timedelta(hours=24)  # the default

    # The websocket events, the hand's last one included: no seed, the reveal time instead.
    assert sent and all(seed not in json.dumps(message) for _, message in sent)
    last = [m for _, m in sent if isinstance(m, dict) and m.get("kind") == "poker.hand"][-1]
    assert last["state"] == "ended" and last["public"]["hand"]["seed_revealed_at"] == revealed_at.isoformat()

    for user in _dealt(ended, three):
        pages = _player_payloads(browser(user), ended)
        for name, text in pages.items():
            assert seed not in text, f"{user.username}'s {name} holds the server seed"
        assert json.loads(pages["snapshot"])["hand"]["seed_revealed_at"] == revealed_at.isoformat()
        assert (
            "Seed revealed on" in pages["hand page"] and f'datetime="{revealed_at.isoformat()}"' in pages["hand page"]
        )
        assert "Verify this hand" not in pages["hand page"]
        assert _fair(pages["hand page"])["serverSeed"] is None
        assert "revealed on" in pages["history"]

    # The auditor sees it at once, on the page and in the API.
    assert seed in browser(auditor).get(reverse("staff-auditor-poker-hand", args=[ended.pk])).content.decode()
    assert api(auditor).get(reverse("api-auditor-poker-hand", args=[ended.pk])).json()["server_seed"] == seed


def test_after_the_delay_the_seed_is_revealed_and_the_fair_check_verifies(ended, three, browser):
    # A day passes: the hand ended as long ago as the delay.
    PokerHand.objects.filter(pk=ended.pk).update(ended_at=ended.ended_at - settings.POKER_SEED_REVEAL_DELAY)
    seed = ended.server_seed
    for user in _dealt(ended, three):
        client = browser(user)
        html = client.get(reverse("poker-hand", args=[ended.pk])).content.decode()
        assert "Verify this hand" in html and "Seed revealed on" not in html
        fair = _fair(html)
        assert fair["serverSeed"] == seed
        assert (
            json.loads(client.get(reverse("poker-table-state", args=[ended.table_id])).content)["hand"]["server_seed"]
            == seed
        )
        # The check the page runs: the seed hashes to the commitment shown before the antes,
        # and every card this player saw is where the recomputed deck puts it.
        assert hashlib.sha256(bytes.fromhex(fair["serverSeed"])).hexdigest() == fair["commitment"] == ended.commitment
        deck, _ = seeded_deck(fair["serverSeed"], fair["clientSeed"], fair["nonce"])
        assert fair["cards"] and all(card_to_str(deck[c["pos"]]) == c["card"] for c in fair["cards"])


def test_an_operator_delay_of_zero_reveals_the_seed_when_the_hand_ends(ended, three, browser, settings):
    settings.POKER_SEED_REVEAL_DELAY = timezone.timedelta(0)
    html = browser(_dealt(ended, three)[0]).get(reverse("poker-hand", args=[ended.pk])).content.decode()
    assert _fair(html)["serverSeed"] == ended.server_seed


def test_a_reveal_delay_below_zero_is_refused_at_start_up():
    env = {**os.environ, "POKER_SEED_REVEAL_DELAY": "-1", "DJANGO_SETTINGS_MODULE": "casino.settings"}
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and "POKER_SEED_REVEAL_DELAY" in result.stderr


@pytest.mark.parametrize(
    "delay,words",
    [
        (timezone.timedelta(hours=24), "revealed 1 day after the hand"),
        (timezone.timedelta(hours=2), "revealed 2 hours after the hand"),
        (timezone.timedelta(0), "revealed when the hand ends"),
    ],
)
def test_the_table_says_when_a_hands_seed_is_revealed(three, poker_table, browser, settings, delay, words):
    settings.POKER_SEED_REVEAL_DELAY = delay
    html = browser(three[0]).get(reverse("poker-table", args=[poker_table.pk])).content.decode()
    assert words in " ".join(html.split())


@pytest.mark.parametrize(
    "delay,language,words",
    [
        (
            timezone.timedelta(hours=24),
            "en",
            "The server seed and the deck are revealed 1 day after the hand ends (sooner, they would show the cards "
            "that were folded or mucked).",
        ),
        (
            timezone.timedelta(hours=24),
            "de",
            "Der Server-Seed und das Deck werden 1 Tag nach dem Ende der Hand offengelegt",
        ),
        (timezone.timedelta(hours=2), "en", "The server seed and the deck are revealed 2 hours after the hand ends"),
        (timezone.timedelta(0), "en", "The server seed and the deck are revealed once the hand is over."),
    ],
)
def test_a_live_hands_page_says_when_its_seed_will_be_revealed(
    three, poker_table, browser, settings, delay, language, words
):
    settings.POKER_SEED_REVEAL_DELAY = delay
    hand = PokerHand.objects.get(table=poker_table, state="live")
    client = browser(_dealt(hand, three)[0])
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    html = client.get(reverse("poker-hand", args=[hand.pk])).content.decode()
    rule = " ".join(re.search(r'<p id="fair-reveal-rule">(.*?)</p>', html, re.S).group(1).split())
    assert rule.startswith(words), rule
    assert hand.server_seed not in html


def test_while_the_next_hand_is_played_the_snapshot_keeps_the_last_result_and_no_hidden_card(ended, three, browser):
    from poker import replay
    from poker.services import poker_hand_start

    PokerTable.objects.filter(pk=ended.table_id).update(next_hand_at=timezone.now())
    nxt = poker_hand_start(table_id=ended.table_id)
    assert nxt is not None and nxt.is_live
    state = replay.hand_state(ended)
    shown = {h["seat"] for h in state.showdown if h["shown"]}
    hidden = {card_to_str(c) for p in state.players if p.seat not in shown for c in state.down_cards(p.seat)}
    seats = seats_of(ended, three)
    for seat, user in seats.items():
        view = json.loads(browser(user).get(reverse("poker-table-state", args=[ended.table_id])).content)
        (past,) = view["previous_hands"]
        assert (past["id"], past["is_over"], past["your_seat"]) == (ended.pk, True, seat)
        assert {int(s): name for s, name in past["names"].items()} == {s: u.get_username() for s, u in seats.items()}
        assert any(e["type"] == "award" for e in past["events"]) and past["pots"]
        text = json.dumps(past)
        assert ended.server_seed not in text
        mine = {card_to_str(c) for c in state.down_cards(seat)}
        leaked = {c for c in hidden - mine if f'"{c}"' in text}
        assert not leaked, leaked
