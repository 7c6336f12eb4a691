"""The player pages, as a browser gets them: who sees what, and what each page shows."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from casino.access.roles import AUDITOR, CASHIER, MANAGER
from casino.money import money
from tables.models import Hand, Seat
from tables.services.hands import hand_bet, hand_cancel, hand_decide
from tables.services.seats import table_sit
from wallets.services import cashier_deposit

DEALER_QUALIFIES = "Ac Kd 7h 4s 2c"


def _json_script(page: str, element_id: str):
    match = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', page, re.S)
    assert match, f"no {element_id} on the page"
    return json.loads(match.group(1))


# --- who may open which page ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["lobby", "wallet", "hand-history"])
def test_anonymous_visitors_are_sent_to_the_sign_in(browser, name, db):
    url = reverse(name)
    response = browser().get(url)
    assert response.status_code == 302 and response["Location"] == f"{reverse('login')}?next={url}"


def test_anonymous_visitors_are_sent_to_the_sign_in_from_tables_and_hands(browser, table):
    for url in (reverse("table", args=[table.pk]), reverse("hand-detail", args=[1])):
        response = browser().get(url)
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("role", [CASHIER, MANAGER, AUDITOR])
def test_staff_have_no_wallet_nor_hand_history(browser, make_user, role):
    client = browser(make_user(role))
    for name in ("wallet", "hand-history"):
        response = client.get(reverse(name))
        assert response.status_code == 403
        assert "This page is for players." in response.content.decode()


def test_staff_may_watch_the_lobby_and_a_table_but_get_no_controls(browser, make_user, table):
    client = browser(make_user(CASHIER))
    lobby = client.get(reverse("lobby")).content.decode()
    assert "Watch" in lobby and "data-sit-form" not in lobby
    assert ">Tables</a>" in lobby and reverse("wallet") not in lobby  # the nav shows links by role
    page = client.get(reverse("table", args=[table.pk])).content.decode()
    assert 'id="bet-form"' not in page and 'id="btn-fold"' not in page and "You are watching this table" in page
    assert _json_script(page, "table-config")["isPlayer"] is False
    assert client.post(reverse("table-sit", args=[table.pk])).status_code == 403
    assert not Seat.objects.exists()


def test_a_player_cannot_open_another_players_hand(browser, make_player, play_hand):
    alice, bob, eve = make_player(), make_player(), make_player()
    hand = play_hand([(alice, 100, False, "raise"), (bob, 100, False, "fold")])
    assert browser(alice).get(reverse("hand-detail", args=[hand.pk])).status_code == 200
    response = browser(eve).get(reverse("hand-detail", args=[hand.pk]))
    assert response.status_code == 404 and hand.server_seed not in response.content.decode()
    assert browser(eve).get(reverse("hand-detail", args=[hand.pk + 1000])).status_code == 404


def test_an_auditor_may_open_any_hand_a_cashier_none(browser, make_player, make_user, play_hand):
    alice = make_player()
    hand = play_hand([(alice, 100, False, "raise")])
    assert browser(make_user(AUDITOR)).get(reverse("hand-detail", args=[hand.pk])).status_code == 200
    assert browser(make_user(CASHIER)).get(reverse("hand-detail", args=[hand.pk])).status_code == 404


def test_an_unknown_table_is_not_found(browser, make_player, db):
    assert browser(make_player()).get(reverse("table", args=[999])).status_code == 404


# --- CSRF -------------------------------------------------------------------------------------


def test_every_form_needs_its_csrf_token(browser, make_player, table, groups):
    anonymous = browser(csrf_checks=True)
    users = get_user_model().objects.count()
    assert (
        anonymous.post(
            reverse("signup"),
            {
                "username": "x1",
                "email": "x@example.com",
                "password1": "felt-and-chips-42",
                "password2": "felt-and-chips-42",
            },
        ).status_code
        == 403
    )
    assert get_user_model().objects.count() == users
    assert anonymous.post(reverse("login"), {"username": "x1", "password": "felt-and-chips-42"}).status_code == 403

    player = browser(make_player(), csrf_checks=True)
    assert player.post(reverse("table-sit", args=[table.pk])).status_code == 403
    assert player.post(reverse("logout")).status_code == 403
    assert not Seat.objects.exists()


def test_forms_carry_the_token_and_work_with_it(browser, groups, make_player, table):
    client = browser(csrf_checks=True)
    page = client.get(reverse("signup")).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    data = {
        "csrfmiddlewaretoken": token,
        "username": "withtoken",
        "email": "t@example.com",
        "password1": "felt-and-chips-42",
        "password2": "felt-and-chips-42",
    }
    assert client.post(reverse("signup"), data).status_code == 302
    lobby = client.get(reverse("lobby")).content.decode()
    assert lobby.count('name="csrfmiddlewaretoken"') >= 2  # sign out and every "Sit" form


# --- the lobby ----------------------------------------------------------------------------------


def test_the_lobby_groups_tables_by_tier_and_shows_the_jackpot_and_its_rules(
    browser, make_player, make_table, tier_high, table
):
    make_table("Havana", tier=tier_high, paytable="classic")
    other = make_player()
    table_sit(user=other, table_id=table.pk)
    page = browser(make_player()).get(reverse("lobby")).content.decode()
    assert f'href="{reverse("wallet")}"' in page and f'href="{reverse("hand-history")}"' in page  # the player's nav
    assert "Tables €0.50 – €10.00" in page and "Tables €10.00 – €100.00" in page
    assert page.index("Nassau") < page.index("Havana")
    assert "<dd>24h</dd>" in page and "<dd>classic</dd>" in page
    assert re.search(r"<span data-free-seats>3</span>/4", page) and re.search(r"<span data-free-seats>4</span>/4", page)
    assert (
        f'action="{reverse("table-sit", args=[table.pk])}"' in page
        and f'href="{reverse("table", args=[table.pk])}"' in page
    )
    # the live meter and the pool's rules, before anyone bets
    assert 'data-pool-meter="' in page and "€10,000.00" in page
    assert "<strong>70 %</strong> goes to the meter" in page and "<strong>10 %</strong> to a reserve" in page
    assert "Royal flush</th><td>100 % of the meter" in page and "Straight flush</th><td>€1,250.00" in page
    assert "Three of a kind</th><td>€2.00" in page and "Simultaneous wins" in page


def test_sitting_from_the_lobby_takes_a_seat_and_opens_the_table(browser, make_player, table):
    player = make_player()
    response = browser(player).post(reverse("table-sit", args=[table.pk]))
    assert response.status_code == 302 and response["Location"] == reverse("table", args=[table.pk])
    assert Seat.objects.get(table=table).player == player
    # sitting again goes back to the seat; a full table says so in the lobby
    assert browser(player).post(reverse("table-sit", args=[table.pk]))["Location"] == reverse("table", args=[table.pk])
    for _ in range(3):
        table_sit(user=make_player(), table_id=table.pk)
    late = browser(make_player())
    response = late.post(reverse("table-sit", args=[table.pk]), follow=True)
    assert "All four seats are taken." in response.content.decode()


# --- the table ------------------------------------------------------------------------------------


def test_the_table_page_has_four_seats_a_dealer_and_labelled_controls(browser, make_player, table):
    player = make_player(balance=12_345)
    page = browser(player).get(reverse("table", args=[table.pk])).content.decode()
    for n in (1, 2, 3, 4):
        assert f'data-seat="{n}"' in page
    assert "Dealer" in page and 'id="dealer-cards"' in page
    assert '<label for="ante">Ante (€0.50 – €10.00)</label>' in page
    assert re.search(r'<input type="number" id="ante"[^>]*min="0.50" max="10.00" step="0.01"', page)
    assert '<label for="jackpot">' in page and "Jackpot chip €0.50" in page
    assert re.search(r'id="btn-fold" disabled', page) and re.search(r'id="btn-raise" disabled', page)
    assert 'id="btn-sit"' in page and 'id="btn-leave"' in page and 'role="alert"' in page
    assert '<dd id="wallet-available">€123.45</dd>' in page
    assert "Flush</th><td>6 to 1</td><td>push</td>" in page  # the pay table, printed
    config = _json_script(page, "table-config")
    assert config["wsPath"] == f"/ws/tables/{table.pk}/" and config["isPlayer"] is True
    initial = _json_script(page, "table-initial")
    assert initial["table"]["id"] == table.pk and initial["wallet"] == {"available": "123.45", "in_play": "0.00"}


def test_the_commitment_is_on_the_table_page_before_the_deal_and_no_seed(browser, make_player, table):
    player = make_player()
    table_sit(user=player, table_id=table.pk)
    hand = Hand.objects.get(table=table)
    page = browser(player).get(reverse("table", args=[table.pk])).content.decode()
    assert hand.commitment in page and hand.server_seed not in page


def test_the_table_page_shows_only_my_own_cards(browser, make_player, table):
    alice, bob = make_player(), make_player()
    table_sit(user=alice, table_id=table.pk)
    table_sit(user=bob, table_id=table.pk)
    hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=False)
    hand_bet(user=bob, table_id=table.pk, ante=100, jackpot=True)
    hand = Hand.objects.get(table=table)
    seats = {s.player_id: s for s in hand.hand_seats.all()}
    page = browser(alice).get(reverse("table", args=[table.pk])).content.decode()
    view = _json_script(page, "table-initial")["table"]["hand"]
    mine = [s for s in view["seats"] if s["is_you"]][0]
    theirs = [s for s in view["seats"] if not s["is_you"]][0]
    assert mine["cards"] == seats[alice.pk].cards and theirs["cards"] == [None] * 5
    assert view["dealer"]["cards"][:4] == [None] * 4 and view["dealer"]["cards"][4] == hand.dealer_cards[4]
    for card in seats[bob.pk].cards + hand.dealer_cards[:4]:
        assert f'"{card}"' not in page


# --- wallet and history -----------------------------------------------------------------------


def test_the_wallet_shows_the_balance_and_a_paginated_statement(browser, make_player, cashier):
    player = make_player(balance=10_000)
    for i in range(30):
        cashier_deposit(cashier=cashier, player=player, amount=100 + i, idempotency_key=f"ui-{player.pk}-{i}")
    client = browser(player)
    page = client.get(reverse("wallet")).content.decode()
    total = 10_000 + sum(100 + i for i in range(30))
    assert f"<dd>{money(total)}</dd>" in page and "<dd>€0.00</dd>" in page
    assert "+€1.29" in page and page.count('data-label="Amount"') == 25
    older = re.search(r'href="\?before=(\d+)#statement" rel="next"', page).group(1)
    second = client.get(reverse("wallet") + f"?before={older}").content.decode()
    assert "+€100.00" in second and second.count('data-label="Amount"') == 6 and 'rel="next"' not in second


def test_the_hand_history_lists_my_hands_with_their_results(browser, make_player, play_hand, rig_deck):
    alice, bob = make_player(), make_player()
    rig_deck(["Ah Kh Qh Jh 9h", "2d 3c 5c 8d Td"], DEALER_QUALIFIES)
    hand = play_hand([(alice, 200, True, "raise"), (bob, 100, False, "fold")])
    page = browser(alice).get(reverse("hand-history")).content.decode()
    assert f'href="{reverse("hand-detail", args=[hand.pk])}"' in page
    assert "Flush" in page and "Won" in page and "Raised" in page
    net = hand.hand_seats.get(player=alice).net
    assert money(net, signed=True) in page
    assert "Folded" not in page  # bob's hand is not in alice's history


# --- hand detail and the provably fair data ---------------------------------------------------


def test_the_hand_detail_explains_the_result_with_the_pay_table_line(browser, make_player, play_hand, rig_deck):
    alice, bob = make_player(), make_player()
    rig_deck(["Ah Kh Qh Jh 9h", "2d 3c 5c 8d Td"], DEALER_QUALIFIES)
    hand = play_hand([(alice, 200, True, "raise"), (bob, 100, False, "fold")])
    page = browser(alice).get(reverse("hand-detail", args=[hand.pk])).content.decode()
    assert "Hand: flush, ace high. Dealer: ace-king high, qualified (ace-king or better)." in page
    assert "Beats the dealer: Ante €2.00 pays 1 to 1 (+€2.00)." in page
    assert "Raise €4.00: Flush pays 6 to 1 (dealer qualified) (+€24.00)." in page
    assert "Jackpot chip €0.50 wins €15.00 (flush, ace high)." in page
    assert "Net: +€40.50." in page  # 2 + 24 + 15 - 0.50
    assert hand.hand_seats.get(player=alice).net == 4_050
    page_bob = browser(bob).get(reverse("hand-detail", args=[hand.pk])).content.decode()
    assert "Folded: the ante €1.00 is lost." in page_bob and "Net: −€1.00." in page_bob


def test_the_dealer_not_qualifying_is_explained(browser, make_player, play_hand, rig_deck):
    alice = make_player()
    rig_deck(["Ah Ad Ac Kh Ks"], "Qc Jd 7h 4s 2c")
    hand = play_hand([(alice, 100, False, "raise")])
    page = browser(alice).get(reverse("hand-detail", args=[hand.pk])).content.decode()
    assert "did not qualify (needs ace-king or better)" in page
    assert "Raise €2.00: Full house pays 3 to 1 (dealer not qualified) (+€6.00)." in page


def test_the_hand_detail_reveals_seeds_only_after_the_hand(browser, make_player, table, play_hand):
    alice, bob = make_player(), make_player()
    table_sit(user=alice, table_id=table.pk)
    table_sit(user=bob, table_id=table.pk)
    seat = hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=False)
    hand = Hand.objects.get(pk=seat.hand_id)
    page = browser(alice).get(reverse("hand-detail", args=[hand.pk])).content.decode()
    assert hand.commitment in page and hand.server_seed not in page and 'id="btn-verify"' not in page

    hand_bet(user=bob, table_id=table.pk, ante=100, jackpot=False)
    hand_decide(user=alice, hand_id=hand.pk, action="raise")
    hand_decide(user=bob, hand_id=hand.pk, action="fold")
    hand.refresh_from_db()
    page = browser(alice).get(reverse("hand-detail", args=[hand.pk])).content.decode()
    assert hand.server_seed in page and hand.client_seed in page and 'id="btn-verify"' in page
    assert '<script type="module" src="/static/js/hand.js">' in page  # the verifier (it imports fair.js)
    fair = _json_script(page, "fair-data")
    assert (
        fair["serverSeed"] == hand.server_seed and fair["nonce"] == hand.nonce and fair["commitment"] == hand.commitment
    )
    assert [s["seat"] for s in fair["seats"]] == [1, 2] and fair["dealer"] == hand.dealer_cards
    for card in hand.dealer_cards:
        assert f'data-card="{card}"' in page


# --- presentation helpers -----------------------------------------------------------------------


def test_amounts_are_shown_as_euros_exactly():
    assert money(0) == "€0.00" and money(1250) == "€12.50" and money(125_000_000) == "€1,250,000.00"
    assert (
        money(-650, signed=True) == "−€6.50"
        and money(650, signed=True) == "+€6.50"
        and money(0, signed=True) == "€0.00"
    )
    assert money("10000.00") == "€10,000.00" and money("-1.05") == "−€1.05" and money("0.5") == "€0.50"


def test_a_cancelled_hand_says_every_stake_went_back(browser, make_player, table):
    alice, bob = make_player(), make_player()
    table_sit(user=alice, table_id=table.pk)
    table_sit(user=bob, table_id=table.pk)
    seat = hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=True)
    hand_cancel(hand_id=seat.hand_id, reason="dealer shoe jammed")
    page = browser(alice).get(reverse("hand-detail", args=[seat.hand_id])).content.decode()
    assert "Cancelled" in page and "every stake went back to the wallet" in page
    assert "No cards were dealt." in page and 'id="btn-verify"' in page  # the commitment can still be checked
    history = browser(alice).get(reverse("hand-history")).content.decode()
    assert "Cancelled" in history
