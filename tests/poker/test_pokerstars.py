"""The PokerStars hand-history export has the structure of a real PokerStars 7 Card Stud history.

The reference is a real 7 Card Stud Limit history (PokerStars, 2012), whose lines are, in
order: the header ``PokerStars Hand #80908721832:  7 Card Stud Limit ($0.04/$0.08 USD) -
2012/05/23 23:24:52 CET``, ``Table 'Equinox IV' 8-max``, ``Seat 1: gugulu300 ($1.52 in
chips)``, ``gugulu300: posts the ante $0.01``, ``*** 3rd STREET ***``, ``Dealt to
gugulu300 [Ah]``, ``RomiTu: brings in for $0.02``, ``tobberdje: calls $0.02``,
``failertb: raises $0.02 to $0.04``, ``BNDee: folds``, ``*** 4th STREET ***``,
``Dealt to gugulu300 [Ah] [4h]``, ``gugulu300: checks``, ``RomiTu: bets $0.04``, …,
``*** RIVER ***``, ``*** SHOW DOWN ***``, ``Kirilma: shows [7h 2h Ts Qd Td 6s 4d] (a pair
of Tens)``, ``gugulu300 collected $0.24 from side pot``, ``*** SUMMARY ***``, ``Total pot
$1.94 Main pot $1.66. Side pot $0.24. | Rake $0.04``, ``Seat 2: AMKIreland folded on the
3rd Street (didn't bet)``, ``Seat 1: gugulu300 showed [...] and won ($1.90) with three of
a kind, Fours``. The patterns below are those lines'.
"""

from __future__ import annotations

import hashlib
import random
import re
from decimal import Decimal

import pytest

from casino.stud.bots import STRATEGIES
from casino.stud.engine import SeatIn, apply, hand_record, start_hand
from casino.stud.games import preset
from poker.pokerstars import describe_hand, to_pokerstars

HEADER = re.compile(
    r"^PokerStars Hand #(\d+):  (7 Card Stud|5 Card Stud) Limit \(€([\d.]+)/€([\d.]+) EUR\) - "
    r"\d{4}/\d\d/\d\d \d\d:\d\d:\d\d UTC( \[.+\])?$"
)
SEAT = re.compile(r"^Seat (\d): (\S+) \(€([\d.]+) in chips\)$")
ACTION = re.compile(
    r"^(\S+): (posts the ante|brings in for|calls|bets|raises|checks|folds)(?: €([\d.]+))?(?: to €([\d.]+))?"
    r"( and is all-in)?$"
)
STREET = re.compile(r"^\*\*\* (\dth STREET|\d(?:st|nd|rd) STREET|RIVER) \*\*\*(?: \[(\w\w)\])?$")
DEALT = re.compile(r"^Dealt to (\S+) \[([^\]]+)\](?: \[([^\]]+)\])?$")
COLLECTED = re.compile(r"^(\S+) collected €([\d.]+) from (pot|main pot|side pot(?:-\d)?)$")
RETURNED = re.compile(r"^Uncalled bet \(€([\d.]+)\) returned to (\S+)$")
PAIR_ON_BOARD = "Pair on board - a double bet is allowed"
TOTAL = re.compile(r"^Total pot €([\d.]+)(?: Main pot €[\d.]+\.(?: Side pot(?:-\d)? €[\d.]+\.)+)? \| Rake €([\d.]+)$")


def play(game, table, stacks, strategy, nonce, seed="ps"):
    config = preset(game, table)
    rng = random.Random(f"{seed}:{nonce}")
    seats = [SeatIn(seat=s, player=f"player{s}", stack=stack, client_seed=f"c{s}") for s, stack in enumerate(stacks, 1)]
    server_seed = hashlib.sha256(f"{seed}:{game}:{nonce}".encode()).hexdigest()
    state, _ = start_hand(config=config, seats=seats, server_seed=server_seed, nonce=nonce)
    names = sorted(STRATEGIES)
    while not state.is_over:
        bot = STRATEGIES[strategy] if strategy else STRATEGIES[names[state.to_act % len(names)]]
        state, _ = apply(state, state.to_act, bot(state, rng))
    return hand_record(state)


def money(text):
    return Decimal(text)


