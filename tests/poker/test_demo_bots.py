"""The demo's regulars are bots (``make run`` only): a newcomer alone at a demo table plays
a whole hand against them, they act after a human pause, never run out of chips, and are
labelled as bots; production settings refuse them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from poker import demo_bots, replay
from poker.models import PokerHand, PokerSeat, PokerTable
from poker.services import poker_act, poker_next_hand, poker_sit
from tests.security.test_deploy import production_env, run
from wallets.models import Transaction
from wallets.selectors import wallet_balances
from wallets.services import cashier_withdraw

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(settings):
    settings.POKER_DEMO_BOTS = True
    call_command("load_demo")
    return PokerTable.objects.get(preset="seven_stud/2-4")


def _play_with_the_bots(table, newcomer) -> PokerHand:
    """The newcomer checks or calls; the bots act when the periodic work finds their think
    time over (the clock moved on by hand)."""
    hand = PokerHand.objects.get(table=table, state=PokerHand.State.LIVE)
    mine = next(s["seat"] for s in hand.seats if s["user_id"] == newcomer.pk)
    for _ in range(200):
        hand.refresh_from_db()
        if not hand.is_live:
            return hand
        if hand.to_act == mine:
            legal = replay.hand_state(hand).legal()
            kind = next(k for k in ("check", "call", "bring_in", "all_in") if k in legal.actions)
            poker_act(user=newcomer, table_id=table.pk, hand_id=hand.pk, action=kind)
            continue
        assert demo_bots.demo_bots_step(now=hand.turn_started_at + timedelta(seconds=0.5)) == 0  # still thinking
        assert demo_bots.demo_bots_step(now=hand.turn_started_at + timedelta(seconds=demo_bots.THINK_SECONDS[1])) == 1
    raise AssertionError("the hand did not end")


def test_a_newcomer_alone_plays_a_hand_against_the_bots_and_they_never_run_out(make_player, browser, api, demo):
    # The regulars' wallets are empty: what a losing bot lacks, the demo's cashier pays in first.
    cashier = type(demo.seats.first().player).objects.get(username="cashier")
    for seat in PokerSeat.objects.filter(table=demo, waits_for_company=True).select_related("player"):
        available = wallet_balances(user=seat.player).available
        cashier_withdraw(cashier=cashier, player=seat.player, amount=available, idempotency_key=f"empty-{seat.pk}")
    buy_in = replay.table_config(demo).buy_in
    newcomer = make_player(balance=10_000, username="newcomer")
    poker_sit(user=newcomer, table_id=demo.pk)
    bot_lost = False
    for number in range(6):  # until a bot has lost a hand (almost always the first)
        if number:
            PokerTable.objects.filter(pk=demo.pk).update(next_hand_at=timezone.now())
            poker_next_hand(table_id=demo.pk)
        hand = _play_with_the_bots(demo, newcomer)
        players = {s["seat"]: s["player"] for s in hand.seats}
        moves = [e for e in hand.record["events"] if e["type"] == "action" and e["action"] != "ante"]
        assert {"erin", "frank"} <= {players[e["seat"]] for e in moves}  # both bots acted
        assert not any(e["action"].startswith("timeout") for e in moves)
        # The next round of the periodic work tops the bots that lost back up to the buy-in.
        demo_bots.demo_bots_step()
        assert all(s.stack >= buy_in for s in PokerSeat.objects.filter(waits_for_company=True))
        nets = {players[int(seat)]: amount for seat, amount in hand.record["net"].items()}
        if any(nets[name].startswith("-") for name in ("erin", "frank")):
            bot_lost = True
            break
    assert bot_lost
    assert Transaction.objects.filter(memo="Demo regular's refill").exists()
    call_command("reconcile_poker")

    # Labelled as bots: the API's seats and the table page.
    seats = api(newcomer).get(f"/api/poker/tables/{demo.pk}/").json()["seats"]
    assert {s["player"] for s in seats if s["is_bot"]} == {"erin", "frank"}
    page = browser(newcomer).get(f"/poker/tables/{demo.pk}/").content.decode()
    assert page.count('class="seat-mark badge badge-bot"') == 2


def test_a_newcomer_finds_the_bots_waiting_for_a_player_not_for_a_second_player(make_player, browser, demo):
    """Two bots sit and no hand is dealt: the felt says they start when a player joins them
    (not "a hand starts with two", which two players seated seem to contradict), in German too."""
    assert not PokerHand.objects.filter(table=demo).exists()
    newcomer = make_player(balance=10_000, username="newcomer")
    page = browser(newcomer).get(f"/poker/tables/{demo.pk}/").content.decode()
    assert "The bots here start a hand as soon as a player joins them." in page
    assert "a hand starts with two" not in page
    german = browser(newcomer).get(f"/poker/tables/{demo.pk}/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Die Bots hier beginnen eine Hand, sobald sich ein Spieler dazusetzt." in german


def test_without_the_demo_setting_the_regulars_are_not_bots(settings, make_player, api):
    settings.POKER_DEMO_BOTS = False
    call_command("load_demo")
    table = PokerTable.objects.get(preset="seven_stud/2-4")
    newcomer = make_player(balance=10_000, username="newcomer")
    poker_sit(user=newcomer, table_id=table.pk)
    hand = PokerHand.objects.get(table=table, state=PokerHand.State.LIVE)
    version = hand.version
    assert demo_bots.demo_bots_step(now=timezone.now() + timedelta(minutes=1)) == 0
    hand.refresh_from_db()
    assert hand.version == version
    assert not any(s["is_bot"] for s in api(newcomer).get(f"/api/poker/tables/{table.pk}/").json()["seats"])


def test_production_settings_refuse_the_demo_bots():
    refused = run(["-c", "import django; django.setup()"], production_env(POKER_DEMO_BOTS="1"))
    assert refused.returncode != 0 and "POKER_DEMO_BOTS" in refused.stderr
    off = run(
        ["-c", "import django; django.setup(); from django.conf import settings; print(settings.POKER_DEMO_BOTS)"],
        production_env(),
    )
    assert off.returncode == 0 and off.stdout.strip().splitlines()[-1] == "False", off.stderr
