"""The table as commercial live tables have it, in a real browser.

alice on a laptop (1366×900, then 1366×768) and bob on a phone (390×844) sit at Nassau.
alice picks her ante from the chip rack and bets; the balance in the header follows the
wallet without a reload; keyboard focus stays in the control area after each action;
every seat's clock shows on the felt; after the hand "Your last hands" lists it with its
net result, from the server. At the next hand alice repeats her last bet with one click
and bob turns auto-rebet on, which bets for him at once and again at the next hand.
The page draws from the events it receives: it asks for a snapshot only when a deadline
it shows has passed without its event, never for an event it applied.
Screenshots: artifacts/e2e/table-controls-*.png.
"""

from __future__ import annotations

import re

import pytest

from casino.money import money
from tests.e2e.conftest import ARTIFACTS, sign_in

TIMEOUT_MS = 15_000
LAPTOP = {"width": 1366, "height": 900}
LAPTOP_SHORT = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}

STATE = """
import json
from django.contrib.auth import get_user_model
from tables.models import Hand
from wallets.selectors import wallet_balances

users = {u.username: u for u in get_user_model().objects.filter(username__in=["alice", "bob"])}
hands = list(Hand.objects.filter(table__name="Nassau").order_by("id"))
print(json.dumps({
    "available": {name: wallet_balances(user=u).available for name, u in users.items()},
    "hands": [{"id": h.pk, "state": h.state, "seats": {
                   s.player.username: {"ante": s.ante, "jackpot_bet": s.jackpot_bet, "net": s.net}
                   for s in h.hand_seats.select_related("player")}} for h in hands],
}))
"""

# Counts the snapshot requests the page sends over its socket (the server's snapshot on
# connect is not one of them).
COUNT_SNAPSHOT_REQUESTS = """
(() => {
  window.__snapshotRequests = 0;
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    try { if (JSON.parse(data).action === "snapshot") window.__snapshotRequests += 1; } catch (e) {}
    return send.call(this, data);
  };
})();
"""


def _focus_in_controls(page) -> bool:
    return page.evaluate("() => !!document.activeElement && !!document.activeElement.closest('#controls')")


@pytest.fixture
def players(chromium, casino_server):
    desktop = chromium.new_context(viewport=LAPTOP)
    phone = chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    errors: list[str] = []
    pages = {}
    for context, name in ((desktop, "alice"), (phone, "bob")):
        context.set_default_timeout(TIMEOUT_MS)
        context.add_init_script(COUNT_SNAPSHOT_REQUESTS)
        page = context.new_page()
        page.on("pageerror", lambda error, name=name: errors.append(f"{name}: {error}"))
        pages[name] = page
    yield pages, errors
    desktop.close()
    phone.close()


