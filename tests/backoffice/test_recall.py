"""Game recall: a hand replayed card by card, checked on the server from its stored seeds."""

from __future__ import annotations

import html
from datetime import timedelta

from django.urls import reverse
from django.utils import timezone

from casino.game import fair
from casino.game.cards import cards_to_str
from tables.models import Hand, HandSeat
from tables.services.hands import hand_bet, hand_expire
from tables.services.seats import table_sit

from .conftest import DEALER_QJ

GERMAN = {"HTTP_ACCEPT_LANGUAGE": "de"}


def test_a_real_hand_is_replayed_in_deal_order_and_verified(table, make_player, play_hand, api, browser, auditor):
    players = [make_player(50_000, name) for name in ("ann", "ben", "cat")]
    hand = play_hand([(p, 100, i == 0, "raise") for i, p in enumerate(players)])
    body = api(auditor).get(reverse("api-auditor-hand", args=[hand.pk])).json()

    deck = cards_to_str(fair.shuffled_deck(hand.server_seed, hand.client_seed, hand.nonce))
    deal = body["deal"]
    assert [step["card"] for step in deal] == deck[:20]  # 3 seats + the dealer, five rounds
    assert [step["position"] for step in deal] == list(range(20))
    order = [(step["round"], step["to"], step["seat"]) for step in deal[:8]]
    assert order == [
        (1, "seat", 1),
        (1, "seat", 2),
        (1, "seat", 3),
        (1, "dealer", None),
        (2, "seat", 1),
        (2, "seat", 2),
        (2, "seat", 3),
        (2, "dealer", None),
    ]
    assert [step["face_up"] for step in deal if step["to"] == "dealer"] == [False, False, False, False, True]
    assert body["dealer"]["up_card"] == deal[-1]["card"]

    checks = {c["name"]: c["ok"] for c in body["verification"]["checks"]}
    assert checks == {
        "commitment": True,
        "client_seed": True,
        "deck": True,
        "evaluation": True,
        "settlement": True,
        "ledger": True,
    }
    assert body["verification"]["verified"] is True
    assert body["server_seed"] == hand.server_seed and body["settlement_order"] == [3, 2, 1]

    page = browser(auditor).get(reverse("staff-auditor-hand", args=[hand.pk])).content.decode()
    assert "Verified on the server" in page and page.count('data-step="') == 20
    assert hand.server_seed in page and hand.commitment in page


def test_an_edited_card_or_seed_fails_verification(table, make_player, play_hand, api, auditor):
    ann, ben = make_player(50_000, "ann"), make_player(50_000, "ben")
    hand = play_hand([(ann, 100, False, "raise"), (ben, 100, False, "fold")])
    seat = hand.hand_seats.get(seat_number=1)
    cards = list(seat.cards)
    cards[0], cards[4] = cards[4], cards[0]  # the same five cards, dealt in another order
    HandSeat.objects.filter(pk=seat.pk).update(cards=cards)
    body = api(auditor).get(reverse("api-auditor-hand", args=[hand.pk])).json()
    checks = {c["name"]: c for c in body["verification"]["checks"]}
    assert checks["deck"]["ok"] is False and "first difference at deck position 0" in checks["deck"]["detail"]
    assert checks["evaluation"]["ok"] is True  # the same hand: only the deal order betrays it
    assert body["verification"]["verified"] is False

    Hand.objects.filter(pk=hand.pk).update(server_seed="0" * 64)
    checks = {
        c["name"]: c["ok"]
        for c in api(auditor).get(reverse("api-auditor-hand", args=[hand.pk])).json()["verification"]["checks"]
    }
    assert checks["commitment"] is False and checks["deck"] is False


def test_an_edited_result_fails_the_settlement_and_ledger_checks(table, make_player, play_hand, api, browser, auditor):
    ann = make_player(50_000, "ann")
    hand = play_hand([(ann, 100, False, "raise")])
    seat = hand.hand_seats.get()
    HandSeat.objects.filter(pk=seat.pk).update(raise_return=seat.raise_return + 100, net=seat.net + 100)
    checks = {
        c["name"]: c["ok"]
        for c in api(auditor).get(reverse("api-auditor-hand", args=[hand.pk])).json()["verification"]["checks"]
    }
    assert checks["settlement"] is False and checks["ledger"] is False and checks["deck"] is True
    assert "Verification failed" in browser(auditor).get(reverse("staff-auditor-hand", args=[hand.pk])).content.decode()


