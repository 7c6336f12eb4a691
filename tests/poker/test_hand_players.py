"""A player's poker hands are found through the hand's players (``PokerHandPlayer``), by
an index: every settled hand, a page at a time, newest first, without reading the hands
of everybody else."""

from __future__ import annotations

import importlib
import re
from datetime import timedelta

import pytest
from django.apps import apps
from django.db import connection
from django.urls import reverse

from casino.cents import parse_cents
from casino.money import money
from poker.models import PokerHand, PokerHandPlayer
from poker.selectors import poker_hands_of_player
from poker.services import poker_hand_cancel
from tests.conftest import require_postgres
from tests.plans import read_in_any_plan
from tests.poker.helpers import play_out, seats_of

pytestmark = pytest.mark.django_db


def _live(table) -> PokerHand:
    return PokerHand.objects.get(table=table, state=PokerHand.State.LIVE)


def test_a_settled_hand_records_each_player_with_seat_and_the_records_net(poker_table, three):
    hand = _live(poker_table)
    hand = play_out(hand, seats_of(hand, three), strategy="calling_station", seed=1)
    rows = {row.player_id: row for row in PokerHandPlayer.objects.filter(hand=hand)}
    assert set(rows) == {s["user_id"] for s in hand.seats}
    for s in hand.seats:
        row = rows[s["user_id"]]
        assert row.seat == s["seat"]
        assert row.net == parse_cents(hand.record["net"][str(s["seat"])])
        assert row.ended_at == hand.ended_at
    assert sum(row.net for row in rows.values()) == -hand.rake  # the pot went round, less the rake


def test_a_cancelled_hand_is_in_nobodys_history(poker_table, three, browser):
    hand = poker_hand_cancel(hand_id=_live(poker_table).pk, reason="test")
    assert not PokerHandPlayer.objects.filter(hand=hand).exists()
    assert reverse("poker-hand", args=[hand.pk]) not in browser(three[0]).get(reverse("poker-hands")).content.decode()


def _copies(hand: PokerHand, count: int) -> list[PokerHand]:
    """``count`` more settled hands like ``hand`` at its table, an hour apart going back."""
    copies = PokerHand.objects.bulk_create(
        [
            PokerHand(
                table_id=hand.table_id,
                number=hand.number + 1000 + i,
                server_seed=hand.server_seed,
                commitment=hand.commitment,
                client_seed=hand.client_seed,
                seats=hand.seats,
                actions=hand.actions,
                state=PokerHand.State.ENDED,
                version=hand.version,
                record=hand.record,
                pot_total=hand.pot_total,
                rake=hand.rake,
                ended_at=hand.ended_at - timedelta(hours=i + 1),
            )
            for i in range(count)
        ]
    )
    PokerHandPlayer.objects.bulk_create(
        [
            PokerHandPlayer(hand=copy, player=row.player, seat=row.seat, net=row.net, ended_at=copy.ended_at)
            for copy in copies
            for row in PokerHandPlayer.objects.filter(hand=hand)
        ]
    )
    return copies


def test_the_history_pages_reach_every_hand_not_only_the_last_hundred(poker_table, three, browser):
    """Until now the history held a player's last 100 hands; the 101st and older were gone."""
    hand = _live(poker_table)
    hand = play_out(hand, seats_of(hand, three), strategy="calling_station", seed=2)
    oldest = _copies(hand, 120)[-1]
    client = browser(three[0])
    first = client.get(reverse("poker-hands")).content.decode()
    assert reverse("poker-hand", args=[hand.pk]) in first  # the newest first
    last, pages = first, 1
    while (older := re.search(r'href="\?(before=\d+)" rel="next"', last)) is not None:  # 121 hands, 25 a page
        last, pages = client.get(reverse("poker-hands") + f"?{older.group(1)}").content.decode(), pages + 1
    assert pages == 5 and reverse("poker-hand", args=[oldest.pk]) in last
    seat = next(s["seat"] for s in hand.seats if s["user_id"] == three[0].pk)
    assert money(parse_cents(hand.record["net"][str(seat)]), signed=True) in last


