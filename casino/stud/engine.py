"""The stud hand state machine (SPEC Part B2-B4): a hand is a value, the rules are functions.

``start_hand`` posts the antes, deals the first street and finds the bring-in;
``apply(state, seat, action)`` returns the next state and the events the action caused;
``state.legal()`` says exactly what the player to act may do. A state is never mutated:
every step builds a new one with ``dataclasses.replace`` over small frozen dataclasses and
tuples. The deck is SPEC §0's provably fair deck; ``replay(record)`` rebuilds a hand from
its seeds, seats and actions, so the hand record is the whole truth of a hand.

All amounts are integer cents; events and the hand record carry decimal strings.

Events (plain JSON-ready dicts, in order; ``hand_record(state)["events"]``):
``deal {street, seat, card, up}``, ``burn {card}``, ``action {street, seat, action, amount,
to}`` (``amount`` = chips the action added, ``to`` = the seat's total this street; for an
ante, the ante posted), ``street {street, first_to_act}`` (``None`` when nobody can bet),
``turn {seat}``, ``reshuffle {pool_size}``, ``community {card}``, ``return {seat, amount}``
(an uncalled bet, before any pot is counted), ``showdown {order, hands[, community]}``,
``award {pot, seat, amount}``, ``rake {amount}``, ``end``. A pot record's ``amount`` is the
pot as built, ``rake`` the part of the hand's rake taken from it, ``shares`` the rest.

Choices the SPEC leaves to the engine (documented here, tested in ``tests/stud``):

- The bring-in is forced: the bring-in player may post it or complete, not fold or check.
  A bring-in player with less than the bring-in posts everything. When the lowest (or
  highest) door card belongs to a player already all-in from the ante, the bring-in goes
  to the lowest (highest) door card among the players who still have chips.
- A player who already acted this round may raise again only if a full bet or raise
  (or a completion) came after their action; a short all-in does not reopen it. A short
  all-in never counts toward the raise cap.
- A call for more than the stack is not offered: the player goes ``all_in`` instead (a
  call for exactly the stack is offered as both ``call`` and ``all_in``). ``all_in`` is
  offered whenever pushing the whole stack is a legal move: a call for less, a short
  bet/raise while betting is open to this player, or a full one within the allowed range.
- After a short all-in, a raise is a full raise on top of the new level.
- Nobody may bet or raise when no other player still in could put in more than the
  current bet (all-in, or short of it): only call or fold; the excess would come back uncalled.
- On a later street the best showing hand acts first; if that player is all-in, the
  first player to its left who can still act does.
- ``Action("timeout")`` is the room's: check when a check is free, else all-in
  protection while the seat's allowance is left (``all_in_allowance``, default: every
  seat has one; ``state.allowance_used`` says whose was spent), else fold.
  ``Action("timeout_all_in")`` is the room's time-out of a player whose allowance it
  grants at that moment (it decides across its tables): check when a check is free,
  else all-in protection.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import islice
from typing import Any

from casino.cents import format_cents as money  # a record's amounts: 150 -> "1.50", -5 -> "-0.05"
from casino.game.cards import card_from_str, card_to_str
from casino.game.fair import commitment_of, hand_client_seed, uniform_below, word_stream
from casino.http.errors import ApplicationError, Detailed
from casino.stud import pots as potlib
from casino.stud.games import (
    DOWN_POSITIONS,
    OPEN_PAIR_ROUND,
    RAISE_CAP,
    GameConfig,
    Limit,
    RakeRule,
    gettext_noop,
)

ACTION_KINDS = frozenset(
    {"bring_in", "complete", "bet", "raise", "call", "check", "fold", "all_in", "timeout", "timeout_all_in"}
)
TIMEOUT_KINDS = frozenset({"timeout", "timeout_all_in"})  # the room's, never a player's
SIZED_KINDS = frozenset({"complete", "bet", "raise"})
RECORD_VERSION = 1


class StudError(ApplicationError):
    """An action or a table the stud rules refuse; ``code`` is stable (e.g. ``not_your_turn``)."""

    status = 409
    default_message = gettext_noop("The stud rules do not allow this.")

    def __init__(self, code: str, message: str, extra: dict[str, Any] | None = None):
        super().__init__(message, code=code, extra=extra)

    def __reduce__(self):
        # The message as raised (a ``Detailed`` msgid with its details, a fixed msgid), not
        # read: a refusal that crosses a process boundary is read in its reader's language.
        return (type(self), (self.code, self._message, self.extra))


# --------------------------------------------------------------------------- money


def cents(text: str | int) -> int:
    """``"1.50" -> 150``; exact (raises StudError for a fraction of a cent or a non-number)."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    try:
        value = Decimal(str(text)) * 100
    except ArithmeticError:
        raise StudError("record_invalid", Detailed(gettext_noop("not an amount: %(text)s"), text=repr(text))) from None
    if not value.is_finite() or value != value.to_integral_value():
        raise StudError(
            "record_invalid", Detailed(gettext_noop("not a whole number of cents: %(text)s"), text=repr(text))
        )
    return int(value)


# --------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class SeatIn:
    """A player dealt into the hand."""

    seat: int
    player: str
    stack: int
    client_seed: str


@dataclass(frozen=True, slots=True)
class Action:
    """What a player does; ``to`` is the player's total this street after complete/bet/raise."""

    kind: str  # "bring_in" | "complete" | "bet" | "raise" | "call" | "check" | "fold" | "all_in" | "timeout[_all_in]"
    to: int | None = None


