"""The demo plays back: on a server started as ``make run`` starts it (DEBUG on, the demo
database, the periodic work inside the server), a newcomer alone sits at a demo poker
table and plays a whole Seven Card Stud hand; the demo's regulars, labelled "Bot" on their
seats, act by themselves at a human pace. Screenshots: artifacts/e2e/poker-demo-*.png."""

from __future__ import annotations

import re
import time

import pytest

from tests.e2e.conftest import ARTIFACTS, browsers

TIMEOUT_MS = 20_000
LAPTOP = {"width": 1366, "height": 768}

TABLE = """
import json
from poker.models import PokerTable
print(json.dumps(PokerTable.objects.get(name="Seven Card Stud 2-4").pk))
"""

LAST_HAND = """
import json
from poker.models import PokerHand
hand = PokerHand.objects.filter(table_id={table}).order_by("-number").first()
print(json.dumps(hand and {{"id": hand.pk, "state": hand.state, "record": hand.record, "seats": hand.seats,
                            "turns": [[a[0], a[1]] for a in hand.actions]}}))
"""


@pytest.fixture
def alice(chromium, casino_server):
    with browsers(chromium, {"alice": LAPTOP}, timeout_ms=TIMEOUT_MS, base_url=casino_server.base_url) as (
        pages,
        errors,
    ):
        yield pages["alice"], errors


def _passive(labels: list[str]) -> str:
    for word in ("Check", "Call", "Bring in"):
        for label in labels:
            if label.startswith(word):
                return label
    return labels[0]


def _turn(page) -> list[str] | None:
    """The labels of her action buttons when the hand waits for her, else None."""
    buttons = page.locator("#poker-actions button")
    if not (page.locator("#poker-actions").is_visible() and buttons.count()):
        return None
    try:
        return [buttons.nth(i).inner_text(timeout=2000) for i in range(buttons.count())]
    except Exception:  # noqa: BLE001 - the turn passed meanwhile: look again
        return None


def _click(page, label: str) -> None:
    page.locator("#poker-actions button").filter(has_text=label).first.click()
    page.wait_for_timeout(300)


def _fold(page, labels: list[str]) -> None:
    """Fold; where folding is not offered, check, call or bring in."""
    _click(page, next((label for label in labels if label.startswith("Fold")), None) or _passive(labels))


