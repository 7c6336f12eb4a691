"""The OpenAPI schema is true. Hands are played through the API and every live
response (successes and errors) is validated, strictly, against what the schema says for
that path, method and status: no undocumented status, no undeclared field, no missing one."""

from __future__ import annotations

import copy
import re

import pytest
from jsonschema import Draft202012Validator

pytestmark = pytest.mark.django_db


def _strict(node):
    """Objects with declared properties allow nothing else (the schema must name every field)."""
    if isinstance(node, dict):
        node = {key: _strict(value) for key, value in node.items()}
        if "properties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
        return node
    if isinstance(node, list):
        return [_strict(item) for item in node]
    return node


class Schema:
    def __init__(self, document: dict):
        self.document = document
        self.components = _strict(copy.deepcopy(document["components"]))
        self.routes = [
            (re.compile("^" + re.sub(r"\{[^}]+\}", r"[^/]+", path) + "$"), path) for path in document["paths"]
        ]
        self.checked: list[tuple[str, str, int]] = []

    def operation(self, method: str, url: str) -> dict:
        path = url.split("?")[0]
        matches = [template for regex, template in self.routes if regex.match(path)]
        assert matches, f"{path} is not in the schema"
        template = min(matches, key=lambda t: t.count("{"))  # a literal path beats a templated one
        operation = self.document["paths"][template].get(method)
        assert operation is not None, f"{method.upper()} {template} is not in the schema"
        return operation

    def check(self, method: str, url: str, response) -> dict:
        operation = self.operation(method, url)
        status = str(response.status_code)
        assert status in operation["responses"], (
            f"{method.upper()} {url} answered {status}, the schema documents {sorted(operation['responses'])}"
        )
        body = response.json()
        schema = operation["responses"][status]["content"]["application/json"]["schema"]
        validator = Draft202012Validator({**_strict(schema), "components": self.components})
        errors = sorted(validator.iter_errors(body), key=lambda e: list(e.absolute_path))
        assert not errors, f"{method.upper()} {url} {status}: " + "; ".join(
            f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5]
        )
        self.checked.append((method, url, response.status_code))
        return body


@pytest.fixture
def schema(api, make_player):
    response = api(make_player()).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    import json

    document = json.loads(response.content)
    assert document["openapi"].startswith("3.1")
    return Schema(document)


def call(schema: Schema, client, method: str, url: str, body=None, **headers):
    if method == "get":
        response = client.get(url, **headers)
    else:
        response = getattr(client, method)(url, body if body is not None else {}, format="json", **headers)
    schema.check(method, url, response)
    return response


