"""Drive poker hands with the engine's bots, through the room's services."""

from __future__ import annotations

import random

from casino.stud.bots import get_strategy
from poker import replay
from poker.models import PokerHand
from poker.services import poker_act


def play_out(hand: PokerHand, users_by_seat: dict, *, strategy: str = "random_legal", seed: int = 0, limit: int = 500):
    """Drive a live hand to its end through ``poker_act``, each seat choosing by a bot strategy."""
    rng = random.Random(seed)
    choose = get_strategy(strategy)
    for _ in range(limit):
        hand.refresh_from_db()
        if not hand.is_live:
            return hand
        state = replay.hand_state(hand)
        action = choose(state, rng)
        poker_act(
            user=users_by_seat[state.to_act],
            table_id=hand.table_id,
            hand_id=hand.pk,
            action=action.kind,
            amount=action.to,
        )
    raise AssertionError("the hand did not end")


def seats_of(hand: PokerHand, users) -> dict:
    by_id = {u.pk: u for u in users}
    return {s["seat"]: by_id[s["user_id"]] for s in hand.seats}
