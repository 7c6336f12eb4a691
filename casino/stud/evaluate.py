"""Stud hand evaluation (SPEC §0 "Hand categories", B3 "best hand showing", B5 hand ranks).

``evaluate(game, cards)`` gives a ``HandValue``: one int ``strength`` (higher wins, equal
ties; compare only within one game), the ``category`` and the five cards that make it,
in the order a player reads them (the pair first, then the kickers high to low; a
straight from its top card, ``5432A`` for the wheel). ``five_stud`` and ``soko`` take
exactly five cards; ``seven_stud`` takes five to seven (the best five; a community card
is just one more card). ``soko`` adds the four-flush and four-straight of B5.

``showing_strength`` ranks one to four up cards for "who acts first" (B3);
``best_showing_seat`` and ``bring_in_seat`` pick the seats. ``evaluate_many`` is the
vectorised path (numpy) for simulation and the exhaustive tests.

Strength layout, shared by every function here::

    strength = StudCategory << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5

so ``StudCategory(strength >> 20)`` is the category. Standard five-card strengths equal
the Caribbean evaluator's (``casino.game.evaluator``) with its categories renumbered.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from operator import itemgetter

import numpy as np

from casino.game import evaluator as caribbean
from casino.game.cards import card_to_str
from casino.stud import eval_tables as _t
from casino.stud.eval_tables import CATEGORY_SHIFT, StudCategory

__all__ = [
    "GAMES",
    "HandValue",
    "StudCategory",
    "best_showing_seat",
    "bring_in_seat",
    "evaluate",
    "evaluate_many",
    "showing_strength",
]

GAMES = ("five_stud", "soko", "seven_stud")
CARD_COUNTS = {"five_stud": (5, 5), "soko": (5, 5), "seven_stud": (5, 7)}
BRING_IN_RULES = ("lowest", "highest")


@dataclass(frozen=True, slots=True)
class HandValue:
    """A hand's value: ``strength`` (higher wins, equal ties, one game at a time), its
    ``category`` and the five cards that make it, in the order a player reads them."""

    strength: int
    category: StudCategory
    best_five: tuple[int, ...]

    def __repr__(self) -> str:
        cards = " ".join(card_to_str(card) for card in self.best_five)
        return f"HandValue({self.category.key}, [{cards}], strength={self.strength:#x})"


# --- validation ----------------------------------------------------------------------


def _game_error(game: object) -> ValueError:
    return ValueError(f"unknown stud game {game!r}; expected one of: {', '.join(GAMES)}")


def _check_cards(cards: object, low: int, high: int, what: str) -> tuple[int, ...]:
    """The cards as a tuple of ints, or ValueError saying exactly what is wrong."""
    if isinstance(cards, (str, bytes)) or not hasattr(cards, "__iter__"):
        raise ValueError(f"{what}: expected a sequence of cards (ints 0..51), got {cards!r}")
    cards = tuple(cards)
    for card in cards:
        if isinstance(card, bool) or not isinstance(card, (int, np.integer)) or not 0 <= card < 52:
            raise ValueError(f"{what}: not a card: {card!r} (expected an int in 0..51)")
    cards = tuple(int(card) for card in cards)
    if not low <= len(cards) <= high:
        wanted = str(low) if low == high else f"{low} to {high}"
        raise ValueError(f"{what}: expected {wanted} cards, got {len(cards)}")
    if len(set(cards)) != len(cards):
        repeated = sorted({card for card in cards if cards.count(card) > 1})
        raise ValueError(f"{what}: duplicate cards: {' '.join(card_to_str(c) for c in repeated)}")
    return cards


# --- tables, built on first use --------------------------------------------------------

_WORDS = _t.CARD_WORDS
_RANK_SHIFT = _t.RANK_SHIFT
_SUIT_MASK = _t.SUIT_MASK
_FLUSH_SUIT = _t.build_flush_suit(5)
_FOUR_FLUSH_SUIT = _t.build_four_flush_suit()
_CATEGORIES = _t.CATEGORIES
_PLAIN: dict[int, dict[int, tuple[int, StudCategory, itemgetter]]] = {}
_SOKO_RUNS: dict[int, tuple[int, StudCategory, itemgetter] | None] = {}
_BUILD_LOCK = threading.Lock()


def _entry(strength: int, positions: tuple[int, ...]) -> tuple[int, StudCategory, itemgetter]:
    return strength, _CATEGORIES[strength >> CATEGORY_SHIFT], itemgetter(*positions)


_FLUSH: dict[int, tuple[int, StudCategory, itemgetter]] = {
    mask: _entry(*value) for mask, value in _t.build_flush().items()
}  # small: built at import


def _plain_table(size: int) -> dict[int, tuple[int, StudCategory, itemgetter]]:
    """The rank-multiset table for ``size`` cards, built once (under a lock: the room may
    evaluate from several threads), published only when complete."""
    table = _PLAIN.get(size)
    if table is None:
        with _BUILD_LOCK:
            table = _PLAIN.get(size)
            if table is None:
                table = {key: _entry(*value) for key, value in _t.build_without_flush(size).items()}
                if size == 5:
                    runs = {}
                    for ranks in _t.rank_multisets(5):
                        run = _t.four_straight(ranks)
                        runs[_t.rank_key(ranks)] = None if run is None else _entry(*run)
                    _SOKO_RUNS.update(runs)
                _PLAIN[size] = table
    return table


# --- evaluation ------------------------------------------------------------------------

_new = object.__new__
# The slots' own setters (the class is frozen to its users; these build it fast).
_set_strength = HandValue.__dict__["strength"].__set__
_set_category = HandValue.__dict__["category"].__set__
_set_best_five = HandValue.__dict__["best_five"].__set__
_PLAIN_SEQUENCES = frozenset({list, tuple})
_PLAIN7: dict[int, tuple[int, StudCategory, itemgetter]] = {}


def _value(strength: int, category: StudCategory, best_five: tuple[int, ...]) -> HandValue:
    """``HandValue(...)`` without the frozen dataclass's ``__init__`` overhead."""
    value = _new(HandValue)
    _set_strength(value, strength)
    _set_category(value, category)
    _set_best_five(value, best_five)
    return value


