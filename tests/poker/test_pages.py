"""The player's poker pages: lobby section, the live table, seat controls,
hand history with the provably fair data and the PokerStars download."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from casino.access.roles import AUDITOR
from casino.game.cards import card_to_str
from poker import replay
from poker.models import PokerHand, PokerSeat
from poker.selectors import stud_hand_name
from poker.views import deck_positions
from tests.poker.helpers import play_out, seats_of
from wallets.selectors import wallet_balances

pytestmark = pytest.mark.django_db


def _initial(response) -> dict:
    match = re.search(
        r'<script id="poker-initial" type="application/json">(.*?)</script>', response.content.decode(), re.S
    )
    assert match, "the page embeds its snapshot"
    return json.loads(match.group(1))


def _data_cards(html: str, seat: int) -> list[str]:
    """The card codes drawn in one seat's <li> of the server-rendered felt."""
    block = re.search(rf'<li class="pseat[^"]*" data-seat="{seat}".*?</li>', html, re.S)
    assert block, f"seat {seat} is drawn"
    return re.findall(r'data-card="(\w\w)"', block.group(0))


def test_a_player_sees_their_own_down_cards_and_only_the_up_cards_of_others(browser, poker_table, three):
    hand = PokerHand.objects.get(table=poker_table, state="live")
    state = replay.hand_state(hand)
    by_seat = seats_of(hand, three)
    ann_seat = next(seat for seat, user in by_seat.items() if user.username == "ann")
    response = browser(three[0]).get(reverse("poker-table", args=[poker_table.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    view = _initial(response)
    for seat in view["seats"]:
        if seat["seat"] == ann_seat:
            assert seat["down"] == [card_to_str(c) for c in state.down_cards(ann_seat)]
        else:
            assert "down" not in seat
    for seat_number in by_seat:
        drawn = _data_cards(html, seat_number)
        up = [card_to_str(c) for c in state.up_cards(seat_number)]
        down = [card_to_str(c) for c in state.down_cards(seat_number)]
        if seat_number == ann_seat:
            assert drawn == down + up
        else:
            assert drawn == up
            for code in down:  # another player's down card appears nowhere in ann's page
                assert f'"{code}"' not in html and f'data-card="{code}"' not in html
    assert state.server_seed not in html
    assert hand.commitment in html


def test_a_spectator_sees_no_down_card(browser, make_player, poker_table, three):
    hand = PokerHand.objects.get(table=poker_table, state="live")
    state = replay.hand_state(hand)
    watcher = make_player(username="watcher")
    html = browser(watcher).get(reverse("poker-table", args=[poker_table.pk])).content.decode()
    for seat_number in seats_of(hand, three):
        for code in (card_to_str(c) for c in state.down_cards(seat_number)):
            assert f'"{code}"' not in html and f'data-card="{code}"' not in html
    assert "Join the waiting list" not in html  # seats are free: a buy-in form instead
    assert "Buy in for €20.00" in html


def test_only_the_player_to_act_gets_the_legal_actions(browser, poker_table, three):
    hand = PokerHand.objects.get(table=poker_table, state="live")
    by_seat = seats_of(hand, three)
    for seat_number, user in by_seat.items():
        view = _initial(browser(user).get(reverse("poker-table", args=[poker_table.pk])))
        if seat_number == hand.to_act:
            assert view["you"]["legal"]["actions"], "the player to act is offered something"
            assert view["hand"]["deadline"]
        else:
            assert view["you"]["legal"] is None


def test_the_state_json_is_the_same_snapshot(browser, poker_table, three):
    response = browser(three[1]).get(reverse("poker-table-state", args=[poker_table.pk]))
    assert response.status_code == 200
    view = response.json()
    mine = [s for s in view["seats"] if s.get("down")]
    assert len(mine) == 1 and mine[0]["player"] == "ben"


def test_buy_in_from_the_page_moves_the_buy_in_and_a_second_seat_is_refused(browser, make_player, poker_table):
    user = make_player(balance=5_000)
    client = browser(user)
    response = client.post(reverse("poker-sit", args=[poker_table.pk]), {"seat": "3"}, follow=True)
    assert response.status_code == 200
    seat = PokerSeat.objects.get(table=poker_table, player=user)
    assert seat.number == 3 and seat.stack == 2000
    assert wallet_balances(user=user).available == 3000
    response = client.post(reverse("poker-sit", args=[poker_table.pk]), {"seat": "4"}, follow=True)
    assert "You already sit at this table." in response.content.decode()
    assert PokerSeat.objects.filter(player=user).count() == 1
    assert wallet_balances(user=user).available == 3000


@pytest.mark.parametrize("seat, message", [("x", "Choose a seat by its number."), ("9", "Seats are numbered 1 to 8.")])
def test_a_bad_seat_is_refused_and_nothing_moves(browser, make_player, poker_table, seat, message):
    user = make_player(balance=5_000)
    response = browser(user).post(reverse("poker-sit", args=[poker_table.pk]), {"seat": seat}, follow=True)
    assert message in response.content.decode()
    assert not PokerSeat.objects.filter(player=user).exists()
    assert wallet_balances(user=user).available == 5_000


def test_buy_in_without_the_money_is_refused(browser, make_player, poker_table):
    user = make_player(balance=1_000)
    response = browser(user).post(reverse("poker-sit", args=[poker_table.pk]), {}, follow=True)
    assert response.status_code == 200
    assert not PokerSeat.objects.filter(player=user).exists()
    assert wallet_balances(user=user).available == 1_000
    assert "flash-error" in response.content.decode()


def test_sit_out_sit_in_and_leave_from_the_page(browser, make_player, poker_table):
    user = make_player(balance=5_000)
    client = browser(user)
    client.post(reverse("poker-sit", args=[poker_table.pk]), {})
    client.post(reverse("poker-sit-out", args=[poker_table.pk]))
    assert PokerSeat.objects.get(player=user).sitting_out
    client.post(reverse("poker-sit-in", args=[poker_table.pk]))
    assert not PokerSeat.objects.get(player=user).sitting_out
    response = client.post(reverse("poker-leave", args=[poker_table.pk]))
    assert response.status_code == 302 and response.url == reverse("lobby")
    assert not PokerSeat.objects.filter(player=user).exists()
    assert wallet_balances(user=user).available == 5_000


def test_staff_may_watch_but_not_buy_in(browser, make_user, poker_table):
    auditor = make_user(AUDITOR)
    client = browser(auditor)
    page = client.get(reverse("poker-table", args=[poker_table.pk]))
    assert page.status_code == 200 and "Buy in for" not in page.content.decode()
    assert client.post(reverse("poker-sit", args=[poker_table.pk]), {}).status_code == 403
    assert not PokerSeat.objects.exists()


def test_the_lobby_lists_the_poker_tables_beside_the_caribbean_ones(browser, make_player, poker_table, three):
    html = browser(three[0]).get(reverse("lobby")).content.decode()
    row = re.search(rf'<tr data-poker-table="{poker_table.pk}".*?</tr>', html, re.S).group(0)
    assert poker_table.name in row
    assert "Seven Card Stud" in row and "€2.00/€4.00 fixed limit" in row and "€20.00" in row
    assert "3/8" in row and "You sit here" in row
    assert browser(make_player()).get(reverse("poker-lobby")).status_code == 200


def _title_and_brand(html: str) -> tuple[str, str, str]:
    title = re.search(r"<title>(.*?)</title>", html, re.S).group(1)
    brand = re.search(r'<a class="brand"[^>]*>(.*?)</a>', html, re.S).group(1)
    nav = re.search(r'<nav class="main-nav".*?</nav>', html, re.S).group(0)
    return title, re.sub(r"<[^>]+>", "", brand).replace("♠", "").strip(), nav


@pytest.mark.parametrize("page", ["poker-lobby", "poker-table", "poker-hands"])
def test_the_poker_room_says_poker_and_the_site_is_named_by_one_setting(
    browser, settings, make_player, poker_table, page
):
    settings.CASINO_SITE_NAME = "Harbour Lights"
    args = [poker_table.pk] if page == "poker-table" else []
    html = browser(make_player()).get(reverse(page, args=args)).content.decode()
    title, brand, nav = _title_and_brand(html)
    assert "Caribbean" not in title and "Caribbean" not in brand and "Caribbean" not in nav
    assert brand == "Harbour Lights" and title.endswith(" · Harbour Lights")
    assert "poker" in title.removesuffix(" · Harbour Lights").lower()
    link = re.search(r'<a href="/poker/"[^>]*>Poker</a>', nav)
    assert link and ('aria-current="page"' in link.group(0)) == (page != "poker-hands")
    assert "poker" in re.search(r"<h1[^>]*>(.*?)</h1>", html, re.S).group(1).lower() or page == "poker-table"


def test_the_caribbean_pages_carry_the_same_site_name(browser, settings, make_player):
    settings.CASINO_SITE_NAME = "Harbour Lights"
    title, brand, _nav = _title_and_brand(browser(make_player()).get(reverse("lobby")).content.decode())
    assert brand == "Harbour Lights" and title == "Lobby · Harbour Lights"


def test_an_unknown_table_is_404(browser, make_player):
    assert browser(make_player()).get(reverse("poker-table", args=[999])).status_code == 404


@pytest.fixture
def played(poker_table, three):
    hand = PokerHand.objects.get(table=poker_table, state="live")
    by_seat = seats_of(hand, three)
    hand = play_out(hand, by_seat, strategy="random_legal", seed=3)
    return hand, by_seat


def test_history_lists_the_hand_and_the_detail_shows_own_cards_and_what_was_shown(browser, played, make_player):
    hand, by_seat = played
    record = hand.record
    shown = {h["seat"] for h in record["showdown"] if h["shown"]}
    for seat_number, user in by_seat.items():
        client = browser(user)
        history = client.get(reverse("poker-hands")).content.decode()
        assert reverse("poker-hand", args=[hand.pk]) in history
        page = client.get(reverse("poker-hand", args=[hand.pk]))
        assert page.status_code == 200
        html = page.content.decode()
        for event in record["events"]:
            if event["type"] != "deal":
                continue
            visible = event["up"] or event["seat"] == seat_number or event["seat"] in shown
            if visible:
                assert f'data-card="{event["card"]}"' in html
        hidden = {
            e["card"]
            for e in record["events"]
            if e["type"] == "deal" and not e["up"] and e["seat"] != seat_number and e["seat"] not in shown
        }
        hidden |= {e["card"] for e in record["events"] if e["type"] == "burn"}
        fair = json.loads(
            re.search(r'<script id="poker-fair" type="application/json">(.*?)</script>', html, re.S).group(1)
        )
        assert fair["serverSeed"] is None and record["server_seed"] not in html  # revealed a day later (SPEC B4)
        assert {c["card"] for c in fair["cards"]}.isdisjoint(hidden)
        for code in hidden:
            assert f'data-card="{code}"' not in html and f'"{code}"' not in html
        for entry in record["showdown"]:
            if entry["shown"]:
                assert (
                    stud_hand_name(entry["category"], entry["best_five"])[:1].upper()
                    + stud_hand_name(entry["category"], entry["best_five"])[1:]
                    in html
                )
    outsider = make_player(username="outsider")
    assert browser(outsider).get(reverse("poker-hand", args=[hand.pk])).status_code == 404
    assert browser(outsider).get(reverse("poker-hand-pokerstars", args=[hand.pk])).status_code == 404


def test_the_fair_data_puts_every_seen_card_at_its_place_in_the_deck(played):
    hand, by_seat = played
    state = replay.hand_state(hand)
    from poker.selectors import poker_hand_record_for

    for seat_number, user in by_seat.items():
        view = poker_hand_record_for(hand=hand, user=user)
        positions = deck_positions(view)
        assert positions, "the player saw cards"
        for entry in positions:
            assert card_to_str(state.deck[entry["pos"]]) == entry["card"]


def test_pokerstars_download_is_the_players_own_text(browser, played):
    hand, by_seat = played
    seat_number, user = next(iter(by_seat.items()))
    response = browser(user).get(reverse("poker-hand-pokerstars", args=[hand.pk]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    assert f'filename="poker-hand-{hand.pk}.txt"' in response["Content-Disposition"]
    text = response.content.decode()
    assert text.startswith(f"PokerStars Hand #{hand.pk}:")
    assert f"Dealt to {user.username} [" in text
    state = replay.hand_state(hand)
    shown = {h["seat"] for h in hand.record["showdown"] if h["shown"]}
    for other, other_user in by_seat.items():
        if other != seat_number and other not in shown:
            for card in state.down_cards(other):
                assert card_to_str(card) not in text


def test_stud_hand_names_as_players_say_them():
    assert stud_hand_name("one_pair", ["Th", "Td", "As", "9c", "4d"]) == "pair of tens"
    assert stud_hand_name("four_flush", ["Ah", "9h", "6h", "2h", "Kc"]) == "four flush, ace high"
    assert stud_hand_name("four_straight", ["9c", "8d", "7h", "6s", "Kc"]) == "four straight, nine high"
    assert stud_hand_name("four_straight", ["Ac", "2d", "3h", "4s", "9c"]) == "four straight, four high"


def test_the_page_route_for_actions_acts_and_refuses_bad_input_changing_nothing(browser, poker_table, three):
    hand = PokerHand.objects.get(table=poker_table, state="live")
    by_seat = seats_of(hand, three)
    url = reverse("poker-table-act", args=[poker_table.pk])
    other = next(user for seat, user in by_seat.items() if seat != hand.to_act)
    version = hand.version
    bad = [
        (other, {"hand_id": hand.pk, "kind": "bring_in"}, 409, "not_your_turn"),
        (by_seat[hand.to_act], "not json", 400, "malformed"),
        (by_seat[hand.to_act], {"kind": "bring_in"}, 400, "hand_id_invalid"),
        (by_seat[hand.to_act], {"hand_id": hand.pk, "kind": "dance"}, 400, "action_invalid"),
        (by_seat[hand.to_act], {"hand_id": hand.pk, "kind": "complete", "amount": 2}, 400, "amount_invalid"),
        (by_seat[hand.to_act], {"hand_id": hand.pk, "kind": "complete", "amount": "3.00"}, 409, None),
    ]
    for user, body, status, code in bad:
        data = body if isinstance(body, str) else json.dumps(body)
        response = browser(user).post(url, data, content_type="application/json")
        assert response.status_code == status, (body, response.content)
        if code:
            assert response.json()["code"] == code
        hand.refresh_from_db()
        assert hand.version == version
    response = browser(by_seat[hand.to_act]).post(
        url, json.dumps({"hand_id": hand.pk, "kind": "bring_in"}), content_type="application/json"
    )
    assert response.status_code == 200
    hand.refresh_from_db()
    assert hand.version == version + 1
    assert response.json()["hand"]["to_act"] == hand.to_act


# --- the manager's poker tables ------------------------------------------------------------


def test_a_manager_opens_a_table_from_a_preset_with_a_rake_rule_and_closes_it(browser, manager, poker_table):
    from poker.models import PokerTable

    client = browser(manager)
    page = client.get(reverse("poker-staff-tables"))
    assert page.status_code == 200 and poker_table.name in page.content.decode()
    response = client.post(
        reverse("poker-staff-table-new"),
        {
            "name": "Vegas",
            "preset": "seven_stud/1-5",
            "max_seats": "6",
            "rake_percent": "4",
            "rake_cap": "2.00",
        },
    )
    assert response.status_code == 302
    table = PokerTable.objects.get(name="Vegas")
    assert table.max_seats == 6 and table.config["limit"]["type"] == "spread"
    assert table.config["rake_rule"] == {"percent": "4", "cap": "2.00", "no_first_round": True}
    client.post(reverse("poker-staff-table-state", args=[table.pk]), {"state": "close"})
    table.refresh_from_db()
    assert not table.is_open
    client.post(reverse("poker-staff-table-state", args=[table.pk]), {"state": "open"})
    table.refresh_from_db()
    assert table.is_open
    default = client.post(
        reverse("poker-staff-table-new"),
        {
            "name": "Reno",
            "preset": "soko/2-4",
            "max_seats": "8",
            "rake_percent": "5",
            "rake_cap": "3.00",
        },
    )
    assert default.status_code == 302 and PokerTable.objects.get(name="Reno").preset == "soko/2-4"


@pytest.mark.parametrize(
    "field, value",
    [("rake_percent", "abc"), ("rake_percent", "101"), ("rake_cap", "-1"), ("preset", "soko/1-5"), ("max_seats", "9")],
)
def test_bad_table_input_is_refused_and_nothing_is_made(browser, manager, field, value):
    from poker.models import PokerTable

    data = {
        "name": "Bad",
        "preset": "seven_stud/2-4",
        "max_seats": "8",
        "rake_percent": "5",
        "rake_cap": "3.00",
        field: value,
    }
    response = browser(manager).post(reverse("poker-staff-table-new"), data)
    assert response.status_code == 400
    assert not PokerTable.objects.filter(name="Bad").exists()


def test_a_duplicate_name_is_refused(browser, manager, poker_table):
    response = browser(manager).post(
        reverse("poker-staff-table-new"),
        {
            "name": poker_table.name,
            "preset": "seven_stud/2-4",
            "max_seats": "8",
            "rake_percent": "5",
            "rake_cap": "3.00",
        },
    )
    assert response.status_code == 400 and "A poker table of this name exists." in response.content.decode()


def test_players_and_auditors_may_not_change_poker_tables(browser, make_player, auditor, poker_table):
    from poker.models import PokerTable

    assert browser(make_player()).get(reverse("poker-staff-tables")).status_code == 403
    assert browser(auditor).get(reverse("poker-staff-tables")).status_code == 200
    response = browser(auditor).post(reverse("poker-staff-table-state", args=[poker_table.pk]), {"state": "close"})
    assert response.status_code == 403
    assert PokerTable.objects.get(pk=poker_table.pk).is_open
