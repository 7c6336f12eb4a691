"""Words a player understands: no machine words where a person reads.

The statement, the bet line, staff error messages, the table's fairness box, the hand pages
and the API name things as players say them; the hand history runs newest first by time.
"""

from __future__ import annotations

import re

from django.urls import reverse

from backoffice.manager.forms import PayTableForm
from casino.http.errors import ValidationError
from tables.models import Hand
from tables.services.hands import hand_bet, hand_decide

DEALER_QUALIFIES = "Ac Kd 7h 4s 2c"
DEALER_DOES_NOT_QUALIFY = "Qc Jd 7h 4s 2c"


def _statement(client) -> str:
    return client.get(reverse("wallet")).content.decode()


def test_the_statement_says_what_happened_in_words(browser, make_player, play_hand, rig_deck):
    alice = make_player()
    rig_deck(["Tc Td 4d 8s 2h"], DEALER_DOES_NOT_QUALIFY)
    play_hand([(alice, 100, False, "raise")])
    page = _statement(browser(alice))
    assert "Ante placed, raise held" in page
    assert "jackpot bet placed" not in page.lower()  # no chip was bet
    assert "Seat 1: dealer did not qualify" in page
    assert "dealer_not_qualified" not in page


def test_a_bet_with_the_jackpot_chip_says_so(browser, make_player, play_hand, rig_deck):
    alice = make_player()
    rig_deck(["Tc Td 4d 8s 2h"], DEALER_QUALIFIES)
    play_hand([(alice, 100, True, "raise")])
    page = _statement(browser(alice))
    assert "Ante and jackpot chip placed, raise held" in page
    assert "Seat 1: won" in page and "_" not in page.split('id="statement-title"')[1].split("</table>")[0]


def test_a_refusal_reads_without_its_code():
    form = PayTableForm(data={})
    form.is_valid()
    form.add_service_error(ValidationError("A higher hand never pays less.", code="paytable_invalid"))
    errors = " ".join(form.non_field_errors())
    assert "A higher hand never pays less." in errors
    assert "paytable_invalid" not in errors and "(" not in errors


def test_the_table_names_the_hand_without_the_nonce(browser, make_player, table, play_hand, rig_deck):
    alice = make_player()
    rig_deck(["Tc Td 4d 8s 2h"], DEALER_QUALIFIES)
    play_hand([(alice, 100, False, "raise")])
    page = browser(alice).get(reverse("table", args=[table.pk])).content.decode()
    assert "nonce" not in page.split('id="fair-title"')[1].split("</dl>")[0].lower()
    # the pay table rows say which hands they are, so the player's line can be lit
    assert 'data-categories="royal_flush"' in page and 'data-categories="one_pair high_card"' in page


def test_the_hand_pages_name_hands_as_players_say_them(browser, make_player, play_hand, rig_deck):
    alice, bob = make_player(), make_player()
    rig_deck(["Ks Kh Kc 3s 3c", "Qs Jh 9d 6c 3h"], DEALER_QUALIFIES)
    hand = play_hand([(alice, 100, False, "raise"), (bob, 100, False, "raise")])
    detail = browser(alice).get(reverse("hand-detail", args=[hand.pk])).content.decode()
    assert "Full house, kings full of threes" in detail and "Queen high" in detail
    assert "Hand: full house, kings full of threes. Dealer: ace-king high, qualified" in detail
    assert (
        "The dealer&#x27;s ace-king high beats the queen high"
        in browser(bob).get(reverse("hand-detail", args=[hand.pk])).content.decode()
    )
    # the cards that make each hand are highlighted: the full house's five, bob's queen, the dealer's ace and king
    assert detail.count('is-winning" role="listitem"') == 8
    assert (
        'aria-label="Ace of clubs (makes the hand)"' in detail
        and 'aria-label="King of diamonds (makes the hand)"' in detail
    )
    history = browser(alice).get(reverse("hand-history")).content.decode()
    assert "Full house, kings full of threes" in history


