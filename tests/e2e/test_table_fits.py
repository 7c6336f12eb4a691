"""The table as one screen, in a player's words, in a real browser.

alice and carol on 1366×768 laptops, bob and dave on 390×844 phones fill Nassau's four seats
and ante (so a phone player sits in the second row too). While they decide, each one's five
cards, the dealer's up card, the time left and Fold/Raise are inside the viewport without
scrolling. alice's hand is named as players say it and the
cards that make it are highlighted, her pay-table line lit; on the phone the seats run in
seat order. Screenshots: artifacts/e2e/table-fits-*.png.
"""

from __future__ import annotations

import re

import pytest

from casino.game.cards import cards_from_str, cards_to_str
from casino.game.names import hand_name, winning_cards
from tests.e2e.conftest import ARTIFACTS, browsers, sign_in

TIMEOUT_MS = 15_000
LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}

# The layout is the subject, not the clock: four pages on a busy machine may take longer
# than the default 20 s to be checked, and a hand folded by its timer shows no decision.
SLOW_CLOCK = """
import json
from tables.models import Table
print(json.dumps(Table.objects.filter(name="Nassau").update(decision_seconds=120)))
"""

DEALT = """
import json
from tables.models import Hand
live = Hand.objects.filter(table__name="Nassau", state="decisions").first()
print(json.dumps(live and {s.player.username: {"seat": s.seat_number, "cards": s.cards, "category": s.category}
                           for s in live.hand_seats.select_related("player")}))
"""


def _outside(page, selector: str, viewport: dict) -> list[str]:
    """Every element matching ``selector`` that is not wholly inside the viewport (no scrolling),
    or whose centre is covered by something else (the sticky decision bar over the cards)."""
    boxes = page.eval_on_selector_all(
        selector,
        """els => els.map(e => {
            const r = e.getBoundingClientRect();
            const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
            return [r.left, r.top, r.right, r.bottom, !!hit && (hit === e || e.contains(hit))];
        })""",
    )
    assert boxes, f"nothing matches {selector}"
    return [
        f"{selector} at {box[:4]}" + ("" if box[4] else " (covered)")
        for box in boxes
        if box[0] < 0
        or box[1] < 0
        or box[2] > viewport["width"] + 0.5
        or box[3] > viewport["height"] + 0.5
        or not box[4]
    ]


SCREENS = {"alice": LAPTOP, "bob": PHONE, "carol": LAPTOP, "dave": PHONE}


@pytest.fixture
def players(chromium, casino_server):
    with browsers(chromium, SCREENS, timeout_ms=TIMEOUT_MS) as opened:
        yield opened


def test_cards_up_card_timer_and_decision_fit_one_screen_and_the_hand_is_named(players, casino_server):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    pages, errors = players
    alice, bob = pages["alice"], pages["bob"]
    base = casino_server.base_url
    assert casino_server.query(SLOW_CLOCK) == 1
    for name, page in pages.items():  # seats 1 to 4 in this order
        sign_in(page, base, name)
        page.get_by_role("button", name="Sit at Nassau").click()
        expect(page.locator("#conn-status")).to_have_attribute("data-state", "live")
        expect(page.locator("#btn-leave")).to_be_enabled()
    expect(alice.locator("#fair-hand")).to_have_text(re.compile(r"^Hand \d+$"))  # not "3 (nonce 2)"

    for page in pages.values():
        page.get_by_role("spinbutton", name=re.compile("^Ante")).fill("1.00")
        page.locator("#btn-bet").click()
    for page in pages.values():
        expect(page.locator("#btn-raise")).to_be_enabled()
        expect(page.locator("li.is-you .hand-cards .card[data-card]")).to_have_count(5)
        expect(page.locator("#dealer-cards .up-card[data-card]")).to_have_count(1)
        expect(page.locator("#timer")).to_be_visible()
    alice.wait_for_timeout(1200)  # the deal animation

    dealt = casino_server.query(DEALT)
    assert {name: seat["seat"] for name, seat in dealt.items()} == {"alice": 1, "bob": 2, "carol": 3, "dave": 4}
    for who, page in pages.items():
        viewport = SCREENS[who]
        name = f"{'laptop' if viewport is LAPTOP else 'phone'}-seat-{dealt[who]['seat']}"
        page.evaluate("window.scrollTo(0, 0)")  # the table as it opens, not scrolled to wherever the Bet button was
        page.wait_for_timeout(100)
        page.screenshot(path=ARTIFACTS / f"table-fits-{name}.png")  # the viewport only: what the player sees
        outside = []
        for selector in ("li.is-you .hand-cards .card", "#dealer-cards .up-card", "#timer", "#btn-fold", "#btn-raise"):
            outside += _outside(page, selector, viewport)
        assert not outside, f"{name}: out of sight without scrolling: {outside}"

    # alice's hand in words, its cards highlighted, her pay-table line lit
    mine = dealt["alice"]
    name = hand_name(cards_from_str(mine["cards"]))
    expect(alice.locator("#phase")).to_contain_text(
        "You hold " + hand_name(cards_from_str(mine["cards"]), with_article=True) + "."
    )
    assert "_" not in alice.locator("#phase").inner_text()
    highlighted = alice.eval_on_selector_all(
        "li.is-you .hand-cards .card.is-winning", "els => els.map(e => e.dataset.card)"
    )
    assert highlighted == cards_to_str(winning_cards(cards_from_str(mine["cards"])))
    lit = alice.locator(".paytable tr.is-lit")
    expect(lit).to_have_count(1)
    assert mine["category"] in lit.get_attribute("data-categories").split()
    alice.locator(".paytable").screenshot(path=ARTIFACTS / "table-fits-paytable-lit.png")
    expect(alice.locator("li.is-you .seat-status")).to_contain_text(name[0].upper() + name[1:])

    # on the phone the seats run in seat order: seat 1 first, reading left to right, top to bottom
    order = bob.eval_on_selector_all(
        "#seats > li",
        "els => els.map(e => { const r = e.getBoundingClientRect(); return [Math.round(r.top), Math.round(r.left), "
        "+e.dataset.seat]; })",
    )
    assert [seat for _, _, seat in sorted(order)] == [1, 2, 3, 4]

    # after the hand: the words in the result, the cards that made each hand highlighted
    alice.locator("#btn-raise").click()
    for who in ("bob", "carol", "dave"):
        pages[who].locator("#btn-fold").click()
    expect(alice.locator("#result-panel .explain li").first).to_contain_text("Your hand: " + name + ".")
    result = alice.locator("#result-panel").inner_text()
    assert "_" not in result and "nonce" not in result.lower()
    expect(alice.locator("#dealer-cards .card.is-winning").first).to_be_visible()
    alice.wait_for_timeout(300)
    alice.screenshot(path=ARTIFACTS / "table-fits-laptop-settled.png")
    bob.screenshot(path=ARTIFACTS / "table-fits-phone-settled.png")
    assert not errors
