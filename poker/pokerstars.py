"""The PokerStars hand-history text of a stud hand, rendered from its hand record alone.

Tracking tools (PokerTracker, Hold'em Manager, Hand2Note) read the text PokerStars writes
for each hand; this renders the same structure from the hand record
(``docs/stud-hand-record.md``): the header line, the table line, one ``Seat n:`` line per
player with the starting stack, ``posts the ante``, ``*** 3rd STREET ***`` …
``*** RIVER ***`` (``*** 2nd STREET ***`` … ``*** 5th STREET ***`` in five-card stud) with
``Dealt to`` lines, ``Pair on board - a double bet is allowed`` where the open pair rule
applies, and every action in order, ``Uncalled bet … returned``, ``*** SHOW DOWN ***``
with the shown hands and ``collected … from pot`` (the last side pot first, the main pot
last, as PokerStars awards them), and ``*** SUMMARY ***`` with the total pot, the side
pots and the rake.

PokerStars writes each history for one player (the "hero"): the hero's down cards are
dealt face up to them, everybody else's only as they are shown. ``hero_seat`` chooses
that player; without it the text is what a spectator saw; ``show_all=True`` is the
auditor's text, every card of every player, mucked ones included.

SOKO has no PokerStars name: it is written as ``5 Card Stud Limit`` with the game named
in the header's trailing comment field (``[SOKO: …]``), as converters of other sites'
games do, so a tracker files it as five-card stud and a reader still sees what it was. A
spread-limit table is written as ``Limit (min/max)`` with ``[Spread limit: …]`` there too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from casino.stud.games import FIRST_STREET, OPEN_PAIR_ROUND

GAME_NAMES = {"seven_stud": "7 Card Stud", "five_stud": "5 Card Stud", "soko": "5 Card Stud"}
SOKO_COMMENT = "SOKO: Five Card Stud, four-flush and four-straight rank above one pair"
CURRENCY_SYMBOLS = {"EUR": "€", "USD": "$", "GBP": "£"}
_RANK_NAMES = {
    "2": ("Deuce", "Deuces"),
    "3": ("Three", "Threes"),
    "4": ("Four", "Fours"),
    "5": ("Five", "Fives"),
    "6": ("Six", "Sixes"),
    "7": ("Seven", "Sevens"),
    "8": ("Eight", "Eights"),
    "9": ("Nine", "Nines"),
    "T": ("Ten", "Tens"),
    "J": ("Jack", "Jacks"),
    "Q": ("Queen", "Queens"),
    "K": ("King", "Kings"),
    "A": ("Ace", "Aces"),
}
_RANK_ORDER = "23456789TJQKA"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def street_name(game: str, street: int) -> str:
    """``"3rd STREET"`` … ``"RIVER"`` (seven-card stud's seventh card), ``"5th STREET"`` in five-card stud."""
    if game == "seven_stud" and street == 7:
        return "RIVER"
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(street, "th")
    return f"{street}{suffix} STREET"


def _street_title(game: str, street: int) -> str:
    """The summary's spelling: ``"3rd Street"``, ``"River"``."""
    name = street_name(game, street)
    return "River" if name == "RIVER" else name.replace("STREET", "Street")


def describe_hand(category: str, best_five: Sequence[str]) -> str:
    """PokerStars' words for a hand: ``"a pair of Kings"``, ``"two pair, Kings and Tens"``, …"""
    ranks = [card[0] for card in best_five]
    counts: dict[str, int] = {}
    for rank in ranks:
        counts[rank] = counts.get(rank, 0) + 1
    by_count = sorted(counts, key=lambda r: (counts[r], _RANK_ORDER.index(r)), reverse=True)
    high = max(ranks, key=_RANK_ORDER.index) if ranks else "2"

    def one(rank: str) -> str:
        return _RANK_NAMES[rank][0]

    def many(rank: str) -> str:
        return _RANK_NAMES[rank][1]

    def straight_ends() -> tuple[str, str]:
        order = sorted({_RANK_ORDER.index(r) for r in ranks})
        if order == [0, 1, 2, 3, 12]:  # A2345: five high
            return "Ace", "Five"
        return one(_RANK_ORDER[order[0]]), one(_RANK_ORDER[order[-1]])

    if category == "royal_flush":
        return "a Royal Flush"
    if category == "straight_flush":
        low, top = straight_ends()
        return f"a straight flush, {low} to {top}"
    if category == "four_of_a_kind":
        return f"four of a kind, {many(by_count[0])}"
    if category == "full_house":
        return f"a full house, {many(by_count[0])} full of {many(by_count[1])}"
    if category == "flush":
        return f"a flush, {one(high)} high"
    if category == "straight":
        low, top = straight_ends()
        return f"a straight, {low} to {top}"
    if category == "three_of_a_kind":
        return f"three of a kind, {many(by_count[0])}"
    if category == "two_pair":
        return f"two pair, {many(by_count[0])} and {many(by_count[1])}"
    if category == "four_flush":
        suits: dict[str, list[str]] = {}
        for card in best_five:
            suits.setdefault(card[1], []).append(card[0])
        suited = max(suits.values(), key=len)
        return f"a four flush, {one(max(suited, key=_RANK_ORDER.index))} high"
    if category == "four_straight":
        indexes = sorted({_RANK_ORDER.index(r) for r in ranks})
        top_index = _four_straight_top(indexes)
        return f"a four straight, {one(_RANK_ORDER[top_index])} high"
    if category == "one_pair":
        return f"a pair of {many(by_count[0])}"
    return f"high card {one(high)}"


def _four_straight_top(indexes: list[int]) -> int:
    """The top rank index of the four consecutive ranks among ``indexes`` (A234 is four high)."""
    best = -1
    present = set(indexes)
    for top in range(3, 13):
        if all(top - k in present for k in range(4)):
            best = max(best, top)
    if best < 0 and {12, 0, 1, 2} <= present:
        best = 2  # A234: four high
    return best if best >= 0 else max(indexes)


def _amount(value: Any) -> Decimal:
    return Decimal(str(value))


def _money(value: Decimal, symbol: str) -> str:
    """``€50``, ``€0.50``, ``€12.25``: whole amounts without cents, as PokerStars writes them."""
    if value == value.to_integral_value():
        return f"{symbol}{int(value)}"
    return f"{symbol}{value.quantize(Decimal('0.01'))}"


def _limit_text(record: Mapping[str, Any], symbol: str, currency: str) -> str:
    """``Limit (€5/€10 EUR)``; a spread limit is written with its minimum and maximum bet."""
    limit = record["limit"]
    if limit.get("type") == "spread":
        low, high = _amount(limit["min_bet"]), _amount(limit["max_bet"])
    else:
        low, high = _amount(limit["small_bet"]), _amount(limit["big_bet"])
    return f"Limit ({_money(low, symbol)}/{_money(high, symbol)} {currency})"


def _comment(record: Mapping[str, Any], symbol: str) -> str:
    """The header's trailing comment: what PokerStars has no name for (SOKO, a spread limit)."""
    notes = []
    if record["game"] == "soko":
        notes.append(SOKO_COMMENT)
    limit = record["limit"]
    if limit.get("type") == "spread":
        low, high = _money(_amount(limit["min_bet"]), symbol), _money(_amount(limit["max_bet"]), symbol)
        notes.append(f"Spread limit: any bet {low}-{high}")
    return f" [{'; '.join(notes)}]" if notes else ""


def to_pokerstars(
    record: Mapping[str, Any],
    *,
    hero_seat: int | None = None,
    show_all: bool = False,
    hand_id: int | None = None,
    table_name: str | None = None,
    played_at: datetime | None = None,
    currency: str = "EUR",
) -> str:
    """The PokerStars hand-history text of a finished hand record.

    ``hand_id`` is the number a tracker files the hand under: the room passes its hand's
    id, unique across tables (the record's ``nonce``, per table, is only the fallback);
    ``table_name`` defaults to the record's ``table``,
    ``played_at`` to its ``played_at`` (ISO 8601) when it has one, else the Unix epoch
    (the record itself carries no clock).
    """
    game = record["game"]
    if game not in GAME_NAMES:
        raise ValueError(f"not a stud game: {game!r}")
    symbol = CURRENCY_SYMBOLS.get(currency, "")
    money = lambda value: _money(value, symbol)  # noqa: E731 - a local shorthand
    names = {int(seat["seat"]): str(seat["player"]) for seat in record["seats"]}
    stacks = {int(seat["seat"]): _amount(seat["stack"]) for seat in record["seats"]}
    seats_in_order = sorted(names)
    if played_at is None and record.get("played_at"):
        played_at = datetime.fromisoformat(str(record["played_at"]))
    when = (played_at or _EPOCH).astimezone(UTC).strftime("%Y/%m/%d %H:%M:%S UTC")
    number = hand_id if hand_id is not None else record.get("nonce", 0)
    header = f"PokerStars Hand #{number}:  {GAME_NAMES[game]} {_limit_text(record, symbol, currency)} - {when}"
    header += _comment(record, symbol)
    max_seats = record.get("max_seats", 8)
    lines = [header, f"Table '{table_name or record.get('table') or game}' {max_seats}-max"]
    lines += [f"Seat {seat}: {names[seat]} ({money(stacks[seat])} in chips)" for seat in seats_in_order]

    showdown = {int(entry["seat"]): entry for entry in record.get("showdown", [])}
    last_street = 7 if game == "seven_stud" else 5
    visible_down = lambda seat: show_all or seat == hero_seat  # noqa: E731
    cards: dict[int, list[tuple[str, bool]]] = {seat: [] for seat in seats_in_order}
    new_cards: dict[int, list[tuple[str, bool]]] = {seat: [] for seat in seats_in_order}
    folded_on: dict[int, int] = {}
    put_in_voluntarily: set[int] = set()
    remaining = dict(stacks)
    current_street: int | None = None
    header_pending: int | None = None
    community: str | None = None
    pot_shares: dict[int, Decimal] = {}
    collected: dict[int, Decimal] = {}
    rake = _amount(record.get("rake", "0"))
    showdown_started = False
    awards: list[tuple[int, str]] = []  # (pot, line) until the awards are over
    limit = record["limit"]
    open_pair_street = (
        FIRST_STREET[game] + OPEN_PAIR_ROUND
        if (limit.get("type") == "fixed" and _amount(limit["big_bet"]) > _amount(limit["small_bet"]))
        else None
    )

    def open_pair_showing() -> bool:
        """SPEC B3's open pair: a player still in shows a pair among their up cards."""
        for seat in seats_in_order:
            ranks = [card[0] for card, up in cards[seat] if up]
            if seat not in folded_on and len(set(ranks)) < len(ranks):
                return True
        return False

    def flush_awards() -> None:
        """The ``collected`` lines: the last side pot first, the main pot last (PokerStars' order)."""
        for _pot, line in sorted(awards, key=lambda award: -award[0]):
            lines.append(line)
        awards.clear()

    def flush_deals() -> None:
        """The ``Dealt to`` lines of the street just dealt, seat order."""
        nonlocal header_pending
        dealt = any(new_cards.values())
        if header_pending is not None:
            lines.append(f"*** {street_name(game, header_pending)} ***")
            header_pending = None
        for seat in seats_in_order:
            fresh = new_cards[seat]
            if not fresh:
                continue
            old = cards[seat]
            shown_old = [card for card, up in old if up or visible_down(seat)]
            shown_new = [card for card, up in fresh if up or visible_down(seat)]
            cards[seat] = old + fresh
            new_cards[seat] = []
            if not shown_new:
                continue
            if shown_old and current_street != (3 if game == "seven_stud" else 2):
                lines.append(f"Dealt to {names[seat]} [{' '.join(shown_old)}] [{' '.join(shown_new)}]")
            else:
                lines.append(f"Dealt to {names[seat]} [{' '.join(shown_old + shown_new)}]")
        if dealt and current_street == open_pair_street and open_pair_showing():
            lines.append("Pair on board - a double bet is allowed")

    def start_street(street: int) -> None:
        nonlocal current_street, header_pending
        if street == current_street:
            return
        if any(new_cards.values()):
            flush_deals()
        current_street = street
        header_pending = street

    def show_down() -> None:
        """``*** SHOW DOWN ***``: each hand in showdown order, shown (with its words) or mucked."""
        lines.append("*** SHOW DOWN ***")
        for seat, entry in showdown.items():
            if entry.get("shown"):
                described = describe_hand(str(entry.get("category")), entry.get("best_five") or [])
                lines.append(f"{names[seat]}: shows [{' '.join(entry['cards'])}] ({described})")
            else:
                lines.append(f"{names[seat]}: mucks hand")

    max_to = Decimal(0)
    for event in record["events"]:
        kind = event["type"]
        if kind != "award":
            flush_awards()
        if kind == "deal":
            start_street(int(event["street"]))
            new_cards[int(event["seat"])].append((str(event["card"]), bool(event["up"])))
        elif kind == "street":
            start_street(int(event["street"]))
            max_to = Decimal(0)
        elif kind == "community":
            community = str(event["card"])
            start_street(last_street)
            flush_deals()
            lines[-1] = f"*** {street_name(game, last_street)} *** [{community}]"
        elif kind == "action":
            seat = int(event["seat"])
            action = event["action"]
            amount = _amount(event.get("amount") or "0")
            to = _amount(event["to"]) if event.get("to") is not None else Decimal(0)
            name = names[seat]
            if action == "ante":
                remaining[seat] -= amount
                suffix = " and is all-in" if remaining[seat] == 0 else ""
                lines.append(f"{name}: posts the ante {money(amount)}{suffix}")
                continue
            if any(new_cards.values()) or header_pending is not None:
                flush_deals()
            if (
                current_street is not None
                and event.get("street") is not None
                and int(event["street"]) != current_street
            ):
                start_street(int(event["street"]))
                flush_deals()
            remaining[seat] -= amount
            all_in = remaining[seat] == 0 and amount > 0
            suffix = " and is all-in" if all_in else ""
            if action in ("fold", "timeout_fold"):
                folded_on[seat] = int(event.get("street") or current_street or 0)
                lines.append(f"{name}: folds")
            elif action in ("check", "timeout_check"):
                lines.append(f"{name}: checks")
            elif action == "timeout_all_in":
                lines.append(f"{name}: is all-in (timed out, all-in protection)")
            elif action == "bring_in":
                lines.append(f"{name}: brings in for {money(amount)}{suffix}")
                max_to = max(max_to, to)
            elif action == "call" or (action == "all_in" and to <= max_to):
                put_in_voluntarily.add(seat)
                lines.append(f"{name}: calls {money(amount)}{suffix}")
            elif action in ("bet", "complete", "raise", "all_in"):
                put_in_voluntarily.add(seat)
                if max_to == 0:
                    lines.append(f"{name}: bets {money(amount)}{suffix}")
                else:
                    lines.append(f"{name}: raises {money(to - max_to)} to {money(to)}{suffix}")
                max_to = to
            else:
                lines.append(f"{name}: {action} {money(amount)}{suffix}")
        elif kind == "return":
            seat = int(event["seat"])
            amount = _amount(event["amount"])
            remaining[seat] += amount
            if any(new_cards.values()) or header_pending is not None:
                flush_deals()
            lines.append(f"Uncalled bet ({money(amount)}) returned to {names[seat]}")
        elif kind == "showdown":
            if any(new_cards.values()) or header_pending is not None:
                flush_deals()
            if not showdown_started and showdown:
                showdown_started = True
                show_down()
        elif kind == "award":
            if any(new_cards.values()) or header_pending is not None:
                flush_deals()
            if showdown and not showdown_started:
                showdown_started = True
                show_down()
            seat = int(event["seat"])
            amount = _amount(event["amount"])
            pot = int(event.get("pot", 0))
            pot_shares[pot] = pot_shares.get(pot, Decimal(0)) + amount
            collected[seat] = collected.get(seat, Decimal(0)) + amount
            awards.append((pot, f"{names[seat]} collected {money(amount)} from {{pot:{pot}}}"))
    flush_awards()
    if any(new_cards.values()) or header_pending is not None:
        flush_deals()

    pot_count = len(pot_shares)
    side_label = lambda pot: (  # noqa: E731
        "pot" if pot_count <= 1 else "main pot" if pot == 0 else "side pot" if pot_count == 2 else f"side pot-{pot}"
    )
    lines = [_fill_pot_label(line, side_label) for line in lines]
    if not showdown:
        winner_seats = sorted(collected)
        for seat in winner_seats:
            lines.append(f"{names[seat]}: doesn't show hand")

    total = sum(pot_shares.values(), Decimal(0)) + rake
    lines.append("*** SUMMARY ***")
    if pot_count > 1:
        parts = [f"Main pot {money(pot_shares[0])}."]
        for pot in sorted(pot_shares):
            if pot:
                label = "Side pot" if pot_count == 2 else f"Side pot-{pot}"
                parts.append(f"{label} {money(pot_shares[pot])}.")
        lines.append(f"Total pot {money(total)} {' '.join(parts)} | Rake {money(rake)}")
    else:
        lines.append(f"Total pot {money(total)} | Rake {money(rake)}")
    if community:
        lines.append(f"Board [{community}]")
    for seat in seats_in_order:
        name = names[seat]
        if seat in folded_on:
            quiet = "" if seat in put_in_voluntarily else " (didn't bet)"
            lines.append(f"Seat {seat}: {name} folded on the {_street_title(game, folded_on[seat])}{quiet}")
        elif seat in showdown:
            entry = showdown[seat]
            described = describe_hand(str(entry.get("category")), entry.get("best_five") or [])
            won = collected.get(seat)
            if entry.get("shown"):
                shown = " ".join(entry["cards"])
                if won:
                    lines.append(f"Seat {seat}: {name} showed [{shown}] and won ({money(won)}) with {described}")
                else:
                    lines.append(f"Seat {seat}: {name} showed [{shown}] and lost with {described}")
            elif visible_down(seat):
                lines.append(f"Seat {seat}: {name} mucked [{' '.join(entry['cards'])}]")
            else:
                lines.append(f"Seat {seat}: {name} mucked")
        elif seat in collected:
            lines.append(f"Seat {seat}: {name} collected ({money(collected[seat])})")
        else:
            lines.append(f"Seat {seat}: {name} didn't show and lost")
    return "\n".join(lines) + "\n"


def _fill_pot_label(line: str, label: Any) -> str:
    start = line.find("{pot:")
    if start < 0:
        return line
    end = line.index("}", start)
    return line[:start] + label(int(line[start + 5 : end])) + line[end + 1 :]
