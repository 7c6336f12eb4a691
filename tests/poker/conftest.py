"""Poker room fixtures: a table from a SPEC B1 preset, players with money, a bot driver."""

from __future__ import annotations

import pytest

from poker import replay
from poker.services import poker_table_create


@pytest.fixture(autouse=True)
def _fresh_state_cache():
    replay.forget_all()
    yield
    replay.forget_all()


@pytest.fixture
def make_poker_table(db):
    count = {"n": 0}

    def make(game: str = "seven_stud", preset: str = "2-4", **kwargs):
        count["n"] += 1
        return poker_table_create(name=kwargs.pop("name", f"{game} {preset} #{count['n']}"), game=game, preset=preset, **kwargs)

    return make


@pytest.fixture
def poker_table(make_poker_table):
    return make_poker_table()
