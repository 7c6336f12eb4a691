"""The live protocol as a page and other players meet it.

- A private fact (a pair earning its extension when its holder drops) changes nothing
  that anyone else sees, and a second tab closing is not a disconnect.
- Close codes 4401/4404 reach the page: the handshake is accepted, then closed with the
  code (through Channels' communicator, and through a real daphne with a real client).
- ``fold``/``raise`` name their hand: a late duplicate never lands on the next hand.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import websockets
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from casino.asgi import websocket_urlpatterns
from casino.live.consumers import CLOSE_NOT_FOUND, CLOSE_UNAUTHENTICATED
from tables.models import Hand, HandSeat
from tests.demo_db import demo_sqlite
from tests.shell import Shell
from tests.sockets import answered, drain, ws_connect

pytestmark = [pytest.mark.django_db(transaction=True)]

router = URLRouter(websocket_urlpatterns)
ROOT = Path(__file__).resolve().parents[2]
PAIR, HIGH_CARD, DEALER = "Ah Ad 7c 5s 2h", "Kc Qd 9h 6s 3c", "As Kh 8d 4c 2s"


async def connect(user, table):
    comm, _ = await ws_connect(router, f"/ws/tables/{table.pk}/", user)
    return comm


async def send(comm, **message) -> list[dict]:
    await comm.send_json_to(message)
    return await answered(comm)


async def public_hand(comm) -> dict:
    """The current hand as this connection's player sees it, from a fresh snapshot."""
    snapshot = [m for m in await send(comm, action="snapshot") if m["type"] == "snapshot"][-1]
    return snapshot["table"]["hand"]


async def dealt_pair_and_high_card(table, make_player, rig_deck):
    """Alice (seat 1) holds a pair, Bob (seat 2) high card; both connected, cards dealt."""
    rig_deck([PAIR, HIGH_CARD], DEALER)
    alice, bob = await database_sync_to_async(make_player)(), await database_sync_to_async(make_player)()
    a, b = await connect(alice, table), await connect(bob, table)
    await send(a, action="sit", seat=1)
    await send(b, action="sit", seat=2)
    await send(a, action="bet", ante="1.00", jackpot=False)
    await send(b, action="bet", ante="1.00", jackpot=False)
    await drain(a)
    await drain(b)
    hand = await database_sync_to_async(lambda: Hand.objects.get(table=table, state="decisions"))()
    return alice, bob, a, b, hand


def _alices_seat(hand: Hand) -> HandSeat:
    return HandSeat.objects.get(hand=hand, seat_number=1)


# --- a private fact stays private ----------------------------------------------------------


@pytest.mark.asyncio
async def test_a_pair_holder_dropping_changes_nothing_the_other_players_see(table, make_player, rig_deck):
    alice, bob, a, b, hand = await dealt_pair_and_high_card(table, make_player, rig_deck)
    before = await public_hand(b)
    await a.disconnect()
    seat = await database_sync_to_async(_alices_seat)(hand)
    assert seat.extension_used  # the rule applied: the pair got its extension (SPEC A4) …
    assert await drain(b) == []  # … and Bob was told nothing
    assert await public_hand(b) == before  # not even the hand's version moved
    await b.disconnect()


@pytest.mark.asyncio
async def test_the_same_drop_with_high_card_and_with_a_pair_look_alike_to_others(make_table, make_player, rig_deck):
    """Whatever Alice holds, what Bob sees after she drops is the same."""
    seen = {}
    for name, cards in (("pair", PAIR), ("high card", "Kd Jd 9c 6d 3h")):
        table = await database_sync_to_async(make_table)(f"Table {name}")
        rig_deck([cards, HIGH_CARD], DEALER)
        alice, bob = await database_sync_to_async(make_player)(), await database_sync_to_async(make_player)()
        a, b = await connect(alice, table), await connect(bob, table)
        await send(a, action="sit", seat=1)
        await send(b, action="sit", seat=2)
        await send(a, action="bet", ante="1.00", jackpot=False)
        await send(b, action="bet", ante="1.00", jackpot=False)
        await drain(b)
        before = await public_hand(b)
        await a.disconnect()
        after = await public_hand(b)
        seen[name] = (before["version"], after["version"], after["seats"][0])
        await b.disconnect()
    assert seen["pair"][1] - seen["pair"][0] == seen["high card"][1] - seen["high card"][0] == 0
    assert seen["pair"][2] == {**seen["high card"][2], "player": seen["pair"][2]["player"]}


