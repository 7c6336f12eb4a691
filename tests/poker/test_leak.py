"""The leak test: eight players at a table, each on their own socket, play
many random hands with the engine's bots over the websockets; no message to one user
ever carries another player's down card before the showdown, and a hand that is not
shown (mucked, folded) reaches nobody at all. A spectator sees no down card either. Every
message counts: the public events (which carry the hand's public state) and the private
messages that bring each player their own down cards."""

from __future__ import annotations

import json
import random
import re
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from casino.asgi import websocket_urlpatterns
from casino.cents import format_cents
from casino.game.cards import card_to_str
from casino.stud.bots import get_strategy
from poker import replay
from poker.models import PokerHand, PokerSeat, PokerTable
from poker.services import poker_hand_start

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

router = URLRouter(websocket_urlpatterns)
PLAYERS = 8
CARD = re.compile(r'"([2-9TJQKA][cdhs])"')


async def connect(user, table):
    comm = WebsocketCommunicator(router, f"/ws/poker/{table.pk}/")
    comm.scope["user"] = user
    connected, _ = await comm.connect()
    assert connected
    assert (await comm.receive_json_from(timeout=10))["type"] == "snapshot"
    return comm


async def drain(comm, quiet: float = 0.05) -> list[dict]:
    messages = []
    while not await comm.receive_nothing(timeout=quiet):
        messages.append(await comm.receive_json_from())
    return messages


async def answered(comm) -> list[dict]:
    messages = []
    while not any(m["type"] in ("ack", "error") for m in messages):
        messages.append(await comm.receive_json_from(timeout=30))
    return messages


@pytest.fixture(autouse=True)
def _one_db_thread_on_sqlite(monkeypatch, settings):
    """SQLite's in-memory test database locks whole tables between its connections (a read
    beside another thread's write fails at once), so there the consumers' database work runs
    on one thread; PostgreSQL runs the test with the real pool."""
    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        from concurrent.futures import ThreadPoolExecutor

        from django.db import connections

        from casino.live import consumers

        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="table-db")
        monkeypatch.setattr(consumers, "DB_THREADS", pool)
        yield
        pool.submit(connections.close_all).result()
        pool.shutdown(wait=True)
    else:
        yield


def _hold(table):
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))


def _seated_with_chips(table) -> int:
    return sum(1 for seat in PokerSeat.objects.filter(table=table, stack__gt=0) if not seat.sitting_out)


def _hand_and_state(hand_id):
    hand = PokerHand.objects.get(pk=hand_id)
    return hand, replay.hand_state(hand)


def _cards_of(message: dict) -> set[str]:
    return set(CARD.findall(json.dumps(message)))


def _ended_at(messages: list[dict], hand_id: int) -> int:
    """Index of the first message that says this hand is over (everything before is mid-hand)."""
    for i, m in enumerate(messages):
        if m["type"] == "event" and m["event"].get("hand") == hand_id and m["event"].get("state") != "live":
            return i
        if m["type"] == "snapshot":
            hand = m["view"].get("hand") or {}
            if hand.get("id") == hand_id and hand.get("is_over"):
                return i
    return len(messages)


GAMES = [("seven_stud", "2-4", 3), ("seven_stud", "1-3", 2), ("five_stud", "1-2", 3), ("soko", "5-10", 3)]


@pytest.mark.timeout(600)
async def test_no_message_carries_another_players_down_card_before_showdown(make_player, make_poker_table):
    """Every game and structure, eight players each; each table's hands from random decks."""
    for game, preset, hands in GAMES:
        await _play_and_check(make_player, make_poker_table, game, preset, hands)


async def _play_and_check(make_player, make_poker_table, game, preset, hands):
    rng = random.Random(f"{game}-{preset}")
    choose = get_strategy("random_legal")
    table = await database_sync_to_async(make_poker_table)(game=game, preset=preset)
    await database_sync_to_async(_hold)(table)
    players = [await database_sync_to_async(make_player)() for _ in range(PLAYERS)]
    comms = {p.pk: await connect(p, table) for p in players}
    spectator = await connect(await database_sync_to_async(make_player)(), table)
    for comm in [*comms.values(), spectator]:
        await drain(comm)
    for comm in comms.values():
        await comm.send_json_to({"action": "sit", "id": "sit"})
        assert any(m["type"] == "ack" for m in await answered(comm))
    own_cards_seen = 0
    played = 0
    for n in range(hands):
        if await database_sync_to_async(_seated_with_chips)(table) < 2:
            break
        for comm in [*comms.values(), spectator]:
            await drain(comm)
        hand = await database_sync_to_async(poker_hand_start)(table_id=table.pk)
        seat_of = {s["user_id"]: s["seat"] for s in hand.seats}
        users = {seat: user_id for user_id, seat in seat_of.items()}
        for _ in range(400):
            fresh, state = await database_sync_to_async(_hand_and_state)(hand.pk)
            if not fresh.is_live:
                break
            action = choose(state, rng)
            message = {"action": "act", "id": f"{n}", "hand_id": hand.pk, "kind": action.kind}
            if action.to is not None:
                message["amount"] = format_cents(action.to)
            actor = comms[users[state.to_act]]
            await actor.send_json_to(message)
            reply = await answered(actor)
            assert not [m for m in reply if m["type"] == "error"], (message, reply)
            # The answer and everything before it stay in the socket's record of the hand.
            actor._kept = getattr(actor, "_kept", []) + reply
        fresh, state = await database_sync_to_async(_hand_and_state)(hand.pk)
        assert fresh.state == PokerHand.State.ENDED
        played += 1
        down = {seat: {card_to_str(c) for c in state.down_cards(seat)} for seat in users}
        shown = {h["seat"] for h in state.showdown if h["shown"]}
        for user_id, comm in [*comms.items(), (None, spectator)]:
            messages = getattr(comm, "_kept", []) + await drain(comm, quiet=0.3)
            comm._kept = []
            ended = _ended_at(messages, hand.pk)
            assert ended < len(messages), "every socket hears the hand end"
            own = seat_of.get(user_id)
            for i, message in enumerate(messages):
                cards = _cards_of(message)
                for seat, hidden in down.items():
                    if seat == own:
                        continue
                    if i >= ended and seat in shown:
                        continue  # shown at the showdown: public from then on
                    leaked = cards & hidden
                    assert not leaked, (f"user {user_id} got seat {seat}'s down cards {leaked}", message)
                if i < ended:
                    assert fresh.server_seed not in json.dumps(message)
            if own is not None and down.get(own):
                # The player's own down cards came in their private message (the nudge's answer,
                # read by their own consumer), not in a snapshot after every event.
                if any(m["type"] == "private" and down[own] <= _cards_of(m) for m in messages[:ended]):
                    own_cards_seen += 1
    assert played >= 2
    assert own_cards_seen >= PLAYERS  # the players did get their own down cards, privately
    for comm in [*comms.values(), spectator]:
        await comm.disconnect()