@dataclass(frozen=True, slots=True)
class Legal:
    """What the player to act may do, exactly."""

    seat: int
    actions: frozenset[str]
    call_amount: int
    bring_in_amount: int | None
    complete_to: tuple[int, int] | None
    bet_to: tuple[int, int] | None
    raise_to: tuple[int, int] | None
    step: int
    all_in_to: int | None

    def range_of(self, kind: str) -> tuple[int, int] | None:
        return {"complete": self.complete_to, "bet": self.bet_to, "raise": self.raise_to}.get(kind)

    def sizes(self, kind: str) -> tuple[int, ...]:
        """Every allowed ``to`` for ``kind`` (fixed: one or two values; spread: every unit)."""
        if kind not in self.actions:
            return ()
        if kind == "all_in":
            return (self.all_in_to,) if self.all_in_to is not None else ()
        span = self.range_of(kind)
        if span is None:
            return ()
        low, high = span
        return tuple(range(low, high + 1, max(self.step, 1)))

    def allows(self, action: Action) -> bool:
        """True when ``apply`` would accept ``action`` from this seat."""
        kind = action.kind
        if kind in TIMEOUT_KINDS:
            return True
        if kind not in self.actions:
            return False
        if kind in SIZED_KINDS:
            span = self.range_of(kind)
            to = action.to
            if span is None or not isinstance(to, int) or isinstance(to, bool):
                return False
            return span[0] <= to <= span[1] and (to - span[0]) % max(self.step, 1) == 0
        if kind == "all_in":
            return action.to is None or action.to == self.all_in_to
        return action.to is None


@dataclass(frozen=True, slots=True)
class Player:
    """One seat's part of a hand."""

    seat: int
    player: str
    client_seed: str
    start: int  # the stack before the ante
    stack: int  # chips behind
    cards: tuple[int, ...] = ()  # own cards in deal order (not the community card)
    folded: bool = False
    protected: bool = False  # time-out all-in protection: puts in nothing more
    committed: int = 0  # chips in the pot this hand (ante included)
    bet: int = 0  # chips put in this street (ante excluded)
    acted: bool = False  # has acted in this betting round
    seen: int = 0  # the round's reopen counter when this player last acted

    @property
    def can_act(self) -> bool:
        return not self.folded and not self.protected and self.stack > 0

    @property
    def all_in(self) -> bool:
        return not self.folded and (self.stack == 0 or self.protected)


@dataclass(frozen=True, slots=True)
class HandState:
    """A hand as a plain value; never mutated in place (``apply`` returns a new one)."""

    config: GameConfig
    server_seed: str
    commitment: str
    client_seed: str
    nonce: int
    players: tuple[Player, ...]  # by seat number
    deck: tuple[int, ...]  # the 52 cards in deal order
    pos: int  # next card of the deck
    burns: tuple[int, ...]
    words_used: int  # words of the HMAC stream the shuffle consumed
    dealt_from_seeds: bool
    allowance: frozenset[int]  # seats with an all-in allowance left
    allowance_used: frozenset[int] = frozenset()
    always_show: frozenset[int] = frozenset()  # seats that show a losing hand instead of mucking it
    street: int = 0
    round_index: int = 0
    to_act: int | None = None
    is_over: bool = False
    level: int = 0  # the highest street total
    raises: int = 0  # raises this round (completion, bets and short all-ins are not)
    opened: bool = False  # first round: completed; later rounds: a bet was made
    bring_in_pending: bool = False
    bring_in_seat: int | None = None
    last_size: int = 0  # spread: the last full bet or raise of the round
    big_made: bool = False  # open pair round: a big bet was made
    open_pair: bool = False  # the open pair rule applies this round
    reopen: int = 0  # full bets/raises/completions this round
    aggressor: int | None = None  # last player to bet or raise this round
    leader: int | None = None  # first to act this round (or best showing when nobody can)
    community: int | None = None
    events: tuple[dict, ...] = ()
    actions: tuple[tuple[int, Action], ...] = ()
    showdown: tuple[dict, ...] = ()
    pots: tuple[dict, ...] = ()
    rake: int = 0

    # ----- reading
    def legal(self) -> Legal:
        """What the player to act may do; StudError("hand_over") when the hand is over."""
        if self.is_over or self.to_act is None:
            raise StudError("hand_over", gettext_noop("The hand is over."))
        return _legal(self)

    def player(self, seat: int) -> Player:
        for p in self.players:
            if p.seat == seat:
                return p
        raise StudError("seat_invalid", Detailed(gettext_noop("Seat %(seat)s is not in this hand."), seat=seat))

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(p.seat for p in self.players)

    @property
    def pot(self) -> int:
        """Chips in the pot (before the rake): every contribution still in the middle."""
        return sum(p.committed for p in self.players)

    @property
    def stacks(self) -> dict[int, int]:
        return {p.seat: p.stack for p in self.players}

    @property
    def live_seats(self) -> tuple[int, ...]:
        return tuple(p.seat for p in self.players if not p.folded)

    def up_cards(self, seat: int) -> tuple[int, ...]:
        down = DOWN_POSITIONS[self.config.game]
        return tuple(c for i, c in enumerate(self.player(seat).cards) if i not in down)

    def down_cards(self, seat: int) -> tuple[int, ...]:
        down = DOWN_POSITIONS[self.config.game]
        return tuple(c for i, c in enumerate(self.player(seat).cards) if i in down)

    @property
    def net(self) -> dict[int, int]:
        """Each seat's result so far: stack now minus stack before the ante."""
        return {p.seat: p.stack - p.start for p in self.players}


# --------------------------------------------------------------------------- fast replace


def _make_replace(cls):
    """``dataclasses.replace`` for one frozen slots class, without its per-call validation.

    States are rebuilt a few times per action; the generic ``replace`` (which re-runs
    ``__init__`` and inspects the fields each time) was most of the engine's time.
    """
    names = [f.name for f in dataclasses.fields(cls)]
    lines = ["def rep(obj, /, **ch):", "    n = new(cls)", "    get = ch.get"]
    for name in names:
        lines.append(f"    setter(n, {name!r}, get({name!r}, obj.{name}) if ch else obj.{name})")
    lines.append("    return n")
    scope = {"new": object.__new__, "cls": cls, "setter": object.__setattr__}
    exec("\n".join(lines), scope)  # noqa: S102 - generated from the class's own field names
    return scope["rep"]


_REPLACERS: dict[type, Any] = {}


def replace(obj, /, **changes):
    """A new ``Player`` / ``HandState`` with ``changes``: the engine's one way to step a value."""
    rep = _REPLACERS.get(type(obj))
    if rep is None:
        rep = _REPLACERS[type(obj)] = _make_replace(type(obj))
    return rep(obj, **changes)