def _fold_until(page, done, seconds: float, failure: str) -> None:
    """Fold each time the hand waits for her, until ``done()``; fail after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, failure
        labels = _turn(page)
        if labels:
            _fold(page, labels)
        else:
            time.sleep(0.4)


@pytest.mark.timeout(600)
def test_a_newcomer_alone_plays_a_stud_hand_against_the_demo_bots(alice, casino_server):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    page, errors = alice
    server = casino_server
    table = server.query(TABLE)
    page.goto(f"{server.base_url}/poker/tables/{table}/")
    bots = page.locator("#poker-seats .pseat .badge-bot")
    expect(bots).to_have_count(2)
    for name in ("erin", "frank"):
        expect(page.locator("#poker-seats .pseat", has_text=name).locator(".badge-bot")).to_have_text("Bot")
    # No hand yet, two bots seated: the felt says they start when a player joins them, as
    # the page first drew it and as the live table draws it again once its socket is open.
    expect(page.locator("#poker-street")).to_have_text("The bots here start a hand as soon as a player joins them.")
    expect(page.locator("#conn-status")).to_have_attribute("data-state", "live")
    expect(page.locator("#poker-street")).to_have_text("The bots here start a hand as soon as a player joins them.")
    assert not errors, errors
    page.get_by_role("button", name="Buy in for €20.00").click()
    expect(page.locator("#poker-street")).to_contain_text("Third street", timeout=TIMEOUT_MS)
    expect(bots).to_have_count(2)  # the seats redrawn by the live table keep their labels
    page.screenshot(path=str(ARTIFACTS / "poker-demo-dealt.png"))

    acted, shot = 0, False
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        row = server.query(LAST_HAND.format(table=table))
        if row and row["state"] != "live":
            break
        labels = _turn(page)
        if labels:
            if not shot:
                page.screenshot(path=str(ARTIFACTS / "poker-demo-to-act.png"))
                shot = True
            _click(page, _passive(labels))
            acted += 1
            assert not page.locator("#errors").is_visible(), page.locator("#errors").inner_text()
        else:
            time.sleep(0.4)
    else:
        raise AssertionError("the hand did not end in time")

    assert row["state"] == "ended" and acted
    names = {s["seat"]: s["player"] for s in row["seats"]}
    moves = [(names[seat], kind) for seat, kind in row["turns"]]
    bot_moves = [kind for name, kind in moves if name in ("erin", "frank")]
    assert bot_moves and not any(kind.startswith("timeout") for kind in bot_moves), moves
    assert {name for name, _ in moves} == {"alice", "erin", "frank"}
    expect(page.locator("#result-panel")).to_be_visible(timeout=TIMEOUT_MS)
    page.screenshot(path=str(ARTIFACTS / "poker-demo-result.png"))

    # A private note and a colour tag on erin, from the table's panel: on her seat from then on.
    row_erin = page.locator('#notes-panel .note-row[data-player="erin"]')
    row_erin.get_by_text("Write a note on erin").click()
    row_erin.get_by_label("Note").fill("Bets every street with a pair")
    row_erin.get_by_label("Colour tag").select_option("red")
    row_erin.get_by_role("button", name="Save the note").click()
    expect(page.locator(".flash-success")).to_contain_text("Your note on erin is saved.")
    erin_seat = page.locator("#poker-seats .pseat", has_text="erin")
    expect(erin_seat.locator(".note-tag.tag-red")).to_have_count(1)
    expect(erin_seat.locator(".seat-note")).to_have_text("Bets every street with a pair")
    expect(erin_seat.locator(".badge-bot")).to_have_count(1)
    expect(page.locator("#poker-seats .pseat", has_text="frank").locator(".note-tag")).to_have_count(0)
    page.screenshot(path=str(ARTIFACTS / "poker-demo-note.png"))
    # She leaves: at once between hands; when the next hand (3 s after this one ended) was
    # dealt first, at its end: she folds it, the bots play it out, then her stack goes home.
    # On her turn the bar holds her actions alone (the seat controls come back after it):
    # she folds first, as a player in a hurry does.
    notice = page.locator("#seat-notice")
    _fold_until(page, page.locator("#btn-leave").is_visible, 120, "the leave button did not come back")
    page.locator("#btn-leave").click()
    expect(notice).to_have_text(re.compile(r"^You (left the table|leave when this hand ends)"))
    if notice.inner_text().startswith("You leave when this hand ends"):
        _fold_until(
            page,
            lambda: notice.inner_text().startswith("You left the table"),
            240,
            "her leave did not happen at the hand's end",
        )
    expect(notice).to_have_text("You left the table: your stack is back in your wallet.")

    # The hand replayed from the history: step, play, pause, by the buttons and the keys.
    page.goto(f"{server.base_url}/poker/hands/{row['id']}/")
    page.get_by_role("link", name="Replay this hand").click()
    replayer = page.locator("#replayer")
    expect(replayer).to_have_attribute("data-step", "0")
    forward = page.get_by_role("button", name="One step forward")
    forward.click()
    forward.click()  # the antes, then third street's cards
    expect(page.locator("#rp-street")).to_have_text("Third street")
    alice_seat = next(seat for seat, name in names.items() if name == "alice")
    for seat, name in names.items():  # alice's own down cards face up; the bots' are backs
        cards = page.locator(f'#rp-seats li[data-seat="{seat}"] .card')
        expect(cards).to_have_count(3)
        expect(page.locator(f'#rp-seats li[data-seat="{seat}"] .card-back')).to_have_count(
            0 if seat == alice_seat else 2
        )
    page.screenshot(path=str(ARTIFACTS / "poker-demo-replay-third-street.png"))
    page.select_option("#rp-speed", "2")
    page.get_by_role("button", name="Play").click()
    expect(page.get_by_role("button", name="Pause")).to_be_visible()
    expect(replayer).to_have_attribute("data-over", "true", timeout=120_000)
    expect(page.get_by_role("button", name="Play")).to_be_visible()  # it stops at the end by itself
    expect(page.locator("#rp-caption")).to_contain_text("The hand is over")
    expect(page.locator("#rp-pot")).to_have_text("€0.00")
    page.screenshot(path=str(ARTIFACTS / "poker-demo-replay-end.png"), full_page=True)
    last = int(replayer.get_attribute("data-step"))
    page.get_by_role("button", name="One step back").click()
    page.keyboard.press("ArrowLeft")
    expect(replayer).to_have_attribute("data-step", str(last - 2))
    page.keyboard.press("ArrowRight")
    expect(replayer).to_have_attribute("data-step", str(last - 1))
    assert not errors, errors
