"""The live table over websockets (Channels' WebsocketCommunicator)."""

from __future__ import annotations

import json
import random

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.test import Client

from casino.asgi import application
from casino.live.consumers import ABUSE_LIMIT, CLOSE_ABUSE, MAX_MESSAGE_BYTES, RATE_BURST
from casino.live.outbox import pool_group
from tables import events
from tables.models import Hand
from tables.routing import websocket_urlpatterns
from tables.selectors import hand_view
from tables.services.hands import hand_bet
from tables.services.seats import table_sit
from tests.conftest import require_postgres
from tests.sockets import answered, drain, drain_until, ws_connect

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

router = URLRouter(websocket_urlpatterns)


async def connect(user, table):
    return await ws_connect(router, f"/ws/tables/{table.pk}/", user)


async def send(comm, **message) -> list[dict]:
    await comm.send_json_to(message)
    return await answered(comm)


def _of(messages, type_: str) -> list[dict]:
    return [m for m in messages if m["type"] == type_]


async def two_seated(table, make_player):
    """Alice and Bob, each connected and seated at ``table``: (alice, bob, a, b)."""
    alice, bob = await database_sync_to_async(make_player)(), await database_sync_to_async(make_player)()
    a, _ = await connect(alice, table)
    b, _ = await connect(bob, table)
    await send(a, action="sit")
    await send(b, action="sit")
    return alice, bob, a, b


async def test_anonymous_connections_and_foreign_origins_are_refused(table, make_player):
    comm = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/", headers=[(b"origin", b"http://testserver")])
    connected, _ = await comm.connect()  # accepted, then closed: the page gets the code (docs/websocket.md)
    assert connected and await comm.receive_output() == {"type": "websocket.close", "code": 4401}
    player = await database_sync_to_async(make_player)()
    client = Client()
    await database_sync_to_async(client.force_login)(player)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    evil = WebsocketCommunicator(
        application, f"/ws/tables/{table.pk}/", headers=[(b"origin", b"http://evil.example"), (b"cookie", cookie)]
    )
    connected, _ = await evil.connect()
    assert not connected
    good = WebsocketCommunicator(
        application, f"/ws/tables/{table.pk}/", headers=[(b"origin", b"http://localhost"), (b"cookie", cookie)]
    )
    connected, _ = await good.connect()
    assert connected and (await good.receive_json_from())["table"]["id"] == table.pk
    await good.disconnect()


async def test_an_unknown_table_is_refused(make_player, table):
    player = await database_sync_to_async(make_player)()
    comm = WebsocketCommunicator(router, "/ws/tables/999999/")
    comm.scope["user"] = player
    connected, _ = await comm.connect()
    assert connected and await comm.receive_output() == {"type": "websocket.close", "code": 4404}


async def test_two_players_play_a_hand_live_and_each_sees_only_their_own_cards(table, make_player, make_user):
    alice, bob = await database_sync_to_async(make_player)(), await database_sync_to_async(make_player)()
    spectator = await database_sync_to_async(make_player)()
    a, _ = await connect(alice, table)
    b, _ = await connect(bob, table)
    s, _ = await connect(spectator, table)
    await send(a, action="sit", id="a1", client_seed="alices-own-seed")
    await send(b, action="sit", seat=3, id="b1")
    bet_a = await send(a, action="bet", ante="1.00", jackpot=True, id="a2")
    assert {"type": "ack", "id": "a2", "action": "bet"} in bet_a
    assert _of(bet_a, "wallet")[-1]["wallet"] == {"available": "996.50", "in_play": "3.50"}
    await send(b, action="bet", ante="2.00", id="b2")
    a_msgs, s_msgs = await drain(a), await drain(s)
    hand = await database_sync_to_async(lambda: Hand.objects.get(table=table, state="decisions"))()
    assert hand.client_seed.startswith("alices-own-seed:")
    dealt = [m for m in s_msgs if m["type"] == "event" and m["event"]["kind"] == "hand.dealt"]
    assert dealt and dealt[0]["event"]["dealer_up_card"] == hand.dealer_cards[4]
    mine = _of(a_msgs, "hand")[-1]["hand"]
    seats = {x["seat"]: x for x in mine["seats"]}
    assert None not in seats[1]["cards"] and seats[3]["cards"] == [None] * 5
    assert _of(s_msgs, "hand") == []  # a spectator gets no private view
    await send(a, action="raise", id="a3", hand_id=hand.pk)
    await send(b, action="fold", id="b3", hand_id=hand.pk)
    results = [m["event"] for m in await drain(s) if m["type"] == "event" and m["event"]["kind"] == "hand.settled"]
    assert results and results[0]["result"]["server_seed"] == (
        await database_sync_to_async(lambda: Hand.objects.get(pk=hand.pk).server_seed)()
    )
    assert all(None not in seat["cards"] for seat in results[0]["result"]["seats"])
    a_wallet = _of(await drain(a), "wallet")
    assert a_wallet and a_wallet[-1]["wallet"]["in_play"] == "0.00"
    for comm in (a, b, s):
        await comm.disconnect()


