"""Configuration never reaches a hand in play.

- A table whose live hand holds a bet keeps its tier, pay table, pool and timeout rule
  until the hand is over (``hand_in_progress``); a live hand without bets takes them at once.
- Closing a table: no new seat or hand; a hand with bets is played to its end; one without
  bets is cancelled and the players stand up. Opening deals the seated players back in.
- A pool's rules change at once and reach each table from its next hand: a hand holding
  jackpot chips keeps its own; its seed never rises above the meter (``seed_above_meter``).
"""

from __future__ import annotations

import pytest

from casino.http.errors import ApplicationError, Conflict
from casino.models import AuditEntry
from jackpot import services as jackpot_services
from tables.models import Hand, HandSeat
from tables.services.hands import hand_bet, hand_cancel, hand_decide
from tables.services.seats import table_sit

pytestmark = pytest.mark.django_db


def live_hand(table) -> Hand | None:
    return table.hands.live().first()


@pytest.fixture
def seated(table, make_player):
    """Alice and Bob at the table: a live hand is open, nobody has bet yet."""
    alice, bob = make_player(50_000, "alice"), make_player(50_000, "bob")
    table_sit(user=alice, table_id=table.pk)
    table_sit(user=bob, table_id=table.pk)
    return alice, bob


RULE_CHANGES = ["tier", "paytable", "pool", "pair_timeout_action"]


def rule_change(name, *, tier_high, paytables, make_pool):
    return {
        "tier": {"tier": tier_high.pk},
        "paytable": {"paytable": paytables["classic"].pk},
        "pool": {"pool": make_pool().pk},
        "pair_timeout_action": {"pair_timeout_action": "raise"},
    }[name]


@pytest.fixture
def make_pool(db):
    return lambda: jackpot_services.pool_create(name="Second pool")


@pytest.mark.parametrize("field", RULE_CHANGES)
def test_a_rule_cannot_change_under_a_hand_with_bets(field, mapi, table, seated, tier_high, paytables, make_pool):
    alice, _ = seated
    hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=False)
    hand = live_hand(table)
    change = rule_change(field, tier_high=tier_high, paytables=paytables, make_pool=make_pool)
    before = (table.tier_id, table.paytable_id, table.pool_id, table.pair_timeout_action, AuditEntry.objects.count())
    response = mapi.patch(f"/api/manager/tables/{table.pk}/", change, format="json")
    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "hand_in_progress" and body["extra"]["hand"] == hand.pk
    table.refresh_from_db()
    assert (
        table.tier_id,
        table.paytable_id,
        table.pool_id,
        table.pair_timeout_action,
        AuditEntry.objects.count(),
    ) == before
    hand.refresh_from_db()
    assert (hand.min_ante, hand.max_ante, hand.paytable_name) == (50, 1000, "24h")


def test_the_rule_changes_once_the_hand_is_over(mapi, table, seated, tier_high):
    alice, bob = seated
    hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=False)
    seat = hand_bet(user=bob, table_id=table.pk, ante=100, jackpot=False)  # all bet: dealt
    assert mapi.patch(f"/api/manager/tables/{table.pk}/", {"tier": tier_high.pk}, format="json").status_code == 409
    hand_decide(user=alice, hand_id=seat.hand_id, action="fold")
    hand_decide(user=bob, hand_id=seat.hand_id, action="fold")  # settled; the next hand opens, empty
    response = mapi.patch(f"/api/manager/tables/{table.pk}/", {"tier": tier_high.pk}, format="json")
    assert response.status_code == 200
    nxt = live_hand(table)
    assert nxt.pk != seat.hand_id
    assert (nxt.min_ante, nxt.max_ante) == (tier_high.min_ante, tier_high.max_ante)


def test_a_live_hand_without_bets_takes_the_new_rules_at_once(mapi, table, seated, tier_high, paytables):
    hand = live_hand(table)
    response = mapi.patch(
        f"/api/manager/tables/{table.pk}/", {"tier": tier_high.pk, "paytable": paytables["classic"].pk}, format="json"
    )
    assert response.status_code == 200
    hand.refresh_from_db()
    assert (hand.min_ante, hand.max_ante, hand.paytable_name) == (1000, 10000, "classic")
    assert hand.paytable_data == paytables["classic"].data
    alice, _ = seated
    with pytest.raises(ApplicationError) as refused:
        hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=False)  # below the new minimum
    assert refused.value.code == "ante_out_of_range"


def test_timers_and_the_name_may_change_during_a_hand(mapi, table, seated):
    alice, _ = seated
    hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=False)
    response = mapi.patch(
        f"/api/manager/tables/{table.pk}/", {"name": "Nassau Beach", "decision_seconds": 25}, format="json"
    )
    assert response.status_code == 200
    table.refresh_from_db()
    assert (table.name, table.decision_seconds) == ("Nassau Beach", 25)


