"""Nothing is reachable by guessing an id, and no role reaches another's endpoints.

- a player reads only their own hands (another's: 404, like one that does not exist),
  their own statement, and no staff page, endpoint or export;
- a cashier cannot export nor use the auditors' or managers' endpoints;
- an auditor reads but cannot move money (cashier endpoints 403) nor change configuration;
- a manager configures but cannot move a player's money.

The staff endpoints are taken from the URL modules themselves, so one added later is
covered too (the role check comes before any lookup: a guessed id changes nothing).
"""

from __future__ import annotations

import re
from importlib import import_module

import pytest
from rest_framework.test import APIClient

from casino.access.roles import AUDITOR, CASHIER, MANAGER, PLAYER
from wallets.models import Account, Leg, Transaction

pytestmark = pytest.mark.django_db

API_MODULES = {
    CASHIER: ("/api/cashier/", "backoffice.cashier.api_urls"),
    AUDITOR: ("/api/auditor/", "backoffice.auditor.api_urls"),
    MANAGER: ("/api/manager/", "backoffice.manager.api_urls"),
}
PAGE_MODULES = {
    CASHIER: ("/staff/cashier/", "backoffice.cashier.urls"),
    AUDITOR: ("/staff/auditor/", "backoffice.auditor.urls"),
    MANAGER: ("/staff/manager/", "backoffice.manager.urls"),
}
# Two-factor pages live under /staff/manager/ for every staff member; not the manager's.
NOT_ROLE_PAGES = ("security/",)


def urls(prefix: str, module: str, *, guess: int = 1) -> list[str]:
    found = []
    for pattern in import_module(module).urlpatterns:
        route = str(pattern.pattern)
        if route.startswith(NOT_ROLE_PAGES):
            continue
        found.append(prefix + re.sub(r"<(?:int|id):\w+>", str(guess), route))
    return found


def api_of(owner: str) -> list[str]:
    return urls(*API_MODULES[owner])


def pages_of(owner: str) -> list[str]:
    return urls(*PAGE_MODULES[owner])


@pytest.fixture
def person(make_user, make_player):
    """``person(role)``: a fresh user of that role (players with money)."""

    def make(role: str):
        return make_player(100_000) if role == PLAYER else make_user(role)

    return make


def assert_refused(client, url: str, *, methods=("get", "post")) -> None:
    for method in methods:
        response = getattr(client, method)(url, {}, format="json") if method != "get" else client.get(url)
        # Signed in without the role: 403; not signed in: 401.
        assert (response.status_code, response.json()["code"]) in ((403, "forbidden"), (401, "not_authenticated")), (
            f"{method.upper()} {url}: {response.status_code}"
        )


# --- who reaches which staff API --------------------------------------------------------

REFUSED_API = [
    (PLAYER, CASHIER),
    (PLAYER, AUDITOR),
    (PLAYER, MANAGER),
    (CASHIER, AUDITOR),
    (CASHIER, MANAGER),
    (MANAGER, AUDITOR),
]


@pytest.mark.parametrize(("role", "owner"), REFUSED_API, ids=[f"{r}-on-{o}" for r, o in REFUSED_API])
def test_every_endpoint_of_another_role_is_refused(role, owner, person, api):
    client = api(person(role))
    endpoints = api_of(owner)
    assert endpoints
    for url in endpoints:
        assert_refused(client, url)


@pytest.mark.parametrize("owner", [CASHIER, AUDITOR, MANAGER])
def test_anonymous_callers_reach_no_staff_endpoint(owner, api):
    client = api()
    endpoints = api_of(owner)
    assert endpoints
    for url in endpoints:
        assert_refused(client, url)


def test_an_auditor_cannot_move_money_through_any_cashier_endpoint(person, api, make_player):
    auditor = api(person(AUDITOR))
    player = make_player(10_000)
    endpoints = api_of(CASHIER)
    assert endpoints
    for url in endpoints:
        response = auditor.post(url, {"player": player.pk, "amount": "5.00"}, format="json", HTTP_IDEMPOTENCY_KEY="try")
        assert response.status_code == 403, url
    assert not Transaction.objects.filter(actor__groups__name=AUDITOR).exists()