def test_the_schema_documents_statuses_errors_and_the_idempotency_header(schema):
    bet = schema.document["paths"]["/api/tables/{table_id}/bet/"]["post"]
    assert "201" in bet["responses"] and "200" not in bet["responses"]
    assert {"400", "401", "403", "404", "409", "429", "503"} <= set(bet["responses"])
    assert bet["responses"]["409"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
    assert any(p["name"] == "Idempotency-Key" and p["in"] == "header" for p in bet["parameters"])
    assert "201" in schema.document["paths"]["/api/tables/{table_id}/sit/"]["post"]["responses"]
    hand = schema.document["paths"]["/api/hands/{hand_id}/"]["get"]["responses"]["200"]
    assert hand["content"]["application/json"]["schema"] != {"type": "object"}
    error = schema.document["components"]["schemas"]["Error"]
    assert set(error["required"]) == {"code", "message", "extra"}
    for path, operations in schema.document["paths"].items():
        if not path.startswith(
            ("/api/tables", "/api/hands", "/api/wallet", "/api/lobby", "/api/jackpot", "/api/auditor/ledger/")
        ):
            continue
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                body = response.get("content", {}).get("application/json", {}).get("schema")
                assert body != {"type": "object"} and body != {}, f"{method} {path} {status} is an opaque object"


def test_the_live_responses_of_played_hands_match_the_schema(schema, table, make_player, api, rig_deck):
    alice, bob = make_player(balance=10_000, username="alice"), make_player(balance=10_000, username="bob")
    a, b = api(alice), api(bob)
    call(schema, a, "get", "/api/lobby/")
    call(schema, a, "get", f"/api/tables/{table.pk}/")
    call(schema, a, "post", f"/api/tables/{table.pk}/sit/", {}, HTTP_IDEMPOTENCY_KEY="sit-a")
    call(schema, a, "post", f"/api/tables/{table.pk}/sit/", {}, HTTP_IDEMPOTENCY_KEY="sit-a")  # the replay
    call(schema, b, "post", f"/api/tables/{table.pk}/sit/", {"seat": 3, "client_seed": "bobs-seed"})
    call(schema, a, "get", f"/api/tables/{table.pk}/")
    for _ in range(2):  # a hand folded by one and raised by the other, then a second hand
        rig_deck(["Ah Kh Qh Jh Th", "2c 3d 4h 8s 9c"], "Ac Ad 7s 5c 3h")
        first = call(schema, a, "post", f"/api/tables/{table.pk}/bet/", {"ante": "1.00", "jackpot": True}).json()
        call(schema, a, "get", f"/api/tables/{table.pk}/hand/")
        call(schema, a, "post", f"/api/tables/{table.pk}/bet/", {"ante": "1.00"})  # 409 already_bet
        call(schema, a, "post", f"/api/hands/{first['id']}/raise/")  # 409 not_dealt
        call(schema, a, "get", f"/api/tables/{table.pk}/")
        hand = call(schema, b, "post", f"/api/tables/{table.pk}/bet/", {"ante": "2.00"}).json()
        call(schema, a, "get", f"/api/hands/{hand['id']}/")
        call(schema, a, "get", f"/api/tables/{table.pk}/")
        call(schema, a, "post", f"/api/hands/{hand['id']}/raise/")
        settled = call(schema, b, "post", f"/api/hands/{hand['id']}/fold/").json()
        assert settled["state"] == "settled" and settled["next_hand"]
        call(schema, a, "get", f"/api/hands/{hand['id']}/")
        call(schema, b, "get", f"/api/hands/{hand['id']}/")
    call(schema, a, "post", f"/api/tables/{table.pk}/bet/", {"ante": "abc"})  # 400
    call(schema, a, "post", f"/api/tables/{table.pk}/bet/", {"jackpot": "perhaps"})  # 400 with fields
    call(schema, a, "post", f"/api/tables/{table.pk}/sit/", {"seat": 9})  # 400 seat_invalid (or 409)
    call(schema, api(make_player()), "get", f"/api/hands/{hand['id']}/")  # 404
    call(schema, api(), "get", "/api/lobby/")  # 401
    call(schema, a, "get", "/api/hands/?limit=1")
    call(schema, a, "get", "/api/hands/?limit=5000")  # 400 limit_too_large
    call(schema, a, "get", "/api/wallet/")
    call(schema, a, "get", "/api/wallet/statement/")
    call(schema, a, "get", "/api/jackpot/")
    call(schema, a, "get", "/api/responsible-gaming/")
    call(schema, a, "post", "/api/responsible-gaming/reality-check/", {"minutes": 30})
    call(schema, a, "post", "/api/responsible-gaming/limits/", {"kind": "loss", "period": "day", "amount": "50.00"})
    call(schema, a, "get", "/api/responsible-gaming/")
    call(schema, b, "post", f"/api/tables/{table.pk}/leave/")
    assert {status for _, _, status in schema.checked} >= {200, 201, 400, 401, 404, 409}


def test_the_auditors_ledger_matches_the_schema(schema, table, make_player, make_user, api):
    from casino.access.roles import AUDITOR

    alice, bob = make_player(balance=10_000, username="alice"), make_player(balance=10_000, username="bob")
    for p in (alice, bob):
        api(p).post(f"/api/tables/{table.pk}/sit/", {}, format="json")
    api(alice).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00", "jackpot": True}, format="json")
    hand = api(bob).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json").json()
    api(alice).post(f"/api/hands/{hand['id']}/fold/")
    api(bob).post(f"/api/hands/{hand['id']}/raise/")
    auditor = api(make_user(AUDITOR))
    page = call(schema, auditor, "get", "/api/auditor/ledger/?limit=5").json()
    assert page["results"] and page["next"]
    call(schema, auditor, "get", f"/api/auditor/ledger/?player=alice&hand={hand['id']}")
    call(schema, auditor, "get", "/api/auditor/ledger/?date_from=2026-13-01")  # 400
    call(schema, api(alice), "get", "/api/auditor/ledger/")  # 403


def test_the_managers_tiers_tables_and_audit_trail_match_the_schema(schema, table, tier_high, make_user, api):
    from casino.access.roles import AUDITOR, MANAGER

    manager = api(make_user(MANAGER))
    call(schema, manager, "get", "/api/manager/tiers/")
    call(schema, manager, "get", f"/api/manager/tiers/{tier_high.pk}/")
    tier = call(
        schema, manager, "post", "/api/manager/tiers/", {"name": "€1 – €5", "min_ante": "1.00", "max_ante": "5.00"}
    ).json()
    call(schema, manager, "patch", f"/api/manager/tiers/{tier['id']}/", {"max_ante": "6.00"})
    call(schema, manager, "post", "/api/manager/tiers/", {"name": "bad", "min_ante": "9.00", "max_ante": "1.00"})  # 400
    call(schema, manager, "get", "/api/manager/tables/")
    call(schema, manager, "get", f"/api/manager/tables/{table.pk}/")
    call(schema, manager, "patch", f"/api/manager/tables/{table.pk}/", {"decision_seconds": 30})
    call(schema, manager, "post", f"/api/manager/tables/{table.pk}/close/")
    call(schema, manager, "post", f"/api/manager/tables/{table.pk}/open/")
    call(schema, manager, "get", "/api/manager/tables/999999/")  # 404
    call(schema, api(make_user(AUDITOR)), "post", "/api/manager/tiers/", {"name": "x"})  # 403
    call(schema, manager, "get", "/api/manager/paytables/")
    paytable = table.paytable
    call(schema, manager, "get", f"/api/manager/paytables/{paytable.pk}/")
    qualified = {**paytable.data["qualified"], "royal_flush": 250}
    assert (
        call(schema, manager, "post", "/api/manager/paytables/", {"name": "house", "qualified": qualified}).status_code
        == 201
    )
    call(
        schema, manager, "post", "/api/manager/paytables/", {"name": "broken", "qualified": {"royal_flush": -1}}
    )  # 400
    call(schema, manager, "get", "/api/manager/pools/")
    call(schema, manager, "get", f"/api/manager/pools/{table.pool_id}/")
    top_up = call(
        schema,
        manager,
        "post",
        f"/api/manager/pools/{table.pool_id}/top-ups/",
        {"amount": "10.00"},
        HTTP_IDEMPOTENCY_KEY="t1",
    )
    assert top_up.status_code == 201
    call(
        schema,
        manager,
        "post",
        f"/api/manager/pools/{table.pool_id}/top-ups/",
        {"amount": "x"},
        HTTP_IDEMPOTENCY_KEY="t2",
    )  # 400
    call(schema, manager, "patch", f"/api/manager/pools/{table.pool_id}/", {"name": "Renamed pool"})
    trail = call(schema, manager, "get", "/api/manager/audit/").json()
    assert trail["results"]


def test_the_cashiers_desk_matches_the_schema(schema, make_player, make_user, cashier, api):
    from casino.access.roles import MANAGER

    player = make_player(balance=0, username="carol")
    desk, manager = api(cashier), api(make_user(MANAGER))
    call(schema, desk, "get", "/api/cashier/players/?q=car")
    small = call(
        schema,
        desk,
        "post",
        "/api/cashier/deposits/",
        {"player": player.pk, "amount": "50.00"},
        HTTP_IDEMPOTENCY_KEY="d1",
    )
    assert small.status_code == 201
    call(
        schema,
        desk,
        "post",
        "/api/cashier/deposits/",
        {"player": player.pk, "amount": "50.00"},
        HTTP_IDEMPOTENCY_KEY="d1",
    )
    large = call(
        schema,
        desk,
        "post",
        "/api/cashier/deposits/",
        {"player": player.pk, "amount": "5000.00"},
        HTTP_IDEMPOTENCY_KEY="d2",
    )
    assert large.status_code == 202
    call(schema, desk, "get", "/api/cashier/requests/")
    call(schema, manager, "post", f"/api/cashier/requests/{large.json()['request']}/approve/")
    pending = call(
        schema,
        desk,
        "post",
        "/api/cashier/withdrawals/",
        {"player": player.pk, "amount": "2000.00"},
        HTTP_IDEMPOTENCY_KEY="w1",
    )
    assert pending.status_code == 202
    call(schema, manager, "post", f"/api/cashier/requests/{pending.json()['request']}/reject/", {"reason": "ID check"})
    reversed_ = call(
        schema,
        desk,
        "post",
        "/api/cashier/reversals/",
        {"transaction": small.json()["transaction"], "reason": "typo"},
        HTTP_IDEMPOTENCY_KEY="r1",
    )
    assert reversed_.status_code in (201, 202)  # 202 once the day's aggregate is above the threshold
    call(schema, desk, "get", "/api/cashier/requests/?status=executed")
    report = call(schema, desk, "get", "/api/cashier/report/").json()
    assert report["drawers"]
    call(schema, desk, "get", "/api/cashier/report/?date=2026-02-30")  # 400
    call(schema, desk, "get", "/api/cashier/requests/?status=nope")  # 400
    call(
        schema,
        desk,
        "post",
        "/api/cashier/deposits/",
        {"player": player.pk, "amount": "1e3"},
        HTTP_IDEMPOTENCY_KEY="d3",
    )  # 400
    call(
        schema, desk, "post", "/api/cashier/deposits/", {"player": 999999, "amount": "1.00"}, HTTP_IDEMPOTENCY_KEY="d4"
    )  # 404
    call(
        schema,
        desk,
        "post",
        "/api/cashier/withdrawals/",
        {"player": player.pk, "amount": "999999.00"},
        HTTP_IDEMPOTENCY_KEY="w2",
    )  # 409


def test_the_auditors_player_pages_match_the_schema(schema, table, make_player, make_user, api):
    from casino.access.roles import AUDITOR

    alice, bob = make_player(balance=10_000, username="alice"), make_player(balance=10_000, username="bob")
    for p in (alice, bob):
        api(p).post(f"/api/tables/{table.pk}/sit/", {}, format="json")
    api(alice).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00", "jackpot": True}, format="json")
    hand = api(bob).post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json").json()
    api(alice).post(f"/api/hands/{hand['id']}/fold/")
    api(bob).post(f"/api/hands/{hand['id']}/raise/")
    auditor = api(make_user(AUDITOR))
    found = call(schema, auditor, "get", "/api/auditor/players/?q=ali").json()
    assert [row["username"] for row in found["results"]] == ["alice"]
    detail = call(schema, auditor, "get", f"/api/auditor/players/{alice.pk}/").json()
    assert detail["recent_hands"]
    call(schema, auditor, "get", "/api/auditor/players/999999/")  # 404
    call(schema, auditor, "get", "/api/auditor/jackpot/pools/")
    integrity = call(schema, auditor, "get", "/api/auditor/integrity/").json()
    assert integrity["pools"] and integrity["accounts"] > 0
