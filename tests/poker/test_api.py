"""The poker room over REST: two players buy in, play hands to the showdown through
``/api/poker/…`` only, and every answer is checked against the OpenAPI schema; the chips
add up to the cent, and neither player's API ever shows the other's down cards."""

from __future__ import annotations

import json
import re

import pytest
from django.utils import timezone

from casino.cents import format_cents, parse_cents
from poker import replay
from poker.models import PokerHand, PokerSeat, PokerTable
from tests.tables.test_api_schema import Schema, call

pytestmark = pytest.mark.django_db

CARD = re.compile(r"^[2-9TJQKA][cdhs]$")


@pytest.fixture
def schema(api, make_player):
    response = api(make_player()).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    return Schema(json.loads(response.content))


def cards_in(node) -> set[str]:
    """Every card a JSON answer names, wherever it stands."""
    found: set[str] = set()
    if isinstance(node, dict):
        for value in node.values():
            found |= cards_in(value)
    elif isinstance(node, list):
        for value in node:
            found |= cards_in(value)
    elif isinstance(node, str) and CARD.match(node):
        found.add(node)
    return found


def hidden_cards(hand: PokerHand, seat: int) -> set[str]:
    state = replay.hand_state(hand)
    from casino.game.cards import card_to_str

    return {card_to_str(c) for c in state.down_cards(seat)}


def passive(legal: dict) -> dict:
    """Check when free, else call, else bring in: every hand reaches the showdown."""
    for kind in ("check", "call", "bring_in"):
        if kind in legal["actions"]:
            return {"action": kind}
    return {"action": "complete", "amount": legal["complete_to"][0]}


def money_total(*users) -> int:
    from wallets.models import Account

    kinds = [Account.Kind.PLAYER_WALLET, Account.Kind.PLAYER_IN_PLAY, Account.Kind.POKER_STACK]
    return sum(Account.objects.filter(owner__in=users, kind__in=kinds).values_list("balance", flat=True))