@pytest.mark.asyncio
async def test_a_second_tab_closing_is_not_a_disconnect(table, make_player, rig_deck):
    alice, bob, a, b, hand = await dealt_pair_and_high_card(table, make_player, rig_deck)
    first_deadline = (await database_sync_to_async(_alices_seat)(hand)).decision_deadline
    second_tab = await connect(alice, table)
    await second_tab.disconnect()
    seat = await database_sync_to_async(_alices_seat)(hand)
    assert not seat.extension_used and seat.decision_deadline == first_deadline  # Alice is still here
    assert [m for m in await drain(a) if m["type"] == "hand"] == []
    await a.disconnect()  # her last tab: now she has dropped
    seat = await database_sync_to_async(_alices_seat)(hand)
    assert seat.extension_used and seat.decision_deadline > first_deadline
    await b.disconnect()


@pytest.mark.asyncio
async def test_a_drop_whose_first_database_call_dies_still_gives_the_pair_its_extension(
    table, make_player, rig_deck, monkeypatch
):
    """The database drops the connection under the disconnect's work (a restart, a
    failover): the server does it again on a fresh connection, so Alice's pair still gets
    its extension (SPEC A4)."""
    from django.db import OperationalError

    from tables import consumers

    alice, bob, a, b, hand = await dealt_pair_and_high_card(table, make_player, rig_deck)
    real, calls = consumers.hand_seat_disconnected, []

    def dies_once(**kwargs):
        calls.append(kwargs)
        if len(calls) == 1:
            raise OperationalError("terminating connection due to administrator command")
        return real(**kwargs)

    monkeypatch.setattr(consumers, "hand_seat_disconnected", dies_once)
    await a.disconnect()
    seat = await database_sync_to_async(_alices_seat)(hand)
    assert len(calls) == 2 and seat.extension_used
    await b.disconnect()


@pytest.mark.asyncio
async def test_a_player_whose_table_was_removed_leaves_without_a_server_error(table, make_player):
    """A manager removes a table no hand was played at while Alice has its page open: her
    socket closing finds no table, and that is not an error of the server."""
    alice = await database_sync_to_async(make_player)(username="alice")
    a = await connect(alice, table)
    await database_sync_to_async(lambda: type(table).objects.filter(pk=table.pk).delete())()
    await a.disconnect()  # the application's exception would be raised here


# --- close codes ---------------------------------------------------------------------------


async def _closed_with(path: str, user=None) -> dict:
    comm = WebsocketCommunicator(router, path)
    if user is not None:
        comm.scope["user"] = user
    connected, _ = await comm.connect()
    assert connected, "the handshake must be accepted, or the close code never reaches the page"
    return await comm.receive_output(timeout=2)