def test_the_api_names_the_hand_and_its_winning_cards(api, make_player, play_hand, rig_deck):
    alice = make_player()
    rig_deck(["As 8h Ad 8s 2h"], DEALER_QUALIFIES)
    hand = play_hand([(alice, 100, False, "raise")])
    body = api(alice).get(f"/api/hands/{hand.pk}/").json()
    seat = body["seats"][0]
    assert seat["hand_name"] == "two pair, aces and eights"
    assert seat["winning_cards"] == ["As", "8h", "Ad", "8s"]
    assert body["dealer"]["hand_name"] == "ace-king high" and body["dealer"]["winning_cards"] == ["Ac", "Kd"]
    history = api(alice).get("/api/hands/").json()["results"]
    assert history[0]["id"] == hand.pk and history[0]["hand_name"] == "two pair, aces and eights"


def test_the_history_runs_newest_first_by_time(browser, make_player, table, make_table, rig_deck):
    from tables.services.seats import table_sit

    alice = make_player()
    other = make_table("Bridgetown")
    table_sit(user=alice, table_id=table.pk)
    table_sit(user=alice, table_id=other.pk)
    rig_deck(["Tc Td 4d 8s 2h"], DEALER_QUALIFIES)
    slow = hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=False)  # opened first (the lower id)
    rig_deck(["Ks Kh Kc 3s 3c"], DEALER_QUALIFIES)
    quick = hand_bet(user=alice, table_id=other.pk, ante=100, jackpot=False)
    hand_decide(user=alice, hand_id=quick.hand_id, action="raise")
    hand_decide(user=alice, hand_id=slow.hand_id, action="raise")  # the slow table settles last: the newest line
    assert slow.hand_id < quick.hand_id
    assert Hand.objects.get(pk=slow.hand_id).settled_at > Hand.objects.get(pk=quick.hand_id).settled_at
    page = browser(alice).get(reverse("hand-history")).content.decode()
    assert page.index(f">Hand {slow.hand_id}<") < page.index(f">Hand {quick.hand_id}<")


def _statement_lines(page: str) -> str:
    """The statement's rows, as text."""
    return page.split('id="statement-title"')[1].split("</table>")[0]


def test_the_statement_words_a_hand_s_lines_in_the_reader_s_language(browser, make_player, table, play_hand, rig_deck):
    from tables.services.hands import hand_cancel

    alice, bob = make_player(), make_player()
    rig_deck(["Ah Kh Qh Jh Th", "Qs Jd 9c 6h 3d"], DEALER_QUALIFIES)
    play_hand([(alice, 100, True, "raise"), (bob, 100, False, "fold")])
    live = hand_bet(user=alice, table_id=table.pk, ante=200, jackpot=False)
    hand_cancel(hand_id=live.hand_id, reason="table closed")

    german = _statement_lines(browser(alice).get(reverse("wallet"), HTTP_ACCEPT_LANGUAGE="de").content.decode())
    assert "Ante 1,00\u00a0€, Jackpot 0,50\u00a0€, Raise 2,00\u00a0€ gehalten" in german
    assert "Ante 2,00\u00a0€, Raise 4,00\u00a0€ gehalten" in german
    assert "Platz 1: Gewonnen" in german
    assert "Jackpot-Gewinn für Royal Flush aus Test pool" in german
    assert "Hand storniert: Tisch geschlossen" in german
    for english in ("held", "jackpot prize", "Seat 1", "Hand cancelled"):
        assert english not in german
    details = " | ".join(re.findall(r'class="wide">([^<]*)</td>', german))
    assert not re.search(r"\d\.\d\d(?!\d)", details), details  # no English decimal point
    folded = _statement_lines(browser(bob).get(reverse("wallet"), HTTP_ACCEPT_LANGUAGE="de").content.decode())
    assert "Gepasst: Der gehaltene Raise geht zurück ins Guthaben" in folded
    assert "returns to the wallet" not in folded and "Ante 1,00\u00a0€, Raise 2,00\u00a0€ gehalten" in folded

    english = _statement_lines(browser(alice).get(reverse("wallet"), HTTP_ACCEPT_LANGUAGE="en").content.decode())
    assert "Ante €1.00, jackpot €0.50, raise €2.00 held" in english and "Ante €2.00, raise €4.00 held" in english
    assert "Seat 1: won" in english and "Royal flush jackpot prize from Test pool" in english
    assert "Hand cancelled: table closed" in english
    assert "Fold: the held raise returns to the wallet" in _statement_lines(
        browser(bob).get(reverse("wallet"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    )