def reconcile(text: str) -> dict[str, Decimal]:
    """Each player's result, read from the text as a tracker reads it."""
    put: dict[str, Decimal] = {}
    street_total: dict[str, Decimal] = {}
    won: dict[str, Decimal] = {}
    for line in text.splitlines():
        if STREET.match(line):
            for name, amount in street_total.items():
                put[name] = put.get(name, Decimal(0)) + amount
            street_total = {}
        elif m := ACTION.match(line):
            name, verb, amount, to = m.group(1), m.group(2), m.group(3), m.group(4)
            if verb == "posts the ante":
                put[name] = put.get(name, Decimal(0)) + money(amount)
            elif verb in ("brings in for", "bets"):
                street_total[name] = street_total.get(name, Decimal(0)) + money(amount)
            elif verb == "calls":
                street_total[name] = street_total.get(name, Decimal(0)) + money(amount)
            elif verb == "raises":
                street_total[name] = money(to)
        elif m := RETURNED.match(line):
            street_total[m.group(2)] = street_total.get(m.group(2), Decimal(0)) - money(m.group(1))
        elif m := COLLECTED.match(line):
            won[m.group(1)] = won.get(m.group(1), Decimal(0)) + money(m.group(2))
    for name, amount in street_total.items():
        put[name] = put.get(name, Decimal(0)) + amount
    return {name: won.get(name, Decimal(0)) - put.get(name, Decimal(0)) for name in put}


def test_the_structure_of_a_real_seven_card_stud_history():
    record = play("seven_stud", "5-10", [5000] * 5, None, 17)
    text = to_pokerstars(record, hero_seat=2)
    lines = text.splitlines()
    header = HEADER.match(lines[0])
    assert header and header.group(1) == "17" and header.group(2) == "7 Card Stud"
    assert (header.group(3), header.group(4)) == ("5", "10")
    assert lines[1] == "Table '5-10' 8-max"
    assert [SEAT.match(line).groups() for line in lines[2:7]] == [(str(s), f"player{s}", "50") for s in range(1, 6)]
    assert lines[7:12] == [f"player{s}: posts the ante €0.50" for s in range(1, 6)]
    assert lines[12] == "*** 3rd STREET ***"
    assert [DEALT.match(line).group(1) for line in lines[13:18]] == [f"player{s}" for s in range(1, 6)]
    assert re.match(r"^player\d: brings in for €2$", lines[18])
    streets = [line for line in lines if STREET.match(line)]
    assert (
        streets
        == ["*** 3rd STREET ***", "*** 4th STREET ***", "*** 5th STREET ***", "*** 6th STREET ***", "*** RIVER ***"][
            : len(streets)
        ]
    )
    for line in lines[18:]:
        if line.startswith("*** SUMMARY"):
            break
        assert (
            ACTION.match(line)
            or STREET.match(line)
            or DEALT.match(line)
            or COLLECTED.match(line)
            or RETURNED.match(line)
            or line in ("*** SHOW DOWN ***", PAIR_ON_BOARD)
            or re.match(r"^\S+: (shows \[.+\] \(.+\)|mucks hand|doesn't show hand)$", line)
        ), line
    summary = lines.index("*** SUMMARY ***")
    total = TOTAL.match(lines[summary + 1])
    pots = sum(Decimal(p["amount"]) for p in record["pots"])
    assert total and Decimal(total.group(1)) == pots and Decimal(total.group(2)) == Decimal(record["rake"])
    assert [int(line.split(":")[0].split()[1]) for line in lines[summary + 2 :]] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    "game,table", [("seven_stud", "5-10"), ("five_stud", "2-4"), ("soko", "5-10"), ("seven_stud", "1-3")]
)
def test_a_tracker_reading_the_text_finds_every_players_result(game, table):
    for nonce in range(40):
        rng = random.Random(nonce)
        players = rng.randint(2, 8)
        stacks = [rng.choice([preset(game, table).buy_in, rng.randint(100, 1500)]) for _ in range(players)]
        record = play(game, table, stacks, None, nonce, seed=f"tracker:{game}")
        results = reconcile(to_pokerstars(record))
        for seat in record["seats"]:
            assert results[seat["player"]] + 0 == Decimal(record["net"][str(seat["seat"])]), (nonce, seat)


def test_hero_sees_their_own_down_cards_a_spectator_only_what_was_shown():
    record = play("seven_stud", "5-10", [5000] * 4, "calling_station", 3)
    downs = {
        s: [e["card"] for e in record["events"] if e["type"] == "deal" and e["seat"] == s and not e["up"]]
        for s in (1, 2, 3, 4)
    }
    shown = {h["seat"] for h in record["showdown"] if h["shown"]}
    spectator = to_pokerstars(record)
    hero = to_pokerstars(record, hero_seat=1)
    auditor = to_pokerstars(record, show_all=True)
    dealt = lambda text: " ".join(line for line in text.splitlines() if line.startswith("Dealt to"))  # noqa: E731
    for seat, cards in downs.items():
        for card in cards:
            assert card not in dealt(spectator)
            assert (card in dealt(hero)) == (seat == 1)
            assert card in dealt(auditor)
            if seat not in shown and seat != 1:
                assert card not in hero  # a mucked hand stays hidden
    assert f"Dealt to player1 [{' '.join(downs[1][:2])}" in hero
    assert "*** RIVER ***" in hero and f"] [{downs[1][2]}]" in hero