def test_the_migration_fills_the_hands_settled_before_it(poker_table, three):
    hand = _live(poker_table)
    hand = play_out(hand, seats_of(hand, three), strategy="random_legal", seed=4)
    written = sorted(PokerHandPlayer.objects.filter(hand=hand).values_list("player_id", "seat", "net", "ended_at"))
    PokerHandPlayer.objects.all().delete()
    migration = importlib.import_module("poker.migrations.0002_hand_players")
    if connection.vendor == "postgresql":  # its one statement
        with connection.schema_editor() as editor:
            migration.fill(apps, editor)
        assert (
            sorted(PokerHandPlayer.objects.filter(hand=hand).values_list("player_id", "seat", "net", "ended_at"))
            == written
        )
        PokerHandPlayer.objects.all().delete()
    migration.fill(apps, None)  # row by row, on any database
    assert (
        sorted(PokerHandPlayer.objects.filter(hand=hand).values_list("player_id", "seat", "net", "ended_at")) == written
    )


def test_a_players_page_of_hands_reads_that_page_not_every_hand(poker_table, three, make_player):
    """Among thousands of other players' hands, a page of a player's history reads a page
    of rows, in the plan PostgreSQL keeps for any values (what a prepared statement settles
    on): the old search through every hand's ``seats`` read them all."""
    require_postgres()
    hand = _live(poker_table)
    hand = play_out(hand, seats_of(hand, three), strategy="calling_station", seed=5)
    others = [make_player(username=f"other{i}") for i in range(2)]
    with connection.cursor() as cursor:  # 3,000 hands of two other players, newer than the three's
        cursor.execute(
            "INSERT INTO poker_pokerhand (table_id, number, server_seed, commitment, client_seed, seats, actions, "
            "preactions, state, version, pot_total, rake, cancel_reason, started_at, updated_at, ended_at) "
            "SELECT %s, 100000 + n, '', '', '', '[]', '[]', '{}', 'ended', 0, 0, 0, '', now(), now(), "
            "now() + n * interval '1 second' "
            "FROM generate_series(1, 3000) AS n",
            [poker_table.pk],
        )
        cursor.execute(
            "INSERT INTO poker_pokerhandplayer (hand_id, player_id, seat, net, ended_at) "
            "SELECT h.id, p.id, p.seat, 0, h.ended_at FROM poker_pokerhand h "
            "CROSS JOIN (VALUES (%s, 1), (%s, 2)) AS p(id, seat) WHERE h.number > 100000",
            [others[0].pk, others[1].pk],
        )
        cursor.execute("ANALYZE poker_pokerhand")
        cursor.execute("ANALYZE poker_pokerhandplayer")
    copies = _copies(hand, 200)  # the three's: 201 hands

    def page() -> list[tuple[int, str]]:
        return [(played.hand_id, played.hand.table.name) for played in poker_hands_of_player(user=three[0])[:25]]

    expected = [(h.pk, poker_table.name) for h in [hand, *copies[:24]]]
    for table in ("poker_pokerhandplayer", "poker_pokerhand"):
        got, read = read_in_any_plan(page, table)
        assert got == expected
        assert read < 2 * 25, f"a page of 25 hands read {read} rows of {table}"  # not the player's 201


def test_the_reconciliation_reports_a_hands_players_that_differ_from_its_record(poker_table, three):
    from poker.selectors import poker_reconciliation

    hand = _live(poker_table)
    hand = play_out(hand, seats_of(hand, three), strategy="calling_station", seed=6)
    assert poker_reconciliation()[0]["problems"] == []
    row = PokerHandPlayer.objects.filter(hand=hand).first()
    PokerHandPlayer.objects.filter(pk=row.pk).update(net=row.net + 1)
    assert poker_reconciliation()[0]["problems"] == [
        f"hand {hand.number}: its players as the history finds them differ from its seats and record"
    ]
    PokerHandPlayer.objects.filter(pk=row.pk).delete()
    assert len(poker_reconciliation()[0]["problems"]) == 1


def test_the_reconciliation_reads_in_as_many_queries_for_three_hands_as_for_one(poker_table, three):
    """The auditor's poker reconciliation page checks every settled hand: its queries do not grow with them."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from poker.selectors import poker_reconciliation
    from poker.services import poker_hand_start

    counts = []
    for seed in range(3):
        hand = _live(poker_table) if seed == 0 else poker_hand_start(table_id=poker_table.pk)
        play_out(hand, seats_of(hand, three), strategy="calling_station", seed=10 + seed)
        if seed in (0, 2):
            with CaptureQueriesContext(connection) as captured:
                rows = poker_reconciliation()
            assert rows[0]["problems"] == [] and rows[0]["hands"] == seed + 1
            counts.append(len(captured))
    assert counts[0] == counts[1], f"one hand: {counts[0]} queries, three: {counts[1]}"
