"""The poker table's controls in a real browser: a spread-limit table,
played by keyboard only, and the all-in allowance line drawn live.

alice and bob buy in at a Seven Card Stud 1-3 spread table (SPEC B1's preset); bob's
buy-in deals the hand. By keyboard only (Tab to reach, Enter or Space to press, the focus
ring visible on each control): alice's buy-in, sit out, sit in and leave, and the
bring-in player's whole turn. That page offers the bring-in button (with the focus) and a
slider and a field for the completion, bounded by the legal range; a value outside it is
refused on the page (nothing is sent), and sent over the socket anyway it is refused by
the server with ``bet_size_invalid``; the amount chosen with the slider's arrow keys is
the one completion the hand's record shows. The other player's clock runs out facing it: the time-out spends
their all-in allowance and their time bank, and their page's line says so without a
reload. Screenshots: artifacts/e2e/poker-controls-*.png.
"""

from __future__ import annotations

import time

import pytest

from tests.e2e.conftest import ARTIFACTS, browsers

TIMEOUT_MS = 20_000
LAPTOP = {"width": 1366, "height": 768}

# Each query is a ``manage.py shell`` of its own (seconds on a busy machine): few of them.
WALLETS = """
import json
from django.contrib.auth import get_user_model
from wallets.selectors import wallet_balances
players = get_user_model().objects.filter(username__in=["alice", "bob"])
wallets = {u.username: wallet_balances(user=u).available for u in players}
"""

SETUP = (
    WALLETS
    + """
from poker.models import PokerTable
from poker.services import poker_table_create
table = PokerTable.objects.filter(name="E2E Spread").first() or poker_table_create(
    name="E2E Spread", game="seven_stud", preset="1-3", actor=None
)
print(json.dumps([table.pk, wallets]))
"""
)

HAND = """
import json
from poker.models import PokerHand
hand = PokerHand.objects.filter(table_id=%(table)d).order_by("-number").first()
print(json.dumps(
    {"id": hand.pk, "state": hand.state, "version": hand.version, "record": hand.record, "wallets": wallets}
))
"""

# The player who does not bring in gets a short clock and no time bank, so that their
# time-out comes two seconds after the completion instead of forty.
SHORT_CLOCK = (
    """
from poker.models import PokerSeat, PokerTable
PokerSeat.objects.filter(table_id=%(table)d, player__username=%(name)r).update(time_bank_ms=0)
PokerTable.objects.filter(pk=%(table)d).update(act_seconds=2)
wallets = None
"""
    + HAND
)

# The hand once it is over, and the wallets after both left.
ENDED = WALLETS + HAND