def test_a_hand_in_play_keeps_its_cards_and_seed_hidden(table, make_player, api, browser, auditor):
    ann, ben = make_player(50_000, "ann"), make_player(50_000, "ben")
    for p in (ann, ben):
        table_sit(user=p, table_id=table.pk)
    for p in (ann, ben):
        hand_bet(user=p, table_id=table.pk, ante=100, jackpot=False)
    hand = Hand.objects.get(table=table, state=Hand.State.DECISIONS)
    body = api(auditor).get(reverse("api-auditor-hand", args=[hand.pk])).json()
    assert body["server_seed"] is None and body["deal"] == [] and body["dealer"]["cards"] is None
    assert all(seat["cards"] is None for seat in body["seats"])
    page = browser(auditor).get(reverse("staff-auditor-hand", args=[hand.pk])).content.decode()
    assert hand.server_seed not in page
    assert not any(card in page for seat in hand.hand_seats.all() for card in (f'data-card="{c}"' for c in seat.cards))


def test_a_timeout_fold_is_shown_as_such(table, make_player, rig_deck, api, browser, auditor):
    ann = make_player(50_000, "ann")
    rig_deck(["3c 5d 6h 8s Td"], DEALER_QJ)  # high card: no extension
    table_sit(user=ann, table_id=table.pk)
    seat = hand_bet(user=ann, table_id=table.pk, ante=100, jackpot=False)
    HandSeat.objects.filter(pk=seat.pk).update(decision_deadline=timezone.now() - timedelta(seconds=1))
    hand_expire(hand_id=seat.hand_id)
    body = api(auditor).get(reverse("api-auditor-hand", args=[seat.hand_id])).json()
    assert body["state"] == "settled"
    assert (body["seats"][0]["decision"], body["seats"][0]["decided_by_timeout"]) == ("fold", True)
    assert "by timeout" in browser(auditor).get(reverse("staff-auditor-hand", args=[seat.hand_id])).content.decode()


def test_jackpot_effects_come_from_the_ledger_by_hand(casino_day, api, browser, auditor, pool, monkeypatch):
    monkeypatch.undo()  # the real shuffle again, for the verification
    hand = casino_day["hands"][0]  # alice's royal flush, bob's trips
    body = api(auditor).get(reverse("api-auditor-hand", args=[hand.pk])).json()
    kinds = [t["kind"] for t in body["jackpot"]["transactions"]]
    assert kinds == ["jackpot_contribution", "jackpot_prize", "jackpot_prize", "jackpot_reset", "jackpot_reset"]
    hits = {h["category"]: h for h in body["jackpot"]["hits"]}
    assert hits["royal_flush"]["amount"] == "10000.70" and hits["royal_flush"]["meter_after"] == "10000.00"
    assert hits["three_of_a_kind"]["kind"] == "fixed" and hits["three_of_a_kind"]["amount"] == "2.00"
    resets = [t for t in body["jackpot"]["transactions"] if t["kind"] == "jackpot_reset"]
    into_meter = [leg["amount"] for t in resets for leg in t["legs"] if leg["account"] == pool.meter_account.code]
    assert into_meter == ["0.10", "9999.90"]  # from the reserve first, then the house
    royal = next(s for s in body["seats"] if s["player"]["username"] == "alice")
    assert (
        royal["paytable_line"] == "qualified:royal_flush"
        and royal["paytable_line_text"] == "Royal flush pays 200 to 1 (dealer qualified)"
    )
    # The test rigged this deck: the seeds do not give these cards, and the audit says so.
    checks = {c["name"]: c["ok"] for c in body["verification"]["checks"]}
    assert checks == {
        "commitment": True,
        "client_seed": True,
        "deck": False,
        "evaluation": True,
        "settlement": True,
        "ledger": True,
    }
    page = browser(auditor).get(reverse("staff-auditor-hand", args=[hand.pk])).content.decode()
    assert "Royal flush pays 200 to 1 (dealer qualified)" in page and "€10,000.70" in page


