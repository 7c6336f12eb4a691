"""Fixtures of the staff tests: exports and caches of their own, people of every role, a
day of play, one of everything an auditor URL names (the shared ones: tests/conftest.py)."""

from __future__ import annotations

import pytest

from backoffice import exports
from backoffice.models import ExportJob
from casino.access.roles import AUDITOR, CASHIER, MANAGER, PLAYER
from wallets.selectors import LedgerFilters


@pytest.fixture(autouse=True)
def _audit_settings(settings, tmp_path, monkeypatch):
    """Exports go to a temporary MEDIA_ROOT; the theoretical return uses a small sample and
    a fresh cache; export tasks run in the test (as under ``make run``) even when a broker
    is configured."""
    from casino.celery import app

    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.AUDIT_THEORETICAL_HANDS = 20_000
    # A cache of this test's own: with REDIS_URL the default cache outlives test runs.
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": str(tmp_path)}
    }
    monkeypatch.setitem(app.conf, "task_always_eager", True)


@pytest.fixture
def people(make_user, cashier, auditor):
    """One user of each role, by role name."""
    return {
        PLAYER: make_user(PLAYER, "someplayer"),
        CASHIER: cashier,
        MANAGER: make_user(MANAGER, "manager"),
        AUDITOR: auditor,
    }


@pytest.fixture
def mapi(api, manager):
    """The API client of a manager."""
    return api(manager)


DEALER_AK = "Ac Kd 7h 4s 2c"  # ace-king high: qualifies
DEALER_QJ = "Qc Jd 7h 4s 2c"  # does not qualify


@pytest.fixture
def casino_day(table, make_table, make_player, play_hand, rig_deck, pool, auditor):
    """A day of play: two tables, a royal flush that wins the meter (reset from the reserve
    and the house), fixed prizes, folds, a loss, and a top-up of the pool."""
    from jackpot.services import pool_top_up

    alice, bob = make_player(500_000, "alice"), make_player(500_000, "bob")
    other = make_table("Bridgetown", paytable="classic")
    hands = []
    rig_deck(["Ah Kh Qh Jh Th", "2s 2d 2h 9c 5d"], DEALER_AK)  # royal flush; trips
    hands.append(play_hand([(alice, 200, True, "raise"), (bob, 100, True, "raise")]))
    rig_deck(["3c 3d 8h 9s Kd", "4c 6d 8c Tc Qs"], DEALER_QJ)  # a pair raises; high card folds
    hands.append(play_hand([(alice, 300, False, "raise"), (bob, 100, True, "fold")]))
    rig_deck(["9h 9d 9c 9s 2d"], DEALER_AK)  # four of a kind at the classic table
    hands.append(play_hand([(alice, 500, True, "raise")], at=other))
    rig_deck(["2c 4d 6h 8s Td", "3c 5d 7h 9s Jh"], "As Ad 5c 7d Jc")  # the dealer's aces beat both
    hands.append(play_hand([(alice, 100, False, "fold"), (bob, 200, True, "raise")], at=other))
    pool_top_up(pool=pool, amount=12_345, actor=None, idempotency_key="day-top-up")
    return {"alice": alice, "bob": bob, "tables": [table, other], "hands": hands}


@pytest.fixture
def audit_objects(table, make_player, play_hand, auditor, pool):
    """One of everything an auditor URL names: a played hand, its player, the pool, a finished export."""
    player = make_player(50_000, "alice")
    hand = play_hand([(player, 100, True, "raise")])
    job = ExportJob.objects.create(
        format="csv", mode="file", filters=LedgerFilters().describe(), ledger_upto=10**9, requested_by=auditor
    )
    exports.export_file_run(job_id=job.pk)
    return {"job": job.pk, "hand": hand.pk, "player": player.pk, "pool": pool.pk}
