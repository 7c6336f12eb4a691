"""A stored hand as the engine's state: rebuilt from its seeds, starting seats and actions.

The database holds the truth (``PokerHand.seats``, ``actions``, the seeds, ``version`` =
the number of actions); the state is ``start_hand`` followed by every stored action, so a
restarted server resumes a hand exactly where it stopped. A small per-process cache keeps
the last states by ``(hand id, version)``; an entry is added only once the step that made
it has committed (``remember``), so a rolled-back step can never leave a state that the
database does not hold. A cached state older than the stored hand (the steps in between
were made by another process) is carried forward by the stored actions it lacks, once its
own actions are checked to be the stored hand's first ones (actions are only appended):
a few ``apply`` calls instead of the whole replay.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from django.db import transaction

from casino.stud.engine import Action, HandState, SeatIn, apply, config_from_record, money, start_hand
from casino.stud.games import GameConfig

CACHE_SIZE = 1024

_cache: OrderedDict[int, tuple[int, HandState]] = OrderedDict()
_lock = threading.Lock()


def config_to_json(config: GameConfig) -> dict:
    """A table's config in the hand record's shape (read back by ``config_from_record``)."""
    return {
        "game": config.game,
        "table": config.name,
        "limit": config.limit.as_record(),
        "buy_in": money(config.buy_in),
        "ante": money(config.ante),
        "bring_in": money(config.bring_in),
        "bring_in_rule": config.bring_in_rule,
        "max_seats": config.max_seats,
        "rake_rule": config.rake.as_record(),
    }


def table_config(table) -> GameConfig:
    return config_from_record(table.config)


def _built(hand, config: GameConfig) -> HandState:
    seats = [
        SeatIn(seat=s["seat"], player=s["player"], stack=s["stack"], client_seed=s["client_seed"]) for s in hand.seats
    ]
    # The room grants the allowance at the time-out (``timeout_all_in``); only hands dealt
    # before that hold it per seat.
    allowance = {s["seat"]: bool(s.get("all_in_allowance")) for s in hand.seats}
    always_show = [s["seat"] for s in hand.seats if s.get("always_show")]
    state, _ = start_hand(
        config=config,
        seats=seats,
        server_seed=hand.server_seed,
        nonce=hand.number,
        all_in_allowance=allowance,
        deck=hand.deck,
        always_show=always_show,
    )
    for seat, kind, to in hand.actions:
        state, _ = apply(state, seat, Action(kind, to))
    return state


def _carried_forward(state: HandState, version: int, hand) -> HandState | None:
    """``state`` (at ``version``) brought to the stored hand's version, or None if it is not
    the start of that hand (its actions differ from the stored first ones)."""
    stored = hand.actions
    if len(state.actions) != version or len(stored) < version:
        return None
    if any([seat, action.kind, action.to] != list(stored[i]) for i, (seat, action) in enumerate(state.actions)):
        return None
    for seat, kind, to in stored[version:]:
        state, _ = apply(state, seat, Action(kind, to))
    return state


def hand_state(hand, config: GameConfig | None = None) -> HandState:
    """The engine state of ``hand`` at its stored version (cached, or carried forward from an
    older cached state; else replayed)."""
    with _lock:
        hit = _cache.get(hand.pk)
        if hit is not None:
            _cache.move_to_end(hand.pk)
    if hit is not None and hit[0] == hand.version:
        return hit[1]
    state = _carried_forward(hit[1], hit[0], hand) if hit is not None and hit[0] < hand.version else None
    if state is None:
        state = _built(hand, config or config_from_record(hand.table.config))
    if len(state.actions) != hand.version:
        raise RuntimeError(f"poker hand {hand.pk}: {len(state.actions)} actions replayed, version {hand.version}")
    if hit is None or hit[0] < hand.version:
        _put(hand.pk, hand.version, state)
    return state


def remember(hand_id: int, version: int, state: HandState) -> None:
    """Cache the state a step made, once that step's transaction commits."""
    transaction.on_commit(lambda: _put(hand_id, version, state))


def forget_all() -> None:
    """Drop every cached state (tests: a restarted process)."""
    with _lock:
        _cache.clear()


def _put(hand_id: int, version: int, state: HandState) -> None:
    with _lock:
        _cache[hand_id] = (version, state)
        _cache.move_to_end(hand_id)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)


def config_from_json(data: dict) -> GameConfig:
    """A manager's table config (the record's shape), validated; ValueError/KeyError/TypeError if malformed."""
    config = config_from_record(data)
    config.validate()
    return config


__all__ = ["config_from_json", "config_to_json", "forget_all", "hand_state", "remember", "table_config"]
