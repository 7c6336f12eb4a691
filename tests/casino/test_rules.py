"""Dealing order (SPEC A3) and settlement of one seat (SPEC A5), with concrete cards."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from casino.game.cards import cards_from_str
from casino.game.evaluator import Category, evaluate
from casino.game.paytables import PAYTABLES
from casino.game.rules import (
    DEALER_UP_CARD_INDEX,
    SeatResult,
    deal,
    deal_order,
    raise_of,
    settle_seat,
    settlement_order,
)

AK_HIGH = evaluate(cards_from_str("Ah Kh 9c 5s 3h"))


def test_deal_goes_round_five_times_dealer_last() -> None:
    deck = list(range(52))
    players, dealer = deal(deck, 2)
    assert players == [[0, 3, 6, 9, 12], [1, 4, 7, 10, 13]]
    assert dealer == [2, 5, 8, 11, 14]
    assert DEALER_UP_CARD_INDEX == 4 and dealer[DEALER_UP_CARD_INDEX] == 14  # the last card dealt


def test_deal_one_and_four_players() -> None:
    deck = list(range(51, -1, -1))
    players, dealer = deal(deck, 1)
    assert players == [[51, 49, 47, 45, 43]] and dealer == [50, 48, 46, 44, 42]
    players, dealer = deal(deck, 4)
    assert [hand[0] for hand in players] == [51, 50, 49, 48] and dealer[0] == 47
    assert players[3] == [48, 43, 38, 33, 28] and dealer == [47, 42, 37, 32, 27]
    assert len({card for hand in [*players, dealer] for card in hand}) == 25


@pytest.mark.parametrize("n_players", [0, 5, -1, True, 2.0])
def test_deal_rejects_bad_player_counts(n_players: object) -> None:
    with pytest.raises(ValueError, match="n_players"):
        deal(list(range(52)), n_players)  # type: ignore[arg-type]


def test_deal_rejects_a_short_deck() -> None:
    with pytest.raises(ValueError, match="need 15 cards"):
        deal(list(range(14)), 2)


@dataclass(frozen=True)
class Case:
    player: str
    dealer: str
    outcome: str
    ante_return: int  # for an ante of 100 cents
    raise_return: int  # for a raise of 200 cents
    line: tuple[str, Category] | None = None
    odds: int | None = None


C, Q, NQ, DNQ = Category, "qualified", "not_qualified", "dealer_not_qualified"
# Dealer hands: qualifying with ace-king, not qualifying with ace-queen.
DEALER_AK = "Ac Kd 8h 4s 2d"
DEALER_AQ = "Ad Qd 8c 4h 3d"

CASES_24H = [
    Case("Ah Kh 9c 5s 3h", DEALER_AQ, DNQ, 200, 200),
    Case("2c 2h 9c 5s 3h", DEALER_AQ, DNQ, 200, 200),
    Case("2h 5h 9h Jh Kh", DEALER_AQ, DNQ, 200, 200),  # flush: push when not qualified
    Case("Qc Qh Qs 5c 5d", DEALER_AQ, DNQ, 200, 800, (NQ, C.FULL_HOUSE), 3),
    Case("9c 9h 9s 9d 5d", DEALER_AQ, DNQ, 200, 1200, (NQ, C.FOUR_OF_A_KIND), 5),
    Case("5s 6s 7s 8s 9s", DEALER_AQ, DNQ, 200, 5200, (NQ, C.STRAIGHT_FLUSH), 25),
    Case("Ts Js Qs Ks As", DEALER_AQ, DNQ, 200, 20200, (NQ, C.ROYAL_FLUSH), 100),
    Case("Ah Kh 9c 5s 3h", DEALER_AK, "win", 200, 400, (Q, C.HIGH_CARD), 1),
    Case("2c 2h 9c 5s 3h", DEALER_AK, "win", 200, 400, (Q, C.ONE_PAIR), 1),
    Case("2c 2h 3c 3s 9h", DEALER_AK, "win", 200, 600, (Q, C.TWO_PAIR), 2),
    Case("2c 2h 2s 7s 9h", DEALER_AK, "win", 200, 800, (Q, C.THREE_OF_A_KIND), 3),
    Case("Ah 2c 3c 4d 5h", DEALER_AK, "win", 200, 1000, (Q, C.STRAIGHT), 4),
    Case("2h 5h 9h Jh Qh", DEALER_AK, "win", 200, 1400, (Q, C.FLUSH), 6),
    Case("Qc Qh Qs 5c 5d", DEALER_AK, "win", 200, 2200, (Q, C.FULL_HOUSE), 10),
    Case("9c 9h 9s 9d 5d", DEALER_AK, "win", 200, 4200, (Q, C.FOUR_OF_A_KIND), 20),
    Case("5s 6s 7s 8s 9s", DEALER_AK, "win", 200, 10200, (Q, C.STRAIGHT_FLUSH), 50),
    Case("Ts Js Qs Ks As", DEALER_AK, "win", 200, 40200, (Q, C.ROYAL_FLUSH), 200),
    Case("Ah Kh 7c 5s 3h", DEALER_AK, "lose", 0, 0),  # ace-king, worse third card
    Case("Ah Kh 8c 4d 2s", DEALER_AK, "push", 100, 200),  # same ranks, other suits
    Case("Qs Qd 5c 4h 2s", "Ks Kd 6c 3h 2d", "lose", 0, 0),
]

CASES_CLASSIC = [
    Case("Qc Qh Qs 5c 5d", DEALER_AQ, DNQ, 200, 200),  # no bonus when not qualified
    Case("Ts Js Qs Ks As", DEALER_AQ, DNQ, 200, 200),
    Case("Qc Qh Qs 5c 5d", DEALER_AK, "win", 200, 1600, (Q, C.FULL_HOUSE), 7),
    Case("2h 5h 9h Jh Qh", DEALER_AK, "win", 200, 1200, (Q, C.FLUSH), 5),
    Case("Ts Js Qs Ks As", DEALER_AK, "win", 200, 20200, (Q, C.ROYAL_FLUSH), 100),
    Case("Ah Kh 7c 5s 3h", DEALER_AK, "lose", 0, 0),
    Case("Ah Kh 8c 4d 2s", DEALER_AK, "push", 100, 200),
]


def _settle(case: Case, paytable: str, ante: int = 100) -> SeatResult:
    player, dealer = cards_from_str(case.player), cards_from_str(case.dealer)
    assert len(set(player + dealer)) == 10, "a card is in both hands"
    return settle_seat(
        ante=ante,
        raised=True,
        player_strength=evaluate(player),
        dealer_strength=evaluate(dealer),
        paytable=PAYTABLES[paytable],
    )


@pytest.mark.parametrize(
    ("paytable", "case"),
    [("24h", case) for case in CASES_24H] + [("classic", case) for case in CASES_CLASSIC],
    ids=lambda value: value if isinstance(value, str) else f"{value.player}-vs-{value.dealer}",
)
def test_settlement(paytable: str, case: Case) -> None:
    result = _settle(case, paytable)
    assert result.outcome == case.outcome
    assert (result.ante_return, result.raise_return) == (case.ante_return, case.raise_return)
    assert (result.ante_net, result.raise_net) == (case.ante_return - 100, case.raise_return - 200)
    assert result.net == result.ante_net + result.raise_net
    assert result.paytable_line == case.line
    assert result.raise_odds == case.odds


@pytest.mark.parametrize("ante", [1, 75, 123_457])
def test_amounts_are_exact_integer_cents(ante: int) -> None:
    result = _settle(CASES_24H[3], "24h", ante)  # full house, dealer not qualified: 3 to 1 on the raise
    assert (result.ante_return, result.raise_return) == (2 * ante, 2 * ante * 4)
    assert (result.ante_net, result.raise_net) == (ante, 2 * ante * 3)
    amounts = (result.ante_return, result.raise_return, result.ante_net, result.raise_net)
    assert all(type(value) is int for value in amounts)


@pytest.mark.parametrize("dealer", [DEALER_AK, DEALER_AQ])
def test_fold_loses_the_ante_only(dealer: str) -> None:
    result = settle_seat(
        ante=150,
        raised=False,
        player_strength=evaluate(cards_from_str("Ts Js Qs Ks As")),
        dealer_strength=evaluate(cards_from_str(dealer)),
        paytable=PAYTABLES["24h"],
    )
    assert result == SeatResult("fold", 0, 0, -150, 0, None, None)
    assert result.net == -150


@pytest.mark.parametrize("ante", [0, -100, 1.5, True, "100"])
def test_ante_must_be_positive_integer_cents(ante: object) -> None:
    with pytest.raises(ValueError, match="ante"):
        settle_seat(
            ante=ante,  # type: ignore[arg-type]
            raised=True,
            player_strength=AK_HIGH,
            dealer_strength=AK_HIGH,
            paytable=PAYTABLES["24h"],
        )


@pytest.mark.parametrize(("player", "dealer"), [(-1, AK_HIGH), (AK_HIGH, 10 << 20), (AK_HIGH, 1 << 20)])
def test_strengths_must_be_real_hands(player: int, dealer: int) -> None:
    with pytest.raises(ValueError, match="not the strength of any five-card hand"):
        settle_seat(ante=100, raised=False, player_strength=player, dealer_strength=dealer, paytable=PAYTABLES["24h"])


def test_settlement_order_is_right_to_left() -> None:
    assert settlement_order([1, 3, 2, 4]) == [4, 3, 2, 1]
    seats = [{"seat": 2}, {"seat": 4}, {"seat": 1}]
    assert settlement_order(seats, seat_number=lambda s: s["seat"]) == [{"seat": 4}, {"seat": 2}, {"seat": 1}]


def test_the_paying_line_is_recorded_as_column_and_category() -> None:
    won = next(c for c in CASES_24H if c.line == (Q, C.FLUSH))
    assert _settle(won, "24h").line_key == "qualified:flush"
    paid_no_line = next(c for c in CASES_24H if c.line is None)  # e.g. the dealer did not qualify
    assert _settle(paid_no_line, "24h").line_key == ""


def test_deal_order_is_round_by_round_players_in_seat_order_then_the_dealer():
    order = deal_order(2)
    assert order[:6] == [(0, 0, 0), (1, 0, 1), (2, 0, None), (3, 1, 0), (4, 1, 1), (5, 1, None)]
    assert [position for position, _, _ in order] == list(range(15))
    players, dealer = deal(list(range(100, 152)), 2)
    assert players == [[100, 103, 106, 109, 112], [101, 104, 107, 110, 113]]
    assert dealer == [102, 105, 108, 111, 114]
    with pytest.raises(ValueError):
        deal_order(0)
    with pytest.raises(ValueError):
        deal_order(5)


def test_the_raise_is_twice_the_ante():
    assert raise_of(150) == 300
