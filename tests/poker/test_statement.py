"""The wallet statement words the poker room's lines: "Bought in at …",
"Topped up at …", "Cashed out from …", "Hand 4711 at …: won €3.50" instead of the ledger's
kind label and memo. A hand is named by its id there as on the poker pages and in the
PokerStars text (docs/stud-hand-record.md), never by its count at its table."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from casino.money import money
from poker.models import PokerSeat, PokerTable
from poker.services import SIT_OUT_LIMIT, poker_hand_start, poker_leave, poker_sit, poker_sit_out, poker_top_up
from tests.poker.helpers import play_out, seats_of
from wallets.models import Transaction
from wallets.statement import statement_words

pytestmark = pytest.mark.django_db

BUY_IN = 2000  # Seven Card Stud 2-4 (SPEC B1)


def statement(browser, user) -> str:
    page = browser(user).get(reverse("wallet"))
    assert page.status_code == 200
    html = page.content.decode()
    return html.split('id="statement-title"')[1].split("</table>")[0]


@pytest.fixture
def played(make_player, make_poker_table):
    """Alice and Bob buy in at 'Stud Room 2-4', play one hand, the loser tops up, both leave."""
    table = make_poker_table(name="Stud Room 2-4")
    # the table counts its hands from 900: its hand's count and id differ
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1), next_nonce=900)
    alice, bob = make_player(), make_player()
    seat_numbers = {u.pk: poker_sit(user=u, table_id=table.pk).number for u in (alice, bob)}
    hand = poker_hand_start(table_id=table.pk)
    hand = play_out(hand, seats_of(hand, [alice, bob]), strategy="calling_station")
    nets = {u.pk: PokerSeat.objects.get(player=u).stack - BUY_IN for u in (alice, bob)}
    assert sum(nets.values()) == -hand.rake and any(nets.values())
    loser = alice if nets[alice.pk] < 0 else bob
    winner = bob if loser is alice else alice
    final = {loser.pk: BUY_IN, winner.pk: BUY_IN + nets[winner.pk]}
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))
    poker_top_up(user=loser, table_id=table.pk)  # back to exactly the buy-in; no hand starts
    for user in (alice, bob):
        assert poker_leave(user=user, table_id=table.pk) is None
    return {
        "table": table,
        "hand": hand,
        "winner": winner,
        "loser": loser,
        "nets": nets,
        "final": final,
        "seats": seat_numbers,
    }


def test_the_wallet_page_words_buy_in_top_up_and_cash_out(browser, played):
    loser, winner = played["loser"], played["winner"]
    page = statement(browser, loser)
    assert "Bought in at Stud Room 2-4" in page
    assert "Topped up at Stud Room 2-4" in page
    assert "Cashed out from Stud Room 2-4" in page
    assert f"Seat {played['seats'][loser.pk]}: left the table" in page
    assert money(-played["nets"][loser.pk]) in page  # the top-up's amount
    # Not the ledger's kind labels and memos.
    for machine in ("Poker buy-in or top-up", "Poker stack cashed out", "Buy-in at", "Cash-out at", "Top-up at"):
        assert machine not in page
    page = statement(browser, winner)
    assert "Bought in at Stud Room 2-4" in page and "Cashed out from Stud Room 2-4" in page
    assert "Topped up" not in page
    assert money(played["final"][winner.pk]) in page  # the whole stack came back


def test_a_hand_line_says_the_players_result(played):
    hand = played["hand"]
    txn = Transaction.objects.get(kind=Transaction.Kind.POKER_HAND, hand_ref=hand.pk)
    for user in (played["winner"], played["loser"]):
        net = played["nets"][user.pk]
        what, details = statement_words([txn], user=user)[txn.pk]
        verb = "won" if net > 0 else "lost"
        assert what == f"Hand {hand.pk} at Stud Room 2-4: {verb} {money(abs(net))}"
        assert details == "Pots and rake settled"


def test_the_statement_the_hand_pages_and_the_pokerstars_text_name_a_hand_alike(browser, played):
    hand = played["hand"]
    assert (hand.number, hand.number != hand.pk) == (900, True)
    txn = Transaction.objects.get(kind=Transaction.Kind.POKER_HAND, hand_ref=hand.pk)
    user = played["winner"]
    client = browser(user)
    said = {
        "statement": statement_words([txn], user=user)[txn.pk][0],
        "history": client.get(reverse("poker-hands")).content.decode(),
        "hand page": client.get(reverse("poker-hand", args=[hand.pk])).content.decode(),
        "replay": client.get(reverse("poker-hand-replay", args=[hand.pk])).content.decode(),
        "pokerstars": client.get(reverse("poker-hand-pokerstars", args=[hand.pk])).content.decode(),
    }
    for where, text in said.items():
        assert re.search(rf"Hand #?{hand.pk}\b", text, re.I), (where, text[:300])
        assert not re.search(rf"Hand #?{hand.number}\b", text, re.I), where
    assert said["pokerstars"].startswith(f"PokerStars Hand #{hand.pk}:")


def test_a_stand_up_after_sitting_out_says_why(make_player, poker_table):
    alice, bob, carol = make_player(), make_player(), make_player()
    PokerTable.objects.filter(pk=poker_table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))
    for user in (alice, bob, carol):
        poker_sit(user=user, table_id=poker_table.pk)
    poker_sit_out(user=alice, table_id=poker_table.pk)
    seat = PokerSeat.objects.get(player=alice)
    PokerSeat.objects.filter(pk=seat.pk).update(hands_sat_out=SIT_OUT_LIMIT - 1)  # 19 hands out already
    poker_hand_start(table_id=poker_table.pk)  # the 20th: alice is stood up and cashed out
    assert not PokerSeat.objects.filter(player=alice).exists()
    txn = Transaction.objects.get(kind=Transaction.Kind.POKER_CASH_OUT)
    assert statement_words([txn], user=alice)[txn.pk] == (
        f"Cashed out from {poker_table.name}",
        f"Seat {seat.number}: stood up after sitting out 20 hands",
    )


def test_other_lines_keep_their_words(make_player):
    alice = make_player()
    deposit = Transaction.objects.filter(legs__account__owner=alice).first()
    assert deposit is not None and deposit.kind not in ("poker_buy_in", "poker_cash_out", "poker_hand")
    words = statement_words([deposit], user=alice)
    assert words[deposit.pk] == ("Deposit", "At the cashier's desk")  # the wallets' words, not the poker room's
