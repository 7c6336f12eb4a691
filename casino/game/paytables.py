"""Pay tables for the raise (SPEC A5) and the jackpot prize schedule (SPEC A6), as data.

Both are immutable, validated on construction and round-trip through JSON-able dicts
keyed by the categories' machine names, so the database can store operator tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, Literal

from casino.game.evaluator import Category

QUALIFIED: Final = "qualified"
NOT_QUALIFIED: Final = "not_qualified"
Column = Literal["qualified", "not_qualified"]


def _frozen(mapping: Mapping[Category, int], what: str) -> Mapping[Category, int]:
    if not isinstance(mapping, Mapping):
        raise ValueError(f"{what} must be a mapping of hand categories to ints")
    for category in mapping:
        if not isinstance(category, Category):
            raise ValueError(f"{what}: {category!r} is not a Category")
    return MappingProxyType({c: mapping[c] for c in sorted(mapping, reverse=True)})


def _check_ints(mapping: Mapping[Category, int], what: str, *, low: int, high: int | None = None) -> None:
    for category, value in mapping.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{what}: {category.key} must be an int, got {value!r}")
        if value < low or (high is not None and value > high):
            bound = f"{low}..{high}" if high is not None else f">= {low}"
            raise ValueError(f"{what}: {category.key} must be {bound}, got {value}")


def _check_monotone(values: Mapping[Category, int], what: str) -> None:
    """Ascending categories must never have a smaller value than a lower category."""
    best: tuple[Category, int] | None = None
    for category in sorted(values):
        if best is not None and values[category] < best[1]:
            raise ValueError(
                f"{what}: {category.key} pays {values[category]}, less than "
                f"{best[0].key} ({best[1]}); a higher hand must never pay less"
            )
        best = (category, values[category])


def _parse_column(data: Any, what: str) -> dict[Category, int]:
    if not isinstance(data, Mapping):
        raise ValueError(f"{what} must be an object mapping category names to ints")
    return {Category.from_key(key): value for key, value in data.items()}


def _check_fields(data: Any, expected: set[str], what: str) -> None:
    if not isinstance(data, Mapping) or set(data) != expected:
        got = sorted(data) if isinstance(data, Mapping) else type(data).__name__
        raise ValueError(f"{what} needs exactly the fields {sorted(expected)}, got {got}")


@dataclass(frozen=True)
class PayTable:
    """Raise odds "N to 1" per category, in two columns: dealer qualified / not qualified.

    Every category must be in ``qualified``. A category missing from ``not_qualified``
    means the raise pushes when the dealer does not qualify.
    """

    name: str
    qualified: Mapping[Category, int] = field(hash=False)
    not_qualified: Mapping[Category, int] = field(hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "qualified", _frozen(self.qualified, f"pay table {self.name!r} qualified"))
        object.__setattr__(self, "not_qualified", _frozen(self.not_qualified, f"pay table {self.name!r} not_qualified"))
        self.validate()

    def validate(self) -> None:
        """Raise ValueError unless the odds are non-negative ints and never fall as hands rise."""
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError("a pay table needs a non-empty name")
        missing = [c.key for c in Category if c not in self.qualified]
        if missing:
            raise ValueError(f"pay table {self.name!r} qualified: no odds for {', '.join(missing)}")
        for column in (QUALIFIED, NOT_QUALIFIED):
            what = f"pay table {self.name!r} {column}"
            odds = getattr(self, column)
            _check_ints(odds, what, low=0)
            _check_monotone({c: odds.get(c, 0) for c in Category}, what)

    def raise_odds(self, category: Category, *, dealer_qualified: bool) -> int | None:
        """Odds paid on the raise for ``category``; None means the raise pushes."""
        return (self.qualified if dealer_qualified else self.not_qualified).get(category)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form: ``{"name", "qualified": {key: odds}, "not_qualified": {key: odds}}``."""
        return {
            "name": self.name,
            QUALIFIED: {c.key: odds for c, odds in self.qualified.items()},
            NOT_QUALIFIED: {c.key: odds for c, odds in self.not_qualified.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PayTable:
        """Inverse of ``to_dict``; raises ValueError for anything malformed."""
        _check_fields(data, {"name", QUALIFIED, NOT_QUALIFIED}, "a pay table")
        return cls(
            name=data["name"],
            qualified=_parse_column(data[QUALIFIED], QUALIFIED),
            not_qualified=_parse_column(data[NOT_QUALIFIED], NOT_QUALIFIED),
        )


PAYTABLES: Mapping[str, PayTable] = MappingProxyType(
    {
        "24h": PayTable(
            name="24h",
            qualified={
                Category.ROYAL_FLUSH: 200,
                Category.STRAIGHT_FLUSH: 50,
                Category.FOUR_OF_A_KIND: 20,
                Category.FULL_HOUSE: 10,
                Category.FLUSH: 6,
                Category.STRAIGHT: 4,
                Category.THREE_OF_A_KIND: 3,
                Category.TWO_PAIR: 2,
                Category.ONE_PAIR: 1,
                Category.HIGH_CARD: 1,
            },
            not_qualified={
                Category.ROYAL_FLUSH: 100,
                Category.STRAIGHT_FLUSH: 25,
                Category.FOUR_OF_A_KIND: 5,
                Category.FULL_HOUSE: 3,
            },
        ),
        "classic": PayTable(
            name="classic",
            qualified={
                Category.ROYAL_FLUSH: 100,
                Category.STRAIGHT_FLUSH: 50,
                Category.FOUR_OF_A_KIND: 20,
                Category.FULL_HOUSE: 7,
                Category.FLUSH: 5,
                Category.STRAIGHT: 4,
                Category.THREE_OF_A_KIND: 3,
                Category.TWO_PAIR: 2,
                Category.ONE_PAIR: 1,
                Category.HIGH_CARD: 1,
            },
            not_qualified={},
        ),
    }
)
DEFAULT_PAYTABLE = "24h"


@dataclass(frozen=True)
class JackpotPrize:
    """What a category wins on the jackpot bet: a percentage of the meter or fixed cents."""

    category: Category
    kind: Literal["percent", "fixed"]
    value: int


@dataclass(frozen=True)
class JackpotSchedule:
    """Jackpot prizes: ``percent_prizes`` in whole percent of the meter, ``fixed_prizes`` in cents."""

    percent_prizes: Mapping[Category, int] = field(hash=False)
    fixed_prizes: Mapping[Category, int] = field(hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "percent_prizes", _frozen(self.percent_prizes, "percent_prizes"))
        object.__setattr__(self, "fixed_prizes", _frozen(self.fixed_prizes, "fixed_prizes"))
        self.validate()

    def validate(self) -> None:
        """Raise ValueError unless prizes are sane and a higher hand never wins less."""
        _check_ints(self.percent_prizes, "percent_prizes", low=1, high=100)
        _check_ints(self.fixed_prizes, "fixed_prizes", low=1)
        both = sorted(set(self.percent_prizes) & set(self.fixed_prizes), reverse=True)
        if both:
            names = ", ".join(c.key for c in both)
            raise ValueError(f"jackpot schedule: {names} has both a percent and a fixed prize")
        _check_monotone(self.percent_prizes, "percent_prizes")
        _check_monotone(self.fixed_prizes, "fixed_prizes")
        paid = set(self.percent_prizes) | set(self.fixed_prizes)
        if paid:
            lowest = min(paid)
            unpaid = [c.key for c in Category if c > lowest and c not in paid]
            if unpaid:
                names = ", ".join(unpaid)
                raise ValueError(f"jackpot schedule: {names} must win a prize, as {lowest.key} does")

    def categories(self) -> list[Category]:
        """The categories that win something, high to low."""
        return sorted({*self.percent_prizes, *self.fixed_prizes}, reverse=True)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form: ``{"percent_prizes": {key: percent}, "fixed_prizes": {key: cents}}``."""
        return {
            "percent_prizes": {c.key: v for c, v in self.percent_prizes.items()},
            "fixed_prizes": {c.key: v for c, v in self.fixed_prizes.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> JackpotSchedule:
        """Inverse of ``to_dict``; raises ValueError for anything malformed."""
        _check_fields(data, {"percent_prizes", "fixed_prizes"}, "a jackpot schedule")
        return cls(
            percent_prizes=_parse_column(data["percent_prizes"], "percent_prizes"),
            fixed_prizes=_parse_column(data["fixed_prizes"], "fixed_prizes"),
        )


DEFAULT_JACKPOT_SCHEDULE = JackpotSchedule(
    percent_prizes={Category.ROYAL_FLUSH: 100},
    fixed_prizes={
        Category.STRAIGHT_FLUSH: 125_000,
        Category.FOUR_OF_A_KIND: 25_000,
        Category.FULL_HOUSE: 2_500,
        Category.FLUSH: 1_500,
        Category.STRAIGHT: 300,
        Category.THREE_OF_A_KIND: 200,
    },
)


def jackpot_prize(schedule: JackpotSchedule, category: Category) -> JackpotPrize | None:
    """The jackpot prize ``category`` wins under ``schedule``, or None."""
    if category in schedule.percent_prizes:
        return JackpotPrize(category=category, kind="percent", value=schedule.percent_prizes[category])
    if category in schedule.fixed_prizes:
        return JackpotPrize(category=category, kind="fixed", value=schedule.fixed_prizes[category])
    return None
