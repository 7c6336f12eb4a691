"""Responsible gaming: limits that stop a bet or a deposit, delayed raises, self-exclusion."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from casino.http.errors import Conflict
from tables.models import HandSeat
from tables.services.hands import hand_bet, hand_decide
from tables.services.seats import table_sit
from wallets import responsible
from wallets.models import GamingLimit, Transaction
from wallets.selectors import wallet_balances
from wallets.services import cashier_deposit


@pytest.fixture
def later(monkeypatch):
    """``later(hours)``: move the clock forward."""

    def advance(hours: float) -> None:
        offset, previous = timedelta(hours=hours), timezone.now
        monkeypatch.setattr(timezone, "now", lambda: previous() + offset)

    return advance


def test_a_deposit_limit_stops_a_deposit_with_a_clear_error(cashier, make_player, api):
    player = make_player(balance=0)
    responsible.limit_set(player=player, kind="deposit", period="day", amount=10_000)
    cashier_deposit(cashier=cashier, player=player, amount=6_000, idempotency_key="d1")
    with pytest.raises(Conflict) as refused:
        cashier_deposit(cashier=cashier, player=player, amount=4_001, idempotency_key="d2")
    assert refused.value.code == "deposit_limit_reached" and refused.value.extra["remaining"] == "40.00"
    r = api(cashier).post(
        "/api/cashier/deposits/", {"player": player.pk, "amount": "40.01"}, format="json", HTTP_IDEMPOTENCY_KEY="x"
    )
    assert (r.status_code, r.json()["code"]) == (409, "deposit_limit_reached")
    assert wallet_balances(user=player).available == 6_000


def test_the_lowest_of_the_day_week_and_month_limits_applies(cashier, make_player):
    player = make_player(balance=0)
    responsible.limit_set(player=player, kind="deposit", period="day", amount=50_000)
    responsible.limit_set(player=player, kind="deposit", period="month", amount=20_000)
    cashier_deposit(cashier=cashier, player=player, amount=20_000, idempotency_key="a")
    with pytest.raises(Conflict) as refused:
        cashier_deposit(cashier=cashier, player=player, amount=1, idempotency_key="b")
    assert refused.value.extra["period"] == "month"


def test_a_loss_limit_stops_a_bet_that_could_lose_more(table, make_player, api):
    player = make_player(balance=100_000)
    responsible.limit_set(player=player, kind="loss", period="day", amount=1_000)
    api(player).post(f"/api/tables/{table.pk}/sit/", {}, format="json")
    r = api(player).post(f"/api/tables/{table.pk}/bet/", {"ante": "3.50"}, format="json")  # can lose 10.50
    assert (r.status_code, r.json()["code"]) == (409, "loss_limit_reached")
    assert not HandSeat.objects.exists() and not Transaction.objects.filter(kind="bet").exists()
    assert api(player).post(f"/api/tables/{table.pk}/bet/", {"ante": "3.00"}, format="json").status_code == 201


def test_losses_already_made_count_against_the_limit(table, make_player, rig_deck):
    player = make_player(balance=100_000)
    rig_deck(["As Qc 8d 5h 3c"], "Ac Kd 7h 4s 2c")  # loses ante and raise: 3.00
    table_sit(user=player, table_id=table.pk)
    hand_seat = hand_bet(user=player, table_id=table.pk, ante=100, jackpot=False)
    hand_decide(user=player, hand_id=hand_seat.hand_id, action="raise")
    responsible.limit_set(player=player, kind="loss", period="week", amount=600)
    assert responsible.lost_since(player, timezone.now() - timedelta(days=7)) == 300
    with pytest.raises(Conflict) as refused:
        hand_bet(user=player, table_id=table.pk, ante=101, jackpot=False)  # could lose 3.03 more
    assert refused.value.code == "loss_limit_reached"
    hand_bet(user=player, table_id=table.pk, ante=100, jackpot=False)


def test_lowering_is_immediate_and_raising_waits_24_hours(cashier, make_player, later):
    player = make_player(balance=0)
    responsible.limit_set(player=player, kind="deposit", period="week", amount=10_000)
    limit = responsible.limit_set(player=player, kind="deposit", period="week", amount=5_000)
    assert responsible.effective_limit(limit) == 5_000
    limit = responsible.limit_set(player=player, kind="deposit", period="week", amount=50_000)
    assert responsible.effective_limit(limit) == 5_000 and limit.pending_amount == 50_000
    with pytest.raises(Conflict):
        cashier_deposit(cashier=cashier, player=player, amount=5_001, idempotency_key="too-soon")
    later(24.01)
    assert responsible.effective_limit(GamingLimit.objects.get(pk=limit.pk)) == 50_000
    cashier_deposit(cashier=cashier, player=player, amount=5_001, idempotency_key="after")


def test_removing_a_limit_also_waits_24_hours(cashier, make_player, later):
    player = make_player(balance=0)
    responsible.limit_set(player=player, kind="deposit", period="day", amount=100)
    responsible.limit_set(player=player, kind="deposit", period="day", amount=None)
    with pytest.raises(Conflict):
        cashier_deposit(cashier=cashier, player=player, amount=101, idempotency_key="a")
    later(25)
    cashier_deposit(cashier=cashier, player=player, amount=101, idempotency_key="b")


def test_self_exclusion_is_at_once_and_stops_seats_bets_and_deposits(table, cashier, make_player, api):
    player = make_player(balance=10_000)
    api(player).post(f"/api/tables/{table.pk}/sit/", {}, format="json")
    r = api(player).post("/api/responsible-gaming/self-exclusion/", {"months": 12, "confirm": True}, format="json")
    until = r.json()["excluded_until"]
    assert r.status_code == 200 and until
    bet = api(player).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json")
    assert (bet.status_code, bet.json()["code"]) == (409, "self_excluded")
    api(player).post(f"/api/tables/{table.pk}/leave/")
    sit = api(player).post(f"/api/tables/{table.pk}/sit/", {}, format="json")
    assert (sit.status_code, sit.json()["code"]) == (409, "self_excluded")
    with pytest.raises(Conflict):
        cashier_deposit(cashier=cashier, player=player, amount=100, idempotency_key="no")
    out = api(cashier).post(
        "/api/cashier/withdrawals/", {"player": player.pk, "amount": "100.00"}, format="json", HTTP_IDEMPOTENCY_KEY="w"
    )
    assert out.status_code == 201  # the player can still take money out
    shorter = api(player).post("/api/responsible-gaming/self-exclusion/", {"months": 6, "confirm": True}, format="json")
    assert shorter.json()["excluded_until"] == until  # never shortened


@pytest.mark.parametrize(
    "path,body,code",
    [
        ("/api/responsible-gaming/self-exclusion/", {"months": 5, "confirm": True}, "exclusion_invalid"),
        ("/api/responsible-gaming/self-exclusion/", {"months": 6, "confirm": False}, "confirmation_required"),
        ("/api/responsible-gaming/self-exclusion/", {"months": "six", "confirm": True}, "invalid"),
        ("/api/responsible-gaming/limits/", {"kind": "loss", "period": "year", "amount": "1"}, "invalid"),
        ("/api/responsible-gaming/limits/", {"kind": "loss", "period": "day", "amount": "-1"}, "amount_invalid"),
        ("/api/responsible-gaming/limits/", {"kind": "loss", "period": "day", "amount": "1.001"}, "amount_invalid"),
        ("/api/responsible-gaming/limits/", {"kind": "loss", "period": "day"}, "invalid"),
        ("/api/responsible-gaming/reality-check/", {"minutes": 7}, "reality_check_invalid"),
    ],
)
def test_bad_responsible_gaming_input_is_refused_and_changes_nothing(make_player, api, path, body, code):
    player = make_player()
    r = api(player).post(path, body, format="json")
    assert (r.status_code, r.json()["code"]) == (400, code)
    state = api(player).get("/api/responsible-gaming/").json()
    assert state["limits"] == [] and state["excluded_until"] is None and state["reality_check_minutes"] is None


def test_the_reality_check_reports_session_time_and_net_result(table, make_player, api, rig_deck):
    player = make_player(balance=10_000)
    client = api(player)
    assert client.post("/api/responsible-gaming/reality-check/", {"minutes": 30}, format="json").status_code == 200
    rig_deck(["As Qc 8d 5h 3c"], "Ac Kd 7h 4s 2c")
    client.post(f"/api/tables/{table.pk}/sit/", {}, format="json")
    hand = client.post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json").json()
    client.post(f"/api/hands/{hand['id']}/raise/")
    state = client.get("/api/responsible-gaming/").json()
    assert state["reality_check_minutes"] == 30
    assert state["session"]["net"] == "-3.00" and state["session"]["started_at"]


def test_a_bet_asks_its_responsible_gaming_question_in_one_read_and_an_ended_exclusion_stops_nothing(
    table, make_player, later
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from wallets.models import GamingLimit, PlayerProtection

    player = make_player(balance=10_000)
    table_sit(user=player, table_id=table.pk)
    responsible.self_exclude(player=player, months=6)
    with pytest.raises(Conflict) as refused:
        hand_bet(user=player, table_id=table.pk, ante=100, jackpot=False)
    assert refused.value.code == "self_excluded"
    later(24 * 30 * 6 + 1)  # the exclusion has run out: the same bet is taken
    rg_tables = (PlayerProtection._meta.db_table, GamingLimit._meta.db_table)
    with CaptureQueriesContext(connection) as queries:
        hand_bet(user=player, table_id=table.pk, ante=100, jackpot=False)
    asked = [q["sql"] for q in queries.captured_queries if any(t in q["sql"] for t in rg_tables)]
    # excluded now? any loss limit? On PostgreSQL part of the bet's one read under its
    # table's lock (its read function's call, with the hand and the money), nothing more.
    if connection.vendor == "postgresql":
        assert asked == [] and sum("caribbean_live_hand_lock" in q["sql"] for q in queries.captured_queries) == 1
    else:
        assert len(asked) == 2, asked
    assert wallet_balances(user=player).available == 10_000 - 300  # the ante and the raise held


def test_the_published_schema_lists_the_reality_check_intervals_the_api_accepts(make_player, api):
    player = make_player()
    document = api(player).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    components = document["components"]["schemas"]
    minutes = components["RealityCheckInput"]["properties"]["minutes"]
    listed = set()
    for option in minutes["oneOf"]:
        kind = components[option["$ref"].rsplit("/", 1)[1]]
        listed.update([None] if kind["type"] == "null" else kind["enum"])
    assert listed == {15, 30, 45, 60, 90, 120, None}
    for value in sorted(listed - {None}) + [None]:
        r = api(player).post("/api/responsible-gaming/reality-check/", {"minutes": value}, format="json")
        assert (r.status_code, r.json()["reality_check_minutes"]) == (200, value)
    r = api(player).post("/api/responsible-gaming/reality-check/", {"minutes": 1440}, format="json")
    assert (r.status_code, r.json()["code"]) == (400, "reality_check_invalid")


def test_a_self_exclusion_refusal_names_its_date_as_the_limits_page_does(table, make_player, api, browser):
    from datetime import UTC, datetime

    from django.urls import reverse

    from wallets.models import PlayerProtection

    player = make_player(balance=10_000)
    api(player).post(f"/api/tables/{table.pk}/sit/", {}, format="json")
    PlayerProtection.objects.update_or_create(
        player=player, defaults={"excluded_until": datetime(2099, 6, 4, 12, tzinfo=UTC)}
    )
    bet = {"ante": "1.00"}
    english = api(player).post(f"/api/tables/{table.pk}/bet/", bet, format="json", HTTP_ACCEPT_LANGUAGE="en").json()
    assert "You excluded yourself from play until 4 June 2099; betting" in english["message"]
    assert "until 4 June 2099" in browser(player).get(reverse("responsible-gaming")).content.decode()
    german = api(player).post(f"/api/tables/{table.pk}/bet/", bet, format="json", HTTP_ACCEPT_LANGUAGE="de").json()
    assert "Sie haben sich bis 4. Juni 2099 vom Spiel ausgeschlossen" in german["message"]
