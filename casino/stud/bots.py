"""Simple stud players for simulation, tests and benches: they choose only among ``state.legal()``.

A strategy is a function ``(state, rng) -> Action`` for the seat to act (``state.to_act``);
``rng`` is a ``random.Random`` the caller owns, so a seeded run repeats exactly. Every
action a strategy returns is one the engine offered: its kind is in ``legal.actions`` and
its ``to`` is one of ``legal.sizes(kind)``.

- ``calling_station``: never raises, never folds while calling is possible: checks when
  free, calls otherwise, posts the bring-in rather than completing.
- ``tight``: plays on a pair or better (three high cards on the first street); bets and
  raises with trips or better (two pair from the fifth card on), otherwise checks when
  free, calls with a playable hand, folds the rest.
- ``aggressive``: bets and raises (the largest size) whenever it may, else calls.
- ``random_legal``: a uniformly random legal kind and a uniformly random allowed size.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

from casino.stud.engine import Action, HandState, Legal

Strategy = Callable[[HandState, random.Random], Action]

_AGGRESSIVE_KINDS = ("raise", "bet", "complete")


def _sized(legal: Legal, kind: str, *, largest: bool = False, rng: random.Random | None = None) -> Action:
    sizes = legal.sizes(kind)
    if not sizes:
        return Action(kind)
    if rng is not None:
        return Action(kind, rng.choice(sizes))
    return Action(kind, sizes[-1] if largest else sizes[0])


def _passive(legal: Legal) -> Action:
    """Check if free, else call, else whatever keeps the hand alive (bring-in, all-in)."""
    for kind in ("check", "call", "bring_in", "all_in"):
        if kind in legal.actions:
            return Action(kind)
    if "complete" in legal.actions:
        return _sized(legal, "complete")
    return Action("fold")


def calling_station(state: HandState, rng: random.Random) -> Action:
    """Check when free, call when facing a bet; never raise, never fold while it can call."""
    return _passive(state.legal())


def aggressive(state: HandState, rng: random.Random) -> Action:
    """Bet or raise the most it may whenever it may; otherwise call or check."""
    legal = state.legal()
    for kind in _AGGRESSIVE_KINDS:
        if kind in legal.actions:
            return _sized(legal, kind, largest=True)
    return _passive(legal)


def random_legal(state: HandState, rng: random.Random) -> Action:
    """A uniformly random legal kind, then a uniformly random allowed size for it."""
    legal = state.legal()
    kind = rng.choice(sorted(legal.actions))
    if kind in ("complete", "bet", "raise"):
        return _sized(legal, kind, rng=rng)
    return Action(kind)


def _own_cards(state: HandState, seat: int) -> list[int]:
    """The cards the seat holds, down cards included (its own knowledge), plus the community card."""
    cards = list(state.player(seat).cards)
    if state.community is not None:
        cards.append(state.community)
    return cards


def _strength(cards: list[int]) -> int:
    """A crude score: 0 nothing, 1 pair, 2 two pair, 3 trips or better (rank counts only)."""
    counts: dict[int, int] = {}
    for card in cards:
        counts[card >> 2] = counts.get(card >> 2, 0) + 1
    groups = sorted(counts.values(), reverse=True)
    if groups and groups[0] >= 3:
        return 3
    pairs = sum(1 for size in groups if size == 2)
    return 2 if pairs >= 2 else 1 if pairs == 1 else 0


def tight(state: HandState, rng: random.Random) -> Action:
    """Continue with a pair or better (three tens-or-higher on the first street); push trips."""
    legal = state.legal()
    cards = _own_cards(state, legal.seat)
    score = _strength(cards)
    first_street = state.street == state.config.first_street
    playable = score >= 1 or (first_street and all(card >> 2 >= 8 for card in cards))
    strong = score >= 3 or (score >= 2 and len(cards) >= 5)
    if strong:
        for kind in _AGGRESSIVE_KINDS:
            if kind in legal.actions:
                return _sized(legal, kind, largest=True)
    if "check" in legal.actions:
        return Action("check")
    if "bring_in" in legal.actions:
        return Action("bring_in")
    if playable or "fold" not in legal.actions:
        return _passive(legal)
    return Action("fold")


STRATEGIES: Mapping[str, Strategy] = {
    "calling_station": calling_station,
    "tight": tight,
    "aggressive": aggressive,
    "random_legal": random_legal,
}


def get_strategy(name: str) -> Strategy:
    """The strategy called ``name``; ValueError naming the choices otherwise."""
    try:
        return STRATEGIES[name]
    except KeyError:
        raise ValueError(f"unknown strategy {name!r}; choose one of: {', '.join(STRATEGIES)}") from None