def test_an_auditor_reads_the_configuration_but_changes_nothing(person, api, table, pool):
    auditor = api(person(AUDITOR))
    assert auditor.get("/api/manager/tables/").status_code == 200
    for method, url in [
        ("post", "/api/manager/tiers/"),
        ("patch", f"/api/manager/tiers/{table.tier_id}/"),
        ("patch", f"/api/manager/tables/{table.pk}/"),
        ("post", f"/api/manager/tables/{table.pk}/close/"),
        ("post", f"/api/manager/pools/{pool.pk}/top-ups/"),
        ("patch", f"/api/manager/paytables/{table.paytable_id}/"),
    ]:
        response = getattr(auditor, method)(
            url, {"name": "x", "amount": "1.00"}, format="json", HTTP_IDEMPOTENCY_KEY="k"
        )
        assert response.status_code == 403, url
    table.refresh_from_db()
    assert table.is_open


@pytest.mark.parametrize("role", [CASHIER, AUDITOR, MANAGER])
def test_staff_cannot_play_for_anyone(role, person, api, table):
    client = api(person(role))
    assert client.post(f"/api/tables/{table.pk}/sit/", {}, format="json").status_code == 403
    assert client.post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json").status_code == 403
    assert client.post("/api/hands/1/fold/", format="json").status_code == 403
    assert client.post("/api/hands/1/raise/", format="json").status_code == 403
    assert not table.seats.exists()


def test_a_manager_cannot_move_a_players_money(person, api, make_player, pool):
    manager = api(person(MANAGER))
    player = make_player(10_000)
    for url in ("/api/cashier/deposits/", "/api/cashier/withdrawals/", "/api/cashier/reversals/"):
        response = manager.post(
            url,
            {"player": player.pk, "amount": "5.00", "transaction": 1, "reason": "x"},
            format="json",
            HTTP_IDEMPOTENCY_KEY="try",
        )
        assert response.status_code == 403, url
    # What a manager may do with money, a top-up, moves house money to the meter only.
    top_up = manager.post(
        f"/api/manager/pools/{pool.pk}/top-ups/", {"amount": "10.00"}, format="json", HTTP_IDEMPOTENCY_KEY="t1"
    )
    assert top_up.status_code == 201
    kinds = set(Leg.objects.filter(transaction_id=top_up.json()["transaction"]).values_list("account__kind", flat=True))
    assert kinds == {Account.Kind.HOUSE, Account.Kind.JACKPOT_METER}


# --- pages ------------------------------------------------------------------------------

REFUSED_PAGES = [(PLAYER, CASHIER), (PLAYER, AUDITOR), (PLAYER, MANAGER), (CASHIER, AUDITOR), (CASHIER, MANAGER)]


@pytest.mark.parametrize(("role", "owner"), REFUSED_PAGES, ids=[f"{r}-on-{o}" for r, o in REFUSED_PAGES])
def test_every_page_of_another_role_is_refused(role, owner, person, client):
    client.force_login(person(role))
    pages = pages_of(owner)
    assert pages
    for url in pages:
        assert client.get(url).status_code in (403, 405), url
        assert client.post(url, {}).status_code == 403, url


def test_an_auditor_cannot_post_to_the_cashier_pages(person, client, make_player):
    client.force_login(person(AUDITOR))
    player = make_player(10_000)
    pages = urls(*PAGE_MODULES[CASHIER], guess=player.pk)
    assert pages
    for url in pages:
        assert client.post(url, {"kind": "withdrawal", "amount": "5.00"}).status_code == 403, url


# --- a player's own things --------------------------------------------------------------


