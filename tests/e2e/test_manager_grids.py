"""A manager's grids refuse a cell under that cell, in Chromium, in German.

The manager signs in and switches the site to Deutsch. A jackpot pool whose fixed prize for
four of a kind is typed as a word comes back with the refusal under that cell, in German,
and its percent cell shows the whole "100" typed in it. A pay table whose royal flush pays
5000 to 1 (the browser's own check of the cell left out, as a browser without it sends it)
comes back with the refusal under that cell, not spilling over the next column. Neither
page is wider than the screen. Screenshots: artifacts/e2e/manager-*-cell-refusal.png.
"""

from __future__ import annotations

import pytest

from tests.e2e.conftest import ARTIFACTS, sign_in

TIMEOUT_MS = 15_000
WIDTH = 1366

# Where the refusal sits against its cell: its box and the cell's, and the page's width.
BOXES = """(name) => {
  const input = document.querySelector(`input[name=${name}]`);
  const cell = input.closest('td');
  const refusal = cell.querySelector('.errorlist');
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return {cell: box(cell), input: box(input), refusal: refusal && box(refusal),
          text: refusal && refusal.innerText, page: document.documentElement.scrollWidth};
}"""


@pytest.fixture
def page(chromium, casino_server):
    context = chromium.new_context(viewport={"width": WIDTH, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    yield context.new_page()
    context.close()


def test_a_grid_cell_refused_in_german_shows_its_reason_under_the_cell(page, casino_server):
    from playwright.sync_api import expect

    base = casino_server.base_url
    sign_in(page, base, "manager")
    page.get_by_role("button", name="Deutsch").click()
    expect(page.locator("html")).to_have_attribute("lang", "de")
    page.goto(base + "/staff/manager/pools/new/")
    for name, value in {
        "name": "Große Runde",
        "seed_amount": "5000,00",
        "bet_amount": "1,00",
        "meter_share_bp": "6000",
        "reserve_share_bp": "1500",
        "pct_royal_flush": "100",
        "fixed_four_of_a_kind": "viel",
    }.items():
        page.locator(f"input[name={name}]").fill(value)
    page.locator("form:has(input[name=fixed_four_of_a_kind]) button[type=submit]").click()
    expect(page.locator("input[name=fixed_four_of_a_kind]")).to_have_attribute("aria-invalid", "true")
    page.screenshot(path=str(ARTIFACTS / "manager-pool-cell-refusal.png"), full_page=True)
    _refused_under_its_cell(page, "fixed_four_of_a_kind", "Vier Gleiche: fester Gewinn")
    percent = page.locator("input[name=pct_royal_flush]")
    assert percent.evaluate("(el) => el.scrollWidth <= el.clientWidth"), "the percent cell cuts its number"

    page.goto(base + "/staff/manager/paytables/new/")
    odds = {"royal_flush": 5000, "straight_flush": 50, "four_of_a_kind": 20, "full_house": 7, "flush": 5}
    odds |= {"straight": 4, "three_of_a_kind": 3, "two_pair": 2, "one_pair": 1, "high_card": 1}
    page.locator("input[name=name]").fill("Zu großzügig")
    for key, value in odds.items():
        page.locator(f"input[name=q_{key}]").fill(str(value))
    grid = page.locator("form:has(input[name=q_royal_flush])")
    grid.evaluate("(form) => { form.noValidate = true; }")
    grid.locator("button[type=submit]").click()
    expect(page.locator("input[name=q_royal_flush]")).to_have_attribute("aria-invalid", "true")
    page.screenshot(path=str(ARTIFACTS / "manager-paytable-cell-refusal.png"), full_page=True)
    _refused_under_its_cell(page, "q_royal_flush", "Dieser Wert muss kleiner oder gleich 1000 sein.")


def _refused_under_its_cell(page, name: str, words: str) -> None:
    boxes = page.evaluate(BOXES, name)
    assert boxes["text"] and words in boxes["text"], boxes
    cell, field, refusal = boxes["cell"], boxes["input"], boxes["refusal"]
    assert cell[0] - 1 <= refusal[0] and refusal[2] <= cell[2] + 1, boxes  # within the cell's width
    assert refusal[1] >= field[3] - 1, boxes  # under the input, not beside it
    assert boxes["page"] <= WIDTH, boxes
