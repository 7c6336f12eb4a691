"""Two players at one table in a real browser, over the real websocket.

alice (desktop) and bob (a 375 px phone) sign in, sit at Nassau from the lobby, ante
(alice with the jackpot chip), alice raises and bob folds. Both pages must show what the
database says: the cards, the result and its explanation, the balances, the jackpot
meter. Then alice verifies the hand in her browser, and the browser's shuffle is
compared with ``casino/game/fair.py`` on fresh seeds. Screenshots: artifacts/e2e/.
"""

from __future__ import annotations

import re

import pytest

from casino.game import fair
from casino.game.cards import cards_to_str
from casino.game.evaluator import Category
from casino.game.names import hand_name_from_codes
from casino.money import money
from tests.e2e.conftest import ARTIFACTS, sign_in

TIMEOUT_MS = 15_000

STATE = """
import json
from django.contrib.auth import get_user_model
from jackpot.models import JackpotPool
from tables.models import Hand
from wallets.selectors import wallet_balances

hand = Hand.objects.over().filter(table__name="Nassau").order_by("-id").first()
live = Hand.objects.live().filter(table__name="Nassau").first()
commitment = live and live.commitment
users = get_user_model().objects.filter(username__in=["alice", "bob"])
seats = lambda h: {
    s.player.username: {
        "seat": s.seat_number, "cards": s.cards, "category": s.category, "outcome": s.outcome, "net": s.net,
        "line": s.paytable_line, "jackpot_win": s.jackpot_win, "decision": s.decision, "ante": s.ante,
    }
    for s in h.hand_seats.select_related("player")
}
print(json.dumps({
    "hand": hand and {
        "id": hand.pk, "state": hand.state, "dealer": hand.dealer_cards, "dealer_category": hand.dealer_category,
        "qualified": hand.dealer_qualified, "paytable": hand.paytable_data, "seats": seats(hand),
    },
    "live": live and {
        "id": live.pk, "state": live.state, "commitment": commitment, "dealer": live.dealer_cards, "seats": seats(live),
    },
    "wallets": {u.username: [wallet_balances(user=u).available, wallet_balances(user=u).in_play] for u in users},
    "meter": JackpotPool.objects.select_related("meter_account").get().meter_account.balance,
}))
"""


def _cards(page, selector: str) -> list[str | None]:
    return page.eval_on_selector_all(selector + " .card:not(.card-slot)", "els => els.map(e => e.dataset.card || null)")


def _text(page, selector: str) -> str:
    return page.locator(selector).inner_text()


@pytest.fixture
def pages(chromium, casino_server):
    desktop = chromium.new_context(viewport={"width": 1280, "height": 900})
    phone = chromium.new_context(viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True)
    for context in (desktop, phone):
        context.set_default_timeout(TIMEOUT_MS)
    alice, bob = desktop.new_page(), phone.new_page()
    errors: list[str] = []
    for page, name in ((alice, "alice"), (bob, "bob")):
        page.on("pageerror", lambda error, name=name: errors.append(f"{name}: {error}"))
    yield alice, bob, errors
    desktop.close()
    phone.close()


