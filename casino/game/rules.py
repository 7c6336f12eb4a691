"""Caribbean Stud dealing (SPEC A3) and settlement of one seat (SPEC A5), in integer cents."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from casino.game.evaluator import Category, category_of, dealer_qualifies
from casino.game.paytables import NOT_QUALIFIED, QUALIFIED, Column, PayTable

MAX_SEATS = 4
HAND_SIZE = 5
DEALER_UP_CARD_INDEX = 4
RAISE_MULTIPLE = 2  # SPEC A1: the raise is twice the ante

# SPEC A4's time bank, the defaults of a table (seconds; sit-out in rounds), and the
# shortest betting window or decision time a table may be given.
BET_SECONDS = 15
DECISION_SECONDS = 20
EXTENSION_SECONDS = 60
SIT_OUT_LIMIT = 3
MIN_TIME_TO_ACT_SECONDS = 3

Outcome = Literal["fold", "dealer_not_qualified", "win", "lose", "push"]
T = TypeVar("T")


def deal_order(n_players: int) -> list[tuple[int, int, int | None]]:
    """SPEC A3's order of the cards leaving the deck: five rounds from ``deck[0]`` upward,
    each round one card per player in seat order, then the dealer.

    One ``(deck position, round 0-4, player index)`` per card, in that order; the player
    index is ``None`` for the dealer's card.
    """
    if isinstance(n_players, bool) or not isinstance(n_players, int) or not 1 <= n_players <= MAX_SEATS:
        raise ValueError(f"n_players must be 1..{MAX_SEATS}, got {n_players!r}")
    hands_dealt = n_players + 1
    return [
        (r * hands_dealt + seat, r, seat if seat < n_players else None)
        for r in range(HAND_SIZE)
        for seat in range(hands_dealt)
    ]


def deal(deck: Sequence[int], n_players: int) -> tuple[list[list[int]], list[int]]:
    """Deal the cards in ``deal_order``.

    Returns the players' hands in seat order and the dealer's hand; the dealer's card at
    ``DEALER_UP_CARD_INDEX`` (the fifth) is the one dealt face up.
    """
    order = deal_order(n_players)
    if len(deck) < len(order):
        raise ValueError(f"{n_players} players need {len(order)} cards, the deck has {len(deck)}")
    players: list[list[int]] = [[] for _ in range(n_players)]
    dealer: list[int] = []
    for position, _round, player in order:
        (dealer if player is None else players[player]).append(deck[position])
    return players, dealer


@dataclass(frozen=True)
class SeatResult:
    """How one seat's ante and raise were settled. ``*_return`` is paid back (stake + winnings)."""

    outcome: Outcome
    ante_return: int
    raise_return: int
    ante_net: int
    raise_net: int
    paytable_line: tuple[Column, Category] | None
    raise_odds: int | None

    @property
    def net(self) -> int:
        """Net cents won (positive) or lost (negative) on ante and raise together."""
        return self.ante_net + self.raise_net

    @property
    def line_key(self) -> str:
        """The pay table line that paid, as a hand's seat records it: ``column:category``, or ''."""
        return f"{self.paytable_line[0]}:{self.paytable_line[1].key}" if self.paytable_line else ""


def _settled(
    outcome: Outcome,
    *,
    ante: int,
    stake: int,
    ante_return: int,
    raise_return: int,
    line: tuple[Column, Category] | None = None,
    odds: int | None = None,
) -> SeatResult:
    return SeatResult(
        outcome=outcome,
        ante_return=ante_return,
        raise_return=raise_return,
        ante_net=ante_return - ante,
        raise_net=raise_return - stake,
        paytable_line=line,
        raise_odds=odds,
    )


def raise_of(ante: int) -> int:
    """The raise that goes with an ante (``RAISE_MULTIPLE`` times it): what a bet holds
    beside the ante so that the raise cannot fail, and what a raise stakes."""
    return RAISE_MULTIPLE * ante


def settle_seat(
    *, ante: int, raised: bool, player_strength: int, dealer_strength: int, paytable: PayTable
) -> SeatResult:
    """Settle one seat's ante and raise (``raise_of(ante)``) against the dealer, SPEC A5.

    The strengths are ``evaluate`` results; ``raised=False`` means the player folded.
    """
    if isinstance(ante, bool) or not isinstance(ante, int) or ante <= 0:
        raise ValueError(f"ante must be a positive int of cents, got {ante!r}")
    category = category_of(player_strength)  # both raise ValueError for a value no hand has
    category_of(dealer_strength)
    if not raised:
        return _settled("fold", ante=ante, stake=0, ante_return=0, raise_return=0)
    stake = raise_of(ante)
    if not dealer_qualifies(dealer_strength):
        odds = paytable.raise_odds(category, dealer_qualified=False)
        if odds is None:
            return _settled("dealer_not_qualified", ante=ante, stake=stake, ante_return=2 * ante, raise_return=stake)
        return _settled(
            "dealer_not_qualified",
            ante=ante,
            stake=stake,
            ante_return=2 * ante,
            raise_return=stake * (1 + odds),
            line=(NOT_QUALIFIED, category),
            odds=odds,
        )
    if player_strength > dealer_strength:
        odds = paytable.qualified[category]
        return _settled(
            "win",
            ante=ante,
            stake=stake,
            ante_return=2 * ante,
            raise_return=stake * (1 + odds),
            line=(QUALIFIED, category),
            odds=odds,
        )
    if player_strength < dealer_strength:
        return _settled("lose", ante=ante, stake=stake, ante_return=0, raise_return=0)
    return _settled("push", ante=ante, stake=stake, ante_return=ante, raise_return=stake)


def settlement_order(seats: Iterable[T], *, seat_number: Callable[[T], int] | None = None) -> list[T]:
    """Seats in settlement order, right to left: seat 4 first, seat 1 last.

    ``seats`` are seat numbers, or objects whose number ``seat_number`` returns.
    """
    number: Callable[[T], int] = seat_number or _itself
    return sorted(seats, key=number, reverse=True)


def _itself(seat: object) -> int:
    """A seat given as its number."""
    assert isinstance(seat, int), seat
    return seat


def earns_extension(player_strength: int) -> bool:
    """SPEC A4: a pair or better whose time runs out (or whose connection drops) gets extra time."""
    return category_of(player_strength) >= Category.ONE_PAIR