async def test_the_private_view_comes_when_cards_are_dealt_and_the_wallet_when_money_moves(table, make_player):
    alice, bob, a, b = await two_seated(table, make_player)
    bet = await send(a, action="bet", ante="1.00", id="a1")
    # The ante is public (bet.placed): nothing hidden changed, so no private view; the wallet moved.
    assert _of(bet, "hand") == []
    assert _of(bet, "wallet")[-1]["wallet"] == {"available": "997.00", "in_play": "3.00"}
    assert [m["event"]["kind"] for m in _of(bet, "event")].count("bet.placed") == 1
    await send(b, action="bet", ante="1.00", id="b1")
    dealt = _of(await drain(a), "hand")
    assert len(dealt) == 1 and dealt[0]["hand"]["state"] == "decisions"
    assert None not in dealt[0]["hand"]["seats"][0]["cards"]
    fold = await send(a, action="fold", id="a2", hand_id=dealt[0]["hand"]["id"])
    assert {"type": "ack", "id": "a2", "action": "fold"} in fold
    assert _of(fold, "hand") == []
    assert _of(fold, "wallet")[-1]["wallet"] == {"available": "999.00", "in_play": "1.00"}
    assert any(m["event"]["kind"] == "decision.made" and m["event"]["decision"] == "fold" for m in _of(fold, "event"))
    for comm in (a, b):
        await comm.disconnect()


# What a hand view's seat says to one reader alone: who they are, their own time bank,
# the words spoken to them.
PER_READER = {"is_you", "decision_deadline", "decision_label", "outcome_label", "explanation"}


async def test_a_bet_tells_the_table_the_seat_as_every_reader_sees_it_and_no_card(table, make_player):
    alice, bob, a, b = await two_seated(table, make_player)
    spectator = await database_sync_to_async(make_player)()
    s, _ = await connect(spectator, table)
    await send(a, action="bet", ante="1.00", jackpot=True, id="a1")
    placed = [m["event"] for m in await drain(s) if m["type"] == "event" and m["event"]["kind"] == "bet.placed"]
    assert len(placed) == 1 and placed[0]["seat"] == 1
    hand = await database_sync_to_async(lambda: Hand.objects.get(table=table, state="betting"))()
    for viewer in (None, alice, bob):  # the seat as each reader's hand view has it, less that reader's own part
        view = await database_sync_to_async(hand_view)(hand=hand, viewer=viewer)
        assert placed[0]["hand_seat"] == {k: v for k, v in view["seats"][0].items() if k not in PER_READER}
    assert placed[0]["hand_seat"]["player"] == alice.get_username()
    assert (placed[0]["hand_seat"]["ante"], placed[0]["hand_seat"]["jackpot_bet"]) == ("1.00", "0.50")
    # Bob's bet deals the hand in the same step: his seat goes out as it was before the
    # deal, and no event of the table holds a player's card (only the dealer's up card).
    await send(b, action="bet", ante="2.00", id="b1")
    events_seen = [m["event"] for m in await drain(s) if m["type"] == "event"]
    bobs = [e for e in events_seen if e["kind"] == "bet.placed"]
    assert bobs[0]["hand_seat"]["cards"] == [] and bobs[0]["hand_seat"]["player"] == bob.get_username()
    assert not PER_READER & bobs[0]["hand_seat"].keys()
    hand = await database_sync_to_async(lambda: Hand.objects.get(pk=hand.pk))()
    seat_cards = await database_sync_to_async(lambda: [c for hs in hand.hand_seats.all() for c in hs.cards])()
    frames = json.dumps(events_seen)
    assert len(seat_cards) == 10 and not any(f'"{card}"' in frames for card in seat_cards)
    for comm in (a, b, s):
        await comm.disconnect()


