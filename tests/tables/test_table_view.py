"""The table page's server side: the chips offered beside the ante, the player's last
results at the table, the balance in the header, and the words of a result computed once
on the server (spoken to the seat's player in their own view, as a record elsewhere)."""

from __future__ import annotations

import json
import re

from django.urls import reverse

from casino.cents import format_cents
from casino.money import money
from tables.presentation import NOT_PAID, jackpot_lowest_prize, paytable_rows, seat_explanation
from tables.selectors import hand_live_view, hand_view
from tables.views import chip_values

DEALER_QUALIFIES = "Ac Kd 7h 4s 2c"


def _json_script(page: str, element_id: str):
    match = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', page, re.S)
    return json.loads(match.group(1))


def test_chips_are_the_denominations_within_the_table_limits():
    assert [c["value"] for c in chip_values(50, 1_000)] == ["0.50", "1.00", "2.00", "5.00", "10.00"]
    assert [c["short"] for c in chip_values(50, 1_000)] == ["50c", "1", "2", "5", "10"]
    assert [c["value"] for c in chip_values(75, 300)] == ["0.75", "1.00", "2.00"]  # the minimum first
    assert len(chip_values(50, 10_000_000)) == 6  # at most six
    assert chip_values(250, 250) == [{"value": "2.50", "text": "€2.50", "short": "2.5"}]


def test_the_pay_table_says_push_where_the_raise_is_not_paid():
    rows = {
        r["hand"]: r
        for r in paytable_rows({"qualified": {"flush": 6, "one_pair": 1, "high_card": 1}, "not_qualified": {}})
    }
    assert rows["Flush"] == {"hand": "Flush", "categories": "flush", "qualified": "6 to 1", "not_qualified": NOT_PAID}
    assert rows["Straight"]["qualified"] == "push" and "High card" not in rows and "One pair or less" in rows


def test_the_table_page_shows_chips_last_results_and_the_balance_in_the_header(
    browser, make_player, table, play_hand, rig_deck
):
    alice, bob = make_player(balance=10_000), make_player()
    rig_deck(["Ah Kh Qh Jh 9h", "2d 3c 5c 8d Td"], DEALER_QUALIFIES)
    hand = play_hand([(alice, 200, True, "raise"), (bob, 100, False, "fold")])
    net = hand.hand_seats.get(player=alice).net
    page = browser(alice).get(reverse("table", args=[table.pk])).content.decode()
    assert re.search(r'<strong id="header-balance"[^>]*>€[0-9,.]+</strong>', page)
    assert 'data-chip="1.00"' in page and 'aria-label="Ante €1.00"' in page and 'data-chip="0.25"' not in page
    assert (
        'id="btn-repeat"' in page
        and 'id="auto-rebet"' in page
        and "checked" not in page.split('id="auto-rebet"')[1][:40]
    )
    recent = _json_script(page, "table-initial")["recent"]
    assert recent == [
        {
            "id": hand.pk,
            "table": table.pk,
            "hand_name": "Flush, ace high",
            "outcome_label": "Won",
            "net": format_cents(net),
            "net_text": money(net, signed=True),
            "net_sign": 1,
            "ante": "2.00",
            "jackpot_bet": "0.50",
        }
    ]
    assert f"Hand {hand.pk}</a>" in page and money(net, signed=True) in page
    config = _json_script(page, "table-config")
    assert config["raiseMultiple"] == 2 and config["extensionSeconds"] == table.extension_seconds
    # bob's page lists bob's own hand, never alice's
    bob_recent = _json_script(browser(bob).get(reverse("table", args=[table.pk])).content.decode(), "table-initial")[
        "recent"
    ]
    assert [r["outcome_label"] for r in bob_recent] == ["Folded"]


def test_a_results_words_are_spoken_to_its_player_and_written_as_a_record_for_the_table(
    make_player, play_hand, rig_deck
):
    alice, bob = make_player(), make_player()
    rig_deck(["Ah Kh Qh Jh 9h", "2d 3c 5c 8d Td"], DEALER_QUALIFIES)
    hand = play_hand([(alice, 200, True, "raise"), (bob, 100, False, "fold")])
    own = {s["player"]: s for s in hand_live_view(hand_id=hand.pk, viewer=alice)["seats"]}
    public = {s["player"]: s for s in hand_live_view(hand_id=hand.pk, viewer=None)["seats"]}
    a, b = alice.get_username(), bob.get_username()
    assert (
        own[a]["explanation"][0] == "Your hand: flush, ace high. Dealer: ace-king high, qualified (ace-king or better)."
    )
    assert own[a]["explanation"][1] == "You beat the dealer: ante €2.00 pays 1 to 1 (+€2.00)."
    assert own[a]["explanation"][-1] == "Net: +€40.50."
    assert own[b]["explanation"][1] == "Folded: the ante €1.00 is lost."  # bob's seat in alice's view: a record
    assert public[a]["explanation"][0].startswith("Hand: flush, ace high.") and public[a]["explanation"][1].startswith(
        "Beats the dealer"
    )
    assert (public[a]["outcome_label"], public[a]["decision_label"], public[b]["decision_label"]) == (
        "Won",
        "Raised",
        "Folded",
    )
    seat = hand.hand_seats.get(player=alice)
    assert seat_explanation(hand, seat, you=False) == public[a]["explanation"]


def test_an_open_hand_explains_nothing_and_a_chip_without_a_prize_says_what_wins(
    make_player, table, play_hand, rig_deck
):
    alice = make_player()
    rig_deck(["2d 3c 5c 8d Td"], DEALER_QUALIFIES)
    hand = play_hand([(alice, 100, True, "fold")])
    lines = hand_view(hand=hand, viewer=alice)["seats"][0]["explanation"]
    lowest = jackpot_lowest_prize(hand.jackpot_rules)
    assert lowest and lines[-2] == f"Jackpot chip €0.50: no prize ({lowest.lower()} or better wins)."
    assert lines[1] == "You folded: the ante €1.00 is lost."