def test_two_players_play_a_hand_and_see_what_the_ledger_says(pages, casino_server):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    alice, bob, errors = pages
    base = casino_server.base_url
    before = casino_server.query(STATE)

    # --- sign in, the lobby, sit down ---------------------------------------------------
    sign_in(alice, base, "alice")
    sign_in(bob, base, "bob")
    expect(alice.get_by_role("heading", name="Caribbean Progressive", exact=True)).to_be_visible()
    expect(alice.locator("[data-pool-meter] [data-meter-value]").first).to_have_text(money(before["meter"]))
    alice.screenshot(path=ARTIFACTS / "lobby-desktop.png", full_page=True)
    bob.screenshot(path=ARTIFACTS / "lobby-phone.png", full_page=True)
    alice.get_by_role("button", name="Sit at Nassau").click()
    bob.get_by_role("button", name="Sit at Nassau").click()
    for page in (alice, bob):
        expect(page.get_by_role("heading", name="Nassau", exact=True)).to_be_visible()
        expect(page.locator("#conn-status")).to_have_attribute("data-state", "live")  # the websocket is up
        expect(page.locator("#btn-leave")).to_be_enabled()
    expect(alice.locator('li[data-seat="1"] .seat-name')).to_have_text("alice")
    expect(alice.locator('li[data-seat="2"] .seat-name')).to_have_text("bob")  # bob's seat, live on alice's page
    expect(bob.locator("#btn-fold")).to_be_disabled()
    expect(bob.locator("#btn-raise")).to_be_disabled()
    opened = casino_server.query(STATE)["live"]
    assert opened is not None and opened["state"] == "betting"
    for page in (alice, bob):  # the commitment is on the table before any bet
        expect(page.locator("#fair-commitment")).to_have_text(opened["commitment"])

    # --- ante: alice with the jackpot chip, bob without ---------------------------------
    alice.get_by_role("spinbutton", name=re.compile("^Ante")).fill("2.00")
    alice.get_by_role("checkbox", name=re.compile("Jackpot chip")).check()
    expect(alice.locator("#btn-bet")).to_have_text("Bet €2.50")
    alice.locator("#btn-bet").click()
    expect(alice.locator("#phase")).to_contain_text("Your bet is in")
    expect(bob.locator('li[data-seat="1"] .chip-ante')).to_have_attribute("aria-label", "Ante €2.00")
    expect(bob.locator('li[data-seat="1"] .chip-jackpot')).to_be_visible()
    expect(alice.locator("#wallet-in-play")).to_have_text("€6.50")  # ante, jackpot chip and the held raise
    expect(alice.locator("#btn-fold")).to_be_disabled()
    for page in (alice, bob):  # the first ante opens the betting window
        expect(page.locator("#timer")).to_be_visible()
        expect(page.locator("#timer-value")).to_have_text(re.compile(r"^\d+ s$"))
    expect(alice.locator("#timer-label")).to_have_text("Betting closes in")
    expect(bob.locator("#timer-label")).to_have_text("Place your bet within")

    # bob, by keyboard only: type the ante and press Enter
    ante = bob.get_by_role("spinbutton", name=re.compile("^Ante"))
    ante.fill("")
    ante.press_sequentially("1.00")
    ante.press("Enter")

    # --- the deal: own cards face up, the others' face down, the dealer's up card -------
    for page in (alice, bob):
        expect(page.locator("#btn-raise")).to_be_enabled()
        expect(page.locator("#btn-fold")).to_be_enabled()
        expect(page.locator("#timer")).to_be_visible()
    expect(alice.locator("#btn-raise")).to_have_text("Raise €4.00")
    expect(bob.locator("#btn-raise")).to_have_text("Raise €2.00")
    dealt = casino_server.query(STATE)["live"]
    assert dealt["state"] == "decisions"
    expect(alice.locator('li[data-seat="1"] .card[data-card]')).to_have_count(5)
    assert _cards(alice, 'li[data-seat="1"]') == dealt["seats"]["alice"]["cards"]
    assert _cards(alice, 'li[data-seat="2"]') == [None] * 5
    assert _cards(bob, 'li[data-seat="2"]') == dealt["seats"]["bob"]["cards"]
    assert _cards(bob, 'li[data-seat="1"]') == [None] * 5
    assert _cards(alice, "#dealer-cards") == [None] * 4 + [dealt["dealer"][4]]
    page_source = alice.content()
    for card in dealt["seats"]["bob"]["cards"] + dealt["dealer"][:4]:
        assert f'"{card}"' not in page_source and f"'{card}'" not in page_source
    alice.wait_for_timeout(1200)  # let the deal animation finish for the screenshots
    alice.screenshot(path=ARTIFACTS / "table-dealt-desktop.png", full_page=True)
    bob.screenshot(path=ARTIFACTS / "table-dealt-phone.png", full_page=True)

    # --- alice raises, bob folds ----------------------------------------------------------
    alice.locator("#btn-raise").click()
    expect(alice.locator("#phase")).to_contain_text("You raised €4.00")
    expect(bob.locator('li[data-seat="1"] .chip-raise')).to_have_attribute("aria-label", "Raise €4.00")
    bob.locator("#btn-fold").focus()
    bob.keyboard.press("Enter")

    for page in (alice, bob):
        expect(page.locator("#result-panel")).to_be_visible()
        expect(page.locator("#result-panel .explain li").last).to_contain_text("Net:")
    state = casino_server.query(STATE)
    hand = state["hand"]
    assert (
        hand["state"] == "settled"
        and hand["seats"]["alice"]["decision"] == "raise"
        and hand["seats"]["bob"]["decision"] == "fold"
    )
    a, b = hand["seats"]["alice"], hand["seats"]["bob"]

    # every card, now face up on both pages, is the one the database dealt
    for page in (alice, bob):
        expect(page.locator("#dealer-cards .card[data-card]")).to_have_count(5)
        assert _cards(page, "#dealer-cards") == hand["dealer"]
        assert _cards(page, 'li[data-seat="1"]') == a["cards"]
        assert _cards(page, 'li[data-seat="2"]') == b["cards"]

    # alice's result, explained
    dealer_label = hand_name_from_codes(hand["dealer"])  # as players say it: "pair of tens", "king high"
    alice_result = _text(alice, "#result-panel")
    assert f"Your hand: {hand_name_from_codes(a['cards'])}. Dealer: {dealer_label}" in alice_result
    assert (
        "qualified (ace-king or better)" if hand["qualified"] else "did not qualify (needs ace-king or better)"
    ) in alice_result
    assert f"Net: {money(a['net'], signed=True)}." in alice_result
    if a["line"]:
        column, _, key = a["line"].partition(":")
        odds = hand["paytable"][column][key]
        qualified = "dealer qualified" if column == "qualified" else "dealer not qualified"
        assert f"{Category.from_key(key).label} pays {odds} to 1 ({qualified})" in alice_result
    if a["jackpot_win"]:
        assert f"wins {money(a['jackpot_win'])}" in alice_result
    else:
        assert "Jackpot chip €0.50: no prize" in alice_result
    raise_odds = hand["paytable"][a["line"].partition(":")[0]][a["line"].partition(":")[2]] if a["line"] else 0
    expected_net = {
        "win": 200 + 400 * raise_odds,
        "dealer_not_qualified": 200 + 400 * raise_odds,
        "push": 0,
        "lose": -600,
    }
    assert a["net"] == expected_net[a["outcome"]] - 50 + a["jackpot_win"]  # SPEC A5 for ante €2, raise €4, chip €0.50

    # bob's result
    bob_result = _text(bob, "#result-panel")
    assert "You folded: the ante €1.00 is lost." in bob_result and "Net: −€1.00." in bob_result
    assert b["net"] == -100

    # the balances and the jackpot meter are the ledger's
    for page, name in ((alice, "alice"), (bob, "bob")):
        available, in_play = state["wallets"][name]
        expect(page.locator("#wallet-available")).to_have_text(money(available))
        expect(page.locator("#wallet-in-play")).to_have_text(money(in_play))
        expect(page.locator(".felt-meter [data-meter-value]")).to_have_text(money(state["meter"]))
    assert state["wallets"]["alice"][0] == before["wallets"]["alice"][0] + a["net"]
    assert state["wallets"]["bob"][0] == before["wallets"]["bob"][0] - 100
    assert state["meter"] == before["meter"] + 35 - (a["jackpot_win"] if a["category"] == "royal_flush" else 0)
    alice.screenshot(path=ARTIFACTS / "table-settled-desktop.png", full_page=True)
    bob.screenshot(path=ARTIFACTS / "table-settled-phone.png", full_page=True)
    bob.evaluate("window.scrollTo(0, 0)")
    bob.screenshot(path=ARTIFACTS / "table-settled-phone-top.png")

    # --- the provably fair check, in alice's browser --------------------------------------
    alice.locator("#result-link").click()
    expect(alice.get_by_role("heading", name=re.compile(f"^Hand {hand['id']}"))).to_be_visible()
    alice.get_by_role("button", name="Verify this hand").click()
    expect(alice.locator("#verify-result")).to_have_attribute("data-verified", "match")
    expect(alice.locator("#verify-result")).to_contain_text("Verified: this hand was dealt from the committed deck.")
    alice.screenshot(path=ARTIFACTS / "hand-verified-desktop.png", full_page=True)

    # the browser's shuffle is the server's, on fresh seeds
    cases = [
        {
            "server_seed": fair.new_server_seed(),
            "client_seed": ":".join(fair.new_client_seed() for _ in range(n)),
            "nonce": n * 7919,
        }
        for n in (1, 2, 3, 4)
    ]
    decks = alice.evaluate(
        """async cases => { const F = await import("/static/js/fair.js");
                          return Promise.all(
                            cases.map(c => F.shuffledDeck(c.server_seed, c.client_seed, c.nonce))); }""",
        cases,
    )
    for case, deck in zip(cases, decks):
        assert deck == cards_to_str(fair.shuffled_deck(case["server_seed"], case["client_seed"], case["nonce"]))

    # a forged server seed is caught
    forged = alice.evaluate(
        """async () => { const F = await import("/static/js/fair.js");
                          const d = JSON.parse(document.getElementById("fair-data").textContent);
                          d.serverSeed = "00".repeat(32); return F.verifyHand(d); }"""
    )
    assert forged["commitmentOk"] is False

    # --- the other pages, at both widths ----------------------------------------------------
    bob.goto(base + "/hands/")
    expect(bob.get_by_role("link", name=re.compile(f"^Hand {hand['id']}"))).to_be_visible()
    bob.screenshot(path=ARTIFACTS / "hands-phone.png", full_page=True)
    bob.goto(base + "/wallet/")
    expect(bob.locator(".balance dd").first).to_have_text(money(state["wallets"]["bob"][0]))
    bob.screenshot(path=ARTIFACTS / "wallet-phone.png", full_page=True)
    alice.goto(base + "/wallet/")
    alice.screenshot(path=ARTIFACTS / "wallet-desktop.png", full_page=True)
    assert errors == []