async def test_the_acting_tab_gets_its_own_views_with_the_ack_and_a_second_tab_by_the_nudge(table, make_player):
    alice, bob, a, b = await two_seated(table, make_player)
    other_tab, _ = await connect(alice, table)
    await drain(other_tab)
    bet = await send(a, action="bet", ante="1.00", id="a1")
    # Read in the step's own job: the wallet follows the ack at once, and only once.
    ack = bet.index({"type": "ack", "id": "a1", "action": "bet"})
    assert bet[ack + 1] == {"type": "wallet", "wallet": {"available": "997.00", "in_play": "3.00"}}
    assert len(_of(bet, "wallet")) == 1
    assert _of(await drain(other_tab), "wallet") == [bet[ack + 1]]  # the other tab still hears of it
    dealing = await send(b, action="bet", ante="1.00", id="b1")
    ack = dealing.index({"type": "ack", "id": "b1", "action": "bet"})
    views = _of(dealing, "hand")
    assert len(views) == 1 and views[0] == dealing[ack + 1] and None not in views[0]["hand"]["seats"][1]["cards"]
    assert len(_of(dealing, "wallet")) == 1
    a_dealt, tab_dealt = _of(await drain(a), "hand"), _of(await drain(other_tab), "hand")
    assert len(a_dealt) == 1 and len(tab_dealt) == 1 and a_dealt[0] == tab_dealt[0]
    assert None not in a_dealt[0]["hand"]["seats"][0]["cards"]
    refused = await send(a, action="raise", id="a2", hand_id=a_dealt[0]["hand"]["id"] + 1)
    assert _of(refused, "error") and not _of(refused, "wallet")  # refused: nothing moved, nothing read
    for comm in (a, b, other_tab):
        await comm.disconnect()


async def test_the_acting_tab_s_wallet_is_what_its_step_left_without_reading_it_again(table, make_player, monkeypatch):
    """A bet, the bet that deals (jackpot chip), a fold and the raise that settles: the
    acting tab's wallet after each is the ledger's, built from the rows the step locked;
    only the other tab of the same player reads it."""
    from wallets import selectors as wallet_selectors
    from wallets.selectors import wallet_balances

    reads = []

    def counted(*, user):
        reads.append(user.username)
        return wallet_balances(user=user)

    monkeypatch.setattr(wallet_selectors, "wallet_balances", counted)
    alice, bob, a, b = await two_seated(table, make_player)
    bobs_tab, _ = await connect(bob, table)
    await drain(bobs_tab)

    async def own_wallet(comm, player, **message) -> dict:
        reads.clear()
        got = await send(comm, id="x", **message)
        assert {"type": "ack", "id": "x", "action": message["action"]} in got, got
        wallets = _of(got, "wallet")
        assert len(wallets) == 1 and reads == [], (wallets, reads)
        ledger = await database_sync_to_async(wallet_balances)(user=player)
        assert wallets[0]["wallet"] == ledger.as_json()
        return wallets[0]["wallet"]

    assert await own_wallet(a, alice, action="bet", ante="1.00") == {"available": "997.00", "in_play": "3.00"}
    dealt = await own_wallet(b, bob, action="bet", ante="2.00", jackpot=True)  # deals: the chip leaves in-play
    assert dealt["in_play"] == "6.00"
    hand_id = _of(await drain(a), "hand")[0]["hand"]["id"]
    assert await own_wallet(a, alice, action="fold", hand_id=hand_id) == {"available": "999.00", "in_play": "1.00"}
    await own_wallet(b, bob, action="raise", hand_id=hand_id)  # settles: the pay table's outcome, whatever it is
    tab = await drain_until(bobs_tab, lambda got: len(_of(got, "wallet")) >= 2)  # bob's other tab: read (a batch: one)
    assert _of(tab, "wallet")[-1]["wallet"] == (await database_sync_to_async(wallet_balances)(user=bob)).as_json()
    for comm in (a, b, bobs_tab):
        await comm.disconnect()


def _read_view(hand_id: int, user, language: str) -> dict:
    """What a read of the player's view gives (a socket of another process), in their words."""
    from django.utils import translation

    from tables.presentation import hand_view_in_language
    from tables.selectors import hand_live_view

    with translation.override(language):
        view = hand_view_in_language(hand_live_view(hand_id=hand_id, viewer=user))
    return json.loads(json.dumps(view, cls=DjangoJSONEncoder))


def _recorded_reads(monkeypatch) -> list:
    """Each batch of private reads (``private_replies_of``) as its readers' names."""
    from tables.consumers import TableConsumer

    batches = []
    original = TableConsumer.private_replies_of.__func__

    def recorded(cls, requests):
        batches.append(sorted(c.user.username for c, _, _ in requests))
        return original(cls, requests)

    monkeypatch.setattr(TableConsumer, "private_replies_of", classmethod(recorded))
    return batches


