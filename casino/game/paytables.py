"""Pay tables for the raise (SPEC A5) and the jackpot prize schedule (SPEC A6), as data.

Both are immutable, validated on construction and round-trip through JSON-able dicts
keyed by the categories' machine names, so the database can store operator tables.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType
from typing import Any, Final, Literal

from casino.game.evaluator import Category
from casino.http.errors import Amount, Detailed, Words

QUALIFIED: Final = "qualified"
NOT_QUALIFIED: Final = "not_qualified"
Column = Literal["qualified", "not_qualified"]


def gettext_noop(message: str) -> str:
    """Marks a message for the catalogs; the reader's translation is looked up where the
    reason is read (``casino.http.errors.reason_of``)."""
    return message


# A column named in a reason as the manager's pages head it, in the reader's words (an API
# client knows which field it sent; the code says what is wrong).
_COLUMN_WORDS = {
    QUALIFIED: gettext_noop("Dealer qualifies"),
    NOT_QUALIFIED: gettext_noop("Dealer does not qualify"),
    "percent_prizes": gettext_noop("Percent of the meter"),
    "fixed_prizes": gettext_noop("Fixed prize"),
}


def _problem(msgid: str, **details: Any) -> ValueError:
    """A ``ValueError`` whose reason a manager reads in their language (``Detailed``); a
    ``column`` detail (a field's name) is read as the column's heading."""
    if "column" in details:
        details["column"] = Words(_COLUMN_WORDS[details["column"]])
    return ValueError(Detailed(msgid, **details))


def _hands(categories: Iterable[Category]) -> Words:
    """Hands' labels, read in the reader's words."""
    return Words(*(category.label for category in categories))


def _frozen(mapping: Mapping[Category, int], column: str) -> Mapping[Category, int]:
    if not isinstance(mapping, Mapping):
        raise _problem(gettext_noop("%(column)s must map hands to numbers"), column=column)
    for category in mapping:
        if not isinstance(category, Category):
            raise _problem(gettext_noop("%(column)s: %(key)s is not a hand"), column=column, key=repr(category))
    return MappingProxyType({c: mapping[c] for c in sorted(mapping, reverse=True)})


def _check_ints(mapping: Mapping[Category, int], column: str, *, low: int, high: int | None = None) -> None:
    for category, value in mapping.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise _problem(
                gettext_noop("%(column)s: %(hand)s must be a whole number, not %(value)s"),
                column=column,
                hand=_hands([category]),
                value=str(value) if isinstance(value, Decimal) else repr(value),  # 1.5, not Decimal('1.5')
            )
        if high is not None and not low <= value <= high:
            raise _problem(
                gettext_noop("%(column)s: %(hand)s must be from %(low)s to %(high)s, not %(value)s"),
                column=column,
                hand=_hands([category]),
                low=low,
                high=high,
                value=value,
            )
        if value < low:
            raise _problem(
                gettext_noop("%(column)s: %(hand)s must be at least %(low)s, not %(value)s"),
                column=column,
                hand=_hands([category]),
                low=low,
                value=value,
            )


def _check_monotone(values: Mapping[Category, int], column: str, *, prizes: bool = False) -> None:
    """Ascending categories must never have a smaller value than a lower category: odds
    "N to 1", or (``prizes``) the jackpot's percent (``percent_prizes``) or cents."""
    shown = Amount if column == "fixed_prizes" else int
    best: tuple[Category, int] | None = None
    for category in sorted(values):
        if best is not None and values[category] < best[1]:
            details = {
                "column": column,
                "hand": _hands([category]),
                "value": shown(values[category]),
                "lower": _hands([best[0]]),
                "lower_value": shown(best[1]),
            }
            if prizes:
                raise _problem(
                    gettext_noop(
                        "%(column)s: %(hand)s wins %(value)s, less than %(lower)s (%(lower_value)s); "
                        "a higher hand must never win less"
                    ),
                    **details,
                )
            raise _problem(
                gettext_noop(
                    "%(column)s: %(hand)s pays %(value)s to 1, less than %(lower)s (%(lower_value)s to 1); "
                    "a higher hand must never pay less"
                ),
                **details,
            )
        best = (category, values[category])


def _parse_column(data: Any, column: str) -> dict[Category, int]:
    if not isinstance(data, Mapping):
        raise _problem(gettext_noop("%(column)s must be an object of hands to numbers"), column=column)
    parsed = {}
    for key, value in data.items():
        try:
            parsed[Category.from_key(key)] = value
        except ValueError:
            raise _problem(
                gettext_noop("%(column)s: %(key)s is not a hand; the hands are %(keys)s"),
                column=column,
                key=repr(key),
                keys=", ".join(category.key for category in Category),
            ) from None
    return parsed


def _check_fields(data: Any, expected: set[str], msgid: str) -> None:
    """``msgid`` names what ``data`` is, with the placeholders ``%(fields)s`` and ``%(got)s``."""
    if not isinstance(data, Mapping) or set(data) != expected:
        got = ", ".join(sorted(map(str, data))) if isinstance(data, Mapping) else type(data).__name__
        raise _problem(msgid, fields=", ".join(sorted(expected)), got=got or "-")


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
        object.__setattr__(self, "qualified", _frozen(self.qualified, QUALIFIED))
        object.__setattr__(self, "not_qualified", _frozen(self.not_qualified, NOT_QUALIFIED))
        self.validate()

    def validate(self) -> None:
        """Raise ValueError unless the odds are non-negative ints and never fall as hands rise."""
        if not isinstance(self.name, str) or not self.name.strip():
            raise _problem(gettext_noop("A pay table needs a name"))
        missing = [c for c in Category if c not in self.qualified]
        if missing:
            raise _problem(
                gettext_noop("%(column)s: no odds for %(hands)s"), column=QUALIFIED, hands=_hands(reversed(missing))
            )
        for column in (QUALIFIED, NOT_QUALIFIED):
            odds = getattr(self, column)
            _check_ints(odds, column, low=0)
            _check_monotone({c: odds.get(c, 0) for c in Category}, column)

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
        _check_fields(
            data,
            {"name", QUALIFIED, NOT_QUALIFIED},
            gettext_noop("A pay table has exactly the fields %(fields)s, not %(got)s"),
        )
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
            raise _problem(gettext_noop("%(hands)s: both a percent and a fixed prize"), hands=_hands(both))
        _check_monotone(self.percent_prizes, "percent_prizes", prizes=True)
        _check_monotone(self.fixed_prizes, "fixed_prizes", prizes=True)
        paid = set(self.percent_prizes) | set(self.fixed_prizes)
        if paid:
            lowest = min(paid)
            unpaid = [c for c in sorted(Category, reverse=True) if c > lowest and c not in paid]
            if unpaid:
                raise _problem(
                    gettext_noop("%(hands)s must win a prize, as %(lowest)s does"),
                    hands=_hands(unpaid),
                    lowest=_hands([lowest]),
                )

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
        _check_fields(
            data,
            {"percent_prizes", "fixed_prizes"},
            gettext_noop("A jackpot schedule has exactly the fields %(fields)s, not %(got)s"),
        )
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
