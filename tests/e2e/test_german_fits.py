"""The product in German, in a real browser, at a laptop's and a phone's size.

alice (1366×768) and bob (390×844) sign in, switch the site to Deutsch with the switcher
in the footer (kept on their profile: the next page is German whatever the browser asks),
play a Caribbean hand at Nassau (bob with the jackpot chip, so that the phone's "repeat
last bet" button names it) and a Seven Card Stud hand against each other, all in German.
German words are longer: on every page they see, nothing is wider than the screen and no
button, label or heading cuts its text. Screenshots: artifacts/e2e/german-*.png.
"""

from __future__ import annotations

import re
import time

import pytest

from tests.e2e.conftest import ARTIFACTS, browsers

TIMEOUT_MS = 20_000
LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
SCREENS = {"alice": LAPTOP, "bob": PHONE}

SLOW_CLOCK = """
import json
from tables.models import Table
print(json.dumps(Table.objects.filter(name="Nassau").update(decision_seconds=120)))
"""

STUD_TABLE = """
import json
from poker.models import PokerTable
from poker.services import poker_table_create
table = PokerTable.objects.filter(name="Deutscher Stud").first() or poker_table_create(
    name="Deutscher Stud", game="seven_stud", preset="2-4", actor=None
)
print(json.dumps(table.pk))
"""

LAST_HAND = """
import json
from poker.models import PokerHand
hand = PokerHand.objects.filter(table_id={table}).order_by("-number").first()
print(json.dumps(hand and {{"id": hand.pk, "state": hand.state}}))
"""

# Text that does not fit: the page wider than the screen, or a control, label or heading
# whose text is cut (wider than its box, with nothing to scroll it into view).
OVERFLOW = """(width) => {
  const out = [];
  if (document.documentElement.scrollWidth > width + 1) out.push(`page ${document.documentElement.scrollWidth}px wide`);
  const named = 'button, .btn, label, h1, h2, h3, th, dt, .phase, .badge, .seat-status, .chip, summary';
  for (const el of document.querySelectorAll(named)) {
    const r = el.getBoundingClientRect();
    // screen-reader text
    if (r.width < 2 || getComputedStyle(el).visibility === 'hidden' || el.closest('.visually-hidden')) continue;
    if (el.closest('.table-scroll, .data-table-wrap, [data-scroll]')) continue;
    const what = `${el.tagName.toLowerCase()} "${el.innerText.trim().slice(0, 40)}"`;
    if (r.right > width + 1) out.push(`${what} ends at ${Math.round(r.right)}px`);
    else if (el.scrollWidth > el.clientWidth + 2 && getComputedStyle(el).overflowX !== 'visible') {
      out.push(`${what} is cut`);
    }
  }
  return out;
}"""


def _fits(page, who: str, shot: str) -> None:
    page.wait_for_timeout(200)
    page.screenshot(path=ARTIFACTS / f"german-{shot}-{who}.png", full_page=True)
    problems = page.evaluate(OVERFLOW, SCREENS[who]["width"])
    assert not problems, f"{who} on {shot}: {problems}"
    assert page.locator("html").get_attribute("lang") == "de"


def _look(locator) -> dict:
    return locator.evaluate(
        "(el) => { const s = getComputedStyle(el);"
        " return {background: s.backgroundColor, color: s.color, opacity: s.opacity, filter: s.filter}; }"
    )


@pytest.fixture
def players(chromium, casino_server):
    with browsers(chromium, SCREENS, timeout_ms=TIMEOUT_MS, base_url=casino_server.base_url) as signed_in:
        yield signed_in