async def _dealt_to_three(comms, batches: list) -> list[list[dict]]:
    """Three sockets sit, two bet, the third's bet deals (the reads recorded from then on):
    the ``hand`` messages the first two get."""
    for comm in comms:
        await send(comm, action="sit")
    for comm in comms[:2]:
        await send(comm, action="bet", ante="1.00")
    batches.clear()
    await send(comms[2], action="bet", ante="1.00")
    return [_of(await drain(comm), "hand") for comm in comms[:2]]


def _assert_own_cards_only(view: dict, player) -> None:
    for seat in view["seats"]:
        mine = seat["player"] == player.username
        assert (None not in seat["cards"]) if mine else seat["cards"] == [None] * 5


async def test_the_other_players_views_of_a_deal_and_its_result_come_from_the_step_as_a_read_gives_them(
    table, make_player, monkeypatch
):
    """The deal's and the settlement's views of the players whose sockets the step's process
    serves are the ones it built from its rows: nothing read, each with its own cards only,
    in its reader's words, the same as a read of the committed hand; and their wallets too."""
    from casino.i18n import user_language_set
    from wallets.selectors import wallet_balances

    batches = _recorded_reads(monkeypatch)

    def players():
        made = [make_player() for _ in range(3)]
        user_language_set(user=made[1], language="de")
        return made

    players = await database_sync_to_async(players)()
    languages = ["en", "de", "en"]
    comms = [(await connect(p, table))[0] for p in players]
    dealt = await _dealt_to_three(comms, batches)
    assert batches == []  # nothing read
    hand_id = dealt[0][0]["hand"]["id"]
    for i, got in enumerate(dealt):
        assert len(got) == 1
        assert got[0]["hand"] == await database_sync_to_async(_read_view)(hand_id, players[i], languages[i])
        _assert_own_cards_only(got[0]["hand"], players[i])
    await send(comms[0], action="fold", hand_id=hand_id)
    await send(comms[1], action="raise", hand_id=hand_id)
    await drain(comms[0])
    await send(comms[2], action="raise", hand_id=hand_id)  # settles
    for i in range(2):
        got = await drain_until(comms[i], lambda got: _of(got, "hand") and _of(got, "wallet"))
        [view], [wallet] = _of(got, "hand"), _of(got, "wallet")
        assert view["hand"]["state"] == "settled"
        assert view["hand"] == await database_sync_to_async(_read_view)(hand_id, players[i], languages[i])
        assert wallet["wallet"] == (await database_sync_to_async(wallet_balances)(user=players[i])).as_json()
    assert batches == []
    german_lines = view["hand"]["seats"][1]["explanation"]
    assert german_lines[0].startswith("Ihr Blatt: ") and german_lines[-1].startswith("Netto: ")
    for comm in comms:
        await comm.disconnect()


async def test_a_jackpot_winner_s_socket_gets_the_wallet_the_step_paid_when_another_player_settles(
    table, make_player, rig_deck
):
    """Alice's jackpot chip wins on a royal flush; Bob's raise settles the hand: Alice's
    socket takes the balances the step left (the prize in them), as the ledger has them."""
    from wallets.selectors import wallet_balances

    alice, bob, a, b = await two_seated(table, make_player)
    await database_sync_to_async(rig_deck)(["Ah Kh Qh Jh Th", "2c 3d 5h 8s 9c"], "Ac Kd 7h 4s 2d")
    await send(a, action="bet", ante="1.00", jackpot=True)
    await send(b, action="bet", ante="1.00")  # deals
    hand_id = _of(await drain(a), "hand")[0]["hand"]["id"]
    await send(a, action="raise", hand_id=hand_id)
    await drain(a)
    await send(b, action="fold", hand_id=hand_id)  # settles
    got = await drain_until(a, lambda got: _of(got, "wallet"))
    assert [w["wallet"] for w in _of(got, "wallet")] == [
        (await database_sync_to_async(wallet_balances)(user=alice)).as_json()
    ]
    seat = _of(got, "hand")[0]["hand"]["seats"][0]
    assert seat["jackpot_win"] not in (None, "0.00") and any("wins" in line for line in seat["explanation"])
    for comm in (a, b):
        await comm.disconnect()


async def test_a_socket_s_player_is_heard_in_its_process_while_the_socket_is_open(table, make_player):
    """What tells a step of this process to answer the player's nudges (``outbox.listen``)."""
    import asyncio

    from casino.live import outbox

    player = await database_sync_to_async(make_player)()
    first, _ = await connect(player, table)
    second, _ = await connect(player, table)
    heard = outbox._listening[asyncio.get_running_loop()]
    assert heard[f"player.{player.pk}"] == 2
    await first.disconnect()
    assert heard[f"player.{player.pk}"] == 1
    await second.disconnect()
    assert f"player.{player.pk}" not in heard