@pytest.mark.asyncio
async def test_close_codes_follow_an_accepted_handshake(table, make_player):
    player = await database_sync_to_async(make_player)()
    assert await _closed_with(f"/ws/tables/{table.pk}/") == {"type": "websocket.close", "code": CLOSE_UNAUTHENTICATED}
    assert await _closed_with("/ws/tables/999999/", player) == {"type": "websocket.close", "code": CLOSE_NOT_FOUND}
    for bad in ("abc", "²", "9" * 40, "-1"):
        assert await _closed_with(f"/ws/tables/{bad}/", player) == {"type": "websocket.close", "code": CLOSE_NOT_FOUND}
    assert await _closed_with("/ws/nowhere/", player) == {"type": "websocket.close", "code": CLOSE_NOT_FOUND}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def daphne_server(tmp_path_factory):
    """daphne on a free port (static files served, as in tests/e2e), against its own SQLite
    file with the demo data; yields a ``Live`` with its URLs, a shell into its database
    (tests.shell) and a session."""
    workdir = tmp_path_factory.mktemp("daphne")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("REDIS_URL", "CELERY_BROKER_URL", "CASINO_TIMERS", "ALLOWED_HOSTS", "SECRET_KEY")
    }
    env.update(
        DATABASE_URL=demo_sqlite(tmp_path_factory, workdir / "ws.sqlite3"),
        DEBUG="1",
        DJANGO_SETTINGS_MODULE="casino.settings",
        LOG_LEVEL="WARNING",
    )

    shell = Shell(env)

    def session_of(username: str) -> str:
        return shell.query(
            "import json; from django.contrib.auth import get_user_model; from django.test import Client; "
            f"c = Client(); c.force_login(get_user_model().objects.get(username={username!r})); "
            "print(json.dumps(c.cookies['sessionid'].value))",
        )

    port = _free_port()
    log = workdir / "daphne.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "tests.e2e.asgi_static:application"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
        yield Live(f"ws://127.0.0.1:{port}", f"http://127.0.0.1:{port}", shell, session_of)
    finally:
        shell.close()
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # a busy machine: daphne's graceful stop is not this test's subject
            process.kill()
            process.wait()


class Live:
    def __init__(self, ws: str, http: str, shell: Shell, session_of):
        self.ws, self.http, self.shell, self.session_of = ws, http, shell, session_of


async def _real_close_code(url: str, origin: str, cookie: str | None = None) -> int:
    headers = {"Cookie": cookie} if cookie else None
    async with websockets.connect(url, origin=origin, additional_headers=headers, open_timeout=5) as ws:
        try:
            await asyncio.wait_for(ws.recv(), timeout=5)
        except websockets.ConnectionClosed:
            pass
        await asyncio.wait_for(ws.wait_closed(), timeout=5)
        return ws.close_code


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=False)
async def test_a_real_client_through_daphne_gets_the_documented_close_codes(daphne_server):
    base, origin = daphne_server.ws, daphne_server.http
    cookie = f"sessionid={daphne_server.session_of('dave')}"
    assert await _real_close_code(f"{base}/ws/tables/1/", origin) == 4401  # not HTTP 403
    assert await _real_close_code(f"{base}/ws/tables/999999/", origin, cookie) == 4404
    assert await _real_close_code(f"{base}/ws/tables/abc/", origin, cookie) == 4404  # not a 500


# --- decisions name their hand -------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_decision_without_its_hand_is_refused_and_changes_nothing(table, make_player, rig_deck):
    alice, bob, a, b, hand = await dealt_pair_and_high_card(table, make_player, rig_deck)
    for message in ({}, {"hand_id": "x"}, {"hand_id": True}, {"hand_id": None}):
        reply = await send(a, action="fold", id="f", **message)
        assert [m["code"] for m in reply if m["type"] == "error"] == ["hand_id_required"], reply
    other_table_hand = hand.pk + 1000
    reply = await send(a, action="raise", id="r", hand_id=other_table_hand)
    assert [m["code"] for m in reply if m["type"] == "error"] == ["hand_not_found"]
    seat = await database_sync_to_async(_alices_seat)(hand)
    assert seat.decision == ""
    await a.disconnect()
    await b.disconnect()


