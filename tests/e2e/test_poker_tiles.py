"""Several tables at once, and the notes at a table, from the keyboard.

alice and bob buy in at three Seven Card Stud 1-2 tables (SPEC B1's preset). alice opens
"My tables" at 1366×768: three tiles of a 2×2 grid, each its live table on a socket of
its own, all in sight, nothing overflowing, the seats' cards and the buttons at a size
that reads. bob plays his turns from a tab per table until every table waits for alice:
the tiles are marked in the order they began waiting, the one waiting longest has the
keyboard, and the key pressed plays there and at no other table; the keyboard then goes
to the next waiting table, where the next key plays. A table whose turn comes back joins
the line at its end, with the turn's sound from the page (the tiles stay silent).

Then alice at a table's own page, on her turn: Tab reaches her notes on bob; the letters
typed in the note (F, C, R and the rest) are the note's, not a fold, a call or a raise;
the colour tag is chosen and the note saved from the keyboard, and the hand waited.
Screenshots: artifacts/e2e/poker-tiles-*.png.
"""

from __future__ import annotations

import re
import time

import pytest

from tests.e2e.conftest import ARTIFACTS, browsers

TIMEOUT_MS = 20_000
LAPTOP = {"width": 1366, "height": 768}
TABLES = ("E2E Tiles A", "E2E Tiles B", "E2E Tiles C")

SETUP = f"""
import json
from poker.models import PokerTable
from poker.services import poker_table_create
ids = []
for name in {TABLES!r}:
    table = PokerTable.objects.filter(name=name).first() or poker_table_create(
        name=name, game="seven_stud", preset="1-2", actor=None
    )
    ids.append(table.pk)
PokerTable.objects.filter(pk__in=ids).update(act_seconds=300)  # nobody times out while the test plays the other tables
print(json.dumps(ids))
"""

NOTE = """
import json
from poker.models import PokerNote
note = PokerNote.objects.filter(author__username="alice", subject__username="bob").first()
print(json.dumps(note and {"text": note.text, "colour": note.colour}))
"""

VERSION = "() => { const h = window.CasinoPoker.state.view.hand; return h ? h.version : null; }"
# The player's legal actions while it is their turn (null otherwise).
LEGAL = """() => { const s = window.CasinoPoker.state, h = s.view.hand, y = s.view.you;
  return y && y.legal && h && !h.is_over && !s.busy ? y.legal.actions : null; }"""
WAITING = "() => window.CasinoPokerTiles.waiting"
FOCUSED_TILE = (
    "() => { const t = document.activeElement && document.activeElement.closest('[data-tile]'); return t ? "
    "t.dataset.tile : null; }"
)
# What a tile's table shows of itself, measured in its frame.
FITS = """() => {
  const doc = document.documentElement;
  const inView = (el) => {
    const r = el.getBoundingClientRect();
    return r.bottom <= innerHeight + 1 && r.right <= innerWidth + 1;
  };
  const seats = Array.from(document.querySelectorAll('.pseat:not(.is-empty)'));
  const cards = Array.from(document.querySelectorAll('.pseat-cards .card'));
  const buttons = Array.from(document.querySelectorAll('#poker-actions button'));
  return {
    sideways: doc.scrollWidth - doc.clientWidth,
    seats: seats.length, seatsInView: seats.filter(inView).length,
    cards: cards.length, narrowest: Math.min(...cards.map((c) => c.getBoundingClientRect().width)),
    buttons: buttons.length, buttonsInView: buttons.filter(inView).length,
    smallestText: Math.min(...buttons.concat(Array.from(document.querySelectorAll('.pseat-plate, .pseat-stack')))
      .map((el) => parseFloat(getComputedStyle(el).fontSize))),
  };
}"""


@pytest.fixture(scope="module")
def players(chromium, casino_server):
    screens = {name: LAPTOP for name in ("alice", "bob")}
    with browsers(chromium, screens, timeout_ms=TIMEOUT_MS, base_url=casino_server.base_url) as signed_in:
        yield signed_in


@pytest.fixture(scope="module")
def tables(players, casino_server):
    """The three tables, alice and bob seated at each (bob's buy-in deals its first hand),
    and bob's tab at each table: ``(table ids, bob's pages by table id)``."""
    from playwright.sync_api import expect

    pages, errors = players
    ids = casino_server.query(SETUP)
    bob_pages = {}
    for table in ids:
        url = f"{casino_server.base_url}/poker/tables/{table}/"
        pages["alice"].goto(url)
        pages["alice"].get_by_role("button", name="Buy in for €20.00").click()
        expect(pages["alice"].locator(".flash-success")).to_contain_text("You bought in")
        if bob_pages:  # a tab of bob's per table
            page = pages["bob"].context.new_page()
            page.on("pageerror", lambda error: errors.append(f"bob: {error}"))
        else:
            page = pages["bob"]
        page.goto(url)
        page.get_by_role("button", name="Buy in for €20.00").click()
        expect(page.locator(".flash-success")).to_contain_text("You bought in")
        expect(page.locator("#conn-status")).to_have_attribute("data-state", "live")
        bob_pages[table] = page
    return ids, bob_pages