def prepare() -> None:
    """Build every lookup table now (a second or more, once a process); afterwards it
    costs nothing. The processes that play poker call it as they start (the ASGI
    application, the Celery worker before its pool forks, ``run_periodic``), so that no
    player's action and no countdown waits for it; the room calls it again before a step
    takes its locks, for any other process (a shell, a test), so that the first showdown
    does not build them while a table is locked."""
    if _PLAIN7:
        return
    for size in (5, 6):
        _plain_table(size)
    _PLAIN7.update(_plain_table(7))


def _plain7(key: int) -> tuple[int, StudCategory, itemgetter]:
    if not _PLAIN7:
        _PLAIN7.update(_plain_table(7))
    return _PLAIN7[key]


def _word(cards: Sequence[int]) -> int:
    """Sum of the cards' words (rank keys above suit counts); -1 if one is not a plain int 0..51."""
    words = _WORDS
    word = 0
    try:
        for card in cards:
            if type(card) is not int:
                return -1
            word += words[card]
    except KeyError:
        return -1
    return word


def _flush_value(cards: Sequence[int], suit: int) -> HandValue:
    suited = sorted((card for card in cards if card & 3 == suit), reverse=True)
    mask = 0
    for card in suited:
        mask |= 1 << (card >> 2)
    strength, category, pick = _FLUSH[mask]
    return _value(strength, category, pick(suited))


def _standard(cards: Sequence[int], size: int, word: int) -> HandValue:
    """Best five of ``size`` (5..7) distinct cards whose words sum to ``word``."""
    suit = _FLUSH_SUIT[word & _SUIT_MASK]
    if suit >= 0:  # five or more of a suit: no full house or quads beside it in 7 cards
        return _flush_value(cards, suit)
    table = _PLAIN.get(size) or _plain_table(size)
    strength, category, pick = table[word >> _RANK_SHIFT]
    return _value(strength, category, pick(sorted(cards, reverse=True)))