@pytest.mark.timeout(900)  # three hands at a player's pace on a busy machine
def test_chips_repeat_auto_rebet_last_results_seat_clocks_header_balance_and_focus(players, casino_server):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    pages, errors = players
    alice, bob = pages["alice"], pages["bob"]
    base = casino_server.base_url
    before = casino_server.query(STATE)["available"]
    for name, page in pages.items():
        sign_in(page, base, name)
        page.get_by_role("button", name="Sit at Nassau").click()
        expect(page.locator("#conn-status")).to_have_attribute("data-state", "live")
        expect(page.locator("#header-balance")).to_have_text(money(before[name]))
    expect(alice.locator("#recent-results .recent-none")).to_be_visible()
    expect(alice.locator("#btn-repeat")).to_be_hidden()  # nothing to repeat yet

    # The chip rack sets the ante; the Bet button says what it stakes.
    chip = alice.get_by_role("button", name="Ante €2.00", exact=True)
    expect(chip).to_be_enabled()
    chip.click()
    expect(alice.get_by_role("spinbutton", name=re.compile("^Ante"))).to_have_value("2.00")
    expect(chip).to_have_attribute("aria-pressed", "true")
    expect(alice.locator("#btn-bet")).to_have_text("Bet €2.00")
    alice.locator("#btn-bet").focus()
    alice.keyboard.press("Enter")  # by keyboard: the focus must survive the action
    expect(alice.locator("#phase")).to_contain_text("Your bet is in")
    expect(alice.locator("#header-balance")).to_have_text(money(before["alice"] - 600))  # ante and the raise held
    assert _focus_in_controls(alice), "the focus left the control area after the bet"

    # Every seat's clock: bob's betting window shows on alice's felt, under bob's seat.
    expect(alice.locator('[data-seat-timer="2"]')).to_be_visible()
    expect(alice.locator('[data-seat-timer="2"] .seat-timer-value')).to_have_text(re.compile(r"^\d+ s$"))
    alice.screenshot(path=ARTIFACTS / "table-controls-laptop-900-betting.png")

    bob.get_by_role("button", name="Ante €1.00", exact=True).click()
    bob.locator("#btn-bet").click()
    for page in (alice, bob):
        expect(page.locator("#btn-raise")).to_be_enabled()
        for seat in (1, 2):  # both seats decide: both clocks run on both screens
            expect(page.locator(f'[data-seat-timer="{seat}"]')).to_be_visible()
    expect(alice.locator("#btn-raise")).to_be_focused()  # after the deal the focus is on the decision
    alice.wait_for_timeout(1200)  # the deal animation
    alice.screenshot(path=ARTIFACTS / "table-controls-laptop-900-deciding.png")
    bob.screenshot(path=ARTIFACTS / "table-controls-phone-deciding.png")

    alice.keyboard.press("Enter")  # raise, by keyboard
    bob.locator("#btn-fold").click()
    expect(alice.locator("#result-panel .explain li").first).to_contain_text("Your hand: ")
    state = casino_server.query(STATE)
    first = state["hands"][0]
    assert first["state"] == "settled"
    net = first["seats"]["alice"]["net"]
    rows = alice.locator("#recent-results .recent-row")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text(f"Hand {first['id']}")
    expect(rows.first.locator(".recent-net")).to_have_text(money(net, signed=True))
    expect(alice.locator("#header-balance")).to_have_text(money(state["available"]["alice"]))
    expect(bob.locator("#header-balance")).to_have_text(money(state["available"]["bob"]))
    assert _focus_in_controls(alice), "the focus left the control area after the decision"

    # The next hand: alice repeats her last bet, bob turns auto-rebet on.
    repeat = alice.locator("#btn-repeat")
    expect(repeat).to_have_text("Repeat last bet (€2.00)")
    expect(repeat).to_be_enabled()
    alice.screenshot(path=ARTIFACTS / "table-controls-laptop-900-repeat.png")
    repeat.click()
    expect(alice.locator("#phase")).to_contain_text("Your bet is in")
    bob.get_by_label("Auto-rebet").check()
    for page in (alice, bob):
        expect(page.locator("#btn-raise")).to_be_enabled()
    # At 1366×768 the decision is still in sight (checked at once: the decision time runs).
    alice.set_viewport_size(LAPTOP_SHORT)
    alice.evaluate("window.scrollTo(0, 0)")
    alice.wait_for_timeout(300)
    box = alice.locator("#btn-raise").bounding_box()
    alice.screenshot(path=ARTIFACTS / "table-controls-laptop-768-deciding.png")
    assert box and box["y"] + box["height"] <= LAPTOP_SHORT["height"]
    alice.locator("#btn-fold").click()
    bob.locator("#btn-fold").click()
    second = casino_server.query(STATE)["hands"][1]
    assert second["seats"]["alice"]["ante"] == 200 and second["seats"]["alice"]["jackpot_bet"] == 0
    assert second["seats"]["bob"]["ante"] == 100  # bob's bet, placed by auto-rebet
    assert bob.evaluate("() => localStorage.getItem('casino.autoRebet.bob')") == "on"

    expect(alice.locator("#recent-results .recent-row")).to_have_count(2)
    # bob's auto-rebet bets again at the third hand; alice, who does not bet, holds it open.
    expect(bob.locator("#phase")).to_contain_text("Your bet is in")
    third = casino_server.query(STATE)["hands"][2]
    assert third["seats"]["bob"]["ante"] == 100 and "alice" not in third["seats"]

    # The pages drew from the events: the only snapshots asked for while the hands were
    # played are for a deadline shown as passed before its event came (the server's timer
    # late on a busy machine), never for an event applied.
    for name, page in pages.items():
        reasons = page.evaluate("() => window.CasinoTable.state.snapshotReasons")
        assert page.evaluate("() => window.__snapshotRequests") == len(reasons), (
            f"{name}: a snapshot asked for without a reason"
        )
        assert set(reasons) <= {"deadline"}, f"{name} asked for snapshots: {reasons}"
    assert not errors