def _frame(page, table: int):
    """The frame of ``table``'s tile on the My tables page."""
    return next(f for f in page.frames if f.url.endswith(f"/poker/tables/{table}/tile/"))


def _bob_plays(page) -> bool:
    """bob checks, calls or brings in if it is his turn at this tab's table (never folds:
    the hand goes on until alice acts)."""
    actions = page.evaluate(LEGAL)
    if not actions:
        return False
    kind = next(k for k in ("check", "call", "bring_in") if k in actions)
    before = page.evaluate(VERSION)
    page.locator(f'#poker-actions button[data-action="{kind}"]').click()
    page.wait_for_function(
        f"() => {{ const h = window.CasinoPoker.state.view.hand; return !h || h.version !== {before}; }}"
    )
    return True


def _key_for(actions: list[str]) -> str:
    return "c" if "check" in actions or "call" in actions else "b"


def _waiting(page) -> list[int]:
    return [int(t) for t in page.evaluate(WAITING)]


@pytest.mark.timeout(300)
def test_my_tables_hands_the_keyboard_to_the_table_waiting_longest(players, tables, casino_server):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    pages, errors = players
    alice = pages["alice"]
    ids, bob_pages = tables

    # --- the lobby leads there; three tiles, each live, all in sight at 1366×768
    alice.goto(f"{casino_server.base_url}/poker/")
    expect(alice.locator("#my-tables-link")).to_have_text("My tables side by side (3)")
    alice.locator("#my-tables-link").click()
    expect(alice.locator("h1")).to_have_text("My tables")
    tiles = alice.locator("[data-tile]")
    expect(tiles).to_have_count(3)
    assert [int(t) for t in tiles.evaluate_all("(ts) => ts.map((t) => t.dataset.tile)")] == ids
    for table in ids:
        expect(alice.frame_locator(f'[data-tile="{table}"] iframe').locator("#conn-status")).to_have_attribute(
            "data-state", "live"
        )
    boxes = tiles.evaluate_all(
        "(ts) => ts.map((t) => { const r = t.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })"
    )
    assert boxes[0][1] == boxes[1][1] and boxes[2][1] > boxes[0][3], boxes  # two a row
    assert all(right <= LAPTOP["width"] and bottom <= LAPTOP["height"] for _l, _t, right, bottom in boxes), boxes

    # --- bob plays at one table at a time until every table waits for alice: those waiting
    # from the start first (in the order their tiles said so), then in the order bob made them
    start = _waiting(alice)
    later = []
    for table in ids:
        deadline = time.monotonic() + 60
        while table not in _waiting(alice):
            assert time.monotonic() < deadline, f"table {table} never waited for alice"
            if not _bob_plays(bob_pages[table]):
                time.sleep(0.2)
        if table not in start:
            later.append(table)
            time.sleep(0.3)  # the next table begins waiting later, measurably
    order = _waiting(alice)
    assert sorted(order[: len(start)]) == sorted(start) and order[len(start) :] == later, (start, later, order)

    first, second, third = order
    marks = {table: alice.locator(f'[data-tile="{table}"] [data-tile-turn]') for table in ids}
    expect(marks[first]).to_have_text("Your turn · 1 of 3")
    expect(marks[second]).to_have_text("Your turn · 2 of 3")
    expect(marks[third]).to_have_text("Your turn · 3 of 3")
    expect(alice.locator(f'[data-tile="{first}"]')).to_have_class(re.compile(r"\bis-first\b"))
    expect(alice.locator("#tiles-status")).to_contain_text("Tables waiting for you: " + TABLES[ids.index(first)])
    alice.wait_for_function(f"() => ({FOCUSED_TILE})() === '{first}'")

    # every tile reads: the players' seats, their cards and the buttons in sight, no sideways scroll
    for table in ids:
        fits = _frame(alice, table).evaluate(FITS)
        assert fits["sideways"] <= 0, (table, fits)
        assert fits["seats"] == 2 and fits["seatsInView"] == 2, (table, fits)
        assert fits["cards"] >= 6 and fits["narrowest"] >= 30, (table, fits)
        assert fits["buttons"] >= 1 and fits["buttonsInView"] == fits["buttons"], (table, fits)
        assert fits["smallestText"] >= 12, (table, fits)
    alice.screenshot(path=str(ARTIFACTS / "poker-tiles-three-waiting.png"))

    # --- a key plays at the table waiting longest, and only there
    versions = {table: _frame(alice, table).evaluate(VERSION) for table in ids}
    actions = _frame(alice, first).evaluate(LEGAL)
    assert actions, "the first table waits for alice"
    alice.keyboard.press(_key_for(actions))
    _frame(alice, first).wait_for_function(f"() => window.CasinoPoker.state.view.hand.version !== {versions[first]}")
    time.sleep(1.0)
    assert _frame(alice, second).evaluate(VERSION) == versions[second]
    assert _frame(alice, third).evaluate(VERSION) == versions[third]

    # --- the keyboard goes on to the next table waiting, where the next key plays
    alice.wait_for_function(f"() => ({FOCUSED_TILE})() === '{second}'")
    assert _waiting(alice)[:2] == [second, third]
    expect(alice.locator(f'[data-tile="{second}"]')).to_have_class(re.compile(r"\bis-first\b"))
    expect(marks[second]).to_contain_text("Your turn · 1 of")
    alice.screenshot(path=str(ARTIFACTS / "poker-tiles-next.png"))
    actions = _frame(alice, second).evaluate(LEGAL)
    alice.keyboard.press(_key_for(actions))
    _frame(alice, second).wait_for_function(f"() => window.CasinoPoker.state.view.hand.version !== {versions[second]}")
    time.sleep(1.0)
    assert _frame(alice, third).evaluate(VERSION) == versions[third]
    alice.wait_for_function(f"() => ({FOCUSED_TILE})() === '{third}'")
    alice.screenshot(path=str(ARTIFACTS / "poker-tiles-third.png"))

    # --- bob plays at the first table: alice's new turn there joins the line behind the
    # third table, and sounds once from the page (the tiles themselves stay silent)
    deadline = time.monotonic() + 60
    while first not in _waiting(alice):
        assert time.monotonic() < deadline, "the first table never came back to alice"
        if not _bob_plays(bob_pages[first]):
            time.sleep(0.2)
    line = _waiting(alice)
    assert line.index(third) < line.index(first), line
    assert alice.evaluate("() => window.CasinoPokerTiles.beeps") >= 1
    assert [_frame(alice, t).evaluate("() => window.CasinoPoker.state.beeps") for t in ids] == [0, 0, 0]
    assert not errors, errors