def _soko(cards: Sequence[int], word: int) -> HandValue:
    """Five distinct cards under SPEC B5's ranks."""
    if _FLUSH_SUIT[word & _SUIT_MASK] >= 0:
        return _standard(cards, 5, word)
    table = _PLAIN.get(5) or _plain_table(5)
    strength, category, pick = table[word >> _RANK_SHIFT]
    if category <= StudCategory.ONE_PAIR:  # two pair and up outrank both SOKO hands
        suit = _FOUR_FLUSH_SUIT[word & _SUIT_MASK]
        if suit >= 0:  # four-flush (also when the four make a four-straight or the fifth pairs one)
            suited = sorted((card for card in cards if card & 3 == suit), reverse=True)
            odd = next(card for card in cards if card & 3 != suit)
            ranks = [card >> 2 for card in suited] + [odd >> 2]
            return _value(_t.pack(StudCategory.FOUR_FLUSH, ranks), StudCategory.FOUR_FLUSH, (*suited, odd))
        run = _SOKO_RUNS[word >> _RANK_SHIFT]
        if run is not None:
            strength, category, pick = run
    return _value(strength, category, pick(sorted(cards, reverse=True)))


def evaluate(game: str, cards: Sequence[int]) -> HandValue:
    """The value of a stud hand: ``five_stud``/``soko`` exactly 5 cards, ``seven_stud`` 5 to 7.

    Raises ValueError for an unknown game, a wrong number of cards, duplicates or
    anything that is not a card (an int 0..51).
    """
    # The engine's call, seven plain distinct int cards, inlined for speed; anything
    # else (or anything wrong) takes the general path below.
    if game == "seven_stud" and cards.__class__ in _PLAIN_SEQUENCES and len(cards) == 7:
        a, b, c, d, e, f, g = cards
        if (
            type(a) is int and type(b) is int and type(c) is int and type(d) is int
            and type(e) is int and type(f) is int and type(g) is int
            and len({a, b, c, d, e, f, g}) == 7
        ):  # fmt: skip
            words = _WORDS
            try:
                word = words[a] + words[b] + words[c] + words[d] + words[e] + words[f] + words[g]
            except KeyError:  # not in 0..51: the checked path says so
                word = -1
            if word >= 0:
                suit = _FLUSH_SUIT[word & 4095]  # literal: _SUIT_MASK
                if suit >= 0:
                    return _flush_value(cards, suit)
                entry = _PLAIN7.get(word >> 12) or _plain7(word >> 12)  # literal: _RANK_SHIFT
                value = _new(HandValue)
                _set_strength(value, entry[0])
                _set_category(value, entry[1])
                _set_best_five(value, entry[2](sorted(cards, reverse=True)))
                return value
    limits = CARD_COUNTS.get(game) if game.__class__ is str else None
    if limits is None:
        raise _game_error(game)
    word = -1
    if cards.__class__ in _PLAIN_SEQUENCES:
        size = len(cards)
        if limits[0] <= size <= limits[1] and len(set(cards)) == size:
            word = _word(cards)
    if word < 0:
        cards = _check_cards(cards, limits[0], limits[1], f"{game} hand")
        word = _word(cards)
    if game == "soko":
        return _soko(cards, word)
    return _standard(cards, len(cards), word)


# --- best hand showing (B3) ------------------------------------------------------------


_SHOWING: tuple[dict[int, tuple[int, int | None, int | None]], ...] = tuple(
    _t.build_showing(size) if size else {} for size in range(5)
)


def showing_strength(game: str, up_cards: Sequence[int]) -> int:
    """Rank of 1 to 4 up cards for who acts first (SPEC B3); higher acts first.

    Four of a kind > three of a kind > two pair > pair > high cards, ties by rank high to
    low, no straights or flushes; in ``soko`` four up cards that make a four-flush or a
    four-straight rank as in B5 (below two pair, above one pair; a four-flush above a
    four-straight). Suits never break ties: equal strengths go to the lowest seat.

    The layout is ``evaluate``'s with every rank field one higher (1 = two … 13 = ace), so
    that an empty field sorts below a two and more cards with the same ranks sort higher.
    """
    if game.__class__ is not str or game not in CARD_COUNTS:
        raise _game_error(game)
    word = -1
    if up_cards.__class__ in _PLAIN_SEQUENCES and 1 <= len(up_cards) <= 4 and len(set(up_cards)) == len(up_cards):
        word = _word(up_cards)
    if word < 0:
        up_cards = _check_cards(up_cards, 1, 4, f"{game} up cards")
        word = _word(up_cards)
    standard, run, four_flush = _SHOWING[len(up_cards)][word >> _RANK_SHIFT]
    if game == "soko" and four_flush is not None:
        if _FOUR_FLUSH_SUIT[word & _SUIT_MASK] >= 0:  # four cards, one suit
            return four_flush
        if run is not None:
            return run
    return standard