def play_hand_to_the_end(
    schema, clients: dict, table_id: int, *, opponent_of: dict, spread_bet: list | None = None
) -> PokerHand:
    """Each player reads the table through the API and acts when ``you.legal`` says so;
    every read checks that the other's down cards are nowhere in it. With ``spread_bet`` (a
    list), the first player who may bet in spread limit bets one step above the least, after
    an amount off the steps was refused; the amount bet is appended to the list."""
    hand = PokerHand.objects.get(table_id=table_id, state=PokerHand.State.LIVE)
    for _ in range(200):
        acted = False
        for name, client in clients.items():
            view = call(schema, client, "get", f"/api/poker/tables/{table_id}/").json()
            hand.refresh_from_db()
            if hand.is_live:
                other_seat = opponent_of[name]
                assert not hidden_cards(hand, other_seat) & cards_in(view), f"{name} sees the other's down cards"
                mine = next(s for s in view["seats"] if s["is_you"])
                assert set(mine["down"]) == hidden_cards(hand, mine["seat"])
                assert all(s["down"] is None for s in view["seats"] if not s["is_you"])
            legal = (view["you"] or {}).get("legal")
            if legal and view["hand"]["id"] == hand.pk and hand.is_live:
                move = passive(legal)
                if spread_bet is not None and not spread_bet and "bet" in legal["actions"]:
                    low, step = parse_cents(legal["bet_to"][0]), parse_cents(legal["step"])
                    off = call(
                        schema,
                        client,
                        "post",
                        f"/api/poker/tables/{table_id}/act/",
                        {"hand_id": hand.pk, "action": "bet", "amount": format_cents(low + step // 2)},
                    )
                    assert (off.status_code, off.json()["code"]) == (409, "bet_size_invalid")
                    move = {"action": "bet", "amount": format_cents(low + step)}
                    spread_bet.append(move["amount"])
                call(
                    schema,
                    client,
                    "post",
                    f"/api/poker/tables/{table_id}/act/",
                    {"hand_id": hand.pk, **move},
                    HTTP_IDEMPOTENCY_KEY=f"{hand.pk}-{hand.version}",
                )
                acted = True
                break
        hand.refresh_from_db()
        if not hand.is_live:
            return hand
        assert acted, "nobody could act in a live hand"
    raise AssertionError("the hand did not end")


def test_two_players_play_hands_to_the_showdown_through_the_api(schema, make_player, make_poker_table, api):
    table = make_poker_table(game="seven_stud", preset="1-3")  # spread limit
    ann, ben = make_player(balance=10_000, username="ann"), make_player(balance=10_000, username="ben")
    a, b = api(ann), api(ben)
    before = money_total(ann, ben)
    lobby = call(schema, a, "get", "/api/poker/tables/").json()
    row = next(r for r in lobby["tables"] if r["id"] == table.pk)
    assert row["structure"] == "spread" and not row["you_sit"]
    sat = call(
        schema,
        a,
        "post",
        f"/api/poker/tables/{table.pk}/sit/",
        {"seat": 2, "amount": row["buy_in"]},
        HTTP_IDEMPOTENCY_KEY="sit-ann",
    ).json()
    again = call(
        schema,
        a,
        "post",
        f"/api/poker/tables/{table.pk}/sit/",
        {"seat": 2, "amount": row["buy_in"]},
        HTTP_IDEMPOTENCY_KEY="sit-ann",
    )
    assert again["Idempotent-Replayed"] == "true" and again.json() == sat
    assert sat["you"]["seat"] == 2 and sat["wallet"]["available"] == "70.00"
    call(schema, b, "post", f"/api/poker/tables/{table.pk}/sit/", {"seat": 5})
    assert PokerHand.objects.filter(table=table, state=PokerHand.State.LIVE).exists()  # two players: dealt

    spread_bet: list[str] = []
    hand = play_hand_to_the_end(
        schema, {"ann": a, "ben": b}, table.pk, opponent_of={"ann": 5, "ben": 2}, spread_bet=spread_bet
    )
    record = hand.record
    assert spread_bet and any(
        e["type"] == "action" and e["action"] == "bet" and e["to"] == spread_bet[0] for e in record["events"]
    ), spread_bet
    assert record["showdown"], "both players checked or called to the end: a showdown"
    rake = parse_cents(record["rake"])
    assert money_total(ann, ben) + rake == before

    for client, me, other in ((a, 2, 5), (b, 5, 2)):
        rows = call(schema, client, "get", "/api/poker/hands/").json()["results"]
        assert [r["id"] for r in rows] == [hand.pk] and rows[0]["seat"] == me
        assert parse_cents(rows[0]["net"]) == parse_cents(record["net"][str(me)])
        seen = call(schema, client, "get", f"/api/poker/hands/{hand.pk}/").json()["record"]
        other_shown = any(h["seat"] == other and h["shown"] for h in record["showdown"])
        other_down = [e for e in seen["events"] if e["type"] == "deal" and not e["up"] and e["seat"] == other]
        assert other_down and all((e["card"] is not None) == other_shown for e in other_down)
        assert all(e["card"] for e in seen["events"] if e["type"] == "deal" and e["seat"] == me)
        assert all(e["card"] is None for e in seen["events"] if e["type"] == "burn")
        assert seen["server_seed"] is None and seen["seed_revealed_at"]
        text = call(schema, client, "get", f"/api/poker/hands/{hand.pk}/pokerstars/").json()["text"]
        assert text.startswith(f"PokerStars Hand #{hand.pk}:") and "*** SHOW DOWN ***" in text

    # Between hands: sit out, sit in, leave; the stacks go back to the wallets.
    from poker.services import poker_next_hand

    call(schema, b, "post", f"/api/poker/tables/{table.pk}/sit-out/")
    out = call(schema, b, "get", f"/api/poker/tables/{table.pk}/").json()
    assert out["you"]["sitting_out"] and next(s for s in out["seats"] if s["seat"] == 5)["sitting_out"]
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now())  # the pause after the hand is over
    assert poker_next_hand(table_id=table.pk) is None  # only one player is ready
    back = call(schema, b, "post", f"/api/poker/tables/{table.pk}/sit-in/").json()
    assert not back["you"]["sitting_out"]
    hand = play_hand_to_the_end(schema, {"ann": a, "ben": b}, table.pk, opponent_of={"ann": 5, "ben": 2})
    rake += parse_cents(hand.record["rake"])
    short = PokerSeat.objects.filter(table=table).order_by("stack").first()  # the rake took chips: one is short
    assert short.stack < parse_cents(row["buy_in"])
    loser = a if short.player_id == ann.pk else b
    topped = call(schema, loser, "post", f"/api/poker/tables/{table.pk}/top-up/").json()
    assert topped["you"]["top_up_amount"] == "0.00" and not topped["you"]["can_top_up"]
    call(schema, loser, "post", f"/api/poker/tables/{table.pk}/top-up/")  # 409 stack_full
    shows = call(schema, a, "post", f"/api/poker/tables/{table.pk}/always-show/", {"show": True}).json()
    assert shows["you"]["always_show"]
    seat_free = call(
        schema, make_player_client(make_player, api), "post", f"/api/poker/tables/{table.pk}/waiting-list/", {}
    )
    assert seat_free.json()["code"] == "seat_free"  # six seats are free: take one
    for client in (a, b):
        left = call(schema, client, "post", f"/api/poker/tables/{table.pk}/leave/").json()
        assert left["you"] is None
    assert money_total(ann, ben) + rake == before
    assert not PokerSeat.objects.filter(table=table).exists()


def test_bad_input_is_a_clear_error_and_changes_nothing(schema, make_player, make_poker_table, api):
    table = make_poker_table()
    ann, ben = make_player(balance=10_000, username="ann"), make_player(balance=10_000, username="ben")
    a, b = api(ann), api(ben)

    def refused(client, url, body, status, code):
        response = call(schema, client, "post", url, body)
        assert response.status_code == status and response.json()["code"] == code, response.json()

    base = f"/api/poker/tables/{table.pk}"
    refused(a, f"{base}/sit/", {"amount": "19.99"}, 400, "wrong_buy_in")
    refused(a, f"{base}/sit/", {"amount": 20}, 400, "amount_invalid")
    refused(a, f"{base}/sit/", {"seat": 9}, 400, "seat_invalid")
    refused(a, f"{base}/sit/", {"seat": "²"}, 400, "invalid")
    refused(a, "/api/poker/tables/999999/sit/", {}, 404, "table_not_found")
    refused(a, f"{base}/top-up/", {}, 409, "not_seated")
    refused(a, f"{base}/act/", {"hand_id": 1, "action": "call"}, 404, "hand_not_found")
    assert not PokerSeat.objects.exists()
    call(schema, a, "post", f"{base}/sit/", {})
    call(schema, b, "post", f"{base}/sit/", {})
    hand = PokerHand.objects.get(table=table, state=PokerHand.State.LIVE)
    state = replay.hand_state(hand)
    version = hand.version
    to_act, waiting = (a, b) if {s["seat"]: s["user_id"] for s in hand.seats}[state.to_act] == ann.pk else (b, a)
    refused(waiting, f"{base}/act/", {"hand_id": hand.pk, "action": "check"}, 409, "not_your_turn")
    refused(to_act, f"{base}/act/", {"hand_id": hand.pk, "action": "dance"}, 400, "invalid")
    refused(to_act, f"{base}/act/", {"hand_id": hand.pk, "action": "complete"}, 400, "amount_required")
    refused(to_act, f"{base}/act/", {"hand_id": hand.pk, "action": "complete", "amount": 2.0}, 400, "amount_invalid")
    refused(to_act, f"{base}/act/", {"action": "fold"}, 400, "invalid")
    refused(to_act, f"{base}/top-up/", {}, 409, "hand_in_progress")
    refused(
        make_player_client(make_player, api), f"{base}/act/", {"hand_id": hand.pk, "action": "fold"}, 409, "not_in_hand"
    )
    hand.refresh_from_db()
    assert hand.version == version and hand.is_live
    # Another player's hand, by id, does not exist for a stranger.
    stranger = make_player_client(make_player, api)
    assert call(schema, stranger, "get", f"/api/poker/hands/{hand.pk}/").json()["code"] == "hand_not_found"
    assert call(schema, to_act, "get", f"/api/poker/hands/{hand.pk}/pokerstars/").json()["code"] == "hand_not_over"
    assert call(schema, api(), "get", "/api/poker/tables/").status_code == 401


def make_player_client(make_player, api):
    return api(make_player(balance=10_000))


def test_a_client_plays_with_a_token_and_no_cookie(make_player, make_poker_table):
    from rest_framework.test import APIClient

    from tests.factories import PASSWORD

    table = make_poker_table()
    make_player(balance=10_000, username="ann")
    client = APIClient(enforce_csrf_checks=True)
    anonymous = client.get(f"/api/poker/tables/{table.pk}/")
    assert anonymous.status_code == 401 and anonymous["WWW-Authenticate"].startswith("Token")
    token = client.post("/api/auth/token/", {"username": "ann", "password": PASSWORD}, format="json").json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    sat = client.post(f"/api/poker/tables/{table.pk}/sit/", {}, format="json")
    assert sat.status_code == 201 and sat.json()["you"]["seat"] == 1
    assert client.get("/api/poker/tables/").json()["tables"][0]["you_sit"]


def test_the_schema_documents_every_poker_write_and_no_opaque_answer(schema):
    poker = {path: ops for path, ops in schema.document["paths"].items() if path.startswith("/api/poker/")}
    assert len(poker) >= 14
    for path, operations in poker.items():
        for method, operation in operations.items():
            if method == "post":
                assert any(p["name"] == "Idempotency-Key" for p in operation.get("parameters", [])), path
                assert {"400", "401", "403", "404"} <= set(operation["responses"]), path
            if path.startswith("/api/poker/tables/{table_id}/") and method == "post":
                assert {"409", "429", "503"} <= set(operation["responses"]), path
            for status, response in operation["responses"].items():
                body = response.get("content", {}).get("application/json", {}).get("schema")
                assert body not in ({"type": "object"}, {}), f"{method} {path} {status} is an opaque object"
