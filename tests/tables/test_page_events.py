"""The Caribbean table page's event sequences, recorded from the server for the page's
own unit tests.

Alice and Bob play a hand over their websockets (Alice raises a pair, Bob folds), the
table opens the next hand and both bet into it until its cards are dealt. What Alice's
socket receives (snapshots, the table's events, her own hand view, her wallet and the
answers to her actions) is ``tests/js/fixtures/table_hand.json``, replayed by
``tests/js/table_state.test.mjs`` through the page's reducer (``static/js/table_state.js``).
The committed fixture keeps the shape of what the server sends (``tests/page_events.py``).
"""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter

from casino.asgi import websocket_urlpatterns
from tables.models import Hand
from tests.page_events import compare_or_record, event_of, receive_until
from tests.sockets import answered, ws_connect

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

router = URLRouter(websocket_urlpatterns)
PAIR, HIGH_CARD, DEALER = "Ah Ad 7c 5s 2h", "Kc Qd 9h 6s 3c", "As Kh 8d 4c 2s"


async def test_a_hand_its_settlement_and_the_next_deal(table, make_player, rig_deck):
    alice = await database_sync_to_async(make_player)(balance=10_000, username="alice")
    bob = await database_sync_to_async(make_player)(balance=10_000, username="bob")
    a, first = await ws_connect(router, f"/ws/tables/{table.pk}/", alice)
    b, _ = await ws_connect(router, f"/ws/tables/{table.pk}/", bob)
    seen = [first]

    async def alice_does(until, **message):
        await a.send_json_to(message)
        seen.extend(await answered(a))
        await receive_until(a, seen, until)

    async def bob_does(until, **message):
        await b.send_json_to(message)
        await answered(b)
        await receive_until(a, seen, until)

    def own_view(hand_id: int, state: str):
        return lambda m: m["type"] == "hand" and m["hand"]["id"] == hand_id and m["hand"]["state"] == state

    rig_deck([PAIR, HIGH_CARD], DEALER)
    await alice_does(event_of("seat.changed", seat=1, player="alice"), action="sit", id="c1", seat=1)
    await bob_does(event_of("seat.changed", seat=2, player="bob"), action="sit", id="c1", seat=2)
    hand = await database_sync_to_async(lambda: Hand.objects.get(table=table, state="betting"))()
    await alice_does(event_of("bet.placed", hand.pk, seat=1), action="bet", id="c2", ante="1.00", jackpot=True)
    await bob_does(event_of("hand.dealt", hand.pk), action="bet", id="c2", ante="1.00", jackpot=False)
    await receive_until(a, seen, own_view(hand.pk, "decisions"))
    await alice_does(event_of("decision.made", hand.pk, seat=1), action="raise", id="c3", hand_id=hand.pk)
    await bob_does(event_of("hand.settled", hand.pk), action="fold", id="c3", hand_id=hand.pk)
    nxt = await database_sync_to_async(lambda: Hand.objects.get(table=table, state="betting"))()
    await receive_until(a, seen, event_of("hand.opened", nxt.pk))
    await receive_until(a, seen, own_view(hand.pk, "settled"))
    rig_deck([HIGH_CARD, PAIR], DEALER)
    await alice_does(event_of("bet.placed", nxt.pk, seat=1), action="bet", id="c4", ante="2.00", jackpot=False)
    await bob_does(event_of("hand.dealt", nxt.pk), action="bet", id="c4", ante="1.00", jackpot=False)
    await receive_until(a, seen, own_view(nxt.pk, "decisions"))
    kinds = [(m["event"]["kind"], m["event"].get("hand")) for m in seen if m["type"] == "event"]
    assert ("hand.settled", hand.pk) in kinds and ("hand.dealt", nxt.pk) in kinds, kinds
    for comm in (a, b):
        await comm.disconnect()
    compare_or_record(
        "table_hand.json",
        {"username": "alice", "table": table.pk, "hand": hand.pk, "next_hand": nxt.pk, "messages": seen},
    )