@pytest.mark.timeout(600)
def test_a_caribbean_hand_and_a_stud_hand_in_german_fit_a_laptop_and_a_phone(players, casino_server):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    pages, errors = players
    base = casino_server.base_url
    assert casino_server.query(SLOW_CLOCK) == 1

    for who, page in pages.items():
        page.get_by_role("button", name="Deutsch").click()
        expect(page.locator("html")).to_have_attribute("lang", "de")
        _fits(page, who, "lobby")
        # The language being read looks chosen (as the menu's page being read), not greyed out
        # like a button that cannot be used; the other one is a plain button.
        chosen, other = page.get_by_role("button", name="Deutsch"), page.get_by_role("button", name="English")
        expect(chosen).to_have_attribute("aria-current", "true")
        assert _look(chosen) == _look(page.locator('.main-nav a[aria-current="page"]')), who
        assert _look(chosen)["opacity"] == "1" and _look(chosen)["filter"] == "none", who
        assert _look(other)["background"] != _look(chosen)["background"], who

    # Caribbean Stud at Nassau: both sit, ante, alice raises, bob folds
    for who, page in pages.items():
        page.get_by_role("button", name="Platz nehmen an Nassau").click()
        expect(page.locator("#conn-status")).to_have_attribute("data-state", "live")
        expect(page.locator("#btn-leave")).to_be_enabled()
    for who, page in pages.items():
        page.locator("#ante").fill("1.00")
        if who == "bob":  # the phone's repeat button then says the longest: "(1,00 € + Jackpot-Chip)"
            page.locator("#jackpot").check()
        expect(page.locator("#btn-bet")).to_have_text(
            re.compile(r"^Einsatz \d+,\d\d\u00a0€$")
        )  # the ante and the raise it holds
        page.locator("#btn-bet").click()
    for who, page in pages.items():
        expect(page.locator("#btn-raise")).to_be_enabled()
        expect(page.locator("#btn-raise")).to_have_text(re.compile(r"^Setzen \d+,\d\d\u00a0€$"))
        expect(page.locator("#btn-fold")).to_have_text(re.compile(r"^Passen \(\d+,\d\d\u00a0€ verlieren\)$"))
        page.wait_for_timeout(1200)  # the deal animation
        _fits(page, who, "caribbean-deciding")
    pages["alice"].locator("#btn-raise").click()
    pages["bob"].locator("#btn-fold").click()
    for who, page in pages.items():
        expect(page.locator("#result-panel")).to_be_visible()
        expect(page.locator("#result-title")).to_have_text(re.compile(r"^Hand \d+ abgerechnet$"))
        explanation = page.locator("#result-panel").inner_text()
        assert "Netto" in explanation or "Dealer" in explanation, explanation
        _fits(page, who, "caribbean-settled")
    repeat = pages["bob"].locator("#btn-repeat")  # the next hand takes bets: the last one, again in one click
    expect(repeat).to_be_visible()
    expect(repeat).to_have_text("Letzten Einsatz wiederholen (1,00\u00a0€ + Jackpot-Chip)")
    _fits(pages["bob"], "bob", "caribbean-repeat")
    for page in pages.values():
        page.locator("#btn-leave").click()
        expect(page.locator("#btn-sit")).to_be_visible()

    # Seven Card Stud: both buy in; the hand is played by the buttons offered (check, call, bring-in)
    table = casino_server.query(STUD_TABLE)
    for who, page in pages.items():
        page.goto(f"{base}/poker/tables/{table}/")
        expect(page.locator("html")).to_have_attribute("lang", "de")
        expect(page.locator("#btn-sound")).to_have_text("Ton bei Zug: an")  # the page's script writes German too
        page.get_by_role("button", name=re.compile(r"^Für .* einkaufen$")).click()
        # seated (the seat controls may be folded away under the phone's turn bar at once:
        # the second buy-in deals the hand)
        expect(page.locator(".pseat.is-you")).to_have_count(1)
    deadline, shot = time.monotonic() + 240, set()
    while time.monotonic() < deadline:
        row = casino_server.query(LAST_HAND.format(table=table))
        if row and row["state"] != "live":
            break
        acted = False
        for who, page in pages.items():
            buttons = page.locator("#poker-actions button")
            if not page.locator("#poker-actions").is_visible() or not buttons.count():
                continue
            if who not in shot:
                _fits(page, who, "stud-to-act")
                shot.add(who)
            try:
                labels = [buttons.nth(i).inner_text(timeout=2000) for i in range(buttons.count())]
            except Exception:  # noqa: BLE001 - the turn passed meanwhile: look again
                continue
            assert not [label for label in labels if label.startswith(("Call", "Fold", "Bring in", "Raise"))], labels
            pick = next(
                (label for word in ("Check", "Mitgehen", "Bring-in") for label in labels if label.startswith(word)),
                labels[0],
            )
            buttons.filter(has_text=pick).first.click()
            acted = True
            page.wait_for_timeout(300)
        if not acted:
            time.sleep(0.5)
    else:
        raise AssertionError("the stud hand did not end in time")
    for who, page in pages.items():
        expect(page.locator("#result-panel")).to_be_visible()
        expect(page.locator("#result-title")).to_contain_text("Hand ")
        _fits(page, who, "stud-over")
    # the hand's page, the fair check in German
    alice = pages["alice"]
    alice.goto(f"{base}/poker/hands/")
    alice.locator("table a").first.click()
    expect(alice.locator("h1")).to_contain_text("Hand")
    assert "Fairness-Prüfung" in alice.content()
    _fits(alice, "alice", "stud-hand-page")
    assert not errors, errors