def best_showing_seat(game: str, showing: Mapping[int, Sequence[int]]) -> int:
    """The seat whose up cards are best (SPEC B3); equal best hands go to the lowest seat."""
    if not showing:
        raise ValueError("best_showing_seat: no seats given")
    best_seat, best = 0, -1
    seen: list[int] = []
    for seat in sorted(showing):
        cards = showing[seat]
        strength = showing_strength(game, cards)
        seen.extend(int(card) for card in cards)
        if strength > best:
            best_seat, best = seat, strength
    if len(set(seen)) != len(seen):
        repeated = sorted({card for card in seen if seen.count(card) > 1})
        raise ValueError(f"best_showing_seat: a card shows at two seats: {' '.join(map(card_to_str, repeated))}")
    return best_seat


def bring_in_seat(door_cards: Mapping[int, int], rule: str) -> int:
    """The seat that brings in (SPEC B3).

    ``"lowest"``: the lowest door card by rank, equal ranks by suit clubs < diamonds <
    hearts < spades; ``"highest"``: the highest door card, spades highest. Card ints are
    ``rank * 4 + suit`` in exactly that order, so this is the smallest / largest card.
    """
    if rule not in BRING_IN_RULES:
        raise ValueError(f"unknown bring-in rule {rule!r}; expected one of: {', '.join(BRING_IN_RULES)}")
    if not door_cards:
        raise ValueError("bring_in_seat: no door cards given")
    seats = sorted(door_cards)
    cards = _check_cards([door_cards[seat] for seat in seats], 1, 52, "door cards")
    pick = min if rule == "lowest" else max
    return seats[cards.index(pick(cards))]


# --- batch path ------------------------------------------------------------------------

_STUD_OF_CARIBBEAN = (
    np.array([StudCategory[category.name] - category for category in caribbean.Category], dtype=np.int64)
    << CATEGORY_SHIFT
)
_BATCH: dict[str, np.ndarray] = {}


