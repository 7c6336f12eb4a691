"""Odd input at every endpoint of the real schema finds no 5xx, and every
refusal is the JSON error shape (a small schema-driven fuzz, in the suite)."""

from __future__ import annotations

import json
import re

import pytest

from casino.access.roles import AUDITOR, CASHIER, MANAGER

pytestmark = pytest.mark.django_db

ODD = ["²", "٣", "a\x00b", "99999999999999999999", "-1", "", " 5\n", "1e999999999", "1_000", "null", "[]"]
COMMON_QUERY = [
    "q",
    "player",
    "limit",
    "offset",
    "date",
    "status",
    "object_id",
    "object_type",
    "actor",
    "action",
    "hand",
    "table",
    "kind",
    "date_from",
    "date_to",
    "format",
    "day",
    "from",
    "to",
]


def _assert_answered(response, where: str) -> None:
    assert response.status_code < 500, f"{where}: {response.status_code} {response.content[:200]!r}"
    if response.status_code >= 400:
        assert response["Content-Type"].startswith("application/json"), f"{where}: {response['Content-Type']}"
        body = json.loads(response.content)
        assert set(body) == {"code", "message", "extra"}, f"{where}: {body}"


@pytest.fixture
def clients(make_user, make_player, api, table):
    people = {role: make_user(role) for role in (AUDITOR, CASHIER, MANAGER)}
    people["player"] = make_player(balance=5_000)
    made = {}
    for role, user in people.items():
        client = api(user)
        client.raise_request_exception = False
        made[role] = client
    return made


@pytest.fixture
def paths(clients):
    schema = json.loads(clients["player"].get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").content)
    return schema["paths"]


def _role_for(template: str) -> str:
    """Who may call it (an odd value must reach the code that reads it, not a 403)."""
    for prefix, role in (("/api/auditor/", AUDITOR), ("/api/cashier/", CASHIER), ("/api/manager/", MANAGER)):
        if template.startswith(prefix):
            return role
    return "player"


def _urls(template: str) -> list[str]:
    names = re.findall(r"\{([^}]+)\}", template)
    if not names:
        return [template]
    return [re.sub(r"\{[^}]+\}", value, template) for value in ("1", "99999999999999999999")]


def test_odd_query_values_at_every_get_endpoint_answer_without_a_5xx(clients, paths):
    for template, operations in paths.items():
        if "get" not in operations or template.endswith(("/download/", ".csv", ".jsonl")):
            continue
        declared = [p["name"] for p in operations["get"].get("parameters", []) if p["in"] == "query"]
        role = _role_for(template)
        client = clients[role]
        first, *more = _urls(template)
        # The common names the endpoint does not declare go all at once (it should read none),
        # but those it refuses even as "1" (an offset: refused whatever it says) alone, so
        # that such a refusal does not hide what another name's odd value would do.
        others, alone = [], list(declared)
        for name in COMMON_QUERY:
            if name not in declared:
                refused = client.get(first, {name: "1"}).status_code >= 400
                (alone if refused else others).append(name)
        for value in ODD:
            for name in alone:
                _assert_answered(client.get(first, {name: value}), f"{role} GET {first}?{name}={value!r}")
            _assert_answered(client.get(first, dict.fromkeys(others, value)), f"{role} GET {first} {others}={value!r}")
            for url in more:  # an id out of range: every name but those refused alone, at once
                every = dict.fromkeys(declared + others, value)
                _assert_answered(client.get(url, every), f"{role} GET {url} {list(every)}={value!r}")


def test_odd_bodies_at_every_post_endpoint_answer_without_a_5xx(clients, paths):
    for template, operations in paths.items():
        bodies = [[1], "text", 7, None, {}, {"x": "\x00"}]
        if "post" not in operations or template == "/api/auth/token/":
            continue
        schema = (
            operations["post"].get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
        )
        fields = list(schema.get("properties", {})) or [
            "player",
            "amount",
            "ante",
            "seat",
            "minutes",
            "months",
            "transaction",
            "format",
        ]
        for value in ODD + [True, 1.5, [], {}]:
            bodies.append({field: value for field in fields})
        role = _role_for(template)
        for url in _urls(template):
            for n, body in enumerate(bodies):
                response = clients[role].post(
                    url, body, format="json", HTTP_IDEMPOTENCY_KEY=f"fuzz-{role}-{n}-{url}"[:200]
                )
                _assert_answered(response, f"{role} POST {url} {body!r}")
