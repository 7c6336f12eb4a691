"""Pre-actions in the browser: alice and bob heads-up at a Seven Card Stud 2-4 table.

While the bring-in player decides, the other one ticks "Call any": the box shows pressed
(the server's answer), and the bring-in plays it at once: the call is in the log and the
hand moves on to fourth street without that player ever being offered a button. On fourth
street the player who waits ticks "Check/fold"; the first player bets, and the box folds at
once: the hand is over, no button was ever offered for that turn either. The boxes the
server cleared are shown cleared. Screenshots: artifacts/e2e/poker-preactions-*.png.
"""

from __future__ import annotations

import time

import pytest

from tests.e2e.conftest import ARTIFACTS, browsers

TIMEOUT_MS = 20_000
LAPTOP = {"width": 1366, "height": 768}
TABLE = "E2E Pre-actions"

SETUP = f"""
import json
from poker.models import PokerTable
from poker.services import poker_table_create
table = PokerTable.objects.filter(name={TABLE!r}).first() or poker_table_create(
    name={TABLE!r}, game="seven_stud", preset="2-4", actor=None
)
PokerTable.objects.filter(pk=table.pk).update(act_seconds=60)  # a loaded machine is slow; the boxes are not
print(json.dumps(table.pk))
"""

RECORD = """
import json
from poker.models import PokerHand, PokerSeat
hand = PokerHand.objects.get(pk=%(hand)d)
banks = dict(PokerSeat.objects.filter(table_id=hand.table_id).values_list("number", "time_bank_ms"))
print(json.dumps({"state": hand.state, "actions": hand.actions, "preactions": hand.preactions,
                  "seats": {s["player"]: s["seat"] for s in hand.seats}, "banks": banks}))
"""

TO_ACT = """() => { const s = window.CasinoPoker.state;
  return !!(s.view.you || {}).legal && !!s.view.hand && !s.view.hand.is_over && !s.busy; }"""
# Notes each time the page shows its action buttons (the player's own turn): [hand, street].
WATCH_BUTTONS = """() => {
  window.buttonsShown = [];
  const el = document.getElementById("poker-actions");
  new MutationObserver(() => {
    const h = window.CasinoPoker.state.view.hand;
    if (!el.hidden && h) window.buttonsShown.push([h.id, h.street]);
  }).observe(el, {attributes: true, childList: true});
}"""
SHOWN = "() => window.buttonsShown"


@pytest.fixture(scope="module")
def players(chromium, casino_server):
    screens = {name: LAPTOP for name in ("alice", "bob")}
    with browsers(chromium, screens, timeout_ms=TIMEOUT_MS, base_url=casino_server.base_url) as signed_in:
        yield signed_in


def _whose_turn(pages: dict, seconds: float = 20) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for name, page in pages.items():
            if page.evaluate(TO_ACT):
                return name
        time.sleep(0.15)
    raise AssertionError("nobody's turn came")


@pytest.mark.timeout(300)
def test_call_any_and_check_fold_play_the_instant_the_turn_comes(players, casino_server):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    pages, errors = players
    server = casino_server
    table = server.query(SETUP)
    url = f"{server.base_url}/poker/tables/{table}/"
    alice, bob = pages["alice"], pages["bob"]
    alice.goto(url)
    alice.get_by_role("button", name="Buy in for €20.00").click()
    expect(alice.locator(".flash-success")).to_contain_text("You bought in")
    bob.goto(url)
    bob.get_by_role("button", name="Buy in for €20.00").click()  # deals the hand
    expect(bob.locator(".flash-success")).to_contain_text("You bought in")
    alice.goto(url)
    for page in pages.values():
        expect(page.locator("#poker-street")).to_contain_text("Third street")
        expect(page.locator("#conn-status")).to_have_attribute("data-state", "live")

    # --- third street: the bring-in player decides; the other one ticks "Call any"
    bringer = _whose_turn(pages)
    caller = "bob" if bringer == "alice" else "alice"
    page, waiting = pages[bringer], pages[caller]
    hand = page.evaluate("() => window.CasinoPoker.state.view.hand.id")
    boxes = waiting.locator("#poker-preactions button")
    expect(waiting.locator("#poker-preactions")).to_be_visible()
    expect(boxes).to_have_text(["Check/fold", "Check", "Call any"])
    expect(waiting.locator("#poker-preactions button[aria-pressed=true]")).to_have_count(0)
    expect(page.locator("#poker-preactions")).to_be_hidden()  # the player to act has the buttons instead
    waiting.evaluate(WATCH_BUTTONS)
    waiting.locator("#poker-preactions button[data-preaction=call_any]").click()
    expect(waiting.locator("#poker-preactions button[data-preaction=call_any]")).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(waiting.locator("#phase")).to_contain_text("Ticked for your turn: Call any.")
    waiting.screenshot(path=str(ARTIFACTS / "poker-preactions-call-any.png"))
    expect(page.locator("#poker-preactions")).to_be_hidden()  # nothing of it on the other page

    page.locator("#poker-actions button[data-action=bring_in]").click()
    for p in pages.values():
        expect(p.locator("#poker-street")).to_contain_text("Fourth street")
        expect(p.locator("#hand-log")).to_contain_text(f"{caller} calls €1.00")
    assert [hand, 3] not in waiting.evaluate(SHOWN), "the call was played for the player, at once"
    expect(waiting.locator("#poker-preactions button[aria-pressed=true]")).to_have_count(0)
    waiting.screenshot(path=str(ARTIFACTS / "poker-preactions-called.png"))

    # --- fourth street: the one who waits ticks "Check/fold"; the first one bets
    first = _whose_turn(pages)
    second = "bob" if first == "alice" else "alice"
    page, waiting = pages[first], pages[second]
    waiting.evaluate(WATCH_BUTTONS)
    waiting.locator("#poker-preactions button[data-preaction=check_fold]").click()
    expect(waiting.locator("#poker-preactions button[data-preaction=check_fold]")).to_have_attribute(
        "aria-pressed", "true"
    )
    waiting.screenshot(path=str(ARTIFACTS / "poker-preactions-check-fold.png"))
    page.locator("#poker-actions button[data-action=bet]").first.click()
    for p in pages.values():
        expect(p.locator("#hand-log")).to_contain_text(f"{second} folds")
        expect(p.locator("#result-panel")).to_be_visible()
    assert [hand, 4] not in waiting.evaluate(SHOWN), "the fold was played for the player, at once"
    expect(waiting.locator("#poker-preactions")).to_be_hidden()
    waiting.screenshot(path=str(ARTIFACTS / "poker-preactions-folded.png"))

    row = server.query(RECORD % {"hand": hand})
    assert row["state"] == "ended" and row["preactions"] == {}
    seat = row["seats"]
    acts = [[s, kind] for s, kind, _ in row["actions"]]
    assert acts == [[seat[bringer], "bring_in"], [seat[caller], "call"], [seat[first], "bet"], [seat[second], "fold"]]
    assert row["banks"][str(seat[second])] == row["banks"][str(seat[first])], "no time bank was spent"
    assert not errors, errors