def _batch_common() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(flush strengths by 13-bit rank mask, rank key per card, card bit per card)."""
    if "flush" not in _BATCH:
        flush = np.full(1 << 13, -1, dtype=np.int32)
        for mask, entry in _FLUSH.items():
            flush[mask] = entry[0]
        _BATCH["rank_keys"] = np.array([_t.RANK_KEYS[card >> 2] for card in range(52)], dtype=np.int32)
        # bit (suit * 13 + rank): one 13-bit rank field per suit
        _BATCH["bits"] = np.array([1 << ((card & 3) * 13 + (card >> 2)) for card in range(52)], dtype=np.uint64)
        _BATCH["flush"] = flush  # last: its presence says the three are there
    return _BATCH["flush"], _BATCH["rank_keys"], _BATCH["bits"]


def _batch_plain_table(size: int) -> np.ndarray:
    """Rank-key sum of ``size`` cards -> strength without a flush (-1: no such multiset)."""
    key = f"plain{size}"
    if key not in _BATCH:
        plain = _plain_table(size)
        table = np.full(max(plain) + 1, -1, dtype=np.int32)
        table[np.fromiter(plain, dtype=np.int64)] = [entry[0] for entry in plain.values()]
        _BATCH[key] = table
    return _BATCH[key]


def _card_bits(hands: np.ndarray, bits: np.ndarray) -> np.ndarray:
    mask = bits[hands[:, 0]]
    for column in range(1, hands.shape[1]):
        mask |= bits[hands[:, column]]
    return mask


def _batch_five_standard(hands: np.ndarray) -> np.ndarray:
    strengths = caribbean.evaluate_batch(hands)
    return (strengths + _STUD_OF_CARIBBEAN[strengths >> CATEGORY_SHIFT]).astype(np.int32)


def _soko_batch_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """By 13-bit rank mask: the four-flush and four-straight strengths less the part the
    hand's rank sum supplies (its odd card's rank), ``_NONE`` where there is none; and the
    rank of each card."""
    if "four_flush" not in _BATCH:
        four_flush = np.full(1 << 13, _NONE, dtype=np.int64)
        four_straight = np.full(1 << 13, _NONE, dtype=np.int64)
        for ranks in combinations(range(12, -1, -1), 4):
            mask = sum(1 << rank for rank in ranks)
            # strength = pack(four ranks, odd) and odd = rank sum of the hand - sum(ranks)
            four_flush[mask] = _t.pack(StudCategory.FOUR_FLUSH, ranks) - sum(ranks)
        for size in (4, 5):  # four ranks: one of them paired; five: the odd card is the fifth rank
            for distinct in combinations(range(12, -1, -1), size):
                top = _t.straight_top(distinct, 4)
                if top is not None and (size == 4 or _t.straight_top(distinct) is None):
                    mask = sum(1 << rank for rank in distinct)
                    run = _t.run_ranks(top, 4)
                    four_straight[mask] = _t.pack(StudCategory.FOUR_STRAIGHT, (top,)) - (sum(run) << 12)
        _BATCH["ranks"] = np.arange(52, dtype=np.int64) >> 2
        _BATCH["four_straight"] = four_straight
        _BATCH["four_flush"] = four_flush  # last: its presence says the three are there
    return _BATCH["four_flush"], _BATCH["four_straight"], _BATCH["ranks"]


_NONE = -(1 << 40)


def _batch_soko(hands: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """SPEC B5 over the standard strengths: a four-flush or four-straight lifts a hand
    only above one pair and below two pair, so the best of the three is the hand's rank
    (a straight or flush outranks the four cards inside it; two pair and up have none)."""
    strengths = _batch_five_standard(hands).astype(np.int64)
    four_flush, four_straight, rank_of = _soko_batch_tables()
    rank_sum = rank_of[hands[:, 0]]
    for column in range(1, 5):
        rank_sum += rank_of[hands[:, column]]
    any_suit = np.zeros(len(hands), dtype=np.intp)
    flush_part = np.full(len(hands), _NONE, dtype=np.int64)
    for suit in range(4):
        field = ((mask >> np.uint64(13 * suit)) & np.uint64(8191)).astype(np.intp)
        np.maximum(flush_part, four_flush[field], out=flush_part)
        any_suit |= field
    np.maximum(strengths, flush_part + rank_sum, out=strengths)
    np.maximum(strengths, four_straight[any_suit] + (rank_sum << 12), out=strengths)
    return strengths.astype(np.int32)


def _batch_plain(hands: np.ndarray) -> np.ndarray:
    size = hands.shape[1]
    table = _batch_plain_table(size)
    flush, rank_keys, bits = _batch_common()
    key = rank_keys[hands[:, 0]]
    for column in range(1, size):
        key += rank_keys[hands[:, column]]
    strengths = table[key]
    mask = _card_bits(hands, bits)
    for suit in range(4):
        field = ((mask >> np.uint64(13 * suit)) & np.uint64(8191)).astype(np.intp)
        np.maximum(strengths, flush[field], out=strengths)
    return strengths


def evaluate_many(game: str, hands: np.ndarray) -> np.ndarray:
    """Strengths (int32) of an ``(N, k)`` integer array of hands, row by row equal to
    ``evaluate(game, row).strength``; k as in ``evaluate``. Raises ValueError like it."""
    if game not in CARD_COUNTS:
        raise _game_error(game)
    hands = np.asarray(hands)
    low, high = CARD_COUNTS[game]
    if hands.ndim != 2 or not low <= hands.shape[1] <= high:
        wanted = str(low) if low == high else f"{low} to {high}"
        raise ValueError(f"{game} hands must have shape (N, {wanted}), got {hands.shape}")
    if not np.issubdtype(hands.dtype, np.integer):
        raise ValueError(f"hands must hold integer cards, got dtype {hands.dtype}")
    if hands.size == 0:
        return np.zeros(len(hands), dtype=np.int32)
    if hands.min() < 0 or hands.max() > 51:
        raise ValueError("cards must be in 0..51")
    hands = hands.astype(np.intp, copy=False) if hands.dtype.itemsize > 8 else hands
    mask = _card_bits(hands, _batch_common()[2])
    if np.any(np.bitwise_count(mask) != hands.shape[1]):
        raise ValueError("a hand holds the same card twice")
    if game == "soko":
        return _batch_soko(hands, mask)
    if hands.shape[1] == 5:
        return _batch_five_standard(hands)
    return _batch_plain(hands)
