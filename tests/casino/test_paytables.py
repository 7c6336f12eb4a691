"""Pay tables and the jackpot schedule: SPEC values, JSON round trips, validation."""

from __future__ import annotations

import json
from dataclasses import FrozenInstanceError
from decimal import Decimal
from typing import Any

import pytest

from casino.game.evaluator import Category
from casino.game.paytables import (
    DEFAULT_JACKPOT_SCHEDULE,
    DEFAULT_PAYTABLE,
    PAYTABLES,
    JackpotPrize,
    JackpotSchedule,
    PayTable,
    jackpot_prize,
)

C = Category
HIGH_TO_LOW = sorted(Category, reverse=True)


def test_24h_is_the_default_and_matches_spec() -> None:
    assert DEFAULT_PAYTABLE == "24h"
    table = PAYTABLES["24h"]
    assert [table.qualified[c] for c in HIGH_TO_LOW] == [200, 50, 20, 10, 6, 4, 3, 2, 1, 1]
    assert dict(table.not_qualified) == {C.ROYAL_FLUSH: 100, C.STRAIGHT_FLUSH: 25, C.FOUR_OF_A_KIND: 5, C.FULL_HOUSE: 3}


def test_classic_matches_spec() -> None:
    table = PAYTABLES["classic"]
    assert [table.qualified[c] for c in HIGH_TO_LOW] == [100, 50, 20, 7, 5, 4, 3, 2, 1, 1]
    assert dict(table.not_qualified) == {}


def test_raise_odds_none_means_push() -> None:
    table = PAYTABLES["24h"]
    assert table.raise_odds(C.FLUSH, dealer_qualified=True) == 6
    assert table.raise_odds(C.FULL_HOUSE, dealer_qualified=False) == 3
    assert table.raise_odds(C.FLUSH, dealer_qualified=False) is None
    assert PAYTABLES["classic"].raise_odds(C.ROYAL_FLUSH, dealer_qualified=False) is None


@pytest.mark.parametrize("name", sorted(PAYTABLES))
def test_paytable_json_round_trip(name: str) -> None:
    table = PAYTABLES[name]
    data = json.loads(json.dumps(table.to_dict()))
    assert data["qualified"]["royal_flush"] == table.qualified[C.ROYAL_FLUSH]
    assert list(data["qualified"]) == [c.key for c in HIGH_TO_LOW]
    assert PayTable.from_dict(data) == table
    assert hash(PayTable.from_dict(data)) == hash(table)


def test_paytable_is_immutable() -> None:
    table = PAYTABLES["24h"]
    with pytest.raises(FrozenInstanceError):
        table.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        table.qualified[C.FLUSH] = 100  # type: ignore[index]
    source = {c: 1 for c in Category}
    copy = PayTable(name="flat", qualified=source, not_qualified={})
    source[C.HIGH_CARD] = 5
    assert copy.qualified[C.HIGH_CARD] == 1


