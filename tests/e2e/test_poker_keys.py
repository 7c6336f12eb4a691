"""A stud hand played from the keyboard alone, and the player's turn noticed.

alice and bob at a Seven Card Stud 1-3 spread table, each page as if in a hidden tab. The
buttons show their keys; the bring-in player sizes the completion with the quick-amount
keys (3 the maximum, - a step down) and completes with R; the other player calls with C;
the hand is checked down with C. Keys typed in the notes' textarea or the amount field, and
a key out of turn, play nothing. The tab's title says "▶ Your turn – <table>" exactly while
it is the player's turn and the tab is hidden, and is the page's own again when the tab is
shown; the turn's sound plays for alice and not for bob, whose switch is off and stays off
after a reload. The hand's record shows the actions the keys played.
Screenshots: artifacts/e2e/poker-keys-*.png.
"""

from __future__ import annotations

import time

import pytest

from tests.e2e.conftest import ARTIFACTS, browsers

TIMEOUT_MS = 20_000
LAPTOP = {"width": 1366, "height": 768}
TABLE = "E2E Keys"
TURN_TITLE = f"▶ Your turn – {TABLE}"

SETUP = f"""
import json
from poker.models import PokerTable
from poker.services import poker_table_create
table = PokerTable.objects.filter(name={TABLE!r}).first() or poker_table_create(
    name={TABLE!r}, game="seven_stud", preset="1-3", actor=None
)
PokerTable.objects.filter(pk=table.pk).update(act_seconds=60)  # keys are quick; a loaded machine is not
print(json.dumps(table.pk))
"""

RECORD = """
import json
from poker.models import PokerHand
hand = PokerHand.objects.get(pk=%(hand)d)
print(json.dumps({"state": hand.state, "record": hand.record}))
"""

HIDE = """() => {
  Object.defineProperty(document, "visibilityState", {configurable: true, get: () => "hidden"});
  Object.defineProperty(document, "hidden", {configurable: true, get: () => true});
  window.hiddenByTest = true;
  document.dispatchEvent(new Event("visibilitychange"));
}"""
SHOW = """() => {
  delete document.visibilityState; delete document.hidden;  // the prototype's getters again
  document.dispatchEvent(new Event("visibilitychange"));
}"""
VERSION = "() => { const h = window.CasinoPoker.state.view.hand; return h ? h.version : null; }"
# What a failed title check shows: the title, whether the tab still reads as hidden, whether
# the page was loaded again since it was hidden (the marker goes with a reload), the turn.
PAGE_STATE = """() => { const s = window.CasinoPoker.state;
  return [document.title, document.visibilityState, !!window.hiddenByTest, s.view.hand, (s.view.you || {}).legal,
          s.busy]; }"""
TO_ACT = """() => { const s = window.CasinoPoker.state;
  return !!(s.view.you || {}).legal && !!s.view.hand && !s.view.hand.is_over && !s.busy; }"""


@pytest.fixture(scope="module")
def players(chromium, casino_server):
    screens = {name: LAPTOP for name in ("alice", "bob")}
    with browsers(chromium, screens, timeout_ms=TIMEOUT_MS, base_url=casino_server.base_url) as signed_in:
        yield signed_in


def _buttons(page) -> list[str]:
    buttons = page.locator("#poker-actions button")
    return [buttons.nth(i).inner_text() for i in range(buttons.count())]


def _nothing_played(pages: dict, version: int) -> None:
    """A key that must play nothing: after a moment, the hand is where it was on every page."""
    time.sleep(1.0)
    for page in pages.values():
        assert page.evaluate(VERSION) == version