async def test_sockets_the_step_s_answers_missed_read_their_views_together_each_with_its_own_cards(
    table, make_player, monkeypatch
):
    """Sockets served by another process than the step's (here: its answers kept for no time)
    read their views, one read for all of them."""
    from casino.live import outbox

    monkeypatch.setattr(outbox, "ANSWERS_KEPT_FOR", -1.0)
    batches = _recorded_reads(monkeypatch)
    players = [await database_sync_to_async(make_player)() for _ in range(3)]
    comms = [(await connect(p, table))[0] for p in players]
    views = await _dealt_to_three(comms, batches)
    assert batches == [sorted(p.username for p in players[:2])]  # one read for both
    for i, got in enumerate(views):
        assert len(got) == 1
        _assert_own_cards_only(got[0]["hand"], players[i])
    for comm in comms:
        await comm.disconnect()


async def test_players_acting_at_the_same_moment_are_served_in_turn(table, make_player):
    # Concurrent writers and readers: SQLite's in-memory test database refuses them outright.
    require_postgres()
    players = [await database_sync_to_async(make_player)() for _ in range(4)]
    comms = [(await connect(p, table))[0] for p in players]
    for comm in comms:
        await send(comm, action="sit")
    for i, comm in enumerate(comms):  # four antes sent at once, one table step at a time
        await comm.send_json_to({"action": "bet", "ante": "1.00", "id": f"bet{i}"})
    replies = [
        await drain_until(
            comm, lambda got, i=i: {"type": "ack", "id": f"bet{i}", "action": "bet"} in got and _of(got, "hand")
        )
        for i, comm in enumerate(comms)
    ]
    assert all({"type": "ack", "id": f"bet{i}", "action": "bet"} in r for i, r in enumerate(replies))
    assert all(len(_of(r, "hand")) == 1 for r in replies)  # the fourth bet dealt: each has its cards
    for i, comm in enumerate(comms):
        hand_id = _of(replies[i], "hand")[0]["hand"]["id"]
        await comm.send_json_to({"action": "fold" if i % 2 else "raise", "id": f"act{i}", "hand_id": hand_id})
    results = [
        await drain_until(comm, lambda got: any(m["event"]["kind"] == "hand.settled" for m in _of(got, "event")))
        for comm in comms
    ]
    settled = [m for m in _of(results[0], "event") if m["event"]["kind"] == "hand.settled"]
    assert len(settled) == 1 and [s["decision"] for s in settled[0]["event"]["result"]["seats"]] == [
        "raise",
        "fold",
        "raise",
        "fold",
    ]
    for comm in comms:
        await comm.disconnect()


async def test_a_reconnect_or_second_tab_gets_the_same_private_view(table, make_player):
    alice, bob, a, b = await two_seated(table, make_player)
    await send(a, action="bet", ante="1.00")
    await send(b, action="bet", ante="1.00")
    first = _of(await drain(a), "hand")[-1]["hand"]
    await a.disconnect()
    again, snapshot = await connect(alice, table)
    assert snapshot["table"]["hand"]["seats"][0]["cards"] == first["seats"][0]["cards"]
    assert snapshot["table"]["hand"]["seats"][1]["cards"] == [None] * 5
    assert snapshot["wallet"]["in_play"] == "3.00"
    await again.disconnect()
    await b.disconnect()


def _assert_nothing_hidden_leaks(messages: list[dict], me: str, hands: dict[int, Hand]) -> None:
    """Before a hand's settlement message, no message holds another seat's cards or the seed."""
    over: set[int] = set()
    for message in messages:
        text = json.dumps(message)
        if message["type"] == "event" and message["event"]["kind"] in ("hand.settled", "hand.cancelled"):
            over.add(message["event"]["hand"])
            continue
        if message["type"] == "hand" and message["hand"]["state"] in ("settled", "cancelled"):
            over.add(message["hand"]["id"])  # read after the settlement committed
        for hand_id, hand in hands.items():
            if hand_id in over:
                continue
            assert hand.server_seed not in text, (me, message)
            for seat in hand.hand_seats.all():
                if seat.player.username != me and seat.cards:
                    assert json.dumps(seat.cards)[1:-1] not in text, (me, message)
            hole = json.dumps(hand.dealer_cards[:4])[1:-1] if hand.dealer_cards else None
            assert not hole or hole not in text, (me, message)
        views = []
        if message["type"] == "hand":
            views.append(message["hand"])
        if message["type"] == "snapshot" and message["table"]["hand"]:
            views.append(message["table"]["hand"])
        for view in views:
            if view["state"] in ("settled", "cancelled"):
                continue
            assert view["server_seed"] is None
            assert view["dealer"]["cards"][:4] == [None] * 4 or not any(view["dealer"]["cards"])
            for seat in view["seats"]:
                if seat["player"] != me:
                    assert not any(seat["cards"]) and seat["category"] is None, (me, view)


