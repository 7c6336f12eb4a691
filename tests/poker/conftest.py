"""Poker room fixtures: a table from a SPEC B1 preset, players with money, a bot driver."""

from __future__ import annotations

import pytest

from poker import replay
from tests.factories import PokerTableFactory


@pytest.fixture(autouse=True)
def _fresh_state_cache():
    replay.forget_all()
    yield
    replay.forget_all()


@pytest.fixture
def make_poker_table(db):
    """``make_poker_table(game="seven_stud", preset="2-4", **options)``: a table (``tests.factories.PokerTableFactory``)."""

    def make(game: str = "seven_stud", preset: str = "2-4", **kwargs):
        return PokerTableFactory(game=game, preset=preset, **kwargs)

    return make


@pytest.fixture
def poker_table(make_poker_table):
    return make_poker_table()