# --------------------------------------------------------------------------- evaluation (evaluate.py)

_EV = None


def _ev():
    global _EV
    if _EV is None:
        from casino.stud import evaluate

        _EV = evaluate
    return _EV


# --------------------------------------------------------------------------- deck


class _Counted:
    """An iterator over words that counts how many it handed out."""

    __slots__ = ("words", "used")

    def __init__(self, words: Iterator[int], used: int = 0):
        self.words = words
        self.used = used

    def __iter__(self):
        return self

    def __next__(self) -> int:
        word = next(self.words)
        self.used += 1
        return word


def seeded_deck(server_seed: str, client_seed: str, nonce: int) -> tuple[list[int], int]:
    """SPEC §0's deck and how many stream words its shuffle consumed (for the reshuffle)."""
    words = _Counted(word_stream(server_seed, client_seed, nonce))
    deck = list(range(52))
    for i in range(51, 0, -1):
        j = uniform_below(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck, words.used


def reshuffle_pool(state: HandState, pool: Sequence[int]) -> tuple[list[int], int]:
    """Fisher-Yates over ``pool`` continuing the hand's HMAC stream where the shuffle stopped."""
    stream = word_stream(state.server_seed, state.client_seed, state.nonce)
    words = _Counted(islice(stream, state.words_used, None), state.words_used)
    pool = list(pool)
    for i in range(len(pool) - 1, 0, -1):
        j = uniform_below(words, i + 1)
        pool[i], pool[j] = pool[j], pool[i]
    return pool, words.used


# --------------------------------------------------------------------------- start


def _check_seats(config: GameConfig, seats: Sequence[SeatIn]) -> list[SeatIn]:
    if len(seats) < 2:
        raise StudError("not_enough_players", gettext_noop("A hand starts with at least 2 players."))
    if len(seats) > config.max_seats:
        raise StudError(
            "seats_invalid", Detailed(gettext_noop("This table seats at most %(max)s players."), max=config.max_seats)
        )
    ordered = sorted(seats, key=lambda s: s.seat)
    numbers = [s.seat for s in ordered]
    if len(set(numbers)) != len(numbers):
        raise StudError("seats_invalid", gettext_noop("Two players share a seat."))
    for s in ordered:
        if isinstance(s.seat, bool) or not isinstance(s.seat, int) or not 1 <= s.seat <= config.max_seats:
            raise StudError(
                "seats_invalid",
                Detailed(
                    gettext_noop("Seats are numbered 1..%(max)s, got %(seat)s."),
                    max=config.max_seats,
                    seat=repr(s.seat),
                ),
            )
        if not isinstance(s.player, str) or not isinstance(s.client_seed, str):
            raise StudError("seats_invalid", gettext_noop("Each seat needs a player name and a client seed."))
        if isinstance(s.stack, bool) or not isinstance(s.stack, int) or s.stack <= 0:
            raise StudError(
                "stack_too_small",
                Detailed(gettext_noop("Seat %(seat)s has no chips to play with."), seat=s.seat),
                {"seat": s.seat},
            )
    return ordered


def start_hand(
    *,
    config: GameConfig,
    seats: Sequence[SeatIn],
    server_seed: str,
    nonce: int,
    all_in_allowance: Mapping[int, bool] | None = None,
    deck: Sequence[int] | None = None,
    always_show: Collection[int] = (),
) -> tuple[HandState, list[dict]]:
    """Post the antes, deal the first street, find the bring-in.

    ``always_show``: seats whose players chose "always show" (SPEC B4): their losing hands
    are shown at the showdown instead of mucked.

    ``deck`` is for tests and replays of rigged decks only: the hand is dealt from it
    instead of the seeds' deck, and the record says so (``dealt_from_seeds: false``).
    """
    config.validate()
    ordered = _check_seats(config, seats)
    client_seed = hand_client_seed([s.client_seed for s in ordered])
    try:
        commitment = commitment_of(server_seed)
        seed_deck, words_used = seeded_deck(server_seed, client_seed, nonce)
    except ValueError as exc:
        raise StudError("seed_invalid", str(exc)) from None
    if deck is None:
        cards = tuple(seed_deck)
    else:
        cards = tuple(deck)
        if sorted(cards) != list(range(52)) or not all(type(c) is int for c in cards):
            raise StudError("deck_invalid", gettext_noop("A fixed deck must be the 52 cards, each once."))
    if all_in_allowance is None:
        allowance = frozenset(s.seat for s in ordered)
    else:
        allowance = frozenset(s.seat for s in ordered if all_in_allowance.get(s.seat, False))

    first = config.first_street
    events: list[dict] = []
    players = []
    for s in ordered:
        ante = min(config.ante, s.stack)
        players.append(
            Player(
                seat=s.seat,
                player=s.player,
                client_seed=s.client_seed,
                start=s.stack,
                stack=s.stack - ante,
                committed=ante,
            )
        )
        if config.ante:
            events.append(_act_event(first, s.seat, "ante", ante, ante))
    state = HandState(
        config=config,
        server_seed=server_seed,
        commitment=commitment,
        client_seed=client_seed,
        nonce=nonce,
        players=tuple(players),
        deck=cards,
        pos=0,
        burns=(),
        words_used=words_used,
        dealt_from_seeds=deck is None,
        allowance=allowance,
        street=first,
        round_index=0,
        always_show=frozenset(s.seat for s in ordered if s.seat in set(always_show)),
    )
    # First deal: one card at a time round the seats, no burn; the last card is the door card.
    down = DOWN_POSITIONS[config.game]
    pos = 0
    dealt: dict[int, list[int]] = {p.seat: [] for p in players}
    for position in range(first):
        for p in players:
            card = cards[pos]
            pos += 1
            dealt[p.seat].append(card)
            events.append(_deal_event(first, p.seat, card, position not in down))
    state = replace(state, pos=pos, players=tuple(replace(p, cards=tuple(dealt[p.seat])) for p in players))

    # The bring-in: the lowest (highest) door card among the players who still have chips.
    able = [p for p in state.players if p.can_act]
    if len(able) >= 2:
        seat = _ev().bring_in_seat({p.seat: p.cards[first - 1] for p in able}, config.bring_in_rule)
        state = replace(state, bring_in_seat=seat, bring_in_pending=True, to_act=seat, leader=seat)
        events.append({"type": "street", "street": first, "first_to_act": seat})
        events.append({"type": "turn", "seat": seat})
        state = replace(state, events=tuple(events))
        return state, events
    events.append({"type": "street", "street": first, "first_to_act": None})
    state = replace(state, events=tuple(events), leader=state.players[0].seat)
    state, more = _close_round(state)
    events.extend(more)
    return state, events


# --------------------------------------------------------------------------- legal


def _next_seat(players: tuple[Player, ...], seat: int, want: Callable[[Player], bool]) -> int | None:
    """The first player to the left of ``seat`` (cyclic, ``seat`` itself last) with ``want(p)``."""
    n = len(players)
    start = 0
    for i, p in enumerate(players):
        if p.seat > seat:
            start = i
            break
    else:
        start = 0
    for k in range(n):
        p = players[(start + k) % n]
        if want(p):
            return p.seat
    return None


def _aggression(state: HandState, p: Player) -> tuple[str, int, int, int, bool] | None:
    """(kind, low, high, step, allowed) of the one aggressive action of the moment, before the stack."""
    cfg = state.config
    lim = cfg.limit
    if not any(q.can_act and q.bet + q.stack > state.level for q in state.players if q.seat != p.seat):
        return None  # nobody left who could put in more than the current bet: nobody could call
    reopened = (not p.acted) or p.seen < state.reopen
    live = sum(1 for q in state.players if not q.folded)
    level = state.level
    if state.round_index == 0 and not state.opened:
        if lim.is_fixed:
            low = high = lim.small_bet
            step = 1
        else:
            base = cfg.bring_in if state.bring_in_pending else level
            low = max(lim.min_bet, base + lim.unit) if base else lim.min_bet
            high = lim.max_bet
            step = lim.unit
        if low <= level:
            return None
        return ("complete", low, high, step, reopened)
    if level == 0:
        if lim.is_fixed:
            if state.open_pair and not state.big_made:
                low, high = lim.small_bet, lim.big_bet
            else:
                low = high = cfg.bet_size(state.round_index)
            step = (high - low) or 1
        else:
            low, high, step = lim.min_bet, lim.max_bet, lim.unit
        return ("bet", low, high, step, True)
    cap_ok = state.raises < RAISE_CAP or live <= 2
    if lim.is_fixed:
        if state.open_pair and not state.big_made:
            low, high = level + lim.small_bet, level + lim.big_bet
        elif state.open_pair:
            low = high = level + lim.big_bet
        else:
            low = high = level + cfg.bet_size(state.round_index)
        step = (high - low) or 1
    else:
        low = level + max(state.last_size, lim.min_bet)
        high = level + lim.max_bet
        step = lim.unit
    return ("raise", low, high, step, reopened and cap_ok)


def _legal(state: HandState) -> Legal:
    assert state.to_act is not None, "a hand with nobody to act has no legal actions"
    p = state.player(state.to_act)
    call = max(0, state.level - p.bet)
    stack = p.stack
    actions: set[str] = set()
    bring_in_amount = None
    spans: dict[str, tuple[int, int]] = {}
    step = 1
    all_in_to = None
    most = p.bet + stack
    if state.bring_in_pending:
        bring_in_amount = min(state.config.bring_in, stack)
        actions.add("bring_in")
    else:
        if call == 0:
            actions.add("check")
        else:
            actions.add("fold")
            if stack >= call:
                actions.add("call")
            if stack <= call:
                actions.add("all_in")
                all_in_to = most
    agg = _aggression(state, p)
    if agg is not None:
        kind, low, high, astep, allowed = agg
        step = astep
        if allowed:
            if most >= low:
                top = min(high, most)
                top = low + (top - low) // astep * astep
                actions.add(kind)
                spans[kind] = (low, top)
            if stack > call and most <= high and not (state.bring_in_pending and stack <= state.config.bring_in):
                actions.add("all_in")
                all_in_to = most
    return Legal(
        seat=p.seat,
        actions=frozenset(actions),
        call_amount=call,
        bring_in_amount=bring_in_amount,
        complete_to=spans.get("complete"),
        bet_to=spans.get("bet"),
        raise_to=spans.get("raise"),
        step=step,
        all_in_to=all_in_to,
    )


# --------------------------------------------------------------------------- apply


def _act_event(street: int, seat: int, action: str, amount: int, to: int) -> dict:
    return {
        "type": "action",
        "street": street,
        "seat": seat,
        "action": action,
        "amount": money(amount),
        "to": money(to),
    }


def _deal_event(street: int, seat: int, card: int, up: bool) -> dict:
    return {"type": "deal", "street": street, "seat": seat, "card": card_to_str(card), "up": up}


def _refuse(legal: Legal, action: Action) -> StudError:
    kind = action.kind
    if kind not in ACTION_KINDS:
        return StudError("action_invalid", Detailed(gettext_noop("Unknown action %(kind)s."), kind=repr(kind)))
    if kind == "fold" and "check" in legal.actions:
        return StudError("fold_not_allowed", gettext_noop("You may fold only when facing a bet; checking is free."))
    if kind == "fold" and "bring_in" in legal.actions:
        return StudError(
            "fold_not_allowed", gettext_noop("The bring-in must be posted (or completed); it cannot be folded.")
        )
    if kind == "check" and "check" not in legal.actions:
        return StudError("check_not_allowed", gettext_noop("There is a bet to call; you cannot check."))
    if kind in legal.actions and (kind in SIZED_KINDS or kind == "all_in"):
        return StudError(
            "bet_size_invalid",
            Detailed(gettext_noop("%(kind)s to %(to)s is not an allowed size."), kind=kind, to=repr(action.to)),
            {"sizes": [money(x) for x in legal.sizes(kind)]},
        )
    if kind in legal.actions:
        return StudError("action_invalid", Detailed(gettext_noop("%(kind)s takes no amount."), kind=kind))
    if kind == "call" and legal.call_amount > 0:
        return StudError("stack_too_small", gettext_noop("Your stack does not cover the call; go all in or fold."))
    return StudError(
        "action_invalid",
        Detailed(
            gettext_noop("%(kind)s is not allowed now; allowed: %(allowed)s."),
            kind=kind,
            allowed=", ".join(sorted(legal.actions)),
        ),
    )


def apply(state: HandState, seat: int, action: Action) -> tuple[HandState, list[dict]]:
    """The next state and the events ``action`` by ``seat`` caused; StudError if illegal (state unchanged)."""
    if state.is_over:
        raise StudError("hand_over", gettext_noop("The hand is over."))
    if not isinstance(action, Action):
        raise StudError("action_invalid", gettext_noop("Not an action."))
    if seat != state.to_act:
        raise StudError(
            "not_your_turn",
            Detailed(gettext_noop("It is seat %(seat)s's turn."), seat=state.to_act),
            {"to_act": state.to_act},
        )
    legal = _legal(state)
    kind = action.kind
    events: list[dict] = []
    if kind in TIMEOUT_KINDS:
        if action.to is not None:
            raise StudError("action_invalid", Detailed(gettext_noop("%(kind)s takes no amount."), kind=kind))
        return _timeout(state, legal, action)
    if kind in SIZED_KINDS and kind not in legal.actions:
        _refuse_aggression(state, legal, kind)
    if not legal.allows(action):
        raise _refuse(legal, action)
    p = state.player(seat)
    st = state
    street = st.street
    updates: dict[str, Any] = {}
    if kind == "check":
        add, label = 0, "check"
    elif kind == "fold":
        add, label = 0, "fold"
    elif kind == "call":
        add, label = legal.call_amount, "call"
    elif kind == "bring_in":
        assert legal.bring_in_amount is not None  # a legal bring-in has its amount
        add, label = legal.bring_in_amount, "bring_in"
        updates["bring_in_pending"] = False
    else:  # complete / bet / raise / all_in
        to = action.to if kind != "all_in" else legal.all_in_to
        assert to is not None, action  # the legal check above refuses a sized action without its amount
        add, label = to - p.bet, kind
        if to > st.level:
            updates.update(_raise_updates(st, p, to, kind))
        if st.bring_in_pending:
            updates["bring_in_pending"] = False
    new_bet = p.bet + add
    p2 = replace(p, stack=p.stack - add, bet=new_bet, committed=p.committed + add, folded=kind == "fold", acted=True)
    if new_bet > st.level:
        updates["level"] = new_bet
    st = replace(st, **updates)
    p2 = replace(p2, seen=st.reopen)
    st = _put(st, p2)
    events.append(_act_event(street, seat, label, add, new_bet))
    return _advance(st, seat, events, action)


def _refuse_aggression(state: HandState, legal: Legal, kind: str) -> None:
    """Why a complete/bet/raise of the right kind is not offered: the cap, no reopening, or the stack."""
    p = state.player(legal.seat)
    agg = _aggression(state, p)
    if agg is None or agg[0] != kind:
        return
    if kind == "raise" and _raise_capped(state):
        raise StudError("raise_cap_reached", gettext_noop("No more raises are allowed this round."))
    if p.acted and p.seen >= state.reopen:
        raise StudError(
            "raise_not_reopened",
            gettext_noop("A short all-in does not reopen the raising for a player who already acted."),
        )
    if p.bet + p.stack < agg[1]:
        raise StudError(
            "stack_too_small",
            Detailed(gettext_noop("Your stack does not cover a full %(kind)s; you may go all in."), kind=kind),
        )


def _raise_capped(state: HandState) -> bool:
    live = sum(1 for q in state.players if not q.folded)
    return state.raises >= RAISE_CAP and live > 2 and (state.round_index > 0 or state.opened)


def _raise_updates(st: HandState, p: Player, to: int, kind: str) -> dict[str, Any]:
    """What a complete/bet/raise/all-in to ``to`` (above the level) changes in the round."""
    agg = _aggression(st, p)
    assert agg is not None
    akind, low, _high, _step, _allowed = agg
    lim = st.config.limit
    inc = to - st.level
    updates: dict[str, Any] = {"aggressor": p.seat}
    if to >= low:  # a full action
        updates["reopen"] = st.reopen + 1
        if akind == "raise":
            updates["raises"] = st.raises + 1
            updates["last_size"] = inc
        else:
            updates["opened"] = True
            updates["last_size"] = to
        if lim.is_fixed and st.open_pair and inc >= lim.big_bet and lim.big_bet > lim.small_bet:
            updates["big_made"] = True
    elif akind == "bet":
        updates["opened"] = True
    return updates


def _put(state: HandState, player: Player) -> HandState:
    return replace(state, players=tuple(player if p.seat == player.seat else p for p in state.players))


def _timeout(state: HandState, legal: Legal, action: Action) -> tuple[HandState, list[dict]]:
    seat = legal.seat
    p = state.player(seat)
    street = state.street
    if "check" in legal.actions:
        p2, label = replace(p, acted=True, seen=state.reopen), "timeout_check"
        st = state
    elif seat in state.allowance or action.kind == "timeout_all_in":
        p2, label = replace(p, acted=True, protected=True, seen=state.reopen), "timeout_all_in"
        st = replace(
            state,
            allowance=state.allowance - {seat},
            allowance_used=state.allowance_used | {seat},
            bring_in_pending=False,
        )
    else:
        p2, label = replace(p, acted=True, folded=True, seen=state.reopen), "timeout_fold"
        st = replace(state, bring_in_pending=False)
    st = _put(st, p2)
    return _advance(st, seat, [_act_event(street, seat, label, 0, p2.bet)], action)


def _advance(st: HandState, seat: int, events: list[dict], action: Action) -> tuple[HandState, list[dict]]:
    """After an action: the next player, or the end of the round/hand."""
    st = replace(st, actions=st.actions + ((seat, action),))
    live = [p for p in st.players if not p.folded]
    if len(live) == 1:
        st, more = _finish(st, events_before=events, winner=live[0].seat)
        return st, events + more
    level = st.level
    nxt = _next_seat(st.players, seat, lambda p: p.can_act and (not p.acted or p.bet < level))
    if nxt is not None:
        events.append({"type": "turn", "seat": nxt})
        st = replace(st, to_act=nxt, events=st.events + tuple(events))
        return st, events
    st = replace(st, to_act=None, events=st.events + tuple(events))
    st, more = _close_round(st)
    return st, events + more


def _return_uncalled(st: HandState) -> tuple[HandState, list[dict]]:
    folded = {p.seat for p in st.players if p.folded}
    back = potlib.uncalled({p.seat: p.committed for p in st.players}, folded)
    if back is None:
        return st, []
    seat, amount = back
    p = st.player(seat)
    p2 = replace(p, stack=p.stack + amount, committed=p.committed - amount, bet=max(0, p.bet - amount))
    st = _put(st, p2)
    if st.level > 0:
        st = replace(st, level=max(q.bet for q in st.players))
    return st, [{"type": "return", "seat": seat, "amount": money(amount)}]


def _close_round(st: HandState) -> tuple[HandState, list[dict]]:
    """End the betting round: return an uncalled bet, then the next street or the showdown."""
    out: list[dict] = []
    while True:
        st, back = _return_uncalled(st)
        out.extend(back)
        if st.street >= st.config.last_street:
            st = replace(st, events=st.events + tuple(back))
            st, more = _showdown(st)
            return st, out + more
        st, dealt = _next_street(replace(st, events=st.events + tuple(back)))
        out.extend(dealt)
        if st.to_act is not None:
            return st, out


def _next_street(st: HandState) -> tuple[HandState, list[dict]]:
    cfg = st.config
    street = st.street + 1
    round_index = st.round_index + 1
    live = [p for p in st.players if not p.folded]
    events: list[dict] = []
    position = street - 1
    up = position not in DOWN_POSITIONS[cfg.game]
    pos = st.pos
    burns = st.burns
    community = st.community
    new_cards: dict[int, int] = {}
    left = len(st.deck) - pos
    n = len(live)
    if cfg.game == "seven_stud" and street == cfg.last_street and left < n + 1:
        pool = list(st.deck[pos:]) + list(burns)
        shuffled, used = reshuffle_pool(st, pool)
        st = replace(st, words_used=used)
        events.append({"type": "reshuffle", "pool_size": len(pool)})
        pos = len(st.deck)
        if len(shuffled) >= n:
            for i, p in enumerate(live):
                new_cards[p.seat] = shuffled[i]
                events.append(_deal_event(street, p.seat, shuffled[i], up))
        else:
            community = shuffled[0]
            events.append({"type": "community", "card": card_to_str(community)})
    else:
        burn = st.deck[pos]
        pos += 1
        burns = burns + (burn,)
        events.append({"type": "burn", "card": card_to_str(burn)})
        for p in live:
            card = st.deck[pos]
            pos += 1
            new_cards[p.seat] = card
            events.append(_deal_event(street, p.seat, card, up))
    players = tuple(
        replace(p, cards=p.cards + ((new_cards[p.seat],) if p.seat in new_cards else ()), bet=0, acted=False, seen=0)
        for p in st.players
    )
    st = replace(
        st,
        players=players,
        pos=pos,
        burns=burns,
        community=community,
        street=street,
        round_index=round_index,
        level=0,
        raises=0,
        opened=False,
        bring_in_pending=False,
        last_size=0,
        big_made=False,
        reopen=0,
        aggressor=None,
        to_act=None,
    )
    down = DOWN_POSITIONS[cfg.game]
    showing = {p.seat: tuple(c for i, c in enumerate(p.cards) if i not in down) for p in st.players if not p.folded}
    open_pair = False
    if cfg.limit.is_fixed and round_index == OPEN_PAIR_ROUND and cfg.limit.big_bet > cfg.limit.small_bet:
        open_pair = any(len({c >> 2 for c in ups}) < len(ups) for ups in showing.values())
    best = _ev().best_showing_seat(cfg.game, showing)
    able = [p for p in st.players if p.can_act]
    first = None
    if len(able) >= 2:
        first = _next_seat(st.players, best - 1, lambda p: p.can_act)
    events.append({"type": "street", "street": street, "first_to_act": first})
    st = replace(st, open_pair=open_pair, leader=first if first is not None else best, to_act=first)
    if first is not None:
        events.append({"type": "turn", "seat": first})
    st = replace(st, events=st.events + tuple(events))
    return st, events


# --------------------------------------------------------------------------- the end


def _settle(
    st: HandState, winners_of: Callable[[tuple[int, ...]], tuple[int, ...]], *, first_round: bool
) -> tuple[HandState, list[dict], list[dict]]:
    """Build the pots, take the rake, award; returns (state, pot records, events)."""
    folded = {p.seat for p in st.players if p.folded}
    commits = {p.seat: p.committed for p in st.players}
    built = potlib.build_pots(commits, folded)
    total = sum(a for a, _ in built)
    rake = potlib.rake_for(st.config.rake, total, ended_in_first_round=first_round)
    after = potlib.take_rake([a for a, _ in built], rake)
    gains: dict[int, int] = {}
    records: list[dict] = []
    events: list[dict] = []
    for index, ((amount, eligible), net_amount) in enumerate(zip(built, after)):
        winners = winners_of(eligible)
        shares = potlib.split(net_amount, winners) if winners else {}
        for seat, share in shares.items():
            gains[seat] = gains.get(seat, 0) + share
            events.append({"type": "award", "pot": index, "seat": seat, "amount": money(share)})
        records.append(
            {
                "amount": money(amount),
                "rake": money(amount - net_amount),
                "eligible": list(eligible),
                "winners": list(winners),
                "shares": {str(s): money(v) for s, v in shares.items()},
            }
        )
    if rake:
        events.append({"type": "rake", "amount": money(rake)})
    players = tuple(replace(p, stack=p.stack + gains.get(p.seat, 0), committed=0, bet=0) for p in st.players)
    st = replace(st, players=players, rake=rake, pots=tuple(records))
    return st, records, events


def _finish(st: HandState, *, events_before: list[dict], winner: int) -> tuple[HandState, list[dict]]:
    """Everyone else folded: the uncalled bet goes back, the pot to the last player, unshown."""
    st = replace(st, events=st.events + tuple(events_before), to_act=None)
    st, back = _return_uncalled(st)
    st, _records, awards = _settle(st, lambda eligible: (winner,), first_round=st.round_index == 0)
    events = back + awards + [{"type": "end"}]
    st = replace(st, is_over=True, to_act=None, events=st.events + tuple(events))
    return st, events


def _showdown(st: HandState) -> tuple[HandState, list[dict]]:
    ev = _ev()
    cfg = st.config
    live = [p for p in st.players if not p.folded]
    extra = (st.community,) if st.community is not None else ()
    values = {p.seat: ev.evaluate(cfg.game, list(p.cards + extra)) for p in live}
    strength = {seat: v.strength for seat, v in values.items()}

    def winners_of(eligible: tuple[int, ...]) -> tuple[int, ...]:
        best = max(strength[s] for s in eligible)
        return tuple(s for s in eligible if strength[s] == best)

    st, records, awards = _settle(st, winners_of, first_round=False)
    first = st.aggressor if st.aggressor is not None else st.leader
    if first is None or st.player(first).folded:
        first = live[0].seat
    order = []
    seat = first
    live_seats = {p.seat for p in live}
    start_seats = [p.seat for p in st.players]
    idx = start_seats.index(first)
    for k in range(len(start_seats)):
        s = start_seats[(idx + k) % len(start_seats)]
        if s in live_seats:
            order.append(s)
    # Each pot's best hand shown so far. A player shows when their hand wins or ties one of
    # their pots against what has been shown in that pot, otherwise mucks (SPEC B4); hands
    # still to come play no part in the choice.
    best_shown: dict[int, int] = {}  # pot index -> strength
    hands = []
    for seat in order:
        value = values[seat]
        theirs = [i for i, r in enumerate(records) if seat in r["eligible"]]
        shown = seat in st.always_show or any(value.strength >= best_shown.get(i, 0) for i in theirs)
        if shown:
            for i in theirs:
                best_shown[i] = max(value.strength, best_shown.get(i, 0))
        p = st.player(seat)
        hands.append(
            {
                "seat": seat,
                "shown": shown,
                "cards": [card_to_str(c) for c in p.cards],
                "category": value.category.key,
                "best_five": [card_to_str(c) for c in value.best_five],
            }
        )
    showdown_event = {"type": "showdown", "order": order, "hands": hands}
    if st.community is not None:
        showdown_event["community"] = card_to_str(st.community)
    events = [showdown_event] + awards + [{"type": "end"}]
    st = replace(st, is_over=True, to_act=None, showdown=tuple(hands), events=st.events + tuple(events))
    return st, events


# --------------------------------------------------------------------------- record, replay, views


def hand_record(state: HandState) -> dict:
    """The hand's JSON object (``docs/stud-hand-record.md``); final once ``state.is_over``."""
    cfg = state.config
    record = {
        "version": RECORD_VERSION,
        "game": cfg.game,
        "table": cfg.name,
        "limit": cfg.limit.as_record(),
        "buy_in": money(cfg.buy_in),
        "ante": money(cfg.ante),
        "bring_in": money(cfg.bring_in),
        "bring_in_rule": cfg.bring_in_rule,
        "max_seats": cfg.max_seats,
        "rake_rule": cfg.rake.as_record(),
        "server_seed": state.server_seed,
        "commitment": state.commitment,
        "client_seed": state.client_seed,
        "nonce": state.nonce,
        "dealt_from_seeds": state.dealt_from_seeds,
        "seats": [
            {
                "seat": p.seat,
                "player": p.player,
                "stack": money(p.start),
                "client_seed": p.client_seed,
                "all_in_allowance": p.seat in state.allowance or p.seat in state.allowance_used,
                "always_show": p.seat in state.always_show,
            }
            for p in state.players
        ],
        "events": [dict(e) for e in state.events],
        "showdown": [dict(h) for h in state.showdown],
        "pots": [dict(p) for p in state.pots],
        "rake": money(state.rake),
        "net": {str(seat): money(v) for seat, v in state.net.items()},
        "complete": state.is_over,
    }
    if state.community is not None:
        record["community"] = card_to_str(state.community)
    if not state.dealt_from_seeds:
        record["deck"] = [card_to_str(c) for c in state.deck]
    return record


def config_from_record(record: Mapping) -> GameConfig:
    """The table of a hand record."""
    lim = record["limit"]
    if lim["type"] == "fixed":
        limit = Limit.fixed(cents(lim["small_bet"]), cents(lim["big_bet"]))
    else:
        limit = Limit.spread(cents(lim["min_bet"]), cents(lim["max_bet"]), cents(lim.get("unit", "0.25")))
    rr = record["rake_rule"]
    rake = RakeRule(
        percent=Decimal(str(rr["percent"])), cap=cents(rr["cap"]), no_first_round=bool(rr["no_first_round"])
    )
    return GameConfig(
        game=record["game"],
        name=record.get("table", "custom"),
        limit=limit,
        buy_in=cents(record.get("buy_in", "0.01")),
        ante=cents(record["ante"]),
        bring_in=cents(record["bring_in"]),
        bring_in_rule=record.get("bring_in_rule", "lowest"),
        max_seats=int(record.get("max_seats", 8)),
        rake=rake,
    )


_TIMEOUT_LABELS = frozenset({"timeout_check", "timeout_all_in", "timeout_fold"})


def record_actions(record: Mapping) -> list[tuple[int, Action]]:
    """The players' actions of a record, as ``(seat, Action)`` in order (antes are not actions)."""
    out: list[tuple[int, Action]] = []
    for event in record["events"]:
        if event.get("type") != "action" or event["action"] == "ante":
            continue
        label = event["action"]
        if label in _TIMEOUT_LABELS:
            out.append((event["seat"], Action("timeout")))
        elif label in SIZED_KINDS:
            out.append((event["seat"], Action(label, cents(event["to"]))))
        else:
            out.append((event["seat"], Action(label)))
    return out


def replay(record: Mapping) -> HandState:
    """Rebuild a hand from its record's table, seeds, seats and actions (the deck too if rigged)."""
    config = config_from_record(record)
    seeds = [s.get("client_seed") for s in record["seats"]]
    if None in seeds:  # a record without per-seat seeds: the hand's seed split at ':' (one per seat)
        seeds = str(record["client_seed"]).split(":")
        if len(seeds) != len(record["seats"]):
            raise StudError("record_invalid", gettext_noop("The record's seats lack their client seeds."))
    seats = [
        SeatIn(seat=s["seat"], player=s["player"], stack=cents(s["stack"]), client_seed=seed)
        for s, seed in zip(record["seats"], seeds)
    ]
    allowance = {s["seat"]: bool(s.get("all_in_allowance", True)) for s in record["seats"]}
    always_show = [s["seat"] for s in record["seats"] if s.get("always_show")]
    deck = None
    if not record.get("dealt_from_seeds", True):
        deck = [card_from_str(c) for c in record["deck"]]
    state, _ = start_hand(
        config=config,
        seats=seats,
        server_seed=record["server_seed"],
        nonce=record["nonce"],
        all_in_allowance=allowance,
        deck=deck,
        always_show=always_show,
    )
    if state.client_seed != record["client_seed"]:
        raise StudError("record_invalid", gettext_noop("The seats' client seeds do not give the record's client seed."))
    for seat, action in record_actions(record):
        state, _ = apply(state, seat, action)
    return state


def verify_record(record: Mapping) -> HandState:
    """Replay ``record`` and check that it says exactly what the engine does with its seeds and actions.

    Raises ``StudError("record_mismatch")`` naming the first field that differs (a forged
    card, amount, pot or result), or the replay's own error for an impossible action.
    """
    state = replay(record)
    rebuilt = hand_record(state)
    if rebuilt["commitment"] != record.get("commitment"):
        raise StudError("record_mismatch", gettext_noop("The commitment is not the hash of the server seed."))
    for key, value in rebuilt.items():
        if record.get(key) != value:
            if key == "events":
                theirs = list(record.get("events") or [])
                index = next((i for i, (a, b) in enumerate(zip(value, theirs)) if a != b), min(len(value), len(theirs)))
                raise StudError(
                    "record_mismatch",
                    Detailed(gettext_noop("Event %(index)s differs from the replay."), index=index),
                    {"field": key, "index": index},
                )
            raise StudError(
                "record_mismatch",
                Detailed(gettext_noop("The record's %(field)s differs from the replay."), field=repr(key)),
                {"field": key},
            )
    return state


def _view(state: HandState, viewer: int | None) -> dict:
    over = state.is_over
    events = []
    for e in state.events:
        t = e["type"]
        if t == "deal" and not e["up"] and e["seat"] != viewer:
            e = {**e, "card": None}
        elif t == "burn":
            e = {**e, "card": None}
        elif t == "showdown":
            e = {**e, "hands": [_shown_only(h) for h in e["hands"]]}
        events.append(e)
    down = DOWN_POSITIONS[state.config.game]
    seats = []
    for p in state.players:
        entry = {
            "seat": p.seat,
            "player": p.player,
            "stack": money(p.stack),
            "bet": money(p.bet),
            "in_pot": money(p.committed),
            "folded": p.folded,
            "all_in": p.all_in,
            "up": [card_to_str(c) for i, c in enumerate(p.cards) if i not in down],
            "down_count": sum(1 for i in range(len(p.cards)) if i in down),
        }
        if p.seat == viewer:
            entry["down"] = [card_to_str(c) for i, c in enumerate(p.cards) if i in down]
        seats.append(entry)
    view = {
        "game": state.config.game,
        "table": state.config.name,
        "street": state.street,
        "to_act": state.to_act,
        "is_over": over,
        "commitment": state.commitment,
        "client_seed": state.client_seed,
        "nonce": state.nonce,
        "pot": money(state.pot),
        "seats": seats,
        "events": events,
        "community": card_to_str(state.community) if state.community is not None else None,
        "showdown": [_shown_only(h) for h in state.showdown],
        "rake": money(state.rake),
    }
    if over:
        view["server_seed"] = state.server_seed
        view["pots"] = [dict(p) for p in state.pots]
    if viewer is not None and not over and state.to_act == viewer:
        view["legal"] = legal_as_dict(state.legal())
    return view


def _shown_only(hand: dict) -> dict:
    if hand["shown"]:
        return dict(hand)
    return {"seat": hand["seat"], "shown": False}


def public_view(state: HandState) -> dict:
    """What a spectator may see: up cards, actions, shown hands; the server seed once over."""
    return _view(state, None)


def player_view(state: HandState, seat: int) -> dict:
    """What the player in ``seat`` may see: the public view plus their own down cards (and legal moves)."""
    state.player(seat)
    return _view(state, seat)


def legal_as_dict(legal: Legal) -> dict:
    """``Legal`` as JSON (amounts as decimal strings)."""

    def span(value):
        return [money(value[0]), money(value[1])] if value else None

    return {
        "seat": legal.seat,
        "actions": sorted(legal.actions),
        "call_amount": money(legal.call_amount),
        "bring_in_amount": money(legal.bring_in_amount) if legal.bring_in_amount is not None else None,
        "complete_to": span(legal.complete_to),
        "bet_to": span(legal.bet_to),
        "raise_to": span(legal.raise_to),
        "step": money(legal.step),
        "all_in_to": money(legal.all_in_to) if legal.all_in_to is not None else None,
    }


__all__ = [
    "Action",
    "HandState",
    "Legal",
    "Player",
    "SeatIn",
    "StudError",
    "apply",
    "cents",
    "config_from_record",
    "hand_record",
    "legal_as_dict",
    "money",
    "player_view",
    "public_view",
    "record_actions",
    "replay",
    "reshuffle_pool",
    "seeded_deck",
    "start_hand",
    "verify_record",
]
