"""The stud games as data (SPEC Part B1, B3): limits, rake, tables, and the standard presets.

A table is a :class:`GameConfig`: its game (``five_stud``, ``soko``, ``seven_stud``), its
limit structure (fixed small/big bet, or spread min/max with a chip unit), the buy-in, the
ante, the bring-in and its rule, the seats and the rake. ``PRESETS`` holds every standard
table of SPEC B1 for every game (the spread tables for ``seven_stud`` only).

All amounts are integer cents.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from casino.http.errors import Amount, Detailed

if TYPE_CHECKING:
    from casino.stud.engine import StudError

GAMES = ("five_stud", "soko", "seven_stud")
LIMIT_KINDS = ("fixed", "spread")
BRING_IN_RULES = ("lowest", "highest")
MAX_SEATS = 8

# Per game: the number of cards each player holds after the first deal, the last street,
# and which cards of each street are dealt face down (by card position, 0-based).
FIRST_STREET = {"five_stud": 2, "soko": 2, "seven_stud": 3}
LAST_STREET = {"five_stud": 5, "soko": 5, "seven_stud": 7}
# Card positions dealt face down: five card stud the first (hole) card; seven card stud
# the first two and the river (seventh).
DOWN_POSITIONS = {
    "five_stud": frozenset({0}),
    "soko": frozenset({0}),
    "seven_stud": frozenset({0, 1, 6}),
}
# Fixed limit: which betting rounds (0 = the first) use the big bet.
BIG_BET_ROUNDS = {
    "five_stud": frozenset({2, 3}),
    "soko": frozenset({2, 3}),
    "seven_stud": frozenset({2, 3, 4}),
}
# The round of the open pair rule: seven_stud's fourth street, five_stud/soko's second round.
OPEN_PAIR_ROUND = 1
# Raises per betting round while three or more players are in the hand (completion is not one).
RAISE_CAP = 3


def gettext_noop(message: str) -> str:
    """Marks a message for the catalogs (the engine imports nothing of Django's); the reader's
    translation is looked up where the error is read (``ApplicationError.message``)."""
    return message


def _error(msgid: str, **details: Any) -> StudError:
    """A table the rules refuse: ``config_invalid`` with its reason, read in the reader's language."""
    from casino.stud.engine import StudError

    return StudError("config_invalid", Detailed(msgid, **details))


@dataclass(frozen=True, slots=True)
class Limit:
    """A limit structure: ``fixed`` (small/big bet) or ``spread`` (min..max in whole units)."""

    kind: str  # "fixed" | "spread"
    small_bet: int = 0  # fixed
    big_bet: int = 0  # fixed
    min_bet: int = 0  # spread
    max_bet: int = 0  # spread
    unit: int = 25  # spread: the smallest chip

    @classmethod
    def fixed(cls, small_bet: int, big_bet: int) -> Limit:
        return cls(kind="fixed", small_bet=small_bet, big_bet=big_bet)

    @classmethod
    def spread(cls, min_bet: int, max_bet: int, unit: int = 25) -> Limit:
        return cls(kind="spread", min_bet=min_bet, max_bet=max_bet, unit=unit)

    @property
    def is_fixed(self) -> bool:
        return self.kind == "fixed"

    def as_record(self) -> dict:
        """The record's ``limit`` object: amounts as decimal strings."""
        from casino.stud.engine import money

        if self.is_fixed:
            return {"type": "fixed", "small_bet": money(self.small_bet), "big_bet": money(self.big_bet)}
        return {
            "type": "spread",
            "min_bet": money(self.min_bet),
            "max_bet": money(self.max_bet),
            "unit": money(self.unit),
        }


@dataclass(frozen=True, slots=True)
class RakeRule:
    """SPEC B1 rake: a percent of the whole pot rounded down to the cent, capped per hand."""

    percent: Decimal = Decimal("5")  # of the whole pot, rounded down to the cent
    cap: int = 300
    no_first_round: bool = True  # no rake when the hand ends in the first betting round

    def amount(self, pot: int) -> int:
        """The rake on a pot of ``pot`` cents (before the first-round rule)."""
        raw = (Decimal(pot) * self.percent / 100).to_integral_value(rounding="ROUND_FLOOR")
        return min(int(raw), self.cap)

    def as_record(self) -> dict:
        from casino.stud.engine import money

        return {"percent": str(self.percent), "cap": money(self.cap), "no_first_round": self.no_first_round}


@dataclass(frozen=True, slots=True)
class GameConfig:
    """One table's game and stakes."""

    game: str  # "five_stud" | "soko" | "seven_stud"
    name: str  # e.g. "5-10"
    limit: Limit
    buy_in: int
    ante: int
    bring_in: int
    bring_in_rule: str = "lowest"  # | "highest"
    max_seats: int = MAX_SEATS
    rake: RakeRule = field(default_factory=RakeRule)

    @property
    def first_street(self) -> int:
        return FIRST_STREET[self.game]

    @property
    def last_street(self) -> int:
        return LAST_STREET[self.game]

    @property
    def rounds(self) -> int:
        """Number of betting rounds: 5 for seven_stud, 4 for five_stud/soko."""
        return LAST_STREET[self.game] - FIRST_STREET[self.game] + 1

    def bet_size(self, round_index: int) -> int:
        """Fixed limit: the bet of betting round ``round_index`` (0 = the first)."""
        if round_index in BIG_BET_ROUNDS[self.game]:
            return self.limit.big_bet
        return self.limit.small_bet

    def validate(self) -> None:
        """Raise ``StudError("config_invalid", …)`` unless the table makes sense."""
        lim = self.limit
        if self.game not in GAMES:
            raise _error(
                gettext_noop("Unknown game %(game)s; choose one of %(games)s."),
                game=repr(self.game),
                games=", ".join(GAMES),
            )
        if not isinstance(self.name, str) or not self.name:
            raise _error(gettext_noop("A table needs a name, such as '5-10'."))
        ints = {
            "buy_in": self.buy_in,
            "ante": self.ante,
            "bring_in": self.bring_in,
            "max_seats": self.max_seats,
            "small_bet": lim.small_bet,
            "big_bet": lim.big_bet,
            "min_bet": lim.min_bet,
            "max_bet": lim.max_bet,
            "unit": lim.unit,
            "rake cap": self.rake.cap,
        }
        for label, value in ints.items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise _error(
                    gettext_noop("%(field)s must be a whole number of cents, zero or more; got %(value)s."),
                    field=label,
                    value=repr(value),
                )
        if lim.kind not in LIMIT_KINDS:
            raise _error(gettext_noop("Unknown limit type %(kind)s; choose fixed or spread."), kind=repr(lim.kind))
        if self.bring_in_rule not in BRING_IN_RULES:
            raise _error(
                gettext_noop("The bring-in rule is lowest or highest, not %(rule)s."), rule=repr(self.bring_in_rule)
            )
        if not 2 <= self.max_seats <= MAX_SEATS:
            raise _error(
                gettext_noop("A table seats 2 to %(max)s players, not %(seats)s."), max=MAX_SEATS, seats=self.max_seats
            )
        if self.buy_in <= 0:
            raise _error(gettext_noop("The buy-in must be more than zero."))
        if self.bring_in <= 0:
            raise _error(gettext_noop("The bring-in must be more than zero."))
        if lim.is_fixed:
            if lim.small_bet <= 0 or lim.big_bet < lim.small_bet:
                raise _error(
                    gettext_noop(
                        "A fixed limit needs a small bet above zero and a big bet at least as large "
                        "(small bet %(small)s, big bet %(big)s)."
                    ),
                    small=Amount(lim.small_bet),
                    big=Amount(lim.big_bet),
                )
            if self.bring_in >= lim.small_bet:
                raise _error(
                    gettext_noop(
                        "The bring-in (%(bring_in)s) must be less than the small bet (%(small)s): "
                        "completing raises it to the small bet."
                    ),
                    bring_in=Amount(self.bring_in),
                    small=Amount(lim.small_bet),
                )
        else:
            if self.game != "seven_stud":
                raise _error(gettext_noop("A spread limit is offered for Seven Card Stud only."))
            if lim.unit <= 0 or lim.min_bet <= 0 or lim.max_bet < lim.min_bet:
                raise _error(
                    gettext_noop(
                        "A spread limit needs a chip unit above zero and a minimum bet above zero, at most "
                        "the maximum (minimum %(min)s, maximum %(max)s)."
                    ),
                    min=Amount(lim.min_bet),
                    max=Amount(lim.max_bet),
                )
            if lim.min_bet % lim.unit or lim.max_bet % lim.unit or self.bring_in % lim.unit:
                raise _error(
                    gettext_noop(
                        "The spread's bets and the bring-in must be whole units of the smallest chip (%(unit)s)."
                    ),
                    unit=Amount(lim.unit),
                )
            if self.bring_in >= lim.max_bet:
                raise _error(
                    gettext_noop("The bring-in (%(bring_in)s) must be less than the spread's maximum (%(max)s)."),
                    bring_in=Amount(self.bring_in),
                    max=Amount(lim.max_bet),
                )
        percent = self.rake.percent
        if not isinstance(percent, Decimal) or not percent.is_finite() or not 0 <= percent <= 100:
            raise _error(
                gettext_noop("The rake percent is a number from 0 to 100, not %(percent)s."), percent=str(percent)
            )


# SPEC B1's table of standard stakes: name -> (structure, buy-in, ante, bring-in, bets).
_TABLES: tuple[tuple[str, str, int, int, int, int, int], ...] = (
    ("1-2", "fixed", 2000, 25, 50, 100, 200),
    ("2-4", "fixed", 2000, 25, 100, 200, 400),
    ("3-6", "fixed", 3000, 25, 100, 300, 600),
    ("4-8", "fixed", 4000, 50, 200, 400, 800),
    ("5-10", "fixed", 5000, 50, 200, 500, 1000),
    ("6-12", "fixed", 6000, 50, 300, 600, 1200),
    ("8-16", "fixed", 8000, 100, 400, 800, 1600),
    ("10-20", "fixed", 10000, 100, 500, 1000, 2000),
    ("15-30", "fixed", 15000, 200, 700, 1500, 3000),
    ("20-40", "fixed", 20000, 200, 1000, 2000, 4000),
    ("1-3", "spread", 3000, 25, 100, 100, 300),
    ("1-5", "spread", 3000, 25, 100, 100, 500),
)


def _build_presets() -> Mapping[str, GameConfig]:
    presets: dict[str, GameConfig] = {}
    for game in GAMES:
        for name, kind, buy_in, ante, bring_in, low, high in _TABLES:
            if kind == "spread" and game != "seven_stud":
                continue
            limit = Limit.fixed(low, high) if kind == "fixed" else Limit.spread(low, high)
            config = GameConfig(game=game, name=name, limit=limit, buy_in=buy_in, ante=ante, bring_in=bring_in)
            presets[f"{game}/{name}"] = config
    return MappingProxyType(presets)


PRESETS: Mapping[str, GameConfig] = _build_presets()


def preset(game: str, table: str) -> GameConfig:
    """The standard table ``table`` (e.g. ``"5-10"``) of ``game``; StudError if there is none."""
    try:
        return PRESETS[f"{game}/{table}"]
    except KeyError:
        names = ", ".join(key.split("/", 1)[1] for key in PRESETS if key.startswith(f"{game}/"))
        if names:
            raise _error(
                gettext_noop("No standard table %(table)s for %(game)s; its tables: %(tables)s."),
                table=repr(table),
                game=repr(game),
                tables=names,
            ) from None
        raise _error(
            gettext_noop("No standard table %(table)s for %(game)s."), table=repr(table), game=repr(game)
        ) from None
