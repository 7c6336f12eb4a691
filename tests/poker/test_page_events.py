"""The poker page's event sequences, recorded from the server for the page's own unit tests.

A short hand at a two-player table, played over the players' websockets: what Ann's
socket receives (the snapshot, every ``poker.hand``/``poker.seat`` event, her private
messages and the answers to her actions), through the showdown and into the first
event of the next hand. And a hand the clock plays twice (SPEC B3): one player's time
runs out when a check is free, later the other's facing a bet with their all-in
allowance spent; what each of the two sockets receives. ``tests/js/poker_state.test.mjs``
replays them through the page's reducer (``static/js/poker_state.js``).

The committed fixture keeps the shape of what the server sends (``tests/page_events.py``).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from django.utils import timezone

from casino.asgi import websocket_urlpatterns
from casino.stud.engine import seeded_deck
from poker import replay
from poker.models import PokerAllowance, PokerHand, PokerTable
from poker.services import poker_act, poker_hand_start, poker_timeout
from tests.page_events import compare_or_record, event_of, receive_until
from tests.sockets import answered, drain_until, ws_connect

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

router = URLRouter(websocket_urlpatterns)
FIXED_DECK, _ = seeded_deck("ab" * 32, "fixed-deck", 1)


def _hold(table):
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))


def _step(hand_id: int, version: int):
    return lambda m: event_of("poker.hand", hand_id)(m) and m["event"]["version"] >= version


def _next_move(hand_id: int) -> tuple[int, str] | None:
    state = replay.hand_state(PokerHand.objects.get(pk=hand_id))
    if state.is_over:
        return None
    legal = state.legal()
    for kind in ("bring_in", "check", "call"):
        if kind in legal.actions:
            return state.to_act, kind
    raise AssertionError(legal)


async def test_a_hand_to_its_showdown_and_the_next_deal(make_player, make_poker_table):
    table = await database_sync_to_async(make_poker_table)(game="seven_stud", preset="2-4")
    ann = await database_sync_to_async(make_player)(balance=10_000, username="ann")
    ben = await database_sync_to_async(make_player)(balance=10_000, username="ben")
    await database_sync_to_async(_hold)(table)
    a, first = await ws_connect(router, f"/ws/poker/{table.pk}/", ann)
    b, _ = await ws_connect(router, f"/ws/poker/{table.pk}/", ben)
    seen = [first]
    for comm in (a, b):
        await comm.send_json_to({"action": "sit", "id": "sit"})
        got = await answered(comm)
        if comm is a:
            seen += got
    await receive_until(a, seen, lambda m: sum(event_of("poker.seat")(x) for x in seen + [m]) >= 2)
    hand = await database_sync_to_async(poker_hand_start)(table_id=table.pk, deck=FIXED_DECK)
    await receive_until(a, seen, _step(hand.pk, 0))
    await receive_until(a, seen, lambda m: m["type"] == "private" and (m.get("hand") or {}).get("id") == hand.pk)
    seat_of = {s["user_id"]: s["seat"] for s in hand.seats}
    comm_of = {seat_of[ann.pk]: a, seat_of[ben.pk]: b}
    version = 0
    while (move := await database_sync_to_async(_next_move)(hand.pk)) is not None:
        seat, kind = move
        comm = comm_of[seat]
        await comm.send_json_to({"action": "act", "id": f"p{version}", "hand_id": hand.pk, "kind": kind})
        got = await answered(comm)
        assert any(m["type"] == "ack" for m in got), got
        if comm is a:
            seen += got
        version += 1  # each action is one step of the hand
        await receive_until(a, seen, _step(hand.pk, version))
    over = [m for m in seen if m["type"] == "event" and (m["event"].get("public") or {}).get("hand", {}).get("is_over")]
    assert over and over[-1]["event"]["public"]["hand"]["showdown"], "the hand went to its showdown"
    nxt = await database_sync_to_async(poker_hand_start)(table_id=table.pk, deck=FIXED_DECK)
    await receive_until(a, seen, _step(nxt.pk, 0))
    await receive_until(a, seen, lambda m: m["type"] == "private" and (m.get("hand") or {}).get("id") == nxt.pk)
    for comm in (a, b):
        await comm.disconnect()
    compare_or_record(
        "poker_hand.json",
        {"username": "ann", "table": table.pk, "hand": hand.pk, "next_hand": nxt.pk, "messages": seen},
    )


def _clock_runs_out(hand_id: int, *, allowance_spent: bool) -> None:
    """The turn's deadline passes (its player spent their allowance today, if so) and the
    clock acts, as the deadline's timer does."""
    hand = PokerHand.objects.get(pk=hand_id)
    if allowance_spent:
        user_id = next(s["user_id"] for s in hand.seats if s["seat"] == hand.to_act)
        PokerAllowance.objects.filter(player_id=user_id).update(used_at=timezone.now())
    PokerHand.objects.filter(pk=hand_id).update(decision_deadline=timezone.now() - timedelta(seconds=1))
    assert poker_timeout(hand_id=hand_id, version=hand.version) is not None


