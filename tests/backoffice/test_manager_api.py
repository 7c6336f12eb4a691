"""The manager's API: tiers, pay tables, tables, pools and top-ups are created and changed
(each change audited: who, when, before, after); bad input of every kind (missing,
malformed, negative, too large, wrong type, unknown, duplicate) gets a stable code in
the one error shape and changes nothing."""

from __future__ import annotations

import pytest

from casino.access.roles import AUDITOR
from casino.models import AuditEntry
from jackpot.models import JackpotPool
from tables.models import PayTable, Table
from wallets.models import Account, LimitTier, Transaction

pytestmark = pytest.mark.django_db


def world() -> tuple:
    """Everything a configuration request could change."""
    return (
        list(LimitTier.objects.order_by("pk").values()),
        list(PayTable.objects.order_by("pk").values("pk", "name", "data")),
        list(Table.objects.order_by("pk").values()),
        list(JackpotPool.objects.order_by("pk").values()),
        list(Account.objects.order_by("pk").values("pk", "balance")),
        Transaction.objects.count(),
        AuditEntry.objects.count(),
    )


def refused(response, status: int, code: str, before: tuple) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"code", "message", "extra"}
    assert body["code"] == code, body
    assert body["message"]
    assert world() == before, "a refused request changed something"
    return body


def last_audit() -> AuditEntry:
    return AuditEntry.objects.order_by("-id").first()


# --- limit tiers ------------------------------------------------------------------------

TIER = {"name": "€1 – €20", "min_ante": "1.00", "max_ante": "20.00"}


