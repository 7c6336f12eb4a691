"""Helpers for the engine tests: rigged decks, seats, and playing a script of actions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal

from casino.game.cards import card_from_str, cards_from_str
from casino.stud.engine import Action, HandState, SeatIn, apply, start_hand
from casino.stud.games import FIRST_STREET, GameConfig, Limit, RakeRule, preset

SEED = "5e" * 32
NO_RAKE = RakeRule(percent=Decimal("0"), cap=0)


def rig(game: str, hands: Mapping[int, str], *, burns: Sequence[str] = ()) -> list[int]:
    """A deck that deals ``hands`` (seat -> its cards in deal order, e.g. "Ah Kd 2c").

    A seat listed with fewer cards than the game deals is taken to have folded after its
    last card. Burns come from ``burns`` and then from the unused cards; the rest follows.
    """
    cards = {seat: cards_from_str(text) for seat, text in hands.items()}
    used = {c for cs in cards.values() for c in cs} | {card_from_str(b) for b in burns}
    spare = [c for c in range(52) if c not in used]
    burn_list = [card_from_str(b) for b in burns]
    seats = sorted(cards)
    first = FIRST_STREET[game]
    deck: list[int] = []
    for position in range(first):
        for seat in seats:
            deck.append(cards[seat][position])
    most = max(len(cs) for cs in cards.values())
    for position in range(first, most):
        deck.append(burn_list.pop(0) if burn_list else spare.pop(0))
        for seat in seats:
            if len(cards[seat]) > position:
                deck.append(cards[seat][position])
    deck.extend(c for c in spare)
    deck.extend(burn_list)
    assert sorted(deck) == list(range(52)), "rigged deck must hold each card once"
    return deck


def seats_of(stacks: Mapping[int, int] | Sequence[int]) -> list[SeatIn]:
    if not isinstance(stacks, Mapping):
        stacks = {i + 1: s for i, s in enumerate(stacks)}
    return [SeatIn(seat=s, player=f"player{s}", stack=v, client_seed=f"client{s}") for s, v in stacks.items()]


def deal(
    config: GameConfig,
    stacks,
    hands: Mapping[int, str] | None = None,
    *,
    nonce: int = 1,
    allowance: Mapping[int, bool] | None = None,
) -> HandState:
    deck = rig(config.game, hands) if hands is not None else None
    state, _ = start_hand(
        config=config, seats=seats_of(stacks), server_seed=SEED, nonce=nonce, all_in_allowance=allowance, deck=deck
    )
    return state


def act(state: HandState, *script: str) -> HandState:
    """Apply "seat kind [to]" steps, e.g. ``act(s, "3 bring_in", "4 complete 500", "1 call")``."""
    for step in script:
        parts = step.split()
        seat, kind = int(parts[0]), parts[1]
        to = int(parts[2]) if len(parts) > 2 else None
        state, _ = apply(state, seat, Action(kind, to))
    return state


def custom(
    game: str = "seven_stud",
    *,
    small: int = 500,
    big: int = 1000,
    ante: int = 50,
    bring_in: int = 200,
    rake: RakeRule | None = None,
    rule: str = "lowest",
    limit: Limit | None = None,
) -> GameConfig:
    return GameConfig(
        game=game,
        name="test",
        limit=limit or Limit.fixed(small, big),
        buy_in=5000,
        ante=ante,
        bring_in=bring_in,
        bring_in_rule=rule,
        rake=rake or RakeRule(),
    )


__all__ = ["NO_RAKE", "SEED", "act", "custom", "deal", "preset", "rig", "seats_of"]