def _clocked_move(hand_id: int, checker: int | None) -> tuple[str, int, str, int | None] | None:
    """The next step of the hand the clock plays: on third street the bring-in and a call;
    then the first to act times out with a free check (``checker``); from then on the
    checker bets (or calls), and the other checks until they face a bet, when their time
    runs out. ``("act" | "timeout", seat, kind, amount)``, ``None`` once the hand is over."""
    state = replay.hand_state(PokerHand.objects.get(pk=hand_id))
    if state.is_over:
        return None
    legal = state.legal()
    seat = state.to_act
    if "bring_in" in legal.actions:
        return "act", seat, "bring_in", None
    if checker is None:
        return ("timeout", seat, "check", None) if "check" in legal.actions else ("act", seat, "call", None)
    if seat == checker:
        if "bet" in legal.actions:
            return "act", seat, "bet", legal.sizes("bet")[0]
        return "act", seat, "call" if "call" in legal.actions else "check", None
    return ("timeout", seat, "fold", None) if "call" in legal.actions else ("act", seat, "check", None)


async def test_a_hand_where_the_clock_checks_for_one_player_and_folds_the_other(make_player, make_poker_table):
    table = await database_sync_to_async(make_poker_table)(game="seven_stud", preset="2-4")
    ann = await database_sync_to_async(make_player)(balance=10_000, username="ann")
    ben = await database_sync_to_async(make_player)(balance=10_000, username="ben")
    await database_sync_to_async(_hold)(table)
    comms, seen = {}, {}
    for user in (ann, ben):
        comms[user.pk], first = await ws_connect(router, f"/ws/poker/{table.pk}/", user)
        seen[user.pk] = [first]
    for user in (ann, ben):
        await comms[user.pk].send_json_to({"action": "sit", "id": "sit"})
        seen[user.pk] += await answered(comms[user.pk])

    async def everyone_until(test) -> None:
        for user in (ann, ben):
            await receive_until(comms[user.pk], seen[user.pk], test)

    for user in (ann, ben):  # both seats taken, as each page draws them
        both = lambda got, user=user: sum(event_of("poker.seat")(m) for m in seen[user.pk] + got) >= 2  # noqa: E731
        seen[user.pk] += await drain_until(comms[user.pk], both)
    hand = await database_sync_to_async(poker_hand_start)(table_id=table.pk, deck=FIXED_DECK)
    await everyone_until(_step(hand.pk, 0))
    for user in (ann, ben):
        mine = lambda m: m["type"] == "private" and (m.get("hand") or {}).get("id") == hand.pk  # noqa: E731
        await receive_until(comms[user.pk], seen[user.pk], mine)
    user_of = {s["seat"]: s["user_id"] for s in hand.seats}
    users = {ann.pk: ann, ben.pk: ben}
    checker, version, clocked = None, 0, []
    while (move := await database_sync_to_async(_clocked_move)(hand.pk, checker)) is not None:
        how, seat, kind, amount = move
        if how == "timeout":
            await database_sync_to_async(_clock_runs_out)(hand.pk, allowance_spent=kind == "fold")
            checker = seat if checker is None else checker
            clocked.append((seat, kind))
        else:
            act = database_sync_to_async(poker_act)
            await act(user=users[user_of[seat]], table_id=table.pk, hand_id=hand.pk, action=kind, amount=amount)
        version += 1
        await everyone_until(_step(hand.pk, version))
    assert [k for _, k in clocked] == ["check", "fold"] and clocked[0][0] != clocked[1][0], clocked
    for user in (ann, ben):
        await comms[user.pk].disconnect()
    for user in (ann, ben):
        compare_or_record(
            f"poker_timeouts_{user.username}.json",
            {
                "username": user.username,
                "table": table.pk,
                "hand": hand.pk,
                "clocked": [{"seat": seat, "player": users[user_of[seat]].username, "kind": k} for seat, k in clocked],
                "messages": seen[user.pk],
            },
        )