def test_a_players_last_ten_hands_are_one_click_away(table, make_player, play_hand, browser, auditor):
    ann = make_player(500_000, "ann")
    hands = [play_hand([(ann, 100, False, "fold")]) for _ in range(11)]
    client = browser(auditor)
    search = client.get(reverse("staff-auditor-players"), {"q": "an"}).content.decode()
    player_url = reverse("staff-auditor-player", args=[ann.pk])
    assert player_url in search
    page = client.get(player_url).content.decode()
    links = [reverse("staff-auditor-hand", args=[h.pk]) for h in reversed(hands)]
    assert all(f'href="{link}"' in page for link in links[:10])
    assert f'href="{links[10]}"' not in page  # the oldest of eleven is not among the last ten
    assert page.index(links[0]) < page.index(links[9])  # newest first
    assert client.get(links[0]).status_code == 200


def test_an_auditor_reads_the_recalled_hand_and_its_checks_in_german(casino_day, browser, api, auditor, monkeypatch):
    monkeypatch.undo()  # the real shuffle again: the rigged deal fails the deck check, in words
    hand = casino_day["hands"][0]  # alice's royal flush, bob's three twos, the dealer's ace-king high
    url = reverse("staff-auditor-hand", args=[hand.pk])
    page = html.unescape(browser(auditor).get(url, **GERMAN).content.decode())
    for german in (
        "Drei Zweien",
        "Ass-König hoch",
        "Royal Flush zahlt 200 zu 1 (Dealer qualifiziert)",
        "Drei Gleiche zahlt 3 zu 1 (Dealer qualifiziert)",
        "Blätter bewertet",
        "sha256(Server-Seed) ist das vor den Einsätzen veröffentlichte Commitment",
        "der Client-Seed der Hand sind die Client-Seeds der sitzenden Spieler in Platzreihenfolge",
        "(1) gibt genau die 15 gespeicherten Karten aus; erster Unterschied an Position 0 im Deck",
        "die Kategorie jedes Blatts und die Qualifikation des Dealers aus den Karten neu berechnet",
        "jeder Platz nach den Regeln mit der Auszahlungstabelle „24h“ neu abgerechnet",
        "im Hauptbuch um genau das Nettoergebnis des Platzes bewegt",
    ):
        assert german in page
    for english in (
        "Three twos",
        "Ace-king high",
        "pays",
        "dealer qualified",
        "Hands evaluated",
        "Settlement",
        "commitment published",
        "client seeds in seat order",
        "first difference",
        "recomputed from the cards",
        "settled again",
        "moved by exactly",
    ):
        assert english not in page

    english_page = html.unescape(browser(auditor).get(url).content.decode())
    assert "Three twos" in english_page and "Ace-king high" in english_page and "Hands evaluated" in english_page
    assert "Three of a kind pays 3 to 1 (dealer qualified)" in english_page

    # The API answers in the requester's language; its names and codes stay as they are.
    body = api(auditor).get(reverse("api-auditor-hand", args=[hand.pk]), **GERMAN).json()
    checks = {c["name"]: c for c in body["verification"]["checks"]}
    assert list(checks) == ["commitment", "client_seed", "deck", "evaluation", "settlement", "ledger"]
    assert checks["commitment"]["detail"] == (
        "sha256(Server-Seed) ist das vor den Einsätzen veröffentlichte Commitment"
    )
    assert checks["deck"]["ok"] is False and "erster Unterschied an Position 0" in checks["deck"]["detail"]
    royal = next(s for s in body["seats"] if s["player"]["username"] == "alice")
    assert royal["paytable_line"] == "qualified:royal_flush"
    assert royal["paytable_line_text"] == "Royal Flush zahlt 200 zu 1 (Dealer qualifiziert)"


def test_a_failed_check_says_in_german_what_differs(table, make_player, play_hand, browser, auditor):
    ann = make_player(50_000, "ann")
    hand = play_hand([(ann, 100, False, "raise")])
    seat = hand.hand_seats.get()
    HandSeat.objects.filter(pk=seat.pk).update(raise_return=seat.raise_return + 100, net=seat.net + 100)
    url = reverse("staff-auditor-hand", args=[hand.pk])
    page = html.unescape(browser(auditor).get(url, **GERMAN).content.decode())
    assert "neu abgerechnet; weicht ab: Platz 1" in page  # the settlement check
    assert "Nettoergebnis des Platzes bewegt; weicht ab: Platz 1" in page  # the ledger check
    assert "differs" not in page
    english = html.unescape(browser(auditor).get(url).content.decode())
    assert "settled again by the rules with pay table “24h”; differs: seat 1" in english