@pytest.mark.asyncio
async def test_a_late_duplicate_decision_never_lands_on_the_next_hand(table, make_player, rig_deck):
    alice, bob, a, b, hand = await dealt_pair_and_high_card(table, make_player, rig_deck)
    assert {"type": "ack", "id": "a1", "action": "raise"} in await send(a, action="raise", id="a1", hand_id=hand.pk)
    await send(b, action="fold", id="b1", hand_id=hand.pk)  # the hand settles; the next one opens
    nxt = await database_sync_to_async(lambda: Hand.objects.get(table=table, state="betting"))()
    rig_deck([PAIR, HIGH_CARD], DEALER)
    await send(a, action="bet", ante="1.00", jackpot=False)
    await send(b, action="bet", ante="1.00", jackpot=False)
    await drain(a)
    late = await send(a, action="raise", id="a1-again", hand_id=hand.pk)  # the first hand's click, resent
    assert [m["code"] for m in late if m["type"] == "error"] == ["hand_over"]
    decided = await database_sync_to_async(lambda: HandSeat.objects.get(hand_id=nxt.pk, player=alice).decision)()
    assert decided == ""  # the next hand is still Alice's to decide
    await a.disconnect()
    await b.disconnect()


# --- the page, in a real browser ----------------------------------------------------------


CHROMIUM = os.environ.get("E2E_CHROMIUM", "/usr/bin/chromium")


def _table_page(daphne_server, username: str, table_name: str):
    """(playwright, browser, page, sockets opened): ``username``'s page of the table, live."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("playwright is not installed") if os.environ.get("CI") else pytest.skip(
            "playwright is not installed"
        )
    if not Path(CHROMIUM).exists():
        pytest.fail("no Chromium") if os.environ.get("CI") else pytest.skip(f"Chromium is not installed at {CHROMIUM}")
    table_id = daphne_server.shell.query(
        f"from tables.models import Table; print(Table.objects.get(name={table_name!r}).pk)"
    )
    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
    context = browser.new_context()
    context.set_default_timeout(15_000)
    context.add_cookies([{"name": "sessionid", "value": daphne_server.session_of(username), "url": daphne_server.http}])
    page = context.new_page()
    sockets: list[str] = []
    snapshots: list[str] = []

    def opened(ws) -> None:
        sockets.append(ws.url)
        ws.on("framereceived", lambda payload: snapshots.append(ws.url) if _is_snapshot(payload) else None)

    page.on("websocket", opened)
    page.goto(f"{daphne_server.http}/tables/{table_id}/")
    # Open means the server sent the table: the socket opens before the server has looked
    # the table up, and a table closed in between is closed with 4404 straight away.
    deadline = time.monotonic() + 15
    while not snapshots:
        assert time.monotonic() < deadline, "the table's snapshot never came over the socket"
        page.wait_for_timeout(50)
    page.wait_for_function("() => window.CasinoTable && window.CasinoTable.state.wsOpen === true")
    return playwright, browser, page, sockets, table_id


def _is_snapshot(payload) -> bool:
    try:
        return json.loads(payload).get("type") == "snapshot"
    except (ValueError, TypeError, AttributeError):
        return False


def _drop_the_socket_and_wait(page) -> None:
    """The connection drops (as on a network change): the page reconnects by itself."""
    page.evaluate("() => window.CasinoTable.state.ws.close()")
    page.wait_for_function("() => window.CasinoTable.state.stopped === true")


@pytest.mark.parametrize(
    "user, table, lose, status, message",
    [
        (
            "carol",
            "Nassau",
            "from django.contrib.sessions.models import Session; Session.objects.all().delete()",
            "Session ended",
            "Your session has ended: sign in again.",
        ),
        (
            "bob",
            "Bridgetown",
            "from tables.models import Table; Table.objects.filter(name='Bridgetown').delete()",
            "No such table",
            "There is no such table",
        ),
    ],
)
def test_the_page_says_why_the_table_closed_and_stops_reconnecting(daphne_server, user, table, lose, status, message):
    playwright, browser, page, sockets, _ = _table_page(daphne_server, user, table)
    try:
        daphne_server.shell.run(lose)  # the session ends / the table goes, while the page is open
        _drop_the_socket_and_wait(page)
        assert status in page.locator("#conn-status").inner_text()
        assert message in page.locator("#errors").inner_text()
        opened = len(sockets)
        page.wait_for_timeout(4000)  # a page that retried would have opened several sockets by now
        assert len(sockets) == opened == 2
    finally:
        browser.close()
        playwright.stop()
