"""Card encoding: canonical deck order, text round trips, errors."""

from __future__ import annotations

import pytest

from casino.game.cards import (
    CANONICAL_DECK,
    RANKS,
    SUITS,
    card_from_str,
    card_to_str,
    cards_from_str,
    cards_to_str,
    rank_of,
    suit_of,
)


def test_canonical_deck_order_is_rank_major_clubs_first() -> None:
    texts = cards_to_str(CANONICAL_DECK)
    assert texts[:5] == ["2c", "2d", "2h", "2s", "3c"]
    assert texts[-1] == "As"
    assert texts == [rank + suit for rank in RANKS for suit in SUITS]


def test_round_trip_every_card() -> None:
    for card in CANONICAL_DECK:
        assert card_from_str(card_to_str(card)) == card


def test_rank_and_suit() -> None:
    ace_of_hearts = card_from_str("Ah")
    assert ace_of_hearts == 50
    assert rank_of(ace_of_hearts) == 12
    assert suit_of(ace_of_hearts) == 2
    assert (rank_of(0), suit_of(0)) == (0, 0)


def test_cards_from_text_or_list() -> None:
    assert cards_from_str("Ah Kd  2c\tTs") == [50, 45, 0, 35]
    assert cards_from_str(["Ah", "Kd"]) == [50, 45]
    assert cards_from_str("") == []


@pytest.mark.parametrize("bad", ["", "A", "Ahh", "1h", "Ax", "ah", "AH", "10h", " Ah", 51, None])
def test_card_from_str_rejects_bad_text(bad: object) -> None:
    with pytest.raises(ValueError, match="not a card"):
        card_from_str(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, 52, True, 1.0, "Ah"])
def test_card_to_str_rejects_non_cards(bad: object) -> None:
    with pytest.raises(ValueError, match="not a card"):
        card_to_str(bad)  # type: ignore[arg-type]
