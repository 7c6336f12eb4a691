"""The poker rake report from daily rollups: the ledger's figures before and after the
days close; a tampered rollup is found by the check."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import F
from django.utils import timezone

from backoffice import reports
from backoffice.models import RakeDay
from backoffice.rollups import rollups_check, rollups_close
from poker import audit as poker_audit
from poker.services import poker_hand_start
from tests.poker.helpers import play_out, seats_of
from tests.poker.test_audit import hold, seat_three

LATER = timedelta(days=2)


@pytest.fixture
def poker_day(poker_table, make_player):
    players = seat_three(poker_table, make_player)
    for seed in range(2):
        hand = poker_hand_start(table_id=poker_table.pk)
        play_out(hand, seats_of(hand, players), strategy="calling_station", seed=seed)
        hold(poker_table)
    return poker_table


def test_the_rake_report_is_the_ledgers_before_and_after_the_days_close(poker_day):
    direct = poker_audit.poker_rake_report()

    def shape(r):
        rows = [(x.day, x.table, x.hands, x.pots, x.record_rake, x.rake) for x in r["rows"]]
        return rows + [(t["row"].rake, t["balance"], t["balance_ok"]) for t in r["by_table"]]

    assert shape(reports.poker_rake_report()) == shape(direct) and direct["total"].rake > 0
    rollups_close(now=timezone.now() + LATER)
    assert RakeDay.objects.exists()
    assert shape(reports.poker_rake_report()) == shape(direct)
    today = timezone.localdate()
    assert shape(reports.poker_rake_report(date_from=today, date_to=today)) == shape(
        poker_audit.poker_rake_report(date_from=today, date_to=today)
    )
    assert rollups_check() == []
    RakeDay.objects.update(record_rake=F("record_rake") + 1)
    assert any("poker table" in p for p in rollups_check())
