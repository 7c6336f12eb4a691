"""Pots, side pots, splits and rake (SPEC B1 rake, B4 pots), as pure functions over cents."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from casino.stud.games import RakeRule


def uncalled(commits: Mapping[int, int], folded: frozenset[int] | set[int]) -> tuple[int, int] | None:
    """``(seat, amount)`` of the part of the top contribution nobody matched, or None.

    The excess of the largest contribution over the second largest (folded players'
    chips count as matching) goes back to its bettor before the pot is counted.
    """
    if len(commits) < 2:
        return None
    ordered = sorted(commits.items(), key=lambda item: -item[1])
    (top_seat, top), (_, second) = ordered[0], ordered[1]
    if top > second and top_seat not in folded:
        return top_seat, top - second
    return None


def build_pots(commits: Mapping[int, int], folded: frozenset[int] | set[int]) -> list[tuple[int, tuple[int, ...]]]:
    """Main pot then side pots: ``[(amount, eligible seats), …]``.

    Each contribution level reached by a player still in the hand closes a pot that the
    players who put in at least that much can win; chips of folded players above the last
    live level join the pot below. Consecutive pots with the same eligible seats merge.
    """
    live_levels = sorted({amount for seat, amount in commits.items() if seat not in folded and amount > 0})
    pots: list[tuple[int, tuple[int, ...]]] = []
    previous = 0
    for level in live_levels:
        amount = sum(min(c, level) - min(c, previous) for c in commits.values())
        eligible = tuple(sorted(s for s, c in commits.items() if s not in folded and c >= level))
        if pots and pots[-1][1] == eligible:
            pots[-1] = (pots[-1][0] + amount, eligible)
        else:
            pots.append((amount, eligible))
        previous = level
    rest = sum(max(0, c - previous) for c in commits.values())
    if rest:
        if pots:
            pots[-1] = (pots[-1][0] + rest, pots[-1][1])
        else:  # every contributor folded: cannot happen in a hand, kept total-preserving
            pots.append((rest, ()))
    return pots


def take_rake(pots: Sequence[int], rake: int) -> list[int]:
    """The pots' amounts after ``rake`` is taken from the main pot first, then the side pots."""
    left = rake
    out: list[int] = []
    for amount in pots:
        cut = min(amount, left)
        left -= cut
        out.append(amount - cut)
    return out


def rake_for(rule: RakeRule, total: int, *, ended_in_first_round: bool) -> int:
    """SPEC B1: percent of the whole pot, rounded down, capped; none if the hand ended in round one."""
    if ended_in_first_round and rule.no_first_round:
        return 0
    return min(rule.amount(total), total)


def split(amount: int, winners: Sequence[int]) -> dict[int, int]:
    """Equal shares; the odd cents go one each to the winners nearest the dealer's left (lowest seats)."""
    ordered = sorted(winners)
    share, odd = divmod(amount, len(ordered))
    return {seat: share + (1 if index < odd else 0) for index, seat in enumerate(ordered)}
