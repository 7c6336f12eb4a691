"""Hands named as players say them, for every category, and the cards that make them."""

import pytest

from casino.game.cards import cards_from_str
from casino.game.names import hand_name, hand_name_from_codes, winning_cards


@pytest.mark.parametrize(
    ("cards", "name", "with_article"),
    [
        ("Ah Kh Qh Jh Th", "royal flush", "a royal flush"),
        ("9s 8s 7s 6s 5s", "straight flush, nine high", "a straight flush, nine high"),
        ("5d 4d 3d 2d Ad", "straight flush, five high", "a straight flush, five high"),
        ("Qc Qd Qh Qs 2c", "four queens", "four queens"),
        ("3c 3d Kh Ks 3s", "full house, threes full of kings", "a full house, threes full of kings"),
        ("Kc Kd Kh 3s 3c", "full house, kings full of threes", "a full house, kings full of threes"),
        ("Ah 9h 7h 4h 2h", "flush, ace high", "a flush, ace high"),
        ("9c 8d 7h 6s 5c", "straight, nine high", "a straight, nine high"),
        ("Ac 2d 3h 4s 5c", "straight, five high", "a straight, five high"),
        ("7c 7d 7h Ks 2c", "three sevens", "three sevens"),
        ("6c 6d 9h 9s Ac", "two pair, nines and sixes", "two pair, nines and sixes"),
        ("Ac Ad 8h 8s 2c", "two pair, aces and eights", "two pair, aces and eights"),
        ("Tc Td 4h 8s 2c", "pair of tens", "a pair of tens"),
        ("Kc Jd 8h 5s 2c", "king high", "king high"),
        ("Ac Kd 8h 5s 2c", "ace-king high", "ace-king high"),
        ("Ac Qd 8h 5s 2c", "ace high", "ace high"),
    ],
)
def test_every_category_is_named_as_a_player_says_it(cards, name, with_article):
    assert hand_name(cards_from_str(cards)) == name
    assert hand_name(cards_from_str(cards), with_article=True) == with_article
    assert hand_name_from_codes(cards.split()) == name
    assert "_" not in name and "an one" not in with_article


@pytest.mark.parametrize(
    ("cards", "winning"),
    [
        ("Tc 4h Td 8s 2c", "Tc Td"),
        ("Ac 8h Ad 8s 2c", "Ac 8h Ad 8s"),
        ("7c 7d 7h Ks 2c", "7c 7d 7h"),
        ("Qc Qd Qh Qs 2c", "Qc Qd Qh Qs"),
        ("9c 8d 7h 6s 5c", "9c 8d 7h 6s 5c"),
        ("Ah 9h 7h 4h 2h", "Ah 9h 7h 4h 2h"),
        ("Kc 5s Jd 8h 2c", "Kc"),
        ("5s Ac 8h Kd 2c", "Ac Kd"),
    ],
)
def test_the_cards_that_make_the_hand(cards, winning):
    assert winning_cards(cards_from_str(cards)) == cards_from_str(winning)


def test_not_five_cards_is_refused():
    with pytest.raises(ValueError):
        hand_name(cards_from_str("Ac Kd 8h 5s"))
