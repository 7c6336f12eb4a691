"""What a player's own pages read does not grow with the player's history or the
casino's: a page of their hands, their last results at a table and a page of their wallet
statement read about a page of rows, in the plan PostgreSQL keeps for any player (a
generic plan, forced here), among thousands of hands and ledger legs."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection

from tables.models import Hand, HandSeat
from tables.selectors import RECENT_LOOKBACK, player_hand_seats, player_recent_hand_seats
from tables.services.hands import hand_bet
from tables.services.seats import table_sit
from tests.conftest import require_postgres
from tests.plans import read_in_any_plan
from wallets.models import Account
from wallets.selectors import wallet_statement
from wallets.services import house_bankroll

pytestmark = pytest.mark.django_db(transaction=True)


def _hands_of(player, table, count: int, *, at) -> list[int]:
    """``count`` settled hands of ``player`` at ``table`` (copies of the live hand ``at``),
    each ended a second after the one before, after every hand the player has; their ids."""
    seat = HandSeat.objects.get(hand=at, player=player)
    hand_values = {f.attname: getattr(at, f.attname) for f in Hand._meta.concrete_fields if not f.primary_key}
    seat_values = {
        f.attname: getattr(seat, f.attname)
        for f in HandSeat._meta.concrete_fields
        if f.attname not in ("id", "hand_id")
    }
    nonce = Hand.objects.order_by("-nonce").values_list("nonce", flat=True).first()
    start = HandSeat.objects.filter(player=player).order_by("-history_at").values_list("history_at", flat=True).first()
    ended = [start + timedelta(seconds=1 + n) for n in range(count)]
    hands = Hand.objects.bulk_create(
        Hand(
            **{
                **hand_values,
                "table_id": table.pk,
                "nonce": nonce + 1 + n,
                "state": Hand.State.SETTLED,
                "settled_at": ended[n],
            }
        )
        for n in range(count)
    )
    HandSeat.objects.bulk_create(
        HandSeat(**{**seat_values, "net": -100, "history_at": hand.settled_at}, hand=hand) for hand in hands
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE tables_hand")
        cursor.execute("ANALYZE tables_handseat")
    return [hand.pk for hand in hands]


def test_a_page_of_a_players_hands_reads_a_page_among_thousands_of_their_hands(table, make_player):
    # Ordered by the time the history showed (the end, else the opening), PostgreSQL read
    # and sorted every hand the player ever played for each page.
    require_postgres()
    player = make_player()
    table_sit(user=player, table_id=table.pk)
    seat = hand_bet(user=player, table_id=table.pk, ante=table.tier.min_ante, jackpot=False)
    ids = _hands_of(player, table, 3000, at=Hand.objects.get(pk=seat.hand_id))

    def page() -> list[int]:
        return [played.hand_id for played in player_hand_seats(user=player)[:25]]

    got, read = read_in_any_plan(page, "tables_handseat")
    assert got == sorted(ids, reverse=True)[:25]  # the newest first
    assert read < 2 * 25, f"a page of 25 hands read {read} rows"


def test_the_last_results_at_a_table_read_a_bounded_look_back(table, make_table, make_player):
    # Filtered by the table out of every hand the player played, a player back at a table
    # after thousands of hands elsewhere read them all at every visit of the table's page.
    require_postgres()
    player = make_player()
    elsewhere = make_table("Bridgetown")
    table_sit(user=player, table_id=table.pk)
    seat = hand_bet(user=player, table_id=table.pk, ante=table.tier.min_ante, jackpot=False)
    here = _hands_of(player, table, 3, at=Hand.objects.get(pk=seat.hand_id))
    assert [s.hand_id for s in player_recent_hand_seats(user=player, table=table, count=5)] == here[::-1]

    _hands_of(player, elsewhere, 3000, at=Hand.objects.get(pk=seat.hand_id))
    got, read = read_in_any_plan(lambda: player_recent_hand_seats(user=player, table=table, count=5), "tables_handseat")
    assert got == []  # their last hands here are older than their last 500
    assert read <= 2 * RECENT_LOOKBACK, f"the look-up read {read} rows"


def test_a_page_of_the_wallet_statement_reads_a_page_among_the_whole_ledger(make_player):
    # Joined to the accounts by owner and kind, PostgreSQL walked the ledger's legs back
    # from the newest for a page, through every other player's movements.
    require_postgres()
    player = make_player(100_000)  # the cashier's deposit: the player's one leg so far
    wallet = Account.objects.get(owner=player, kind=Account.Kind.PLAYER_WALLET)
    other = make_player(100_000)
    other_wallet = Account.objects.get(owner=other, kind=Account.Kind.PLAYER_WALLET)
    with connection.cursor() as cursor:  # 3,000 newer movements of another player's money
        cursor.execute(
            "WITH t AS (INSERT INTO wallets_transaction (idempotency_key, fingerprint, kind, memo, created_at, mac, "
            "game) "
            "SELECT 'other-' || n, '', 'deposit', '', now(), '', '' FROM generate_series(1, 3000) AS n RETURNING id) "
            "INSERT INTO wallets_leg (transaction_id, account_id, side, amount) "
            "SELECT t.id, v.account, v.side, 100 FROM t CROSS JOIN (VALUES (%s, 'C'), (%s, 'D')) AS v(account, side)",
            [other_wallet.pk, house_bankroll().pk],
        )
        cursor.execute("ANALYZE wallets_leg")
        cursor.execute("ANALYZE wallets_account")

    def page() -> list[tuple[int, int]]:
        return [(leg.account_id, leg.amount) for leg in wallet_statement(user=player)[:25]]

    got, read = read_in_any_plan(page, "wallets_leg")
    assert got == [(wallet.pk, 100_000)]
    assert read < 25, f"a page of the statement read {read} legs"