def test_a_tier_edit_reaches_empty_live_hands_but_not_hands_with_bets(mapi, make_table, make_player):
    quiet, busy = make_table("Quiet"), make_table("Busy")
    a, b = make_player(50_000), make_player(50_000)
    table_sit(user=a, table_id=quiet.pk)
    table_sit(user=b, table_id=busy.pk)
    table_sit(user=make_player(50_000), table_id=busy.pk)
    hand_bet(user=b, table_id=busy.pk, ante=100, jackpot=False)
    response = mapi.patch(
        f"/api/manager/tiers/{quiet.tier_id}/", {"min_ante": "1.00", "max_ante": "20.00"}, format="json"
    )
    assert response.status_code == 200
    assert (live_hand(quiet).min_ante, live_hand(quiet).max_ante) == (100, 2000)
    assert (live_hand(busy).min_ante, live_hand(busy).max_ante) == (
        50,
        1000,
    )  # its hand keeps the limits it opened with


def test_a_pay_table_edit_reaches_the_next_hands(mapi, table, seated, paytables):
    hand = live_hand(table)
    qualified = dict(paytables["24h"].data["qualified"], royal_flush=500)
    response = mapi.patch(f"/api/manager/paytables/{paytables['24h'].pk}/", {"qualified": qualified}, format="json")
    assert response.status_code == 200
    hand.refresh_from_db()
    assert hand.paytable_data["qualified"]["royal_flush"] == 500


# --- closing and opening ------------------------------------------------------------------


def test_closing_a_table_without_bets_cancels_the_empty_hand_and_stands_everyone_up(mapi, table, seated, manager):
    hand = live_hand(table)
    response = mapi.post(f"/api/manager/tables/{table.pk}/close/", format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["is_open"] is False and body["live_hand"] is None and body["seated"] == 0
    hand.refresh_from_db()
    assert hand.state == Hand.State.CANCELLED
    entry = AuditEntry.objects.filter(action="table.close").get()
    assert entry.actor == manager and entry.before["is_open"] is True
    assert entry.after["is_open"] is False and entry.after["stood_up"] == [1, 2]


def test_closing_during_a_hand_plays_it_to_the_end_and_opens_no_other(mapi, table, seated, make_player):
    alice, bob = seated
    hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=True)
    hand = live_hand(table)
    response = mapi.post(f"/api/manager/tables/{table.pk}/close/", format="json")
    assert response.status_code == 200
    assert response.json()["hand_in_progress"] is True
    # nobody new sits down...
    with pytest.raises(Conflict) as closed:
        table_sit(user=make_player(), table_id=table.pk)
    assert closed.value.code == "table_closed"
    # ...the hand goes on to its settlement, every bet settled...
    hand_bet(user=bob, table_id=table.pk, ante=100, jackpot=False)
    for player in (alice, bob):
        hand_decide(user=player, hand_id=hand.pk, action="raise")
    hand.refresh_from_db()
    assert hand.state == Hand.State.SETTLED
    assert not HandSeat.objects.filter(hand=hand, net__isnull=True).exists()
    # ...and no new hand opens. Closing again stands up whoever is still seated.
    assert live_hand(table) is None
    assert mapi.post(f"/api/manager/tables/{table.pk}/close/", format="json").json()["seated"] == 0


def test_opening_a_closed_table_deals_the_seated_players_back_in(mapi, table, seated):
    alice, _ = seated
    hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=False)
    first = live_hand(table)
    mapi.post(f"/api/manager/tables/{table.pk}/close/", format="json")
    hand_cancel(hand_id=first.pk, reason="test")  # the last hand ends
    assert live_hand(table) is None
    response = mapi.post(f"/api/manager/tables/{table.pk}/open/", format="json")
    assert response.status_code == 200 and response.json()["is_open"] is True
    assert live_hand(table) is not None
    assert AuditEntry.objects.filter(action="table.open").count() == 1


def test_opening_an_open_table_and_closing_a_closed_one_record_nothing(mapi, table):
    mapi.post(f"/api/manager/tables/{table.pk}/open/", format="json")
    assert not AuditEntry.objects.filter(action="table.open").exists()
    mapi.post(f"/api/manager/tables/{table.pk}/close/", format="json")
    mapi.post(f"/api/manager/tables/{table.pk}/close/", format="json")
    assert AuditEntry.objects.filter(action="table.close").count() == 1


def test_a_closed_table_leaves_the_lobby(mapi, api, make_player, table):
    mapi.post(f"/api/manager/tables/{table.pk}/close/", format="json")
    lobby = api(make_player()).get("/api/lobby/").json()["tables"]
    assert table.pk not in [t["id"] for t in lobby]


# --- pools --------------------------------------------------------------------------------


