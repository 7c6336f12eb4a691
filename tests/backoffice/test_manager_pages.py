"""The manager's pages: managers change through forms (audited, errors beside the field);
auditors see the same pages read-only and cannot post; everyone else gets 403; every
form carries its CSRF token."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from casino.access.roles import AUDITOR, CASHIER, PLAYER
from casino.models import AuditEntry
from jackpot.models import JackpotPool
from tables.models import PayTable
from wallets.models import LimitTier, Transaction

pytestmark = pytest.mark.django_db


@pytest.fixture
def reader(make_user):
    return make_user(AUDITOR)


def signed_in(user, *, csrf_checks: bool = False) -> Client:
    client = Client(enforce_csrf_checks=csrf_checks)
    client.force_login(user)
    return client


@pytest.fixture
def objects(table, pool, paytables):
    return {"tier": table.tier_id, "table": table.pk, "paytable": paytables["24h"].pk, "pool": pool.pk}


PAGES = [
    ("staff-manager", None),
    ("staff-manager-tier-new", None),
    ("staff-manager-tier", "tier"),
    ("staff-manager-table-new", None),
    ("staff-manager-table", "table"),
    ("staff-manager-paytable-new", None),
    ("staff-manager-paytable", "paytable"),
    ("staff-manager-pool-new", None),
    ("staff-manager-pool", "pool"),
    ("staff-manager-audit", None),
]
POST_ONLY = [
    ("staff-manager-table-open", "table"),
    ("staff-manager-table-close", "table"),
    ("staff-manager-pool-top-up", "pool"),
]


def url(name, arg, objects) -> str:
    return reverse(name, args=[objects[arg]] if arg else [])


@pytest.mark.parametrize(("name", "arg"), PAGES)
def test_a_manager_opens_every_page(name, arg, objects, manager):
    response = signed_in(manager).get(url(name, arg, objects))
    assert response.status_code == 200


@pytest.mark.parametrize(("name", "arg"), PAGES)
def test_an_auditor_reads_every_page_without_a_way_to_change(name, arg, objects, reader):
    response = signed_in(reader).get(url(name, arg, objects))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Save</button>" not in html and "Top up</button>" not in html and "Close the table" not in html
    for tag in re.findall(r"<(?:input|select)\b[^>]*>", html):
        if 'type="hidden"' in tag or "csrfmiddlewaretoken" in tag or 'method="get"' in tag:
            continue
        if re.search(r'name="(object_type|object_id|action|actor)"', tag):
            continue  # the audit log's filter
        assert "disabled" in tag, tag


@pytest.mark.parametrize(("name", "arg"), PAGES + POST_ONLY)
def test_an_auditor_cannot_post_anything(name, arg, objects, reader, table):
    before = (AuditEntry.objects.count(), Transaction.objects.count())
    response = signed_in(reader).post(url(name, arg, objects), {"name": "x", "amount": "5.00", "key": "k"})
    assert response.status_code == 403
    assert (AuditEntry.objects.count(), Transaction.objects.count()) == before
    table.refresh_from_db()
    assert table.is_open


@pytest.mark.parametrize("role", [PLAYER, CASHIER])
@pytest.mark.parametrize(("name", "arg"), PAGES + POST_ONLY)
def test_players_and_cashiers_are_refused(name, arg, role, objects, make_user):
    client = signed_in(make_user(role))
    assert client.get(url(name, arg, objects)).status_code in (403, 405)
    assert client.post(url(name, arg, objects), {}).status_code == 403


@pytest.mark.parametrize(("name", "arg"), PAGES)
def test_anonymous_visitors_are_sent_to_sign_in(name, arg, objects):
    response = Client().get(url(name, arg, objects))
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_the_navigation_shows_management_to_managers(manager, make_player):
    assert b'href="/staff/manager/"' in signed_in(manager).get("/").content
    assert b'href="/staff/manager/"' not in signed_in(make_player()).get("/").content


# --- forms --------------------------------------------------------------------------------


def test_a_manager_creates_a_tier_through_the_form(manager, objects):
    response = signed_in(manager).post(
        reverse("staff-manager-tier-new"), {"name": "Mid", "min_ante": "2.00", "max_ante": "40.00"}
    )
    tier = LimitTier.objects.get(name="Mid")
    assert response.status_code == 302 and response["Location"] == reverse("staff-manager-tier", args=[tier.pk])
    assert (tier.min_ante, tier.max_ante) == (200, 4000)
    assert AuditEntry.objects.filter(action="tier.create", actor=manager).exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "Mid", "min_ante": "abc", "max_ante": "40.00"}, "at most two decimals"),
        ({"name": "Mid", "min_ante": "-2", "max_ante": "40.00"}, "at most two decimals"),
        ({"name": "Mid", "min_ante": "0", "max_ante": "40.00"}, "more than zero"),
        ({"name": "Mid", "min_ante": "50.00", "max_ante": "40.00"}, "The minimum ante must not be above the maximum."),
        ({"name": "", "min_ante": "1.00", "max_ante": "40.00"}, "This field is required"),
        ({"name": "€0.50 – €10", "min_ante": "1.00", "max_ante": "40.00"}, "is already taken."),
    ],
)
def test_a_bad_tier_form_shows_the_error_and_changes_nothing(data, message, manager, objects):
    before = (LimitTier.objects.count(), AuditEntry.objects.count())
    response = signed_in(manager).post(reverse("staff-manager-tier-new"), data)
    assert response.status_code in (400, 409)
    assert message in response.content.decode()
    assert (LimitTier.objects.count(), AuditEntry.objects.count()) == before


def test_an_unchanged_form_records_nothing(manager, objects, table):
    data = {
        "name": "Nassau",
        "tier": table.tier_id,
        "paytable": table.paytable_id,
        "pool": table.pool_id,
        "bet_seconds": 15,
        "decision_seconds": 20,
        "extension_seconds": 60,
        "pair_timeout_action": "fold",
        "sit_out_limit": 3,
    }
    client = signed_in(manager)
    response = client.post(reverse("staff-manager-table", args=[table.pk]), data, follow=True)
    assert b"Nothing changed" in response.content
    assert not AuditEntry.objects.exists()
    data["bet_seconds"] = 9
    client.post(reverse("staff-manager-table", args=[table.pk]), data)
    entry = AuditEntry.objects.get()
    assert entry.before["bet_seconds"] == 15 and entry.after["bet_seconds"] == 9


def test_the_table_form_shows_a_refusal_for_a_hand_in_play(manager, table, tier_high, make_player):
    from tables.services.hands import hand_bet
    from tables.services.seats import table_sit

    alice, bob = make_player(50_000), make_player(50_000)
    table_sit(user=alice, table_id=table.pk)
    table_sit(user=bob, table_id=table.pk)
    hand_bet(user=alice, table_id=table.pk, ante=100, jackpot=False)
    data = {
        "name": "Nassau",
        "tier": tier_high.pk,
        "paytable": table.paytable_id,
        "pool": table.pool_id,
        "bet_seconds": 15,
        "decision_seconds": 20,
        "extension_seconds": 60,
        "pair_timeout_action": "fold",
        "sit_out_limit": 3,
    }
    response = signed_in(manager).post(reverse("staff-manager-table", args=[table.pk]), data)
    assert response.status_code == 409
    assert "A hand is in play at this table" in response.content.decode()  # words, not the code
    assert "hand_in_progress" not in response.content.decode()
    table.refresh_from_db()
    assert table.tier_id != tier_high.pk


def test_a_manager_closes_and_opens_a_table_with_the_buttons(manager, table):
    client = signed_in(manager)
    page = client.post(reverse("staff-manager-table-close", args=[table.pk]), follow=True)
    assert b"is closed" in page.content
    table.refresh_from_db()
    assert not table.is_open
    client.post(reverse("staff-manager-table-open", args=[table.pk]))
    table.refresh_from_db()
    assert table.is_open


def test_a_manager_creates_a_pay_table_through_the_grid(manager, paytables):
    data = {"name": "house special"}
    for key, odds in paytables["classic"].data["qualified"].items():
        data[f"q_{key}"] = odds
    data["nq_royal_flush"] = 50
    response = signed_in(manager).post(reverse("staff-manager-paytable-new"), data)
    assert response.status_code == 302
    paytable = PayTable.objects.get(name="house special")
    assert paytable.data["not_qualified"] == {"royal_flush": 50}
    data["q_flush"] = 99  # a flush paying more than a full house
    bad = signed_in(manager).post(reverse("staff-manager-paytable-new"), {**data, "name": "broken"})
    assert bad.status_code == 400 and "higher hand must never pay less" in bad.content.decode()
    assert not PayTable.objects.filter(name="broken").exists()


def test_a_manager_creates_and_edits_a_pool_through_the_form(manager):
    data = {
        "name": "Weekend",
        "seed_amount": "2000.00",
        "bet_amount": "0.50",
        "meter_share_bp": 7000,
        "reserve_share_bp": 1000,
        "pct_royal_flush": 100,
        "fixed_straight_flush": "500.00",
        "fixed_four_of_a_kind": "100.00",
    }
    client = signed_in(manager)
    assert client.post(reverse("staff-manager-pool-new"), data).status_code == 302
    pool = JackpotPool.objects.get(name="Weekend")
    assert pool.schedule == {
        "percent_prizes": {"royal_flush": 100},
        "fixed_prizes": {"straight_flush": 50_000, "four_of_a_kind": 10_000},
    }
    assert pool.meter_account.balance == 200_000
    data["reserve_share_bp"] = 5000  # 70 % + 50 %
    bad = client.post(reverse("staff-manager-pool", args=[pool.pk]), data)
    assert bad.status_code == 400 and "add up to more than 100 %" in bad.content.decode()
    assert "shares_invalid" not in bad.content.decode()


def test_a_double_submitted_top_up_adds_the_amount_once(manager, pool):
    client = signed_in(manager)
    page = client.get(reverse("staff-manager-pool", args=[pool.pk])).content.decode()
    key = re.search(r'name="key" value="([^"]+)"', page).group(1)
    for _ in range(2):
        client.post(reverse("staff-manager-pool-top-up", args=[pool.pk]), {"amount": "100.00", "key": key})
    pool.meter_account.refresh_from_db()
    assert pool.meter_account.balance == 1_000_000 + 10_000
    assert AuditEntry.objects.filter(action="pool.top_up").count() == 1
    other = re.search(
        r'name="key" value="([^"]+)"', client.get(reverse("staff-manager-pool", args=[pool.pk])).content.decode()
    ).group(1)
    assert other != key  # each form shown gets its own key


def test_the_audit_log_page_shows_and_filters_changes(manager, reader, table):
    client = signed_in(manager)
    client.post(reverse("staff-manager-table-close", args=[table.pk]))
    page = signed_in(reader).get(reverse("staff-manager-audit"), {"action": "table.close"}).content.decode()
    assert "table.close" in page and manager.username in page
    empty = signed_in(reader).get(reverse("staff-manager-audit"), {"action": "tier.update"}).content.decode()
    assert "No changes recorded yet" in empty


# --- CSRF ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arg"), [p for p in PAGES if p[0] != "staff-manager-audit" and p[0] != "staff-manager"] + POST_ONLY
)
def test_every_form_needs_its_csrf_token(name, arg, objects, manager, table):
    client = signed_in(manager, csrf_checks=True)
    if arg is None or name.endswith(("-tier", "-table", "-paytable", "-pool")):
        page = client.get(url(name, arg, objects)).content.decode()
        assert 'name="csrfmiddlewaretoken"' in page
    before = (AuditEntry.objects.count(), Transaction.objects.count())
    assert client.post(url(name, arg, objects), {"name": "x", "amount": "1.00", "key": "k"}).status_code == 403
    assert (AuditEntry.objects.count(), Transaction.objects.count()) == before


def test_the_api_needs_the_csrf_token_with_a_session(manager, table):
    client = signed_in(manager, csrf_checks=True)
    response = client.post(f"/api/manager/tables/{table.pk}/close/", content_type="application/json")
    assert response.status_code == 403
    table.refresh_from_db()
    assert table.is_open