async def test_over_many_random_hands_no_message_leaks_hidden_cards_or_seeds(table, make_player):
    rng = random.Random(7)
    players = [await database_sync_to_async(make_player)(balance=100_000) for _ in range(3)]
    comms = {p.username: (await connect(p, table))[0] for p in players}
    received: dict[str, list[dict]] = {name: [] for name in comms}
    for p in players:
        received[p.username] += await send(comms[p.username], action="sit")
    for _ in range(12):
        for p in players:
            received[p.username] += await send(
                comms[p.username], action="bet", ante=f"{rng.randint(1, 20) * 0.5:.2f}", jackpot=rng.random() < 0.5
            )
        dealt = await database_sync_to_async(lambda: Hand.objects.get(table=table, state="decisions").pk)()
        for p in rng.sample(players, len(players)):
            received[p.username] += await send(comms[p.username], action=rng.choice(["fold", "raise"]), hand_id=dealt)
    for name, comm in comms.items():
        received[name] += await drain(comm)
        await comm.disconnect()

    def check():
        hands = {h.pk: h for h in Hand.objects.prefetch_related("hand_seats__player")}
        assert sum(h.state == "settled" for h in hands.values()) == 12
        for name, messages in received.items():
            assert len(messages) > 50
            _assert_nothing_hidden_leaks(messages, name, hands)

    await database_sync_to_async(check)()


@pytest.mark.parametrize(
    "raw,code",
    [
        ("not json", "malformed_message"),
        ("[1, 2]", "malformed_message"),
        ('{"action": "dance"}', "unknown_action"),
        ('{"no": "action"}', "unknown_action"),
        ('{"action": "bet", "ante": "abc"}', "amount_invalid"),
        ('{"action": "bet", "ante": "1.00", "jackpot": "yes"}', "jackpot_invalid"),
        ('{"action": "bet", "ante": "1.00"}', "not_seated"),
        ('{"action": "fold"}', "hand_id_required"),
        ('{"action": "sit", "seat": "two"}', "seat_invalid"),
        ('{"action": "sit", "seat": 7}', "seat_invalid"),
        ('{"action": "sit", "client_seed": 12}', "client_seed_invalid"),
        ('{"action": "sit", "client_seed": "has:colon"}', "client_seed_invalid"),
    ],
)
async def test_bad_messages_get_an_error_and_the_connection_stays_usable(table, make_player, raw, code):
    player = await database_sync_to_async(make_player)()
    comm, _ = await connect(player, table)
    await comm.send_to(text_data=raw)
    error = await comm.receive_json_from()
    assert error["type"] == "error" and error["code"] == code and error["message"]
    pong = await send(comm, action="ping", id=1)
    assert _of(pong, "pong")
    await comm.disconnect()


async def test_another_players_seat_cannot_be_acted_for(table, make_player):
    alice, bob, mallory = [await database_sync_to_async(make_player)() for _ in range(3)]
    a, _ = await connect(alice, table)
    m, _ = await connect(mallory, table)
    await send(a, action="sit")
    await database_sync_to_async(table_sit)(user=bob, table_id=table.pk)
    await send(a, action="bet", ante="1.00")
    await database_sync_to_async(hand_bet)(user=bob, table_id=table.pk, ante=100, jackpot=False)
    hand_id = await database_sync_to_async(lambda: Hand.objects.get(state="decisions").pk)()
    reply = await send(m, action="fold", seat=1, player=alice.pk, hand_id=hand_id)
    assert _of(reply, "error")[0]["code"] == "no_ante"
    assert (
        await database_sync_to_async(
            lambda: Hand.objects.get(state="decisions").hand_seats.filter(decision="").count()
        )()
        == 2
    )
    await a.disconnect()
    await m.disconnect()


