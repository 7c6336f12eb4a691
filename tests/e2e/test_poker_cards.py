"""Seven Card Stud's seven cards read at a glance, at 1366×768 and 390×844.

Eight players sit at a Seven Card Stud 2-4 table; alice watches on a laptop, bob on a
phone. The hand is played on the server (two players fold on third street, the others
call down); after each street both pages are reloaded and checked, and screenshots are
kept (artifacts/e2e/poker-cards-*.png):

- every face-up card's corner (rank and suit) is the top element at its place: the next
  card does not cover it (``elementFromPoint``);
- the viewer's own down cards are marked as down cards: their own class, a tint of their
  own, and a visible "down" mark, where an up card has none;
- the others' down cards are card backs;
- at the showdown the winner's seat looks unlike a folded seat.
"""

from __future__ import annotations

import pytest

from tests.e2e.conftest import ARTIFACTS, browsers

TIMEOUT_MS = 20_000
SCREENS = {"alice": {"width": 1366, "height": 768}, "bob": {"width": 390, "height": 844}}
PLAYERS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"]

SETUP = """
import json
from datetime import timedelta
from django.contrib.auth import get_user_model
from django.utils import timezone
from poker.models import PokerTable
from poker.services import poker_hand_start, poker_sit, poker_table_create
table = poker_table_create(name="E2E Eight", game="seven_stud", preset="2-4", actor=None)
PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(days=1))
users = {u.username: u for u in get_user_model().objects.filter(username__in=%(players)r)}
for number, name in enumerate(%(players)r, 1):
    poker_sit(user=users[name], table_id=table.pk, seat_number=number)
hand = poker_hand_start(table_id=table.pk)
print(json.dumps([table.pk, hand.pk]))
"""

# Plays the hand on to the next street (or its end): the first two players to face a bet
# on third street fold (not the viewers), everyone else checks, calls or brings in.
NEXT_STREET = """
import json
from datetime import timedelta
from django.contrib.auth import get_user_model
from django.utils import timezone
from poker.models import PokerHand, PokerTable
from poker.replay import hand_state
from poker.services import poker_act
hand = PokerHand.objects.get(pk=%(hand)d)
state = hand_state(hand)
street = state.street
names = {s["seat"]: s["player"] for s in hand.seats}
while not state.is_over and state.street == street:
    seat = state.to_act
    legal = state.legal().actions
    folded = sum(1 for p in state.players if p.folded)
    if street == 3 and "fold" in legal and folded < 2 and names[seat] not in ("alice", "bob"):
        kind = "fold"
    else:
        kind = next(k for k in ("check", "call", "bring_in") if k in legal)
    user = get_user_model().objects.get(username=names[seat])
    hand = poker_act(user=user, table_id=hand.table_id, hand_id=hand.pk, action=kind)
    state = hand_state(hand)
if state.is_over:  # the pages look at this hand's end, not at the next hand
    PokerTable.objects.filter(pk=hand.table_id).update(next_hand_at=timezone.now() + timedelta(days=1))
print(json.dumps({"street": state.street, "over": state.is_over}))
"""

# Each face-up card in a seat, scrolled into the middle of the screen: is the card itself
# (or something inside it) the top element at the middle and at the right end of its
# corner's rank and suit, and of the word of an own down card's mark?
COVERED = """() => [...document.querySelectorAll('#poker-seats .pseat-cards .card[data-card]')].flatMap(card => {
  card.scrollIntoView({block: 'center', inline: 'center'});
  const seat = card.closest('.pseat').dataset.seat;
  const parts = [...card.querySelector('.card-corner').children, ...card.querySelectorAll('.card-down-mark')];
  return parts.filter(part => {
    const words = document.createRange();
    words.selectNodeContents(part);
    const r = words.getBoundingClientRect();
    return [r.left + r.width / 2, r.right - 1].some(x => {
      const top = document.elementFromPoint(x, r.top + r.height / 2);
      return !(top && card.contains(top));
    });
  }).map(part => `seat ${seat}: ${card.dataset.card} ${part.className} covered`);
})"""

