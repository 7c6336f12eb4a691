"""What a dealer step reads does not grow with the casino: its read under the table's lock
(``tables.locks``) finds the live hand and the money by key, in the plan PostgreSQL keeps
for any table (a generic plan, forced here), however many hands the table dealt and
however many players the casino holds."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from tables.locks import hand_lock, live_hand_lock
from tables.models import Hand
from tables.services.hands import hand_bet
from tables.services.seats import table_sit
from tests.conftest import require_postgres
from tests.plans import read_in_any_plan
from wallets.models import Account

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_bet_finds_the_live_hand_alone_at_a_table_that_dealt_thousands(table, make_player):
    # With the live states as parameters, the plan for any table read every hand of the
    # table, and PostgreSQL planned the read anew at every bet.
    require_postgres()
    player = make_player()
    table_sit(user=player, table_id=table.pk)  # opens the live hand
    live = Hand.objects.live().get(table=table)
    _deal_history(live, 3000)
    read, hands_read = read_in_any_plan(lambda: live_hand_lock(table.pk, player_id=player.pk), "tables_hand")
    assert read.hand.pk == live.pk
    assert hands_read <= 5


def test_a_steps_money_is_found_by_key_among_thousands_of_players(table, make_player):
    # As ``owner IN (the hand's players) OR id = the house account``, the accounts were
    # tested one by one against the hand's players: every account of the casino, at
    # every bet and decision.
    require_postgres()
    others = get_user_model().objects.bulk_create(
        get_user_model()(username=f"other{n}", password="!") for n in range(4000)
    )
    Account.objects.bulk_create(
        Account(code=f"other:{user.pk}:{kind}", kind=kind, name="other", owner=user)
        for user in others
        for kind in (Account.Kind.PLAYER_WALLET, Account.Kind.PLAYER_IN_PLAY)
    )
    players = [make_player() for _ in range(2)]  # the newest: the last ids
    for player in players:
        table_sit(user=player, table_id=table.pk)
    seat = hand_bet(user=players[0], table_id=table.pk, ante=table.tier.min_ante, jackpot=False)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE wallets_account")
    expected = sorted(
        [a.pk for a in Account.objects.filter(owner__in=players, kind__in=["player_wallet", "player_in_play"])]
        + [table.house_account_id]
    )

    (_, _, money), accounts_read = read_in_any_plan(lambda: hand_lock(seat.hand_id), "wallets_account")
    assert sorted(money.by_id) == [a for a in expected if Account.objects.get(pk=a).owner_id != players[1].pk]
    assert accounts_read <= 3 * len(money.by_id)

    live, accounts_read = read_in_any_plan(lambda: live_hand_lock(table.pk, player_id=players[1].pk), "wallets_account")
    assert sorted(live.money.by_id) == expected  # everybody at the table, and the house
    assert (
        live.money.wallet(players[1].pk).balance == Account.objects.get(owner=players[1], kind="player_wallet").balance
    )
    assert accounts_read <= 3 * len(live.money.by_id)


def test_the_table_page_and_a_seat_find_the_live_hand_alone_at_a_table_that_dealt_thousands(table, make_player):
    # As ``table.hands.live().first()`` (``ORDER BY id LIMIT 1``, the states parameters),
    # the plan PostgreSQL settles on after five runs read the casino's hands from the first.
    require_postgres()
    from tables.selectors import table_live_hand
    from tables.services.seats import table_leave

    players = [make_player() for _ in range(4)]
    table_sit(user=players[0], table_id=table.pk)
    live = Hand.objects.live().get(table=table)
    _deal_history(live, 3000)

    found, hands_read = read_in_any_plan(lambda: table_live_hand(table=table), "tables_hand")
    assert found.pk == live.pk and found.table is table
    assert hands_read <= 2

    def sit_and_leave():
        table_sit(user=players[1], table_id=table.pk)
        table_leave(user=players[1], table_id=table.pk)

    _, hands_read = read_in_any_plan(sit_and_leave, "tables_hand")
    assert hands_read <= 4
    assert Hand.objects.live().get(table=table).pk == live.pk  # no second hand opened


def test_a_decision_reads_and_writes_its_hand_and_seats_by_key_at_a_table_that_dealt_thousands(table, make_player):
    require_postgres()
    from django.db import transaction

    from tables.models import HandSeat
    from tables.services.hands import hand_decide
    from tests.plans import rows_read

    players = [make_player() for _ in range(2)]
    for player in players:
        table_sit(user=player, table_id=table.pk)
    seats = [hand_bet(user=player, table_id=table.pk, ante=table.tier.min_ante, jackpot=False) for player in players]
    live = Hand.objects.get(pk=seats[0].hand_id)
    _deal_history(live, 3000)
    history = {
        f.attname: getattr(seats[0], f.attname)
        for f in HandSeat._meta.concrete_fields
        if f.attname not in ("id", "hand_id")
    }
    HandSeat.objects.bulk_create(HandSeat(**history, hand=hand) for hand in Hand.objects.exclude(pk=live.pk))
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE tables_handseat")

    with transaction.atomic():
        hands_before, seats_before = rows_read("tables_hand"), rows_read("tables_handseat")
        hand_decide(user=players[0], hand_id=live.pk, action="raise")
        hands_read, seats_read = rows_read("tables_hand") - hands_before, rows_read("tables_handseat") - seats_before
    assert hands_read <= 4 and seats_read <= 6
    assert HandSeat.objects.get(pk=seats[0].pk).raise_amount == 2 * seats[0].ante


def _deal_history(live: Hand, count: int) -> None:
    """``count`` settled hands before ``live`` at its table, and the planner's statistics."""
    history = {f.attname: getattr(live, f.attname) for f in Hand._meta.concrete_fields if not f.primary_key}
    Hand.objects.bulk_create(
        Hand(**{**history, "nonce": live.nonce + 1 + n, "state": Hand.State.SETTLED}) for n in range(count)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE tables_hand")