async def test_oversized_and_binary_frames_are_refused(table, make_player):
    player = await database_sync_to_async(make_player)()
    comm, _ = await connect(player, table)
    await comm.send_to(text_data=json.dumps({"action": "ping", "pad": "x" * MAX_MESSAGE_BYTES}))
    assert (await comm.receive_json_from())["code"] == "message_too_large"
    await comm.send_to(bytes_data=b"\x00\x01")
    assert (await comm.receive_json_from())["code"] == "binary_not_supported"
    assert _of(await send(comm, action="ping"), "pong")
    await comm.disconnect()


async def test_a_flood_is_rate_limited_and_abuse_closes_the_connection(table, make_player):
    player = await database_sync_to_async(make_player)()
    comm, _ = await connect(player, table)
    for _ in range(int(RATE_BURST) + 5):
        await comm.send_json_to({"action": "ping"})
    replies = await drain(comm)
    assert _of(replies, "error") and all(e["code"] == "rate_limited" for e in _of(replies, "error"))
    for _ in range(ABUSE_LIMIT + 10):
        await comm.send_to(text_data="garbage")
    closed = None
    while closed is None:
        output = await comm.receive_output(timeout=2)
        if output["type"] == "websocket.close":
            closed = output["code"]
    assert closed == CLOSE_ABUSE
    await comm.disconnect()  # the client goes; the consumer's last database work ends inside the test


async def test_a_rolled_back_step_broadcasts_nothing(table, make_player):
    player = await database_sync_to_async(make_player)()
    comm, _ = await connect(player, table)

    def failing_step():
        with transaction.atomic():
            table_sit(user=player, table_id=table.pk)
            raise RuntimeError("crash after the seat was taken")

    with pytest.raises(RuntimeError):
        await database_sync_to_async(failing_step)()
    assert await comm.receive_nothing(timeout=0.3)
    await database_sync_to_async(table_sit)(user=player, table_id=table.pk)
    events_seen = [m["event"]["kind"] for m in await drain(comm) if m["type"] == "event"]
    assert "seat.changed" in events_seen
    await comm.disconnect()


async def test_the_jackpot_meter_reaches_every_table_on_the_pool(make_table, make_player):
    here, there = await database_sync_to_async(make_table)(), await database_sync_to_async(make_table)()
    watcher, player = await database_sync_to_async(make_player)(), await database_sync_to_async(make_player)()
    w, _ = await connect(watcher, there)
    p, _ = await connect(player, here)
    await send(p, action="sit")
    await database_sync_to_async(events.broadcast_meters)()  # the periodic broadcaster's first round
    await drain(w)
    await send(p, action="bet", ante="1.00", jackpot=True)  # dealt at once: the only seated player
    assert await database_sync_to_async(events.broadcast_meters)() == 1
    assert await database_sync_to_async(events.broadcast_meters)() == 0  # unchanged: nothing sent
    meters = [
        m["event"]["meter"] for m in await drain(w) if m["type"] == "event" and m["event"]["kind"] == "jackpot.changed"
    ]
    assert meters == ["10000.35"]
    assert pool_group(here.pool_id) == pool_group(there.pool_id)
    await w.disconnect()
    await p.disconnect()


async def test_a_refusal_answers_in_the_socket_user_s_language_with_the_same_code(table, make_player):
    """A German player's saved choice decides their socket's words, whatever the browser asks
    for; without a saved choice, the handshake's Accept-Language does. The codes never change."""
    from casino.i18n import user_language_set

    def german_player():
        player = make_player()
        user_language_set(user=player, language="de")
        return player

    async def connect_asking(user, language: bytes):
        comm = WebsocketCommunicator(router, f"/ws/tables/{table.pk}/", headers=[(b"accept-language", language)])
        comm.scope["user"] = user
        assert (await comm.connect())[0]
        assert (await comm.receive_json_from())["type"] == "snapshot"
        return comm

    german = await connect_asking(await database_sync_to_async(german_player)(), b"en")
    english = await connect_asking(await database_sync_to_async(make_player)(), b"en")
    browser_german = await connect_asking(await database_sync_to_async(make_player)(), b"de-DE,de;q=0.9")
    refusals = {
        "unknown_action": (
            {"action": "dance"},
            "Unknown action; use one of",
            "Unbekannte Aktion; verwenden Sie eine von",
        ),
        "not_seated": (
            {"action": "bet", "ante": "1.00"},
            "Take a seat at this table before you bet.",
            "Nehmen Sie an diesem Tisch Platz, bevor Sie setzen.",
        ),
        "hand_id_required": (
            {"action": "fold"},
            "'fold' names its hand: send the hand's id as 'hand_id'.",
            "'fold' nennt seine Hand: Senden Sie die ID der Hand als 'hand_id'.",
        ),
    }
    for code, (message, in_english, in_german) in refusals.items():
        for comm, words in ((german, in_german), (english, in_english), (browser_german, in_german)):
            await comm.send_json_to(message)
            error = _of(await answered(comm), "error")[0]
            assert error["code"] == code
            assert error["message"].startswith(words), error
    await german.send_to(text_data="not json")
    assert await german.receive_json_from() == {
        "type": "error",
        "id": None,
        "code": "malformed_message",
        "message": "Senden Sie ein JSON-Objekt mit einer 'action'.",
        "extra": {},
    }
    for comm in (german, english, browser_german):
        await comm.disconnect()


