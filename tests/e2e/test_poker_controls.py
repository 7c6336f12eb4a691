"""The poker table's controls in a real browser (issue 11 §2 and §3): a spread-limit table,
played by keyboard only, and the all-in allowance line drawn live.

alice and bob buy in at a Seven Card Stud 1-3 spread table (SPEC B1's preset). alice does
everything by keyboard (Tab to reach, Enter or Space to press, the focus ring visible on
each control): the buy-in, sit out / sit in (which deals the hand), the bet amount, leave.
The bring-in player's page offers a slider and a field for the completion, bounded by the
legal range; a value outside it is refused on the page (nothing is sent: the hand's
version stays), and the same value sent over the socket is refused by the server with
``bet_size_invalid``; the amount chosen with the slider's arrow keys is the completion
the hand's record shows. The other player's clock runs out facing it: the time-out spends
their all-in allowance and their time bank, and their page's line says so without a
reload. Screenshots: artifacts/e2e/poker-controls-*.png.
"""

from __future__ import annotations

import time

import pytest

from tests.e2e.conftest import ARTIFACTS, sign_in

TIMEOUT_MS = 20_000
LAPTOP = {"width": 1366, "height": 768}

SETUP = """
import json
from datetime import timedelta
from django.utils import timezone
from poker.models import PokerTable
from poker.services import poker_table_create
table = PokerTable.objects.filter(name="E2E Spread").first() or poker_table_create(name="E2E Spread", game="seven_stud", preset="1-3")
PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(days=1))
print(json.dumps(table.pk))
"""

DEAL_NOW = """
import json
from datetime import timedelta
from django.utils import timezone
from poker.models import PokerTable
PokerTable.objects.filter(pk={table}).update(next_hand_at=timezone.now() - timedelta(seconds=1))
print(json.dumps(True))
"""

# The player who does not bring in gets a short clock and no time bank, so that their
# time-out comes two seconds after the completion instead of forty.
SHORT_CLOCK = """
import json
from poker.models import PokerSeat, PokerTable
PokerSeat.objects.filter(table_id={table}, player__username={name!r}).update(time_bank_ms=0)
PokerTable.objects.filter(pk={table}).update(act_seconds=2)
print(json.dumps(True))
"""

HAND = """
import json
from poker.models import PokerHand
hand = PokerHand.objects.filter(table_id={table}).order_by("-number").first()
print(json.dumps(hand and {{"id": hand.pk, "state": hand.state, "version": hand.version, "record": hand.record}}))
"""

EVENTS = """
import json
from poker import replay
from poker.models import PokerHand
print(json.dumps(replay.hand_state(PokerHand.objects.get(pk={hand})).events))
"""

WALLETS = """
import json
from django.contrib.auth import get_user_model
from wallets.selectors import wallet_balances
print(json.dumps({{u.username: wallet_balances(user=u).available for u in get_user_model().objects.filter(username__in={names!r})}}))
"""

BAD_OVER_THE_SOCKET = """async ([path, handId, amount]) => await new Promise((resolve, reject) => {
  const ws = new WebSocket("ws://" + location.host + path);
  ws.onopen = () => ws.send(JSON.stringify({action: "act", id: "bad", hand_id: handId, kind: "complete", amount: amount}));
  ws.onmessage = (e) => { const m = JSON.parse(e.data); if (m.id === "bad") { ws.close(); resolve(m); } };
  setTimeout(() => reject(new Error("no answer")), 15000);
})"""

FOCUS = """() => { const el = document.activeElement; const s = getComputedStyle(el);
  return {visible: el.matches(':focus-visible'), style: s.outlineStyle, width: parseFloat(s.outlineWidth) || 0}; }"""


def _tab_to(page, selector: str, *, back: bool = False, limit: int = 80) -> None:
    """Press Tab (or Shift+Tab) until ``selector`` has the focus, and check the focus ring."""
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        if page.evaluate("s => !!document.activeElement && document.activeElement.matches(s)", selector):
            ring = page.evaluate(FOCUS)
            assert ring["visible"] and ring["style"] != "none" and ring["width"] >= 2, (selector, ring)
            return
    raise AssertionError(f"{selector} is not reachable by keyboard")