def _table(**changes: Any) -> dict[str, Any]:
    data = PAYTABLES["24h"].to_dict()
    for column, values in changes.items():
        data[column] = values if column == "name" else {**data[column], **values}
    return data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (_table(qualified={"flush": -1}), "Dealer qualifies: Flush must be at least 0, not -1"),
        (_table(qualified={"flush": 6.0}), "Flush must be a whole number, not 6.0"),
        (_table(qualified={"flush": True}), "Flush must be a whole number, not True"),
        (_table(qualified={"flush": Decimal("6.5")}), r"Flush must be a whole number, not 6\.5$"),  # as JSON sends it
        (_table(qualified={"straight": 7}), r"Flush pays 6 to 1, less than Straight \(7 to 1\)"),
        (_table(not_qualified={"flush": 4}), "Dealer does not qualify: Full house pays 3 to 1, less than Flush"),
        (_table(not_qualified={"two_pair": 1}), "Three of a kind pays 0 to 1, less than Two pair"),
        (_table(qualified={"pair": 1}), "Dealer qualifies: 'pair' is not a hand; the hands are high_card, one_pair"),
        (_table(name=""), "A pay table needs a name"),
        ({"name": "x", "qualified": {}}, "exactly the fields"),
        ({**_table(), "extra": 1}, "exactly the fields"),
        ([], "exactly the fields"),
    ],
)
def test_paytable_validation(data: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PayTable.from_dict(data)


def test_qualified_column_must_cover_every_category() -> None:
    data = PAYTABLES["classic"].to_dict()
    del data["qualified"]["high_card"]
    with pytest.raises(ValueError, match="Dealer qualifies: no odds for High card"):
        PayTable.from_dict(data)


def test_default_jackpot_schedule_matches_spec() -> None:
    prizes = {c: jackpot_prize(DEFAULT_JACKPOT_SCHEDULE, c) for c in Category}
    assert prizes[C.ROYAL_FLUSH] == JackpotPrize(C.ROYAL_FLUSH, "percent", 100)
    assert {c: p.value for c, p in prizes.items() if p and p.kind == "fixed"} == {
        C.STRAIGHT_FLUSH: 125_000,
        C.FOUR_OF_A_KIND: 25_000,
        C.FULL_HOUSE: 2_500,
        C.FLUSH: 1_500,
        C.STRAIGHT: 300,
        C.THREE_OF_A_KIND: 200,
    }
    assert prizes[C.TWO_PAIR] is prizes[C.ONE_PAIR] is prizes[C.HIGH_CARD] is None
    assert DEFAULT_JACKPOT_SCHEDULE.categories() == HIGH_TO_LOW[:7]


def test_jackpot_schedule_json_round_trip() -> None:
    data = json.loads(json.dumps(DEFAULT_JACKPOT_SCHEDULE.to_dict()))
    assert data == {
        "percent_prizes": {"royal_flush": 100},
        "fixed_prizes": {
            "straight_flush": 125000,
            "four_of_a_kind": 25000,
            "full_house": 2500,
            "flush": 1500,
            "straight": 300,
            "three_of_a_kind": 200,
        },
    }
    assert JackpotSchedule.from_dict(data) == DEFAULT_JACKPOT_SCHEDULE


def _schedule(percent: dict[str, Any] | None = None, fixed: dict[str, Any] | None = None) -> dict[str, Any]:
    data = DEFAULT_JACKPOT_SCHEDULE.to_dict()
    return {
        "percent_prizes": {**data["percent_prizes"], **(percent or {})},
        "fixed_prizes": {**data["fixed_prizes"], **(fixed or {})},
    }


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (_schedule(percent={"royal_flush": 0}), "Percent of the meter: Royal flush must be from 1 to 100, not 0"),
        (_schedule(percent={"royal_flush": 101}), "Royal flush must be from 1 to 100, not 101"),
        (_schedule(fixed={"flush": 0}), "Fixed prize: Flush must be at least 1, not 0"),
        (_schedule(fixed={"flush": 15.5}), "Flush must be a whole number"),
        (_schedule(fixed={"royal_flush": 10}), "Royal flush: both a percent and a fixed prize"),
        (_schedule(fixed={"flush": 5_000}), r"Full house wins €25\.00, less than Flush \(€50\.00\)"),
        (_schedule(fixed={"two_pair": 300}), r"Three of a kind wins €2\.00, less than Two pair \(€3\.00\)"),
        ({"percent_prizes": {}}, "exactly the fields"),
    ],
)
def test_jackpot_schedule_validation(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        JackpotSchedule.from_dict(data)


def test_a_gap_in_the_schedule_is_rejected() -> None:
    data = _schedule()
    del data["fixed_prizes"]["straight"]
    with pytest.raises(ValueError, match="Straight must win a prize, as Three of a kind does"):
        JackpotSchedule.from_dict(data)