def _wait_turn(pages: dict, hand: int | None = None, seconds: float = 20) -> str | None:
    """Whose turn it is in ``hand`` (the one on the felt if None); None once it is over."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        felt = [p.evaluate("() => window.CasinoPoker.state.view.hand") for p in pages.values()]
        if hand is not None and any(not h or h["id"] != hand or h["is_over"] for h in felt):
            return None
        for name, page in pages.items():
            if page.evaluate(TO_ACT):
                return name
        time.sleep(0.15)
    raise AssertionError("nobody's turn came")


@pytest.mark.timeout(300)
def test_a_hand_played_by_keys_and_the_turn_in_the_tabs_title(players, casino_server):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    pages, errors = players
    server = casino_server
    table = server.query(SETUP)
    url = f"{server.base_url}/poker/tables/{table}/"
    alice, bob = pages["alice"], pages["bob"]

    # --- seated; bob switches his turn's sound off, and it stays off after a reload
    alice.goto(url)
    alice.get_by_role("button", name="Buy in for €30.00").click()
    expect(alice.locator(".flash-success")).to_contain_text("You bought in")
    bob.goto(url)
    bob.get_by_role("button", name="Buy in for €30.00").click()  # deals the hand
    expect(bob.locator(".flash-success")).to_contain_text("You bought in")
    expect(bob.locator("#btn-sound")).to_have_text("Turn sound: on")
    bob.locator("#btn-sound").click()
    expect(bob.locator("#btn-sound")).to_have_text("Turn sound: off")
    expect(bob.locator("#btn-sound")).to_have_attribute("aria-pressed", "false")
    alice.goto(url)  # her notes now list bob
    bob.goto(url)
    expect(bob.locator("#btn-sound")).to_have_text("Turn sound: off")
    expect(alice.locator("#btn-sound")).to_have_text("Turn sound: on")
    base = {}
    for name, page in pages.items():
        expect(page.locator("#poker-street")).to_contain_text("Third street")
        expect(page.locator("#conn-status")).to_have_attribute("data-state", "live")
        base[name] = page.title()
        assert base[name].startswith(TABLE), base[name]
        page.locator("#poker-street").click()  # a gesture: the page may make a sound from now on
        page.evaluate(HIDE)

    # --- the bring-in player's turn: the title says it in the hidden tab; the keys are shown
    bringer = _wait_turn(pages)
    other = "bob" if bringer == "alice" else "alice"
    page, watcher = pages[bringer], pages[other]
    expect(page).to_have_title(TURN_TITLE)
    assert watcher.title() == base[other]
    legal = page.evaluate("() => window.CasinoPoker.state.view.you.legal")
    low, high = legal["complete_to"]
    assert _buttons(page) == [f"Bring in €{legal['bring_in_amount']} (B)"]
    expect(page.locator("#quick-amounts button")).to_have_text([f"Min €{low} (1)", f"Max €{high} (3)"])
    expect(page.locator("#btn-sized")).to_have_text(f"Complete to €{low} (R)")
    version = page.evaluate(VERSION)
    hand = page.evaluate("() => window.CasinoPoker.state.view.hand.id")

    # keys out of turn, or typed in a field, play nothing
    watcher.keyboard.press("f")
    watcher.keyboard.press("c")
    notes = page.locator("#notes-panel textarea").first
    page.locator("#notes-panel summary").first.click()
    notes.click()
    page.keyboard.type("calls light, raises r")
    expect(notes).to_have_value("calls light, raises r")
    field = page.locator("#bet-amount")
    field.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("2")
    expect(field).to_have_value("2")  # typed, not the quick amount 2
    _nothing_played(pages, version)
    expect(watcher.locator("#poker-seats .is-folded")).to_have_count(0)

    # 3 the maximum, - one step down, R completes to it
    page.keyboard.press("Tab")  # out of the field, onto the sized button
    page.keyboard.press("3")
    expect(field).to_have_value(high)
    page.keyboard.press("-")
    chosen = f"{(round(float(high) * 100) - round(float(legal['step']) * 100)) / 100:.2f}"
    expect(field).to_have_value(chosen)
    expect(page.locator("#btn-sized")).to_have_text(f"Complete to €{chosen} (R)")
    page.screenshot(path=str(ARTIFACTS / "poker-keys-bring-in.png"))
    watcher_notes = watcher.locator("#notes-panel textarea").first
    watcher.locator("#notes-panel summary").first.click()
    watcher_notes.click()  # the watcher is typing a note when the turn comes
    page.keyboard.press("r")
    expect(watcher.locator("#poker-seats .pseat-bet")).to_contain_text(chosen)
    expect(page).to_have_title(base[bringer])  # no longer this player's turn
    assert page.evaluate("() => document.activeElement !== document.body"), "the focus is kept on the controls"

    # --- the other player faces it: the title moves to their tab; the turn leaves the note
    # being typed its focus (its letters stay its own), and C calls from outside it
    expect(watcher).to_have_title(TURN_TITLE)
    assert watcher.evaluate("() => document.activeElement.tagName") == "TEXTAREA"
    watcher.keyboard.type("folds to a raise")
    expect(watcher_notes).to_have_value("folds to a raise")
    _nothing_played(pages, page.evaluate(VERSION))
    watcher.locator("#phase").click()
    expect(watcher.locator("#poker-actions button").first).to_have_text("Fold (F)")
    expect(watcher.locator("#poker-actions button").nth(1)).to_have_text(f"Call €{chosen} (C)")
    assert sum(label.endswith("(R)") for label in _buttons(watcher)) <= 1  # one key, one action
    watcher.screenshot(path=str(ARTIFACTS / "poker-keys-facing.png"))
    watcher.keyboard.press("c")

    # --- checked down by C; the completer's last amount is a quick amount (2) on their next bet
    saw_last = False
    for _ in range(40):
        name = _wait_turn(pages, hand)
        if name is None:
            break
        p = pages[name]
        try:
            expect(p).to_have_title(TURN_TITLE, timeout=5_000)
        except AssertionError:
            raise AssertionError((name, p.evaluate(PAGE_STATE))) from None
        if name == bringer and not saw_last and p.locator("#sized-action").is_visible():
            expect(p.locator("#quick-amounts [data-quick=last]")).to_have_text(f"Last €{chosen} (2)")
            p.keyboard.press("2")
            expect(p.locator("#bet-amount")).to_have_value(chosen)
            p.screenshot(path=str(ARTIFACTS / "poker-keys-last-amount.png"))
            saw_last = True
        before = p.evaluate(VERSION)
        p.keyboard.press("c")
        p.wait_for_function(
            f"() => {{ const h = window.CasinoPoker.state.view.hand; return !h || h.version !== {before}; }}"
        )
        assert p.evaluate("() => document.activeElement !== document.body"), f"{name} lost the focus"
    assert saw_last

    for name, p in pages.items():
        expect(p.locator("#result-panel")).to_be_visible()
        p.evaluate(SHOW)
        assert p.title() == base[name]
    alice.screenshot(path=str(ARTIFACTS / "poker-keys-over.png"))

    # the turn's sound: alice's played, bob's switch kept it silent
    assert alice.evaluate("() => window.CasinoPoker.state.beeps") >= 1
    assert bob.evaluate("() => window.CasinoPoker.state.beeps") == 0

    row = server.query(RECORD % {"hand": hand})
    assert row["state"] == "ended"
    acts = [
        (e["action"], e.get("to")) for e in row["record"]["events"] if e["type"] == "action" and e["action"] != "ante"
    ]
    assert acts[0] == ("complete", chosen), acts
    assert acts[1][0] == "call", acts
    assert {a for a, _ in acts[2:]} == {"check"}, acts
    assert not errors, errors