BAD_OVER_THE_SOCKET = """async ([path, handId, amount]) => await new Promise((resolve, reject) => {
  const ws = new WebSocket("ws://" + location.host + path);
  ws.onopen = () => ws.send(
    JSON.stringify({action: "act", id: "bad", hand_id: handId, kind: "complete", amount: amount}));
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
    screens = {name: LAPTOP for name in ("alice", "bob")}
    with browsers(chromium, screens, timeout_ms=TIMEOUT_MS, base_url=casino_server.base_url) as signed_in:
        yield signed_in


@pytest.mark.timeout(300)
def test_spread_limit_by_keyboard_and_the_allowance_line_drawn_live(players, casino_server):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    pages, errors = players
    server = casino_server
    table, before = server.query(SETUP)
    url = f"{server.base_url}/poker/tables/{table}/"
    alice, bob = pages["alice"], pages["bob"]

    # --- buy in: alice by keyboard only, bob by the mouse; the second buy-in deals the hand
    alice.goto(url)
    _tab_to(alice, "#btn-buy-in")
    expect(alice.locator("#btn-buy-in")).to_have_text("Buy in for €30.00")
    alice.keyboard.press("Enter")
    expect(alice.locator(".flash-success")).to_contain_text("You bought in")
    bob.goto(url)
    bob.get_by_role("button", name="Buy in for €30.00").click()
    expect(bob.locator(".flash-success")).to_contain_text("You bought in")
    for page in (alice, bob):
        expect(page.locator("#you-line")).to_have_text(
            "All-in allowance (time-out protection): one left today. Time bank 30 s."
        )
        page.evaluate("() => { window.__sameDocument = true; }")  # gone if the page reloads
    alice.screenshot(path=str(ARTIFACTS / "poker-controls-seated.png"))

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
    hand = server.query(SHORT_CLOCK % {"table": table, "name": other})

    # --- the spread: the completion's slider and field span exactly the legal range
    legal = page.evaluate("() => window.CasinoPoker.state.view.you.legal")
    low, high = legal["complete_to"]
    step = _cents(legal["step"])
    expect(page.locator("#sized-action")).to_be_visible()
    slider, field = page.locator("#bet-slider"), page.locator("#bet-amount")
    assert (slider.get_attribute("min"), slider.get_attribute("max"), slider.get_attribute("step")) == (
        str(_cents(low)),
        str(_cents(high)),
        str(step),
    )
    assert (_cents(field.get_attribute("min")), _cents(field.get_attribute("max"))) == (_cents(low), _cents(high))
    expect(page.locator("#sized-help")).to_contain_text(f"from €{low} to €{high}")
    buttons = [
        page.locator("#poker-actions button").nth(i).inner_text()
        for i in range(page.locator("#poker-actions button").count())
    ]
    assert buttons == [f"Bring in €{legal['bring_in_amount']} (B)"], buttons
    assert page.evaluate("() => document.activeElement.dataset.action") == "bring_in"  # the turn's focus
    # an action key that plays nothing now says which keys do, and sends nothing
    page.keyboard.press("c")
    expect(page.locator("#errors")).to_have_text(
        f"C plays nothing now: B Bring in €{legal['bring_in_amount']}, R Complete to."
    )
    page.keyboard.press("Shift")  # a key that is no action's says nothing new
    expect(page.locator("#errors")).to_contain_text("C plays nothing now")

    # a value outside the range (and one off the chip's step) is refused on the page: nothing sent
    _tab_to(page, "#bet-amount")
    for bad in ("9.00", f"{(_cents(high) + step) / 100:.2f}", f"{(_cents(low) + 5) / 100:.2f}"):
        page.keyboard.press("Control+A")
        page.keyboard.type(bad)
        page.keyboard.press("Enter")
        expect(page.locator("#errors")).to_contain_text(f"Choose an amount from €{low} to €{high}")
        expect(field).to_have_attribute("aria-invalid", "true")
    page.screenshot(path=str(ARTIFACTS / "poker-controls-refused.png"))
    # ...and by the server, with its code, if sent anyway
    for bad in (f"{(_cents(high) + step) / 100:.2f}", f"{(_cents(low) - step) / 100:.2f}"):
        reply = page.evaluate(BAD_OVER_THE_SOCKET, [f"/ws/poker/{table}/", hand["id"], bad])
        assert reply["type"] == "error" and reply["code"] == "bet_size_invalid", reply
    assert page.evaluate("() => window.CasinoPoker.state.view.hand.version") == hand["version"]  # the page sent nothing

    # the slider by its arrow keys, then the button by Space: the chosen amount is played
    _tab_to(page, "#bet-slider", back=True)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    chosen = min(_cents(low) + 2 * step, _cents(high))
    assert int(slider.input_value()) == chosen
    expect(field).to_have_value(f"{chosen / 100:.2f}")
    expect(page.locator("#btn-sized")).to_have_text(f"Complete to €{chosen / 100:.2f} (R)")
    # a legal amount takes the refusal back: no stale error beside it
    expect(page.locator("#errors")).to_be_hidden()
    expect(field).not_to_have_attribute("aria-invalid", "true")
    _tab_to(page, "#btn-sized")
    page.screenshot(path=str(ARTIFACTS / "poker-controls-chosen.png"))
    page.keyboard.press("Space")
    expect(watcher.locator("#poker-seats .pseat-bet")).to_contain_text(f"{chosen / 100:.2f}")  # the chip on the felt

    # --- the other player's clock runs out facing the completion: their allowance protects
    # them, and their page says it is spent, with the time bank, without a reload
    expect(watcher.locator("#you-line")).to_have_text(
        "All-in allowance (time-out protection): used, back within 24 hours. Time bank 0 s."
    )
    expect(page.locator("#you-line")).to_contain_text("one left today")
    assert watcher.evaluate("() => window.__sameDocument") is True
    watcher.locator("#you-line").scroll_into_view_if_needed()
    watcher.screenshot(path=str(ARTIFACTS / "poker-controls-allowance-used.png"))
    for p in (page, watcher):
        expect(p.locator("#result-panel")).to_be_visible()

    # --- bob leaves by the mouse; alice, alone (no hand can start), sits out and in by
    # keyboard whichever way the time-out left her, then leaves: the stacks go back
    bob.locator("#btn-leave").click()
    expect(bob.locator("#seat-notice")).to_have_text("You left the table: your stack is back in your wallet.")
    expect(alice.locator("#conn-status")).to_have_attribute("data-state", "live")
    toggles = [
        ("#btn-sit-out", "Space", "You sit out from the next hand."),
        ("#btn-sit-in", "Enter", "You are dealt in from the next hand."),
    ]
    if alice.locator("#btn-sit-in").is_visible():
        toggles.reverse()
    for button, key, said in toggles:
        _tab_to(alice, button, back=True)
        alice.keyboard.press(key)
        expect(alice.locator("#seat-notice")).to_have_text(said)
    _tab_to(alice, "#btn-leave", back=True)
    alice.keyboard.press("Enter")
    expect(alice.locator("#seat-notice")).to_have_text("You left the table: your stack is back in your wallet.")
    expect(alice.locator("#you-line")).to_be_hidden()
    alice.screenshot(path=str(ARTIFACTS / "poker-controls-left.png"))
    row = server.query(ENDED % {"table": table})
    assert row["id"] == hand["id"] and row["state"] == "ended" and row["version"] > hand["version"]
    record, after = row["record"], row["wallets"]
    acts = [(e["action"], e["to"]) for e in record["events"] if e["type"] == "action"]
    # the refused amounts left no trace; the one chosen is the completion the hand played
    assert [a for a in acts if a[0] == "complete"] == [("complete", f"{chosen / 100:.2f}")], acts
    assert any(a == "timeout_all_in" for a, _ in acts), acts
    net = {s["player"]: _cents(record["net"][str(s["seat"])]) for s in record["seats"]}
    for name in ("alice", "bob"):
        assert after[name] - before[name] == net[name], (name, before, after, net)
    assert not errors, errors