LOOK = """([selector, pseudo]) => { const el = document.querySelector(selector); if (!el) return null;
  const s = getComputedStyle(el, pseudo || null);
  return {background: s.backgroundImage + ' ' + s.backgroundColor, shadow: s.boxShadow,
          border: s.borderColor + ' ' + s.borderStyle,
          opacity: s.opacity, filter: s.filter, outline: s.outlineStyle + ' ' + s.outlineColor, content: s.content,
          display: s.display, visibility: s.visibility}; }"""


@pytest.fixture(scope="module")
def pages(chromium, casino_server):
    with browsers(chromium, SCREENS, timeout_ms=TIMEOUT_MS, base_url=casino_server.base_url) as signed_in:
        yield signed_in


def _look(page, selector: str, pseudo: str | None = None) -> dict | None:
    return page.evaluate(LOOK, [selector, pseudo])


def _check(page, name: str, street: str) -> None:
    covered = page.evaluate(COVERED)
    assert not covered, f"{name} on {street}: {covered}"
    own = page.locator(".pseat.is-you .card.is-own-down")
    assert own.count() >= 2 or street == "showdown", (name, street)
    if own.count():
        down, up = _look(page, ".pseat.is-you .card.is-own-down"), _look(page, ".pseat.is-you .card.up-card")
        assert down["background"] != up["background"], "an own down card is tinted unlike an up card"
        marks = page.locator(".pseat.is-you .card.is-own-down .card-down-mark")
        assert marks.count() == own.count() and all(marks.nth(i).is_visible() for i in range(marks.count()))
        for i in range(own.count()):  # the mark is inside its card, clear of the card's corner
            card, corner, mark = (
                own.nth(i).bounding_box(),
                own.nth(i).locator(".card-corner").first.bounding_box(),
                marks.nth(i).bounding_box(),
            )
            assert card["y"] <= mark["y"] and mark["y"] + mark["height"] <= card["y"] + card["height"] + 0.5
            assert mark["y"] >= corner["y"] + corner["height"] - 0.5, (name, street, corner, mark)
        assert marks.first.inner_text().strip().lower() == "down"
        assert page.locator(".pseat-cards .up-card .card-down-mark").count() == 0, "an up card has no down mark"
    if street != "showdown":
        assert page.locator(".pseat:not(.is-you) .pseat-cards .card-back").count() > 0
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / f"poker-cards-{name}-{street}.png"), full_page=True)
    page.locator("#poker-seats").screenshot(path=str(ARTIFACTS / f"poker-cards-{name}-{street}-seats.png"))


@pytest.mark.timeout(300)
def test_seven_cards_are_readable_and_down_cards_and_the_winner_stand_out(pages, casino_server):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    browsers, errors = pages
    server = casino_server
    table, hand = server.query(SETUP % {"players": PLAYERS})
    url = f"{server.base_url}/poker/tables/{table}/"
    street = 3
    names = {3: "3rd", 4: "4th", 5: "5th", 6: "6th", 7: "river"}
    while True:
        for name, page in browsers.items():
            page.goto(url)
            expect(page.locator(".pseat.is-you .pseat-cards .card").first).to_be_visible()
            _check(page, name, names[street])
        result = server.query(NEXT_STREET % {"hand": hand})
        if result["over"]:
            break
        street = result["street"]
    assert street == 7
    for name, page in browsers.items():
        page.goto(url)
        expect(page.locator(".pseat.is-winner").first).to_be_visible()
        _check(page, name, "showdown")
        winner = _look(page, ".pseat.is-winner")
        folded = _look(page, ".pseat.is-folded")
        assert folded and winner != folded
        winner_cards = _look(page, ".pseat.is-winner .pseat-cards")
        folded_cards = _look(page, ".pseat.is-folded .pseat-cards")
        assert winner_cards["opacity"] == "1" and winner_cards["filter"] == "none"
        assert (folded_cards["opacity"], folded_cards["filter"]) != (winner_cards["opacity"], winner_cards["filter"])
    assert not errors