def test_pool_rules_change_from_each_tables_next_hand_while_jackpot_bets_are_in_play(mapi, table, seated, pool):
    alice, bob = seated
    hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=True)
    hand = live_hand(table)
    for change in (
        {"meter_share_bp": 6000},
        {"bet_amount": "1.00"},
        {"schedule": {"percent_prizes": {"royal_flush": 50}, "fixed_prizes": {}}},
    ):
        response = mapi.patch(f"/api/manager/pools/{pool.pk}/", change, format="json")
        assert response.status_code == 200, change
        assert response.json()["rules_apply_from"] == "next_hand"
        assert response.json()["hands_on_previous_rules"] == [
            {"hand": hand.pk, "table": table.pk, "table_name": "Nassau"}
        ]
        entry = AuditEntry.objects.filter(action="pool.update").latest("pk")
        assert entry.after["hands_on_previous_rules"] == [{"hand": hand.pk, "table": table.pk, "table_name": "Nassau"}]
    hand.refresh_from_db()
    assert hand.jackpot_bet_amount == 50 and hand.jackpot_rules["meter_share_bp"] == 7000  # the hand keeps its own
    assert mapi.patch(f"/api/manager/pools/{pool.pk}/", {"name": "Renamed"}, format="json").status_code == 200
    # when the hand is over, no hand is on the previous rules and the next hand has the new ones
    hand_bet(user=bob, table_id=table.pk, ante=100, jackpot=False)
    for player in seated:
        hand_decide(user=player, hand_id=hand.pk, action="fold")
    assert mapi.get(f"/api/manager/pools/{pool.pk}/").json()["hands_on_previous_rules"] == []
    following = live_hand(table)
    assert following.jackpot_bet_amount == 100 and following.jackpot_rules["meter_share_bp"] == 6000


def test_a_new_chip_price_reaches_hands_still_taking_bets(mapi, table, seated, pool):
    hand = live_hand(table)
    assert mapi.patch(f"/api/manager/pools/{pool.pk}/", {"bet_amount": "1.00"}, format="json").status_code == 200
    hand.refresh_from_db()
    assert hand.jackpot_bet_amount == 100
    alice, _ = seated
    seat = hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=True)
    assert seat.jackpot_bet == 100


def test_the_seed_cannot_rise_above_the_meter(mapi, pool):
    before = AuditEntry.objects.count()
    response = mapi.patch(f"/api/manager/pools/{pool.pk}/", {"seed_amount": "10000.01"}, format="json")
    assert response.status_code == 409
    assert response.json()["code"] == "seed_above_meter"
    assert AuditEntry.objects.count() == before
    mapi.post(f"/api/manager/pools/{pool.pk}/top-ups/", {"amount": "0.01"}, format="json", HTTP_IDEMPOTENCY_KEY="t")
    assert mapi.patch(f"/api/manager/pools/{pool.pk}/", {"seed_amount": "10000.01"}, format="json").status_code == 200


def test_the_reserve_share_change_applies_to_the_next_contribution(mapi, table, seated, pool):
    assert (
        mapi.patch(
            f"/api/manager/pools/{pool.pk}/", {"meter_share_bp": 5000, "reserve_share_bp": 2000}, format="json"
        ).status_code
        == 200
    )
    alice, bob = seated
    hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=True)
    hand_bet(user=bob, table_id=table.pk, ante=100, jackpot=True)  # dealt: contributions taken
    pool.meter_account.refresh_from_db()
    pool.reserve_account.refresh_from_db()
    assert pool.meter_account.balance == 1_000_000 + 50  # 50 % of 2 × 50 cents
    assert pool.reserve_account.balance == 20


def test_the_pool_page_says_the_change_applies_from_the_next_hand_and_which_hands_keep_the_old_rules(
    manager, table, seated, pool
):
    from django.test import Client
    from django.urls import reverse

    from backoffice.manager.forms import PoolForm

    alice, _ = seated
    hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=True)
    hand = live_hand(table)
    client = Client()
    client.force_login(manager)
    page = reverse("staff-manager-pool", args=[pool.pk])
    data = {key: value for key, value in PoolForm.initial_for(pool).items() if value is not None}
    for key in [k for k in data if k.startswith("fixed_")]:  # the form takes amounts as text
        data[key] = f"{data[key] // 100}.{data[key] % 100:02d}"
    data.update({"seed_amount": "10000.00", "bet_amount": "0.50", "meter_share_bp": 6000})
    response = client.post(page, data, follow=True)
    assert response.redirect_chain and response.status_code == 200
    html = response.content.decode()
    assert "The new rules apply at each of the pool&#x27;s tables from its next hand." in html
    assert f"Still on the previous rules until settled: hand #{hand.pk} at Nassau." in html
    assert "Still on the previous rules</dt>" in html and f"hand #{hand.pk} at Nassau</a>" in html
    changed = type(pool).objects.get(pk=pool.pk)
    assert (changed.meter_share_bp, changed.schedule) == (6000, pool.schedule)
    audit = client.get(reverse("staff-manager-audit")).content.decode()
    assert "Hands still on the previous rules" in audit and f"hand #{hand.pk} at Nassau" in audit
