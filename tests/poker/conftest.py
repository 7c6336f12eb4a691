"""Poker room fixtures: a table from a SPEC B1 preset, players with money, a bot driver."""

from __future__ import annotations

import pytest

from casino.live import outbox
from poker import replay
from poker.services import poker_sit
from tests.factories import PokerTableFactory


@pytest.fixture(autouse=True)
def _fresh_state_cache():
    replay.forget_all()
    yield
    replay.forget_all()


@pytest.fixture
def sent(monkeypatch):
    """Every message the outbox sends (to the table's and the players' groups), as ``(group, message)``."""
    boxes: list[tuple[str, object]] = []
    monkeypatch.setattr(outbox, "flush", lambda box: boxes.extend(box))
    return boxes


@pytest.fixture
def make_poker_table(db):
    """``make_poker_table(game="seven_stud", preset="2-4", **options)``: a table
    (``tests.factories.PokerTableFactory``)."""

    def make(game: str = "seven_stud", preset: str = "2-4", **kwargs):
        return PokerTableFactory(game=game, preset=preset, **kwargs)

    return make


@pytest.fixture
def poker_table(make_poker_table):
    return make_poker_table()


@pytest.fixture
def three(make_player, poker_table):
    """Ann, Ben and Cat (€100 each) seated at ``poker_table``: its first hand is dealt."""
    players = [make_player(balance=10_000, username=name) for name in ("ann", "ben", "cat")]
    for user in players:
        poker_sit(user=user, table_id=poker_table.pk)
    return players
