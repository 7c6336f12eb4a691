"""Under the embedded default (in-memory channel layer) the web server enforces the
deadlines itself, and its events reach the pages live."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from casino.asgi import application
from casino.live.periodic import stop_in_server
from tables.models import Hand, Table

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def _session(player) -> str:
    client = Client()
    await database_sync_to_async(client.force_login)(player)
    return client.cookies["sessionid"].value


async def _connect(session: str, table):
    comm = WebsocketCommunicator(
        application,
        f"/ws/tables/{table.pk}/",
        headers=[(b"origin", b"http://localhost"), (b"cookie", f"sessionid={session}".encode())],
    )
    connected, _ = await comm.connect()
    assert connected
    assert (await comm.receive_json_from())["type"] == "snapshot"
    return comm


async def _events_until(comm, wanted: str, *, within: float) -> list[str]:
    """Kinds of the public events received until one of kind ``wanted``, or all within the time."""
    kinds: list[str] = []
    loop = asyncio.get_running_loop()
    end = loop.time() + within
    while wanted not in kinds and loop.time() < end:
        try:
            message = await comm.receive_json_from(timeout=max(0.01, end - loop.time()))
        except asyncio.TimeoutError:
            break
        if message["type"] == "event":
            kinds.append(message["event"]["kind"])
    return kinds


async def test_betting_window_and_decision_deadline_pass_on_every_page_with_no_other_process(
    settings, make_table, make_player
):
    settings.CASINO_PERIODIC_IN_SERVER = True
    table = await database_sync_to_async(make_table)()
    await database_sync_to_async(Table.objects.filter(pk=table.pk).update)(
        bet_seconds=1, decision_seconds=1, extension_seconds=1
    )
    alice, bob = await database_sync_to_async(make_player)(), await database_sync_to_async(make_player)()
    # Both sign in before the first socket starts the server's periodic work: a sign-in
    # writes, and the test's in-memory SQLite refuses a write at once ("database table is
    # locked") while a round of that work holds its lock, where a database file waits.
    sessions = [await _session(alice), await _session(bob)]
    a, b = await _connect(sessions[0], table), await _connect(sessions[1], table)
    try:
        for comm in (a, b):
            await comm.send_json_to({"action": "sit", "id": "s"})
        await asyncio.sleep(0.3)
        await a.send_json_to({"action": "bet", "id": "b", "ante": "1.00", "jackpot": False})
        # Bob never bets: the 1 s window closes, the hand is dealt to Alice alone, and
        # Bob's page hears it from the server, with nothing but this process running.
        assert "hand.dealt" in await _events_until(b, "hand.dealt", within=4)
        # Alice never decides: her 1 s runs out and the hand is settled on both pages.
        # (Should she hold a pair, her 1 s extension runs out first.)
        hand = await database_sync_to_async(Hand.objects.filter(table=table).latest)("pk")
        settled = await _events_until(b, "hand.settled", within=5)
        assert "hand.settled" in settled, settled
        hand = await database_sync_to_async(Hand.objects.get)(pk=hand.pk)
        assert hand.state == Hand.State.SETTLED
    finally:
        await stop_in_server()
        await a.disconnect()
        await b.disconnect()