def test_five_card_stud_and_soko_name_their_streets_and_soko_its_game():
    five = to_pokerstars(play("five_stud", "5-10", [5000] * 3, "calling_station", 1))
    soko = to_pokerstars(play("soko", "5-10", [5000] * 3, "calling_station", 1))
    for text in (five, soko):
        assert [line for line in text.splitlines() if STREET.match(line)] == [
            "*** 2nd STREET ***",
            "*** 3rd STREET ***",
            "*** 4th STREET ***",
            "*** 5th STREET ***",
        ]
        assert HEADER.match(text.splitlines()[0]).group(2) == "5 Card Stud"
    assert "[SOKO: Five Card Stud, four-flush and four-straight rank above one pair]" in soko.splitlines()[0]
    assert "SOKO" not in five


def test_the_community_card_is_the_river_and_the_board():
    record = play("seven_stud", "1-2", [2000] * 8, "calling_station", 2)
    community = [e["card"] for e in record["events"] if e["type"] == "community"]
    assert community  # 8 players to the river: SPEC B2's community card
    text = to_pokerstars(record)
    assert f"*** RIVER *** [{community[0]}]" in text
    assert f"Board [{community[0]}]" in text


def test_side_pots_are_collected_and_summed_like_pokerstars():
    for nonce in range(200):
        record = play("seven_stud", "5-10", [600, 2500, 5000, 5000], "aggressive", nonce, seed="side")
        if len([p for p in record["pots"] if p["winners"]]) >= 2:
            break
    else:
        pytest.fail("no side pot in 200 hands")
    text = to_pokerstars(record)
    assert re.search(r"collected €[\d.]+ from main pot", text)
    assert re.search(r"collected €[\d.]+ from side pot", text)
    # PokerStars awards the last side pot first and the main pot last, after the shown hands
    lines = text.splitlines()
    collected = [COLLECTED.match(line).group(3) for line in lines if COLLECTED.match(line)]
    pots = [p for p in record["pots"] if p["winners"]]
    labels = ["main pot"] + (["side pot"] if len(pots) == 2 else [f"side pot-{i}" for i in range(1, len(pots))])
    expected = [label for label, pot in reversed(list(zip(labels, pots, strict=True))) for _ in pot["winners"]]
    assert collected == expected
    first_collect = next(i for i, line in enumerate(lines) if COLLECTED.match(line))
    assert all(not re.match(r"^\S+: (shows|mucks)", line) for line in lines[first_collect:])
    total = next(TOTAL.match(line) for line in text.splitlines() if line.startswith("Total pot"))
    assert "Main pot" in total.group(0) and "Side pot" in total.group(0)
    assert Decimal(total.group(1)) == sum(Decimal(p["amount"]) for p in record["pots"])


def test_an_uncalled_bet_goes_back_and_the_winner_does_not_show():
    for nonce in range(100):
        record = play("five_stud", "5-10", [5000] * 3, "random_legal", nonce, seed="uncalled")
        if not record["showdown"] and any(e["type"] == "return" for e in record["events"]):
            break
    else:
        pytest.fail("no uncalled bet in 100 hands")
    back = next(e for e in record["events"] if e["type"] == "return")
    text = to_pokerstars(record)
    amount = Decimal(back["amount"])
    shown = f"€{int(amount)}" if amount == int(amount) else f"€{amount}"
    assert f"Uncalled bet ({shown}) returned to player{back['seat']}" in text
    assert f"player{back['seat']}: doesn't show hand" in text
    assert "*** SHOW DOWN ***" not in text