@pytest.fixture
def two_players_at_a_table(make_player, table, api):
    alice, bob = make_player(50_000, "alice"), make_player(50_000, "bob")
    a, b = api(alice), api(bob)
    a.post(f"/api/tables/{table.pk}/sit/", {}, format="json")
    b.post(f"/api/tables/{table.pk}/sit/", {}, format="json")
    a.post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json")
    hand = b.post(f"/api/tables/{table.pk}/bet/", {"ante": "2.00"}, format="json").json()
    return {"alice": alice, "bob": bob, "a": a, "b": b, "hand": hand["id"]}


def test_a_player_cannot_read_another_players_hand(make_player, two_players_at_a_table, api):
    carol = api(make_player(username="carol"))
    hand = two_players_at_a_table["hand"]
    missing = carol.get("/api/hands/999999/")
    guessed = carol.get(f"/api/hands/{hand}/")
    assert guessed.status_code == 404 and missing.status_code == 404
    assert guessed.json() == missing.json()  # no difference between "not yours" and "none"
    # and after it is settled, still only its players (and auditors) read it
    two_players_at_a_table["a"].post(f"/api/hands/{hand}/fold/", format="json")
    two_players_at_a_table["b"].post(f"/api/hands/{hand}/fold/", format="json")
    assert carol.get(f"/api/hands/{hand}/").status_code == 404
    assert two_players_at_a_table["a"].get(f"/api/hands/{hand}/").status_code == 200


def test_a_player_cannot_open_another_players_hand_page(make_player, two_players_at_a_table, client):
    client.force_login(make_player(username="carol"))
    assert client.get(f"/hands/{two_players_at_a_table['hand']}/").status_code == 404


def test_a_seated_player_never_sees_the_neighbours_cards(two_players_at_a_table):
    view = two_players_at_a_table["a"].get(f"/api/hands/{two_players_at_a_table['hand']}/").json()
    bob_cards = [s for s in view["seats"] if s.get("player") == "bob"]
    assert view["state"] == "decisions"
    assert bob_cards and all(card is None for s in bob_cards for card in s["cards"])
    assert all(s["category"] is None for s in bob_cards)
    mine = [s for s in view["seats"] if s["is_you"]]
    assert mine and all(mine[0]["cards"])


def test_hands_and_statements_are_never_another_players(two_players_at_a_table):
    a, alice, bob = two_players_at_a_table["a"], two_players_at_a_table["alice"], two_players_at_a_table["bob"]
    history = a.get("/api/hands/").json()["results"]
    assert {row["id"] for row in history} == {two_players_at_a_table["hand"]}
    bob_wallet = Account.objects.get(owner=bob, kind=Account.Kind.PLAYER_WALLET)
    bob_txns = set(Leg.objects.filter(account=bob_wallet).values_list("transaction_id", flat=True))
    for query in ("", f"?player={bob.pk}", f"?user={bob.pk}", f"?owner={bob.pk}", f"?account={bob_wallet.pk}"):
        rows = a.get(f"/api/wallet/statement/{query}").json()["results"]
        assert rows and not {row["transaction"] for row in rows} & bob_txns, query
    assert alice.pk != bob.pk


def test_a_player_cannot_reach_the_auditors_exports(make_player, api):
    client = api(make_player())
    for url in api_of(AUDITOR):
        if "export" in url:
            assert_refused(client, url)


def test_a_cashier_cannot_export(make_user, api, client):
    cashier = make_user(CASHIER)
    for url in api_of(AUDITOR):
        if "export" in url:
            assert_refused(api(cashier), url)
    client.force_login(cashier)
    for url in pages_of(AUDITOR):
        if "export" in url:
            assert client.get(url).status_code == 403, url


def test_staff_cannot_read_a_hand_by_id_except_auditors(person, two_players_at_a_table):
    hand = two_players_at_a_table["hand"]
    for role in (CASHIER, MANAGER):
        client = APIClient()
        client.force_authenticate(person(role))
        assert client.get(f"/api/hands/{hand}/").status_code == 404, role
    auditor = APIClient()
    auditor.force_authenticate(person(AUDITOR))
    assert auditor.get(f"/api/hands/{hand}/").status_code == 200