def _cents(text: str) -> int:
    return round(float(text) * 100)


@pytest.fixture(scope="module")
def players(chromium, casino_server):
    contexts, pages, errors = [], {}, []
    for name in ("alice", "bob"):
        context = chromium.new_context(viewport=LAPTOP)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error, name=name: errors.append(f"{name}: {error}"))
        sign_in(page, casino_server.base_url, name)
        pages[name] = page
    yield pages, errors
    for context in contexts:
        context.close()


@pytest.mark.timeout(300)
def test_spread_limit_by_keyboard_and_the_allowance_line_drawn_live(players, casino_server):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    pages, errors = players
    server = casino_server
    table = server.query(SETUP)
    url = f"{server.base_url}/poker/tables/{table}/"
    alice, bob = pages["alice"], pages["bob"]
    before = server.query(WALLETS.format(names=["alice", "bob"]))

    # --- buy in: alice by keyboard only, bob by the mouse
    alice.goto(url)
    _tab_to(alice, "#btn-buy-in")
    expect(alice.locator("#btn-buy-in")).to_have_text("Buy in for €30.00")
    alice.keyboard.press("Enter")
    expect(alice.locator(".flash-success")).to_contain_text("You bought in")
    bob.goto(url)
    bob.get_by_role("button", name="Buy in for €30.00").click()
    expect(bob.locator(".flash-success")).to_contain_text("You bought in")
    for page in (alice, bob):
        expect(page.locator("#you-line")).to_have_text("All-in allowance (time-out protection): one left today. Time bank 30 s.")
        page.evaluate("() => { window.__sameDocument = true; }")  # gone if the page reloads
    alice.screenshot(path=str(ARTIFACTS / "poker-controls-seated.png"))

    # --- sit out and back in by keyboard: the sit-in deals the hand (the hold-back is over)
    server.query(DEAL_NOW.format(table=table))
    expect(alice.locator("#conn-status")).to_have_attribute("data-state", "live")
    _tab_to(alice, "#btn-sit-out")
    alice.keyboard.press("Space")
    expect(alice.locator("#seat-notice")).to_have_text("You sit out from the next hand.")
    expect(alice.locator("#btn-sit-in")).to_be_visible()
    _tab_to(alice, "#btn-sit-in", back=True)
    alice.keyboard.press("Enter")
    for page in (alice, bob):
        expect(page.locator("#poker-street")).to_contain_text("Third street")

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        to_act = [n for n, p in pages.items() if p.evaluate("() => !!(window.CasinoPoker.state.view.you || {}).legal")]
        if to_act:
            break
        time.sleep(0.2)
    assert len(to_act) == 1, to_act
    bringer = to_act[0]
    other = "bob" if bringer == "alice" else "alice"
    page, watcher = pages[bringer], pages[other]
    server.query(SHORT_CLOCK.format(table=table, name=other))

    # --- the spread: the completion's slider and field span exactly the legal range
    legal = page.evaluate("() => window.CasinoPoker.state.view.you.legal")
    low, high = legal["complete_to"]
    step = _cents(legal["step"])
    expect(page.locator("#sized-action")).to_be_visible()
    slider, field = page.locator("#bet-slider"), page.locator("#bet-amount")
    assert (slider.get_attribute("min"), slider.get_attribute("max"), slider.get_attribute("step")) == (
        str(_cents(low)), str(_cents(high)), str(step))
    assert (_cents(field.get_attribute("min")), _cents(field.get_attribute("max"))) == (_cents(low), _cents(high))
    expect(page.locator("#sized-help")).to_contain_text(f"from €{low} to €{high}")
    buttons = [page.locator("#poker-actions button").nth(i).inner_text() for i in range(page.locator("#poker-actions button").count())]
    assert buttons == [f"Bring in €{legal['bring_in_amount']}"], buttons
    hand = server.query(HAND.format(table=table))

    # a value outside the range (and one off the chip's step) is refused on the page: nothing sent
    _tab_to(page, "#bet-amount")
    for bad in ("9.00", f"{(_cents(high) + step) / 100:.2f}", f"{(_cents(low) + 5) / 100:.2f}"):
        page.keyboard.press("Control+A")
        page.keyboard.type(bad)
        page.keyboard.press("Enter")
        expect(page.locator("#errors")).to_contain_text(f"Choose an amount from €{low} to €{high}")
        expect(field).to_have_attribute("aria-invalid", "true")
    page.screenshot(path=str(ARTIFACTS / "poker-controls-refused.png"))
    assert server.query(HAND.format(table=table))["version"] == hand["version"]
    # ...and by the server, with its code, if sent anyway
    for bad in (f"{(_cents(high) + step) / 100:.2f}", f"{(_cents(low) - step) / 100:.2f}"):
        reply = page.evaluate(BAD_OVER_THE_SOCKET, [f"/ws/poker/{table}/", hand["id"], bad])
        assert reply["type"] == "error" and reply["code"] == "bet_size_invalid", reply
    assert server.query(HAND.format(table=table))["version"] == hand["version"]

    # the slider by its arrow keys, then the button by Space: the chosen amount is played
    _tab_to(page, "#bet-slider", back=True)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    chosen = min(_cents(low) + 2 * step, _cents(high))
    assert int(slider.input_value()) == chosen
    expect(field).to_have_value(f"{chosen / 100:.2f}")
    expect(page.locator("#btn-sized")).to_have_text(f"Complete to €{chosen / 100:.2f}")
    _tab_to(page, "#btn-sized")
    page.screenshot(path=str(ARTIFACTS / "poker-controls-chosen.png"))
    page.keyboard.press("Space")
    expect(watcher.locator("#poker-seats .pseat-bet")).to_contain_text(f"{chosen / 100:.2f}")  # the chip on the felt

    # --- the other player's clock runs out facing the completion: their allowance protects
    # them, and their page says it is spent, with the time bank, without a reload
    expect(watcher.locator("#you-line")).to_have_text(
        "All-in allowance (time-out protection): used, back within 24 hours. Time bank 0 s.")
    expect(page.locator("#you-line")).to_contain_text("one left today")
    assert watcher.evaluate("() => window.__sameDocument") is True
    watcher.locator("#you-line").scroll_into_view_if_needed()
    watcher.screenshot(path=str(ARTIFACTS / "poker-controls-allowance-used.png"))
    events = server.query(EVENTS.format(hand=hand["id"]))
    acts = [(e["action"], e["to"]) for e in events if e["type"] == "action"]
    assert ("complete", f"{chosen / 100:.2f}") in acts and any(a == "timeout_all_in" for a, _ in acts), acts
    for p in (page, watcher):
        expect(p.locator("#result-panel")).to_be_visible()
    row = server.query(HAND.format(table=table))
    assert row["state"] == "ended"

    # --- leave by keyboard (alice), and bob by the mouse: the stacks go back to the wallets
    _tab_to(alice, "#btn-leave", back=True)
    alice.keyboard.press("Enter")
    expect(alice.locator("#seat-notice")).to_have_text("You left the table: your stack is back in your wallet.")
    expect(alice.locator("#you-line")).to_be_hidden()
    bob.locator("#btn-leave").click()
    expect(bob.locator("#seat-notice")).to_have_text("You left the table: your stack is back in your wallet.")
    alice.screenshot(path=str(ARTIFACTS / "poker-controls-left.png"))
    after = server.query(WALLETS.format(names=["alice", "bob"]))
    record = row["record"]
    net = {s["player"]: _cents(record["net"][str(s["seat"])]) for s in record["seats"]}
    for name in ("alice", "bob"):
        assert after[name] - before[name] == net[name], (name, before, after, net)
    assert not errors, errors