@pytest.mark.timeout(300)
def test_a_note_is_written_and_saved_from_the_keyboard_and_its_letters_play_nothing(players, tables, casino_server):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    pages, errors = players
    alice = pages["alice"]
    ids, bob_pages = tables
    table = ids[0]
    alice.goto(f"{casino_server.base_url}/poker/tables/{table}/")
    expect(alice.locator("#my-tables-link")).to_have_text("My tables side by side (3)")
    expect(alice.locator("#conn-status")).to_have_attribute("data-state", "live")
    deadline = time.monotonic() + 60
    while not alice.evaluate(LEGAL):
        assert time.monotonic() < deadline, "alice's turn never came"
        if not _bob_plays(bob_pages[table]):
            time.sleep(0.2)
    version = alice.evaluate(VERSION)

    # Tab from the turn's button to the notes; Enter opens the note on bob, Tab to its text
    summary = alice.locator("#notes-panel .note-row[data-player=bob] summary")
    for _ in range(60):
        if alice.evaluate("() => document.activeElement.matches('#notes-panel summary')"):
            break
        alice.keyboard.press("Tab")
    expect(summary).to_be_focused()
    expect(summary).to_have_text("Write a note on bob")
    alice.keyboard.press("Enter")
    alice.keyboard.press("Tab")
    text = alice.locator("#notes-panel .note-row[data-player=bob] textarea")
    expect(text).to_be_focused()
    alice.keyboard.type("Calls a raise, folds to a bet; bluffs with air")  # F, C, R, B and A among them
    expect(text).to_have_value("Calls a raise, folds to a bet; bluffs with air")
    alice.keyboard.press("Tab")
    colour = alice.locator("#notes-panel .note-row[data-player=bob] select")
    expect(colour).to_be_focused()
    alice.keyboard.press("r")  # the list's first colour with R: red, not a raise
    expect(colour).to_have_value("red")
    time.sleep(1.0)
    assert alice.evaluate(VERSION) == version, "a letter typed in the note played at the table"
    assert alice.evaluate(LEGAL), "alice's turn is still hers"
    alice.screenshot(path=str(ARTIFACTS / "poker-tiles-note-typed.png"))

    alice.keyboard.press("Tab")
    expect(alice.locator("#notes-panel .note-row[data-player=bob] button[type=submit]")).to_be_focused()
    alice.keyboard.press("Enter")
    expect(alice.locator(".flash-success")).to_contain_text("Your note on bob is saved.")
    expect(alice.locator("#notes-panel .note-row[data-player=bob] .note-text")).to_have_text(
        "Calls a raise, folds to a bet; bluffs with air"
    )
    assert casino_server.query(NOTE) == {"text": "Calls a raise, folds to a bet; bluffs with air", "colour": "red"}
    expect(alice.locator("#conn-status")).to_have_attribute("data-state", "live")
    assert alice.evaluate(VERSION) == version and alice.evaluate(LEGAL), "the hand waited for alice"
    alice.screenshot(path=str(ARTIFACTS / "poker-tiles-note-saved.png"))
    assert not errors, errors
