"""A step's read on PostgreSQL (one call of its read function) gives the rows the ORM's
queries give (the path SQLite runs): the same models, every field equal, in the same
order, with the same relations set; and nothing for a hand or table that is not there."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from tables.locks import hand_read_by_function, hand_read_by_orm, live_hand_read_by_function, live_hand_read_by_orm
from tables.models import Hand
from tables.services.hands import hand_bet
from tables.services.seats import table_sit
from tests.conftest import require_postgres
from wallets import responsible
from wallets.models import GamingLimit

pytestmark = pytest.mark.django_db


def _fields(obj) -> dict | None:
    if obj is None:
        return None
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


def _accounts(money) -> list[dict]:
    return [_fields(money.by_id[pk]) for pk in sorted(money.by_id)]


def _table(table) -> dict:
    seats = None if table.seats_read is None else [_fields(seat) for seat in table.seats_read]
    rules = [_fields(table.tier), _fields(table.paytable), _fields(table.pool)]
    return {"table": _fields(table), "rules": rules, "seats": seats}


@pytest.fixture
def mid_hand(table, make_player):
    """Three seated players, two bets (with the jackpot chip) in the live hand, a loss limit
    and a finished self-exclusion for the third; the live hand and its players."""
    players = [make_player(balance=10_000) for _ in range(3)]
    for player in players:
        table_sit(user=player, table_id=table.pk)
    for player in players[:2]:
        seat = hand_bet(user=player, table_id=table.pk, ante=100, jackpot=True)
    GamingLimit.objects.create(player=players[2], kind=GamingLimit.Kind.LOSS, period="day", amount=5_000)
    protection = responsible.PlayerProtection.objects.create(player=players[2], reality_check_minutes=30)
    protection.excluded_until = timezone.now() - timedelta(days=1)
    protection.save()
    return Hand.objects.get(pk=seat.hand_id), players


def test_a_hand_s_read_is_the_same_by_function_and_by_orm(mid_hand):
    require_postgres()
    hand, _ = mid_hand
    with transaction.atomic():
        reads = [read(hand.pk, None) for read in (hand_read_by_function, hand_read_by_orm)]
    (f_hand, f_seats, f_money), (o_hand, o_seats, o_money) = reads
    assert _fields(f_hand) == _fields(o_hand) and f_hand.version_read == o_hand.version_read == hand.version
    assert _table(f_hand.table) == _table(o_hand.table)
    assert [_fields(s) for s in f_seats] == [_fields(s) for s in o_seats] and len(f_seats) == 2
    assert [s.player.get_username() for s in f_seats] == [s.player.get_username() for s in o_seats]
    assert _accounts(f_money) == _accounts(o_money) and len(f_money.by_id) == 5  # two players' two, the house
    with transaction.atomic():
        assert hand_read_by_function(hand.pk, hand.table_id + 1) is None is hand_read_by_orm(hand.pk, hand.table_id + 1)
        assert hand_read_by_function(hand.pk + 1000, None) is None is hand_read_by_orm(hand.pk + 1000, None)


def test_a_live_hand_s_read_is_the_same_by_function_and_by_orm(mid_hand, table, make_player):
    require_postgres()
    hand, players = mid_hand
    for player in players:
        with transaction.atomic():
            by_function = live_hand_read_by_function(table.pk, player.pk)
            by_orm = live_hand_read_by_orm(table.pk, player.pk)
        assert _fields(by_function.hand) == _fields(by_orm.hand) and by_function.hand.pk == hand.pk
        assert _table(by_function.table) == _table(by_orm.table)
        assert [_fields(s) for s in by_function.seats] == [_fields(s) for s in by_orm.seats]
        assert [_fields(s) for s in by_function.table_seats] == [_fields(s) for s in by_orm.table_seats]
        assert _accounts(by_function.money) == _accounts(by_orm.money) and len(by_function.money.by_id) == 7
        facts = [by_function.stake_facts, by_orm.stake_facts]
        assert _fields(facts[0].protection) == _fields(facts[1].protection)
        assert [_fields(limit) for limit in facts[0].loss_limits] == [_fields(limit) for limit in facts[1].loss_limits]
    assert by_function.stake_facts.protection is not None and len(by_function.stake_facts.loss_limits) == 1

    empty = table.__class__.objects.exclude(pk=table.pk).first()
    with transaction.atomic():
        if empty is not None:  # a table with no live hand
            for read in (live_hand_read_by_function, live_hand_read_by_orm):
                found = read(empty.pk, players[0].pk)
                assert found.hand is None and found.seats == []
        assert live_hand_read_by_function(10**9, players[0].pk) is None is live_hand_read_by_orm(10**9, players[0].pk)


@pytest.mark.parametrize("bad", [2**63, -(2**63) - 1, 10**30, True, "3", 2.0])
def test_an_id_that_cannot_be_a_key_finds_no_hand_and_no_table(bad, table):
    from casino.http.errors import NotFound
    from tables.locks import hand_lock, live_hand_lock

    with pytest.raises(NotFound) as no_hand, transaction.atomic():
        hand_lock(bad)
    with pytest.raises(NotFound) as no_table, transaction.atomic():
        live_hand_lock(bad, player_id=1)
    assert (no_hand.value.code, no_table.value.code) == ("hand_not_found", "table_not_found")


def test_the_api_answers_404_for_a_hand_id_beyond_any_key(make_player, api):
    answer = api(make_player()).post(f"/api/hands/{10**25}/fold/", {}, format="json")
    assert answer.status_code == 404 and answer.json()["code"] in ("not_found", "hand_not_found")