@pytest.mark.parametrize(
    "category,five,words",
    [
        ("one_pair", ["Ks", "Kd", "9c", "7h", "2s"], "a pair of Kings"),
        ("two_pair", ["Ks", "Kd", "Tc", "Th", "2s"], "two pair, Kings and Tens"),
        ("three_of_a_kind", ["4s", "4d", "4c", "Ah", "2s"], "three of a kind, Fours"),
        ("straight", ["5s", "4d", "3c", "2h", "As"], "a straight, Ace to Five"),
        ("flush", ["As", "Js", "9s", "4s", "2s"], "a flush, Ace high"),
        ("full_house", ["Ks", "Kd", "Kc", "Jh", "Js"], "a full house, Kings full of Jacks"),
        ("four_of_a_kind", ["As", "Ad", "Ac", "Ah", "2s"], "four of a kind, Aces"),
        ("royal_flush", ["As", "Ks", "Qs", "Js", "Ts"], "a Royal Flush"),
        ("high_card", ["As", "Jd", "9c", "4h", "2s"], "high card Ace"),
        ("four_flush", ["Qh", "9h", "5h", "2h", "Ks"], "a four flush, Queen high"),
        ("four_straight", ["4c", "3d", "2h", "As", "9c"], "a four straight, Four high"),
    ],
)
def test_hands_are_described_in_pokerstars_words(category, five, words):
    assert describe_hand(category, five) == words


def test_time_outs_a_date_and_a_hand_number_are_written():
    from datetime import UTC, datetime

    from casino.stud.engine import Action

    config = preset("seven_stud", "5-10")
    seats = [SeatIn(seat=s, player=f"player{s}", stack=5000, client_seed=f"c{s}") for s in (1, 2, 3)]
    state, _ = start_hand(
        config=config, seats=seats, server_seed="ab" * 32, nonce=9, all_in_allowance={1: True, 2: False, 3: True}
    )
    labels = []
    while not state.is_over:
        seat = state.to_act
        legal = state.legal()
        action = Action("timeout") if "bring_in" not in legal.actions else Action("bring_in")
        state, events = apply(state, seat, action)
        labels += [e["action"] for e in events if e["type"] == "action"]
    record = hand_record(state)
    text = to_pokerstars(record, hand_id=123456, played_at=datetime(2026, 12, 1, 10, 30, tzinfo=UTC))
    assert text.startswith("PokerStars Hand #123456:  7 Card Stud Limit (€5/€10 EUR) - 2026/12/01 10:30:00 UTC")
    assert set(labels) & {"timeout_fold", "timeout_all_in", "timeout_check"}
    if "timeout_fold" in labels:
        assert ": folds" in text
    if "timeout_all_in" in labels:
        assert "is all-in (timed out, all-in protection)" in text
    results = reconcile(text)
    for seat in record["seats"]:
        assert results[seat["player"]] == Decimal(record["net"][str(seat["seat"])])


PAIR_HANDS = {1: "Ah Kd 9c 2c", 2: "Qh Qd 7s 7h", 3: "3d 5c Jh 4s"}  # seat 2 pairs its sevens on 4th street


def first_street_lines(text, street):
    lines = text.splitlines()
    start = lines.index(f"*** {street} ***")
    return lines[start + 1 :]


@pytest.mark.parametrize(
    "limit,pair,written",
    [
        ("5-10", PAIR_HANDS, True),  # fixed limit, an open pair
        ("5-10", {**PAIR_HANDS, 2: "Qh Qd 7s 8h"}, False),  # fixed limit, no open pair
        ("1-3", PAIR_HANDS, False),  # spread limit: the rule does not apply
    ],
)
def test_an_open_pair_on_fourth_street_allows_a_double_bet_as_pokerstars_writes_it(limit, pair, written):
    from tests.stud.engine_rig import deal
    from tests.stud.test_engine_showdown import check_down

    state = check_down(deal(preset("seven_stud", limit), [5000] * 3, pair))
    text = to_pokerstars(hand_record(state))
    fourth = first_street_lines(text, "4th STREET")
    if written:
        assert [DEALT.match(line) is not None for line in fourth[:3]] == [True, True, True]
        assert fourth[3] == PAIR_ON_BOARD
        assert ACTION.match(fourth[4])
    assert text.count(PAIR_ON_BOARD) == (1 if written else 0)


def test_five_card_stud_writes_the_open_pair_on_its_second_betting_round():
    from tests.stud.engine_rig import deal
    from tests.stud.test_engine_showdown import check_down

    hands = {1: "Ah Kd 9c 2c 3s", 2: "Qh 7d 7s 8h 4h", 3: "3d 5c Jh 4s 6d"}
    text = to_pokerstars(hand_record(check_down(deal(preset("five_stud", "5-10"), [5000] * 3, hands))))
    third = first_street_lines(text, "3rd STREET")
    assert third[3] == PAIR_ON_BOARD and text.count(PAIR_ON_BOARD) == 1
