"""The poker room's lobby figures and its refusals: the all-in allowance counted per player
and shown to them, the lobby's average pot, hands per hour and waiting list, the waiting
list from the table page, responsible-gaming limits on a top-up, the poker socket's origin
check, play-rate budget and buy-in refusals, and the reconciliation command's exit code."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from casino.asgi import application, websocket_urlpatterns
from casino.http.errors import ApplicationError
from casino.stud.engine import seeded_deck
from poker import replay
from poker.models import PokerHand, PokerSeat, PokerTable, PokerWaiting
from poker.selectors import poker_lobby_rows, poker_table_view
from poker.services import poker_hand_start, poker_next_hand, poker_sit, poker_timeout, poker_top_up
from tests.poker.helpers import play_out, seats_of
from wallets import responsible
from wallets.models import GamingLimit
from wallets.selectors import wallet_balances

FIXED_DECK, _ = seeded_deck("ab" * 32, "fixed-deck", 1)


def _hold(table) -> None:
    PokerTable.objects.filter(pk=table.pk).update(next_hand_at=timezone.now() + timedelta(hours=1))


def _seated(table, players) -> None:
    _hold(table)
    for user in players:
        poker_sit(user=user, table_id=table.pk)


def _lobby_row(html: str, table) -> str:
    return re.search(rf'<tr data-poker-table="{table.pk}".*?</tr>', html, re.S).group(0)


def _cell(row: str, label: str) -> str:
    return re.search(rf'<td data-label="{label}"[^>]*>(.*?)</td>', row, re.S).group(1).strip()


@pytest.mark.django_db
def test_the_all_in_allowance_is_counted_per_player_and_shown_to_each(make_player, poker_table, browser):
    alice, bob = make_player(username="alice11"), make_player(username="bob11")
    _seated(poker_table, [alice, bob])
    hand = poker_hand_start(table_id=poker_table.pk, deck=FIXED_DECK)
    users = seats_of(hand, [alice, bob])
    bring_in = users[hand.to_act]
    other = alice if bring_in is bob else bob
    for user in (alice, bob):
        assert poker_table_view(table=poker_table, user=user)["you"]["all_in_allowance_left"] is True
        assert "one left today" in browser(user).get(reverse("poker-table", args=[poker_table.pk])).content.decode()
    # The bring-in player's clock runs out: no free check, so their allowance protects them.
    PokerHand.objects.filter(pk=hand.pk).update(decision_deadline=timezone.now() - timedelta(seconds=1))
    poker_timeout(hand_id=hand.pk, version=0)
    hand.refresh_from_db()
    assert hand.is_live  # the hand plays on, the protected player all-in for what they put in
    labels = [e["action"] for e in replay.hand_state(hand).events if e["type"] == "action"]
    assert "timeout_all_in" in labels
    used = poker_table_view(table=poker_table, user=bring_in)["you"]
    assert used["all_in_allowance_left"] is False
    assert (
        "used, back within 24 hours"
        in browser(bring_in).get(reverse("poker-table", args=[poker_table.pk])).content.decode()
    )
    # The other player's allowance is theirs: untouched.
    assert poker_table_view(table=poker_table, user=other)["you"]["all_in_allowance_left"] is True
    assert "one left today" in browser(other).get(reverse("poker-table", args=[poker_table.pk])).content.decode()
    # A spectator's view has no allowance block at all.
    assert poker_table_view(table=poker_table, user=None)["you"] is None


@pytest.mark.django_db
def test_the_lobby_shows_average_pot_and_hands_per_hour_over_the_last_hands(make_player, poker_table, browser):
    players = [make_player() for _ in range(2)]
    _seated(poker_table, players)
    hands = []
    for n in range(2):
        hand = poker_hand_start(table_id=poker_table.pk) if n == 0 else None
        if hand is None:
            PokerTable.objects.filter(pk=poker_table.pk).update(next_hand_at=timezone.now() - timedelta(seconds=1))
            hand = poker_next_hand(table_id=poker_table.pk)
        hands.append(play_out(hand, seats_of(hand, players), strategy="calling_station", seed=n))
    pots = [h.pot_total for h in hands]
    assert all(pots)
    row = next(r for r in poker_lobby_rows() if r["id"] == poker_table.pk)
    assert row["average_pot"] == f"{sum(pots) // 2 // 100}.{sum(pots) // 2 % 100:02d}"
    assert (row["hands_per_hour"], row["players"], row["waiting"]) == (2, 2, 0)
    html = browser(make_player()).get(reverse("lobby")).content.decode()
    cells = _lobby_row(html, poker_table)
    assert _cell(cells, "Average pot") == f"€{row['average_pot']}"
    assert _cell(cells, "Hands/hour") == "2"
    # An hour later the first hand no longer counts per hour; the average still covers both.
    PokerHand.objects.filter(pk=hands[0].pk).update(ended_at=timezone.now() - timedelta(hours=2))
    later = next(r for r in poker_lobby_rows() if r["id"] == poker_table.pk)
    assert (later["hands_per_hour"], later["average_pot"]) == (1, row["average_pot"])
    # A table with no hand yet says so instead of a number.
    empty = PokerTable.objects.exclude(pk=poker_table.pk).first()
    assert empty is None or next(r for r in poker_lobby_rows() if r["id"] == empty.pk)["average_pot"] is None


@pytest.mark.django_db
def test_a_full_table_offers_the_waiting_list_on_its_page_and_the_lobby_counts_it(
    make_player, make_poker_table, browser
):
    table = make_poker_table(max_seats=2)
    alice, bob, carol = make_player(), make_player(), make_player()
    _seated(table, [alice, bob])
    page = browser(carol)
    url = reverse("poker-table", args=[table.pk])
    assert "Join the waiting list" in page.get(url).content.decode()
    response = page.post(reverse("poker-waitlist", args=[table.pk]), {"join": "1"})
    assert response.status_code == 302
    assert list(PokerWaiting.objects.filter(table=table).values_list("player_id", flat=True)) == [carol.pk]
    html = page.get(url).content.decode()
    assert "Leave the waiting list" in html
    assert carol.get_username() in re.search(r'<p id="waiting-list">(.*?)</p>', html, re.S).group(1)
    assert _cell(_lobby_row(page.get(reverse("lobby")).content.decode(), table), "Waiting") == "1"
    balance = wallet_balances(user=carol).available
    page.post(reverse("poker-waitlist", args=[table.pk]), {"join": "0"})
    assert not PokerWaiting.objects.filter(table=table).exists()
    assert wallet_balances(user=carol).available == balance
    # A seated player may not queue for their own table; nothing is registered.
    browser(alice).post(reverse("poker-waitlist", args=[table.pk]), {"join": "1"})
    assert not PokerWaiting.objects.filter(table=table).exists()


@pytest.mark.django_db
def test_a_top_up_is_refused_by_the_loss_limit_and_self_exclusion_and_moves_nothing(make_player, poker_table):
    players = [make_player(balance=100_000) for _ in range(2)]
    _seated(poker_table, players)
    hand = poker_hand_start(table_id=poker_table.pk, deck=FIXED_DECK)
    play_out(hand, seats_of(hand, players), strategy="calling_station")
    buy_in = replay.table_config(poker_table).buy_in
    loser = PokerSeat.objects.filter(table=poker_table, stack__lt=buy_in).select_related("player").first()
    assert loser is not None, "one player lost chips"
    user, stack = loser.player, loser.stack
    wallet = wallet_balances(user=user).available

    def refused(code):
        with pytest.raises(ApplicationError) as exc:
            poker_top_up(user=user, table_id=poker_table.pk)
        assert exc.value.code == code
        assert PokerSeat.objects.get(pk=loser.pk).stack == stack
        assert wallet_balances(user=user).available == wallet

    # The buy-in of 20.00 is at risk until cashed out: a day's loss limit of 20.00 has no room left.
    responsible.limit_set(player=user, kind=GamingLimit.Kind.LOSS, period=GamingLimit.Period.DAY, amount=buy_in)
    refused("loss_limit_reached")
    responsible.self_exclude(player=user, months=6)
    refused("self_excluded")
    call_command("reconcile_poker")


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_poker_socket_refuses_a_foreign_origin_and_keeps_the_play_rate_budget(
    settings, make_player, make_poker_table
):
    table = await database_sync_to_async(make_poker_table)()
    player = await database_sync_to_async(make_player)()
    client = Client()
    await database_sync_to_async(client.force_login)(player)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    path = f"/ws/poker/{table.pk}/"
    evil = WebsocketCommunicator(application, path, headers=[(b"origin", b"http://evil.example"), (b"cookie", cookie)])
    connected, _ = await evil.connect()
    assert not connected
    good = WebsocketCommunicator(application, path, headers=[(b"origin", b"http://localhost"), (b"cookie", cookie)])
    connected, _ = await good.connect()
    assert connected and (await good.receive_json_from())["type"] == "snapshot"
    await good.disconnect()
    # One play budget with REST: the first action passes, the next is refused and changes nothing.
    settings.CASINO_PLAY_RATE = "1/hour"
    comm = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    comm.scope["user"] = player
    connected, _ = await comm.connect()
    assert connected and (await comm.receive_json_from())["type"] == "snapshot"
    await comm.send_json_to({"action": "sit", "id": "s"})
    replies = []
    while not any(r["type"] in ("ack", "error") for r in replies):
        replies.append(await comm.receive_json_from(timeout=10))
    assert any(r["type"] == "ack" for r in replies), replies
    await comm.send_json_to({"action": "sit_out", "id": "o"})
    refused = None
    while refused is None:
        reply = await comm.receive_json_from(timeout=10)
        if reply["type"] in ("ack", "error"):
            refused = reply
    assert refused["type"] == "error" and refused["code"] == "rate_limited", refused
    seat = await database_sync_to_async(PokerSeat.objects.get)(table=table, player=player)
    assert seat.auto_ante is True  # still dealt in: the refused sit-out changed nothing
    await comm.disconnect()


@pytest.mark.django_db
def test_the_reconciliation_command_exits_non_zero_on_a_doubled_cent(make_player, poker_table):
    """The reconciliation command exits non-zero when a table does not reconcile to the cent."""
    from django.core.management.base import CommandError

    from wallets.models import Account, Transaction
    from wallets.services import ledger_post

    players = [make_player() for _ in range(2)]
    _seated(poker_table, players)
    hand = poker_hand_start(table_id=poker_table.pk)
    hand = play_out(hand, seats_of(hand, players), strategy="calling_station")
    call_command("reconcile_poker")  # clean: no error
    seat = PokerSeat.objects.filter(table=poker_table).select_related("account").first()
    rake = Account.objects.get(pk=poker_table.rake_account_id)
    ledger_post(  # the hand paid twice: one cent more in a stack than its seat holds
        kind=Transaction.Kind.POKER_HAND,
        idempotency_key="tamper:cent",
        postings=[(seat.account, 1), (rake, -1)],
        memo="forged",
        table_ref=poker_table.pk,
        hand_ref=hand.pk,
        game="poker",
    )
    with pytest.raises(CommandError):
        call_command("reconcile_poker")


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_buy_in_over_the_socket_without_the_money_or_at_a_closed_table_is_refused_and_moves_nothing(
    make_player, make_poker_table
):
    """The buy-in's refusals on the socket (the service's are in test_money): the socket sends no
    amount, the buy-in is always the table's; what it cannot pay is refused."""
    from poker.services import poker_table_close
    from tests.sockets import ws_connect

    table = await database_sync_to_async(make_poker_table)()
    poor = await database_sync_to_async(make_player)(balance=1999)
    comm, _ = await ws_connect(URLRouter(websocket_urlpatterns), f"/ws/poker/{table.pk}/", poor)

    async def refused(code, **message):
        await comm.send_json_to({"id": "x", **message})
        while True:
            reply = await comm.receive_json_from(timeout=10)
            if reply["type"] in ("ack", "error"):
                break
        assert (reply["type"], reply.get("code")) == ("error", code), reply
        assert not await database_sync_to_async(PokerSeat.objects.filter(table=table).exists)()
        assert (await database_sync_to_async(wallet_balances)(user=poor)).available == 1999

    await refused("insufficient_funds", action="sit")
    await refused("seat_invalid", action="sit", seat=9)
    await refused("seat_invalid", action="sit", seat="1")
    await database_sync_to_async(poker_table_close)(actor=None, table_id=table.pk)
    await refused("table_closed", action="sit")
    await comm.disconnect()