async def test_a_german_spectator_s_frames_name_decisions_and_hands_in_german(table, make_player, play_hand, rig_deck):
    """The step writes each public event once, for every socket; each socket sends it in its
    reader's words: the decision's label, the settled hand's names and labels."""
    from casino.i18n import user_language_set

    def spectators():
        german, english = make_player(), make_player()
        user_language_set(user=german, language="de")
        return german, english

    german_user, english_user = await database_sync_to_async(spectators)()
    german, _ = await connect(german_user, table)
    english, _ = await connect(english_user, table)
    await database_sync_to_async(rig_deck)(["Th Td 2c 5s 9h"], "Ac Kd 7h 4s 2d")
    player = await database_sync_to_async(make_player)()
    await database_sync_to_async(play_hand)([(player, 100, False, "raise")])

    def seen(messages, kind):
        return [m["event"] for m in messages if m["type"] == "event" and m["event"]["kind"] == kind]

    in_german, in_english = await drain(german), await drain(english)
    assert seen(in_german, "decision.made")[0]["decision_label"] == "Gesetzt"
    assert seen(in_english, "decision.made")[0]["decision_label"] == "Raised"
    german_result = seen(in_german, "hand.settled")[0]["result"]
    english_result = seen(in_english, "hand.settled")[0]["result"]
    assert german_result["seats"][0]["hand_name"] == "Paar Zehnen"
    assert english_result["seats"][0]["hand_name"] == "pair of tens"
    assert german_result["seats"][0]["category_label"] == "Ein Paar"
    assert german_result["dealer"]["hand_name"] == "Ass-König hoch"
    assert english_result["dealer"]["hand_name"] == "ace-king high"
    assert german_result["seats"][0]["outcome_label"] != english_result["seats"][0]["outcome_label"]
    await german.disconnect()
    await english.disconnect()


async def test_a_settled_hand_s_explanation_reaches_each_socket_in_its_reader_s_language(
    table, make_player, play_hand, rig_deck
):
    """A German player's decision settles the hand: the public frame's explanation lines are
    worded for each socket's reader, and the settling step's German reaches no English socket."""
    from django.utils import translation

    from casino.i18n import user_language_set

    def spectators():
        german, english = make_player(), make_player()
        user_language_set(user=german, language="de")
        return german, english

    german_user, english_user = await database_sync_to_async(spectators)()
    german, _ = await connect(german_user, table)
    english, _ = await connect(english_user, table)
    await database_sync_to_async(rig_deck)(["Th Td 2c 5s 9h"], "Ac Kd 7h 4s 2d")
    player = await database_sync_to_async(make_player)()

    def german_plays():
        with translation.override("de"):  # the request of a German player settles the hand
            play_hand([(player, 100, False, "raise")])

    await database_sync_to_async(german_plays)()

    def explanation(messages):
        [event] = [m["event"] for m in messages if m["type"] == "event" and m["event"]["kind"] == "hand.settled"]
        seat = event["result"]["seats"][0]
        assert "explanation_parts" not in seat
        return seat["explanation"]

    in_german, in_english = explanation(await drain(german)), explanation(await drain(english))
    assert in_english == [
        "Hand: pair of tens. Dealer: ace-king high, qualified (ace-king or better).",
        "Beats the dealer: Ante €1.00 pays 1 to 1 (+€1.00).",
        "Raise €2.00: One pair pays 1 to 1 (dealer qualified) (+€2.00).",
        "Net: +€3.00.",
    ]
    assert in_german == [
        "Blatt: Paar Zehnen. Dealer: Ass-König hoch, qualifiziert sich (Ass-König oder besser).",
        "Schlägt den Dealer: Ante 1,00\xa0€ zahlt 1 zu 1 (+1,00\xa0€).",
        "Raise 2,00\xa0€: Ein Paar zahlt 1 zu 1 (Dealer qualifiziert) (+2,00\xa0€).",
        "Netto: +3,00\xa0€.",
    ]
    await german.disconnect()
    await english.disconnect()