def test_a_manager_creates_a_tier_and_it_is_audited(mapi, manager):
    response = mapi.post("/api/manager/tiers/", TIER, format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["min_ante"] == "1.00" and body["max_ante"] == "20.00"
    tier = LimitTier.objects.get(pk=body["id"])
    assert (tier.min_ante, tier.max_ante) == (100, 2000)
    entry = last_audit()
    assert (entry.actor, entry.action, entry.object_type, entry.object_id) == (
        manager,
        "tier.create",
        "wallets.LimitTier",
        str(tier.pk),
    )
    assert entry.before is None and entry.after["min_ante"] == 100


def test_a_manager_changes_a_tier_and_the_audit_keeps_before_and_after(mapi, tier_low):
    response = mapi.patch(f"/api/manager/tiers/{tier_low.pk}/", {"max_ante": "12.50"}, format="json")
    assert response.status_code == 200 and response.json()["max_ante"] == "12.50"
    entry = last_audit()
    assert entry.action == "tier.update"
    assert entry.before["max_ante"] == 1000 and entry.after["max_ante"] == 1250
    assert entry.at is not None


def test_an_unchanged_tier_records_nothing(mapi, tier_low):
    before = AuditEntry.objects.count()
    response = mapi.patch(f"/api/manager/tiers/{tier_low.pk}/", {"min_ante": "0.50"}, format="json")
    assert response.status_code == 200
    assert AuditEntry.objects.count() == before


BAD_TIERS = [
    ("missing-name", {"min_ante": "1.00", "max_ante": "2.00"}, 400, "field_required"),
    ("missing-min", {"name": "T", "max_ante": "2.00"}, 400, "field_required"),
    ("null-max", {"name": "T", "min_ante": "1.00", "max_ante": None}, 400, "field_required"),
    ("blank-name", {**TIER, "name": "   "}, 400, "field_required"),
    ("name-wrong-type", {**TIER, "name": 42}, 400, "field_invalid"),
    ("name-too-long", {**TIER, "name": "x" * 61}, 400, "value_too_long"),
    ("malformed-amount", {**TIER, "min_ante": "one euro"}, 400, "amount_invalid"),
    ("amount-wrong-type", {**TIER, "min_ante": True}, 400, "amount_invalid"),
    ("amount-list", {**TIER, "min_ante": [1]}, 400, "amount_invalid"),
    ("negative", {**TIER, "min_ante": "-1.00"}, 400, "amount_invalid"),
    ("zero", {**TIER, "min_ante": "0"}, 400, "amount_not_positive"),
    ("fraction-of-a-cent", {**TIER, "min_ante": "1.005"}, 400, "amount_invalid"),
    ("exponent", {**TIER, "max_ante": "1e20"}, 400, "amount_invalid"),
    ("too-large", {**TIER, "max_ante": "100000000000.01"}, 400, "amount_too_large"),
    ("json-number", {**TIER, "min_ante": 1}, 400, "amount_invalid"),
    ("min-above-max", {**TIER, "min_ante": "30.00"}, 400, "tier_invalid"),
    ("unknown-field", {**TIER, "colour": "red"}, 400, "unknown_field"),
    ("duplicate-name", {**TIER, "name": "€0.50 – €10"}, 409, "name_taken"),
    ("duplicate-name-in-other-case", {**TIER, "name": "€0.50 – €10".upper()}, 409, "name_taken"),
    ("nul-in-name", {**TIER, "name": "Low\u0000"}, 400, "field_invalid"),
    ("zero-width-space-in-name", {**TIER, "name": "Lo\u200bw"}, 400, "field_invalid"),
]


@pytest.mark.parametrize(("case", "payload", "status", "code"), BAD_TIERS, ids=[c[0] for c in BAD_TIERS])
def test_a_bad_tier_is_refused_and_changes_nothing(case, payload, status, code, mapi, tier_low):
    before = world()
    refused(mapi.post("/api/manager/tiers/", payload, format="json"), status, code, before)


def test_a_body_that_is_not_an_object_or_not_json_is_refused(mapi, tier_low):
    before = world()
    refused(mapi.post("/api/manager/tiers/", [TIER], format="json"), 400, "body_not_object", before)
    bad_json = mapi.post("/api/manager/tiers/", "{not json", content_type="application/json")
    refused(bad_json, 400, "malformed_request", before)


BAD_TIER_CHANGES = [
    ("nothing", {}, 400, "nothing_to_change"),
    ("min-above-max", {"min_ante": "50.00"}, 400, "tier_invalid"),
    ("max-below-min", {"max_ante": "0.10"}, 400, "tier_invalid"),
    ("negative", {"max_ante": "-5"}, 400, "amount_invalid"),
    ("unknown", {"minimum": "1.00"}, 400, "unknown_field"),
    ("duplicate-name", {"name": "€10 – €100"}, 409, "name_taken"),
]


@pytest.mark.parametrize(("case", "payload", "status", "code"), BAD_TIER_CHANGES, ids=[c[0] for c in BAD_TIER_CHANGES])
def test_a_bad_tier_change_is_refused_and_changes_nothing(case, payload, status, code, mapi, tier_low, tier_high):
    before = world()
    refused(mapi.patch(f"/api/manager/tiers/{tier_low.pk}/", payload, format="json"), status, code, before)


def test_unknown_ids_and_methods(mapi, tier_low):
    before = world()
    refused(mapi.patch("/api/manager/tiers/999999/", {"name": "x"}, format="json"), 404, "tier_not_found", before)
    refused(mapi.get("/api/manager/tables/999999/"), 404, "table_not_found", before)
    refused(mapi.put(f"/api/manager/tiers/{tier_low.pk}/", TIER, format="json"), 405, "method_not_allowed", before)
    refused(mapi.delete(f"/api/manager/tiers/{tier_low.pk}/"), 405, "method_not_allowed", before)


# --- pay tables -------------------------------------------------------------------------

QUALIFIED = {
    "royal_flush": 250,
    "straight_flush": 50,
    "four_of_a_kind": 25,
    "full_house": 9,
    "flush": 6,
    "straight": 4,
    "three_of_a_kind": 3,
    "two_pair": 2,
    "one_pair": 1,
    "high_card": 1,
}
PAYTABLE = {"name": "generous", "qualified": QUALIFIED, "not_qualified": {"royal_flush": 100}}


def test_a_manager_creates_and_changes_a_pay_table(mapi, paytables):
    response = mapi.post("/api/manager/paytables/", PAYTABLE, format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["qualified"]["royal_flush"] == 250 and body["not_qualified"] == {"royal_flush": 100}
    assert last_audit().action == "paytable.create"
    change = mapi.patch(
        f"/api/manager/paytables/{body['id']}/",
        {"not_qualified": {"royal_flush": 100, "straight_flush": 25}},
        format="json",
    )
    assert change.status_code == 200
    entry = last_audit()
    assert entry.action == "paytable.update"
    assert entry.before["data"]["not_qualified"] == {"royal_flush": 100}
    assert entry.after["data"]["not_qualified"] == {"royal_flush": 100, "straight_flush": 25}


def _with(column: str, **odds) -> dict:
    return {**PAYTABLE, column: {**PAYTABLE[column], **odds}}


BAD_PAYTABLES = [
    ("missing-qualified", {"name": "x", "not_qualified": {}}, 400, "field_required"),
    ("column-wrong-type", {**PAYTABLE, "qualified": "all 1 to 1"}, 400, "field_invalid"),
    ("odds-as-text", _with("qualified", flush="6"), 400, "paytable_invalid"),
    ("odds-with-a-fraction", _with("qualified", flush=6.5), 400, "paytable_invalid"),
    ("negative-odds", _with("qualified", high_card=-1), 400, "paytable_invalid"),
    ("odds-too-large", _with("qualified", royal_flush=5000), 400, "value_out_of_range"),
    ("higher-hand-pays-less", _with("qualified", flush=3), 400, "paytable_invalid"),
    ("not-qualified-higher-pays-less", _with("not_qualified", four_of_a_kind=200), 400, "paytable_invalid"),
    ("unknown-category", _with("qualified", five_aces=9999 // 10), 400, "paytable_invalid"),
    (
        "category-missing",
        {**PAYTABLE, "qualified": {k: v for k, v in QUALIFIED.items() if k != "two_pair"}},
        400,
        "paytable_invalid",
    ),
    ("duplicate-name", {**PAYTABLE, "name": "24h"}, 409, "name_taken"),
    ("duplicate-name-in-other-case", {**PAYTABLE, "name": "24H"}, 409, "name_taken"),
    ("right-to-left-override-in-name", {**PAYTABLE, "name": "h42\u202e"}, 400, "field_invalid"),
    ("unknown-field", {**PAYTABLE, "columns": 2}, 400, "unknown_field"),
]


@pytest.mark.parametrize(("case", "payload", "status", "code"), BAD_PAYTABLES, ids=[c[0] for c in BAD_PAYTABLES])
def test_a_bad_pay_table_is_refused_and_changes_nothing(case, payload, status, code, mapi, paytables):
    before = world()
    refused(mapi.post("/api/manager/paytables/", payload, format="json"), status, code, before)


def test_a_bad_pay_table_change_is_refused(mapi, paytables):
    before = world()
    target = paytables["24h"].pk
    refused(
        mapi.patch(f"/api/manager/paytables/{target}/", {"qualified": {**QUALIFIED, "straight": 7}}, format="json"),
        400,
        "paytable_invalid",
        before,
    )
    refused(
        mapi.patch(f"/api/manager/paytables/{target}/", {"name": "classic"}, format="json"), 409, "name_taken", before
    )
    refused(
        mapi.patch("/api/manager/paytables/999999/", {"name": "x"}, format="json"), 404, "paytable_not_found", before
    )


# --- tables -----------------------------------------------------------------------------


@pytest.fixture
def new_table(tier_low, paytables, pool):
    return {"name": "Kingston", "tier": tier_low.pk, "paytable": paytables["classic"].pk, "pool": pool.pk}


def test_a_manager_creates_a_table_with_its_time_bank(mapi, new_table, manager):
    payload = {
        **new_table,
        "bet_seconds": 10,
        "decision_seconds": 25,
        "extension_seconds": 45,
        "pair_timeout_action": "raise",
        "sit_out_limit": 5,
    }
    response = mapi.post("/api/manager/tables/", payload, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["is_open"] and body["paytable_name"] == "classic"
    assert (body["bet_seconds"], body["decision_seconds"], body["extension_seconds"], body["sit_out_limit"]) == (
        10,
        25,
        45,
        5,
    )
    assert body["pair_timeout_action"] == "raise"
    table = Table.objects.get(pk=body["id"])
    assert table.house_account.code == "house:table:Kingston"
    entry = last_audit()
    assert entry.action == "table.create" and entry.actor == manager and entry.after["bet_seconds"] == 10


def test_a_manager_changes_the_time_bank(mapi, table):
    response = mapi.patch(
        f"/api/manager/tables/{table.pk}/", {"decision_seconds": 30, "sit_out_limit": 2}, format="json"
    )
    assert response.status_code == 200
    table.refresh_from_db()
    assert (table.decision_seconds, table.sit_out_limit) == (30, 2)
    entry = last_audit()
    assert entry.before["decision_seconds"] == 20 and entry.after["decision_seconds"] == 30


BAD_TABLES = [
    ("missing-tier", {"tier": None}, 400, "field_required"),
    ("tier-as-text", {"tier": "1"}, 400, "field_invalid"),
    ("unknown-tier", {"tier": 999999}, 404, "tier_not_found"),
    ("unknown-pay-table", {"paytable": 999999}, 404, "paytable_not_found"),
    ("unknown-pool", {"pool": 999999}, 404, "pool_not_found"),
    ("negative-seconds", {"bet_seconds": -5}, 400, "value_out_of_range"),
    ("zero-decision", {"decision_seconds": 0}, 400, "value_out_of_range"),
    ("too-many-seconds", {"extension_seconds": 100_000}, 400, "value_out_of_range"),
    ("seconds-as-text", {"bet_seconds": "15"}, 400, "field_invalid"),
    ("seconds-as-bool", {"sit_out_limit": True}, 400, "field_invalid"),
    ("seconds-with-fraction", {"bet_seconds": 1.5}, 400, "field_invalid"),
    ("bad-timeout-action", {"pair_timeout_action": "call"}, 400, "field_invalid"),
    ("unknown-field", {"dealer": "Bob"}, 400, "unknown_field"),
    ("duplicate-name", {"name": "Nassau"}, 409, "name_taken"),
    ("duplicate-name-in-other-case", {"name": "NASSAU "}, 409, "name_taken"),
    ("nul-in-name", {"name": "Kingston\u0000x"}, 400, "field_invalid"),
]


@pytest.mark.parametrize(("case", "change", "status", "code"), BAD_TABLES, ids=[c[0] for c in BAD_TABLES])
def test_a_bad_table_is_refused_and_changes_nothing(case, change, status, code, mapi, new_table, table):
    before = world()
    refused(mapi.post("/api/manager/tables/", {**new_table, **change}, format="json"), status, code, before)


@pytest.mark.parametrize(("case", "change", "status", "code"), BAD_TABLES[1:], ids=[c[0] for c in BAD_TABLES[1:]])
def test_a_bad_table_change_is_refused_and_changes_nothing(case, change, status, code, mapi, make_table, table):
    other = make_table("Montego Bay")
    before = world()
    refused(mapi.patch(f"/api/manager/tables/{other.pk}/", change, format="json"), status, code, before)


def test_a_table_name_of_a_renamed_table_stays_taken(mapi, new_table, table):
    """The house account of a renamed table keeps its code: the old name cannot be reused."""
    assert mapi.patch(f"/api/manager/tables/{table.pk}/", {"name": "Old Nassau"}, format="json").status_code == 200
    before = world()
    refused(
        mapi.post("/api/manager/tables/", {**new_table, "name": "Nassau"}, format="json"), 409, "name_taken", before
    )


# --- pools and top-ups ------------------------------------------------------------------

POOL = {
    "name": "High rollers",
    "seed_amount": "5000.00",
    "bet_amount": "1.00",
    "meter_share_bp": 6000,
    "reserve_share_bp": 1500,
    "schedule": {
        "percent_prizes": {"royal_flush": 100, "straight_flush": 10},
        "fixed_prizes": {"four_of_a_kind": "500.00", "full_house": "50.00", "flush": "30.00"},
    },
}


def test_a_manager_creates_a_pool_seeded_by_the_house(mapi, manager):
    response = mapi.post("/api/manager/pools/", POOL, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["meter"] == "5000.00" and body["seed_amount"] == "5000.00" and body["bet_amount"] == "1.00"
    assert body["schedule"]["fixed_prizes"]["four_of_a_kind"] == "500.00"
    pool = JackpotPool.objects.get(pk=body["id"])
    assert pool.schedule["fixed_prizes"]["four_of_a_kind"] == 50_000
    seed = Transaction.objects.get(idempotency_key=f"jackpot:{pool.pk}:seed")
    assert seed.actor == manager
    assert last_audit().action == "pool.create"


def test_a_manager_changes_the_split_and_schedule(mapi, pool):
    change = {"meter_share_bp": 6500, "reserve_share_bp": 1500, "schedule": POOL["schedule"]}
    response = mapi.patch(f"/api/manager/pools/{pool.pk}/", change, format="json")
    assert response.status_code == 200, response.content
    pool.refresh_from_db()
    assert (pool.meter_share_bp, pool.reserve_share_bp) == (6500, 1500)
    assert pool.schedule["percent_prizes"] == {"royal_flush": 100, "straight_flush": 10}
    entry = last_audit()
    assert entry.action == "pool.update" and entry.before["meter_share_bp"] == 7000


def _schedule(**parts) -> dict:
    return {**POOL, "schedule": {**POOL["schedule"], **parts}}


BAD_POOLS = [
    ("missing-schedule", {k: v for k, v in POOL.items() if k != "schedule"}, 400, "field_required"),
    ("schedule-wrong-type", {**POOL, "schedule": [1, 2]}, 400, "field_invalid"),
    ("zero-seed", {**POOL, "seed_amount": "0.00"}, 400, "amount_not_positive"),
    ("negative-chip", {**POOL, "bet_amount": "-0.50"}, 400, "amount_invalid"),
    ("huge-seed", {**POOL, "seed_amount": "99999999999999"}, 400, "amount_too_large"),
    ("shares-above-whole", {**POOL, "meter_share_bp": 9000, "reserve_share_bp": 2000}, 400, "shares_invalid"),
    ("negative-share", {**POOL, "reserve_share_bp": -1}, 400, "value_out_of_range"),
    ("share-above-whole", {**POOL, "meter_share_bp": 10001}, 400, "value_out_of_range"),
    ("share-as-text", {**POOL, "meter_share_bp": "7000"}, 400, "field_invalid"),
    ("percent-above-100", _schedule(percent_prizes={"royal_flush": 150}), 400, "schedule_invalid"),
    ("percent-and-fixed", _schedule(percent_prizes={"royal_flush": 100, "flush": 5}), 400, "schedule_invalid"),
    (
        "higher-wins-less",
        _schedule(fixed_prizes={"four_of_a_kind": "5.00", "full_house": "50.00", "flush": "30.00"}),
        400,
        "schedule_invalid",
    ),
    (
        "gap-in-the-schedule",
        _schedule(fixed_prizes={"four_of_a_kind": "500.00", "flush": "30.00"}),
        400,
        "schedule_invalid",
    ),
    ("malformed-prize", _schedule(fixed_prizes={"four_of_a_kind": "lots"}), 400, "amount_invalid"),
    ("unknown-field", {**POOL, "colour": "gold"}, 400, "unknown_field"),
    ("duplicate-name", {**POOL, "name": "Test pool"}, 409, "name_taken"),
    ("duplicate-name-in-other-case", {**POOL, "name": "test POOL"}, 409, "name_taken"),
    ("nul-in-name", {**POOL, "name": "Pool\u0000"}, 400, "field_invalid"),
]


@pytest.mark.parametrize(("case", "payload", "status", "code"), BAD_POOLS, ids=[c[0] for c in BAD_POOLS])
def test_a_bad_pool_is_refused_and_changes_nothing(case, payload, status, code, mapi, pool):
    before = world()
    refused(mapi.post("/api/manager/pools/", payload, format="json"), status, code, before)


def test_a_top_up_is_one_audited_ledger_transaction_and_a_retry_adds_nothing(mapi, pool, manager):
    meter = pool.meter_account
    response = mapi.post(
        f"/api/manager/pools/{pool.pk}/top-ups/", {"amount": "250.00"}, format="json", HTTP_IDEMPOTENCY_KEY="slip-1"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["pool"]["meter"] == "10250.00"
    txn = Transaction.objects.get(pk=body["transaction"])
    assert txn.kind == Transaction.Kind.JACKPOT_FUNDING and txn.actor == manager
    entry = last_audit()
    assert entry.action == "pool.top_up" and entry.before == {"meter": 1_000_000}
    assert entry.after == {"meter": 1_025_000, "amount": 25_000, "transaction": txn.pk}

    audits, txns = AuditEntry.objects.count(), Transaction.objects.count()
    again = mapi.post(
        f"/api/manager/pools/{pool.pk}/top-ups/", {"amount": "250.00"}, format="json", HTTP_IDEMPOTENCY_KEY="slip-1"
    )
    assert again.status_code == 201 and again.json()["transaction"] == txn.pk
    assert (AuditEntry.objects.count(), Transaction.objects.count()) == (audits, txns)
    meter.refresh_from_db()
    assert meter.balance == 1_025_000


BAD_TOP_UPS = [
    ("missing-amount", {}, "slip-x", 400, "field_required"),
    ("negative", {"amount": "-5.00"}, "slip-x", 400, "amount_invalid"),
    ("malformed", {"amount": "five"}, "slip-x", 400, "amount_invalid"),
    ("exponent", {"amount": "1e15"}, "slip-x", 400, "amount_invalid"),
    ("too-large", {"amount": "99999999999999"}, "slip-x", 400, "amount_too_large"),
    ("wrong-type", {"amount": False}, "slip-x", 400, "amount_invalid"),
    ("unknown-field", {"amount": "1.00", "to": "meter"}, "slip-x", 400, "unknown_field"),
    ("no-key", {"amount": "1.00"}, None, 400, "idempotency_key_required"),
    ("bad-key", {"amount": "1.00"}, "has spaces", 400, "idempotency_key_invalid"),
]


@pytest.mark.parametrize(("case", "payload", "key", "status", "code"), BAD_TOP_UPS, ids=[c[0] for c in BAD_TOP_UPS])
def test_a_bad_top_up_is_refused_and_moves_nothing(case, payload, key, status, code, mapi, pool):
    before = world()
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    refused(
        mapi.post(f"/api/manager/pools/{pool.pk}/top-ups/", payload, format="json", **headers), status, code, before
    )


def test_a_key_reused_for_another_amount_is_refused(mapi, pool):
    mapi.post(
        f"/api/manager/pools/{pool.pk}/top-ups/", {"amount": "1.00"}, format="json", HTTP_IDEMPOTENCY_KEY="slip-9"
    )
    before = world()
    response = mapi.post(
        f"/api/manager/pools/{pool.pk}/top-ups/", {"amount": "2.00"}, format="json", HTTP_IDEMPOTENCY_KEY="slip-9"
    )
    refused(response, 409, "idempotency_key_reused", before)


def test_a_top_up_of_an_unknown_pool(mapi, pool):
    before = world()
    response = mapi.post(
        "/api/manager/pools/999999/top-ups/", {"amount": "1.00"}, format="json", HTTP_IDEMPOTENCY_KEY="k"
    )
    refused(response, 404, "pool_not_found", before)


# --- reading, and the audit log ---------------------------------------------------------


def test_auditors_read_everything_a_manager_sees(api, make_user, table):
    auditor = api(make_user(AUDITOR))
    for url in (
        "/api/manager/tiers/",
        "/api/manager/paytables/",
        "/api/manager/tables/",
        "/api/manager/pools/",
        "/api/manager/audit/",
    ):
        assert auditor.get(url).status_code == 200, url
    assert auditor.get(f"/api/manager/tables/{table.pk}/").json()["name"] == "Nassau"


def test_the_audit_log_lists_changes_newest_first_and_filters(mapi, api, make_user, table, manager):
    mapi.patch(f"/api/manager/tables/{table.pk}/", {"bet_seconds": 12}, format="json")
    mapi.patch(f"/api/manager/tiers/{table.tier_id}/", {"name": "Low"}, format="json")
    rows = api(make_user(AUDITOR)).get("/api/manager/audit/").json()["results"]
    assert [r["action"] for r in rows[:2]] == ["tier.update", "table.update"]
    assert rows[0]["actor"] == manager.username and rows[0]["before"]["name"] != rows[0]["after"]["name"]
    only_tables = mapi.get("/api/manager/audit/", {"object_type": "tables.Table", "object_id": str(table.pk)}).json()[
        "results"
    ]
    assert [r["action"] for r in only_tables] == ["table.update"]
    by_actor = mapi.get("/api/manager/audit/", {"actor": "nobody"}).json()["results"]
    assert by_actor == []


def test_a_change_and_its_audit_entry_commit_together(mapi, table, monkeypatch):
    """If the audit entry cannot be written, the change is rolled back with it."""

    def broken(**kwargs):
        raise RuntimeError("audit store down")

    monkeypatch.setattr("tables.services.config.audit_record", broken)
    mapi.raise_request_exception = False
    response = mapi.patch(f"/api/manager/tables/{table.pk}/", {"bet_seconds": 42}, format="json")
    assert response.status_code == 500
    table.refresh_from_db()
    assert table.bet_seconds == 15


# --- the bodies in the schema -------------------------------------------------------------


def _request_body(schema: dict, path: str, method: str) -> dict:
    ref = schema["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    return schema["components"]["schemas"][ref.rsplit("/", 1)[1]]


@pytest.mark.parametrize(
    ("path", "needed"),
    [
        ("/api/manager/tiers/", {"name", "min_ante", "max_ante"}),
        ("/api/manager/paytables/", {"name", "qualified"}),
        ("/api/manager/tables/", {"name", "tier", "paytable", "pool"}),
        (
            "/api/manager/pools/",
            {"name", "seed_amount", "bet_amount", "meter_share_bp", "reserve_share_bp", "schedule"},
        ),
    ],
)
def test_the_schema_shows_each_body_the_api_parses(path, needed, mapi):
    """A new object's body names what a create needs; a change's (PATCH) needs nothing; and
    a field the schema does not name is refused, a needed one missing is field_required."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    create = _request_body(schema, path, "post")
    assert set(create["required"]) == needed
    detail = next(
        p for p in schema["paths"] if p.startswith(path) and p != path and p.count("/") == path.count("/") + 1
    )
    change = _request_body(schema, detail, "patch")
    assert "required" not in change and set(change["properties"]) == set(create["properties"])
    before = world()
    refused(
        mapi.post(path, {name: None for name in create["properties"]} | {"extra": 1}, format="json"),
        400,
        "unknown_field",
        before,
    )
    body = refused(mapi.post(path, {}, format="json"), 400, "field_required", before)
    assert body["extra"]["field"] in needed
