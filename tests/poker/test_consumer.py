"""The poker table's websocket, /ws/poker/<id>/: the live machinery of the Caribbean tables
reused (casino.live.consumers), the poker messages, bad input that changes nothing, the
deadlines through the sweeper, and what each player's sockets may see."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.utils import timezone

from casino.asgi import websocket_urlpatterns
from casino.cents import format_cents
from casino.game.cards import card_to_str
from casino.live.consumers import CLOSE_NOT_FOUND, CLOSE_UNAUTHENTICATED
from casino.live.deadlines import sweep_deadlines
from casino.stud.engine import TIMEOUT_KINDS, seeded_deck
from poker import replay
from poker.models import PokerHand, PokerSeat, PokerTable
from poker.services import poker_hand_start, poker_sit
from tests import sockets
from tests.sockets import answered, ws_connect

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

router = URLRouter(websocket_urlpatterns)
FIXED_DECK, _ = seeded_deck("ab" * 32, "fixed-deck", 1)


async def connect(user, table):
    return await ws_connect(router, f"/ws/poker/{table.pk}/", user)


async def drain(comm, quiet: float = 0.2) -> list[dict]:
    return await sockets.drain(comm, quiet)


async def send(comm, **message) -> list[dict]:
    await comm.send_json_to(message)
    return await answered(comm)


def _of(messages, type_: str) -> list[dict]:
    return [m for m in messages if m["type"] == type_]


def _error(messages) -> str:
    errors = _of(messages, "error")
    assert len(errors) == 1, messages
    return errors[0]["code"]


def _hold(table):
    """No hand starts by itself: each test deals when it wants, from a known deck."""
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))


def _hand(hand_id) -> PokerHand:
    return PokerHand.objects.get(pk=hand_id)


def _to_act(hand_id) -> int:
    return replay.hand_state(_hand(hand_id)).to_act


async def _seated_hand(table, players, comms):
    """Everyone sits over their socket, then a hand from the fixed deck is dealt."""
    await database_sync_to_async(_hold)(table)
    for comm in comms:
        assert _of(await send(comm, action="sit", id="sit"), "ack")
    hand = await database_sync_to_async(poker_hand_start)(table_id=table.pk, deck=FIXED_DECK)
    for comm in comms:
        await drain(comm)
    seat_of = {s["user_id"]: s["seat"] for s in hand.seats}
    return hand, seat_of


async def test_unauthenticated_unknown_and_malformed_table_ids_are_closed_with_their_codes(
    make_player, make_poker_table
):
    table = await database_sync_to_async(make_poker_table)()
    player = await database_sync_to_async(make_player)()
    for path, user, code in [
        (f"/ws/poker/{table.pk}/", None, CLOSE_UNAUTHENTICATED),
        ("/ws/poker/999999/", player, CLOSE_NOT_FOUND),
        ("/ws/poker/abc/", player, CLOSE_NOT_FOUND),
        ("/ws/poker/1e3/", player, CLOSE_NOT_FOUND),
    ]:
        comm = WebsocketCommunicator(router, path)
        if user is not None:
            comm.scope["user"] = user
        connected, _ = await comm.connect()
        assert connected
        assert await comm.receive_output() == {"type": "websocket.close", "code": code}


async def test_the_snapshot_on_connect_is_the_viewers_own_view_and_a_spectator_sees_no_down_card(
    make_player, make_poker_table
):
    table = await database_sync_to_async(make_poker_table)()
    alice, bob = await database_sync_to_async(make_player)(), await database_sync_to_async(make_player)()
    a, first = await connect(alice, table)
    assert first["view"]["table"]["id"] == table.pk and first["view"]["you"] is None
    b, _ = await connect(bob, table)
    hand, seat_of = await _seated_hand(table, [alice, bob], [a, b])
    state = await database_sync_to_async(replay.hand_state)(hand)
    # A reconnect (a new socket) gets the whole view again, own down cards included.
    a2, again = await connect(alice, table)
    rows = {r["seat"]: r for r in again["view"]["seats"]}
    mine, theirs = seat_of[alice.pk], seat_of[bob.pk]
    assert rows[mine]["down"] == [card_to_str(c) for c in state.down_cards(mine)]
    assert "down" not in rows[theirs] and rows[theirs]["down_count"] == 2
    assert "server_seed" not in again["view"]["hand"] and again["view"]["hand"]["commitment"] == hand.commitment
    staff = await database_sync_to_async(make_player)()
    s, spectator = await connect(staff, table)
    assert all("down" not in r for r in spectator["view"]["seats"]) and spectator["view"]["you"] is None
    for comm in (a, a2, b, s):
        await comm.disconnect()


async def test_a_hand_played_over_the_sockets_each_player_sees_only_their_own_down_cards(make_player, make_poker_table):
    table = await database_sync_to_async(make_poker_table)()
    alice, bob = await database_sync_to_async(make_player)(), await database_sync_to_async(make_player)()
    a, _ = await connect(alice, table)
    b, _ = await connect(bob, table)
    s, _ = await connect(await database_sync_to_async(make_player)(), table)  # a spectator
    await database_sync_to_async(_hold)(table)
    for comm in (a, b):
        assert _of(await send(comm, action="sit", id="sit"), "ack")
    await drain(s)
    hand = await database_sync_to_async(poker_hand_start)(table_id=table.pk, deck=FIXED_DECK)
    state = await database_sync_to_async(replay.hand_state)(hand)
    seat_of = {s_["user_id"]: s_["seat"] for s_ in hand.seats}
    down = {seat: {card_to_str(c) for c in state.down_cards(seat)} for seat in seat_of.values()}
    comms = {alice.pk: a, bob.pk: b}

    def dealt(got: list[dict]) -> bool:  # the deal's event and the player's own nudge, however busy the machine
        return _of(got, "event") != [] and _of(got, "private") != []

    seen = {alice.pk: await sockets.drain_until(a, dealt), bob.pk: await sockets.drain_until(b, dealt)}
    seen[None] = await drain(s)
    # The deal reaches every socket as a public event, and each player's own view privately.
    for user_id, messages in seen.items():
        assert any(m["type"] == "event" and m["event"]["kind"] == "poker.hand" for m in messages)
        public = [m["event"]["public"] for m in messages if m["type"] == "event" and m["event"]["kind"] == "poker.hand"]
        # The event is enough to draw the deal: every seat's up cards and backs, whose turn
        # and what they may do; no down card in it.
        rows = {r["seat"]: r for r in public[-1]["seats"]}
        assert {r["seat"]: r["up"] for r in rows.values()} == {
            seat: [card_to_str(c) for c in state.up_cards(seat)] for seat in seat_of.values()
        }
        assert all(r["down_count"] == 2 and "down" not in r for r in rows.values())
        assert public[-1]["hand"]["to_act"] == state.to_act
        assert public[-1]["legal"]["actions"] == sorted(state.legal().actions)
        assert not _of(messages, "snapshot"), "no snapshot is needed after an event"
        if user_id is not None:
            private = _of(messages, "private")
            assert len(private) == 1, "the nudge brings the player's own down cards, once"
            assert private[0]["hand"]["id"] == hand.pk and private[0]["hand"]["seat"] == seat_of[user_id]
            assert set(private[0]["hand"]["down"]) == down[seat_of[user_id]]
            assert private[0]["you"]["seat"] == seat_of[user_id] and private[0]["you"]["can_top_up"] is False
        else:
            assert not _of(messages, "private")
    users = {seat: user for user, seat in seat_of.items()}
    while True:
        fresh = await database_sync_to_async(_hand)(hand.pk)
        if not fresh.is_live:
            break
        st = await database_sync_to_async(replay.hand_state)(fresh)
        legal = st.legal()
        move = "bring_in" if "bring_in" in legal.actions else "check" if "check" in legal.actions else "call"
        actor = comms[users[st.to_act]]
        reply = await send(actor, action="act", id="x", hand_id=hand.pk, kind=move)
        assert _of(reply, "ack") and not _of(reply, "error"), reply
        seen[users[st.to_act]] += reply
        for user_id, comm in ((alice.pk, a), (bob.pk, b), (None, s)):
            if comm is not actor:
                seen[user_id] += await drain(comm, quiet=0.1)
    fresh = await database_sync_to_async(_hand)(hand.pk)
    assert fresh.state == PokerHand.State.ENDED
    shown = {h["seat"] for h in fresh.record["showdown"] if h["shown"]} if fresh.record.get("showdown") else set()
    for user_id, messages in seen.items():
        own = seat_of.get(user_id)
        ended_at = next(
            (i for i, m in enumerate(messages) if m["type"] == "event" and m["event"].get("state") == "ended"),
            len(messages),
        )
        for i, message in enumerate(messages):
            text = json.dumps(message)
            for seat, cards in down.items():
                if seat == own or (i >= ended_at and seat in shown):
                    continue
                assert not any(f'"{c}"' in text for c in cards), (user_id, seat, message)
            # The seed would recompute the folded and mucked cards: not even at the hand's end.
            assert fresh.server_seed not in text
    # Once settled, every event and snapshot says when the seed is revealed (SPEC B4).
    revealed_at = (fresh.ended_at + settings.POKER_SEED_REVEAL_DELAY).isoformat()
    end_events = [m["event"] for m in seen[None] if m["type"] == "event" and m["event"].get("state") == "ended"]
    assert end_events and end_events[-1]["public"]["hand"]["seed_revealed_at"] == revealed_at
    _, after = await connect(await database_sync_to_async(make_player)(), table)
    assert after["view"]["hand"]["seed_revealed_at"] == revealed_at and "server_seed" not in after["view"]["hand"]
    # What the spectator drew from the events alone is what a fresh snapshot shows: versions
    # one by one from the deal, and the last event's public state is the snapshot's.
    hand_events = [m["event"] for m in seen[None] if m["type"] == "event" and m["event"]["kind"] == "poker.hand"]
    assert [e["version"] for e in hand_events] == list(range(fresh.version + 1))
    last = hand_events[-1]["public"]
    assert {k: v for k, v in after["view"]["hand"].items() if k not in ("events", "events_count")} == last["hand"]
    drawn = {e["seat"]: e for e in last["seats"]}
    for row in after["view"]["seats"]:
        if row["in_hand"]:
            entry = drawn[row["seat"]]
            assert (row["player"], row["stack"], row["up"], row["down_count"], row["folded"]) == (
                entry["player"],
                entry["stack"],
                entry["up"],
                entry["down_count"],
                entry["folded"],
            )
    assert last["legal"] is None
    for comm in (a, b, s):
        await comm.disconnect()


async def test_bad_input_gets_its_code_and_changes_nothing(make_player, make_poker_table):
    table = await database_sync_to_async(make_poker_table)()  # seven_stud 2-4 fixed limit
    players = [await database_sync_to_async(make_player)() for _ in range(3)]
    comms = [(await connect(p, table))[0] for p in players]
    hand, seat_of = await _seated_hand(table, players, comms)
    by_seat = {seat_of[p.pk]: c for p, c in zip(players, comms)}
    before = await database_sync_to_async(_hand)(hand.pk)

    async def refused(comm, code, **message):
        reply = await send(comm, **message)
        assert _error(reply) == code, reply
        fresh = await database_sync_to_async(_hand)(hand.pk)
        assert (fresh.version, fresh.actions) == (before.version, before.actions)

    to_act = await database_sync_to_async(_to_act)(hand.pk)
    actor = by_seat[to_act]
    other_seat = next(s for s in by_seat if s != to_act)
    waiting = by_seat[other_seat]
    # Malformed messages.
    await comm_send_raw_refused(actor, "{not json", "malformed_message")
    await comm_send_raw_refused(actor, "[1, 2]", "malformed_message")
    await refused(actor, "unknown_action", action="dance")
    await refused(actor, "hand_id_required", action="act", kind="bring_in")
    await refused(actor, "hand_id_required", action="act", kind="bring_in", hand_id="1")
    await refused(actor, "action_invalid", action="act", hand_id=hand.pk)
    await refused(actor, "action_invalid", action="act", hand_id=hand.pk, kind="dance")
    await refused(actor, "action_invalid", action="act", hand_id=hand.pk, kind="timeout")
    await refused(actor, "amount_invalid", action="act", hand_id=hand.pk, kind="complete", amount=200)  # not a string
    await refused(actor, "amount_invalid", action="act", hand_id=hand.pk, kind="complete", amount="2.001")
    await refused(actor, "amount_required", action="act", hand_id=hand.pk, kind="complete")
    await refused(actor, "hand_not_found", action="act", hand_id=10**9, kind="bring_in")
    # Out of turn, and acting for another seat: a message names no seat, the socket's player acts.
    await refused(waiting, "not_your_turn", action="act", hand_id=hand.pk, kind="bring_in")
    await refused(waiting, "not_your_turn", action="act", hand_id=hand.pk, kind="bring_in", seat=to_act)
    # The wrong size for the street, a check facing the bring-in, an unforced fold of the bring-in.
    await refused(actor, "bet_size_invalid", action="act", hand_id=hand.pk, kind="complete", amount="1.50")
    await refused(actor, "check_not_allowed", action="act", hand_id=hand.pk, kind="check")
    await refused(actor, "fold_not_allowed", action="act", hand_id=hand.pk, kind="fold")
    # Then the cap: complete and three raises; the fourth is refused.
    assert _of(await send(actor, action="act", id="c", hand_id=hand.pk, kind="complete", amount="2.00"), "ack")
    to = 200
    for _ in range(3):
        to += 200
        seat = await database_sync_to_async(_to_act)(hand.pk)
        reply = await send(by_seat[seat], action="act", id="r", hand_id=hand.pk, kind="raise", amount=format_cents(to))
        assert _of(reply, "ack"), reply
    for comm in comms:
        await drain(comm, quiet=0.05)
    before = await database_sync_to_async(_hand)(hand.pk)
    seat = await database_sync_to_async(_to_act)(hand.pk)
    await refused(
        by_seat[seat], "raise_cap_reached", action="act", hand_id=hand.pk, kind="raise", amount=format_cents(to + 200)
    )
    await refused(by_seat[seat], "check_not_allowed", action="act", hand_id=hand.pk, kind="check")
    for comm in comms:
        await comm.disconnect()


async def comm_send_raw_refused(comm, text: str, code: str) -> None:
    await comm.send_to(text_data=text)
    assert _error(await answered(comm)) == code


async def test_spread_limit_refuses_a_raise_below_the_minimum_and_above_the_spread(make_player, make_poker_table):
    table = await database_sync_to_async(make_poker_table)(game="seven_stud", preset="1-3")
    players = [await database_sync_to_async(make_player)() for _ in range(2)]
    comms = [(await connect(p, table))[0] for p in players]
    hand, seat_of = await _seated_hand(table, players, comms)
    by_seat = {seat_of[p.pk]: c for p, c in zip(players, comms)}
    seat = await database_sync_to_async(_to_act)(hand.pk)
    assert _of(await send(by_seat[seat], action="act", id="c", hand_id=hand.pk, kind="complete", amount="3.00"), "ack")
    seat = await database_sync_to_async(_to_act)(hand.pk)
    st = await database_sync_to_async(lambda: replay.hand_state(_hand(hand.pk)))()
    low, high = st.legal().raise_to
    before = await database_sync_to_async(_hand)(hand.pk)
    for amount in (low - 25, high + 25):
        reply = await send(
            by_seat[seat], action="act", id="r", hand_id=hand.pk, kind="raise", amount=format_cents(amount)
        )
        assert _error(reply) == "bet_size_invalid", reply
    fresh = await database_sync_to_async(_hand)(hand.pk)
    assert fresh.version == before.version
    assert _of(
        await send(by_seat[seat], action="act", id="r", hand_id=hand.pk, kind="raise", amount=format_cents(low)), "ack"
    )
    for comm in comms:
        await comm.disconnect()


async def test_seat_messages_sit_out_sit_in_top_up_and_leave(make_player, make_poker_table):
    table = await database_sync_to_async(make_poker_table)()
    await database_sync_to_async(_hold)(table)
    alice = await database_sync_to_async(make_player)(balance=100_000)
    a, _ = await connect(alice, table)
    reply = await send(a, action="sit", id="s", seat=3)
    snapshot = _of(reply, "snapshot")[-1]
    assert snapshot["view"]["you"]["seat"] == 3 and snapshot["wallet"]["available"] == format_cents(100_000 - 2000)
    assert _error(await send(a, action="sit", id="s2")) == "already_seated"
    assert _error(await send(a, action="sit", id="s3", seat="2")) == "seat_invalid"
    assert _error(await send(a, action="top_up", id="t")) == "stack_full"  # at the buy-in already: nothing moves
    assert await database_sync_to_async(lambda: PokerSeat.objects.get(table=table, player=alice).stack)() == 2000
    assert _of(await send(a, action="sit_out", id="o"), "snapshot")[-1]["view"]["you"]["sitting_out"] is True
    assert _of(await send(a, action="sit_in", id="i"), "snapshot")[-1]["view"]["you"]["sitting_out"] is False
    reply = await send(a, action="leave", id="l")
    assert _of(reply, "snapshot")[-1]["view"]["you"] is None
    assert _of(reply, "snapshot")[-1]["wallet"]["available"] == format_cents(100_000)
    await a.disconnect()


async def test_the_time_out_rule_reaches_every_socket_and_a_dropped_player_is_timed_out_the_same(
    make_player, make_poker_table
):
    table = await database_sync_to_async(make_poker_table)()
    alice, bob = await database_sync_to_async(make_player)(), await database_sync_to_async(make_player)()
    a, _ = await connect(alice, table)
    b, _ = await connect(bob, table)
    hand, seat_of = await _seated_hand(table, [alice, bob], [a, b])
    to_act = await database_sync_to_async(_to_act)(hand.pk)
    dropped, stays = (a, b) if seat_of[alice.pk] == to_act else (b, a)
    await dropped.disconnect()  # the player to act drops: nothing happens before the deadline
    await drain(stays)
    assert (await database_sync_to_async(_hand)(hand.pk)).version == 0
    await database_sync_to_async(
        lambda: PokerHand.objects.filter(pk=hand.pk).update(decision_deadline=timezone.now() - timedelta(seconds=1))
    )()
    assert await database_sync_to_async(sweep_deadlines)() >= 1
    fresh = await database_sync_to_async(_hand)(hand.pk)
    assert fresh.actions[0][0] == to_act and fresh.actions[0][1] in TIMEOUT_KINDS
    events = [m["event"] for m in await drain(stays) if m["type"] == "event"]
    assert any(
        e["kind"] == "poker.hand" and any(x["type"] == "action" and x["seat"] == to_act for x in e["events"])
        for e in events
    ), events
    await stays.disconnect()


async def test_the_poker_and_caribbean_tables_of_one_id_do_not_share_events(make_player, make_poker_table, make_table):
    poker_table = await database_sync_to_async(make_poker_table)()
    caribbean = await database_sync_to_async(make_table)()
    player = await database_sync_to_async(make_player)()
    p, _ = await connect(player, poker_table)
    c = WebsocketCommunicator(router, f"/ws/tables/{caribbean.pk}/")
    c.scope["user"] = player
    assert (await c.connect())[0]
    assert (await c.receive_json_from())["type"] == "snapshot"
    await database_sync_to_async(_hold)(poker_table)
    other = await database_sync_to_async(make_player)()
    await database_sync_to_async(poker_sit)(user=other, table_id=poker_table.pk)
    assert any(m["type"] == "event" and m["event"]["kind"] == "poker.seat" for m in await drain(p))
    assert await c.receive_nothing(timeout=0.3)  # the Caribbean socket hears nothing of it
    await p.disconnect()
    await c.disconnect()


async def test_a_german_player_s_refusals_over_the_poker_socket_read_german_with_their_codes(
    make_player, make_poker_table
):
    from casino.i18n import user_language_set

    table = await database_sync_to_async(make_poker_table)()

    def german_player():
        player = make_player()
        user_language_set(user=player, language="de")
        return player

    german, _ = await connect(await database_sync_to_async(german_player)(), table)
    english, _ = await connect(await database_sync_to_async(make_player)(), table)
    for comm, words in ((german, "Sagen Sie, was Sie tun: 'kind' ist eines von "), (english, "Say what you do")):
        error = _of(await send(comm, action="act", hand_id=1), "error")[0]
        assert error["code"] == "action_invalid" and error["message"].startswith(words), error
    error = _of(await send(german, action="act", kind="fold"), "error")[0]
    assert error["code"] == "hand_id_required"
    assert error["message"] == "'act' nennt seine Hand: Senden Sie die ID der Hand als 'hand_id'."
    await german.disconnect()
    await english.disconnect()
