"""Provably fair shuffle: SPEC §0 steps 1-9, pinned by an independent implementation."""

from __future__ import annotations

import hashlib
import hmac
import re

import pytest

from casino.game import fair
from casino.game.cards import CANONICAL_DECK, cards_from_str, cards_to_str

SEED = bytes(range(32)).hex()
CLIENT_SEED = "alice:bob"
NONCE = 1
# First 15 cards for (SEED, "alice:bob", 1), computed once by reference_deck below and
# pinned here so that any change to the algorithm fails this test.
PINNED_PREFIX = "Ad 5c Ts 7d Qc Kh 8d 5h 2c 6s 4d Td Js Kc 8h"


def reference_deck(server_seed: str, client_seed: str, nonce: int) -> list[int]:
    """SPEC §0 written out directly with hmac/hashlib, sharing no code with casino.game.fair."""
    key = bytes.fromhex(server_seed)
    stream = b""
    block = 0
    deck = list(range(52))
    for i in range(51, 0, -1):
        n = i + 1
        while True:
            if len(stream) < 4:
                message = f"{client_seed}:{nonce}:{block}".encode("utf-8")
                stream += hmac.new(key, message, hashlib.sha256).digest()
                block += 1
            x, stream = int.from_bytes(stream[:4], "big"), stream[4:]
            if x < 2**32 - (2**32 % n):
                break
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_pinned_test_vector() -> None:
    deck = fair.shuffled_deck(SEED, CLIENT_SEED, NONCE)
    assert cards_to_str(deck[:15]) == PINNED_PREFIX.split()
    assert deck == reference_deck(SEED, CLIENT_SEED, NONCE)


@pytest.mark.parametrize(
    ("server_seed", "client_seed", "nonce"),
    [("00" * 32, "x", 0), ("ff" * 32, "3f2a9c01d4e5b6a7:0123456789abcdef", 987654321), (SEED, "ünïcode", 7)],
)
def test_matches_reference_implementation(server_seed: str, client_seed: str, nonce: int) -> None:
    assert fair.shuffled_deck(server_seed, client_seed, nonce) == reference_deck(server_seed, client_seed, nonce)


def test_deck_is_a_permutation_and_depends_on_every_input() -> None:
    deck = fair.shuffled_deck(SEED, CLIENT_SEED, NONCE)
    assert sorted(deck) == list(CANONICAL_DECK)
    assert deck == fair.shuffled_deck(SEED, CLIENT_SEED, NONCE)
    assert deck != fair.shuffled_deck(SEED, CLIENT_SEED, NONCE + 1)
    assert deck != fair.shuffled_deck(SEED, "alice:bobby", NONCE)
    assert deck != fair.shuffled_deck("00" * 32, CLIENT_SEED, NONCE)


def test_commitment_is_sha256_of_the_seed_bytes() -> None:
    assert fair.commitment_of(SEED) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    assert fair.commitment_of("00" * 32) == hashlib.sha256(bytes(32)).hexdigest()


@pytest.mark.parametrize("bad", ["00" * 31, "00" * 33, "AB" * 32, "zz" * 32, "", None])
def test_malformed_server_seed_is_rejected(bad: object) -> None:
    with pytest.raises(ValueError, match="64 lowercase hex"):
        fair.commitment_of(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="64 lowercase hex"):
        fair.shuffled_deck(bad, CLIENT_SEED, NONCE)  # type: ignore[arg-type]


def test_new_seeds_have_the_spec_format() -> None:
    seeds = {fair.new_server_seed() for _ in range(20)}
    assert len(seeds) == 20
    assert all(re.fullmatch(r"[0-9a-f]{64}", seed) for seed in seeds)
    client_seeds = {fair.new_client_seed() for _ in range(20)}
    assert len(client_seeds) == 20
    assert all(re.fullmatch(r"[0-9a-f]{16}", seed) for seed in client_seeds)


def test_hand_client_seed_joins_in_seat_order() -> None:
    assert fair.hand_client_seed(["alice", "bob"]) == "alice:bob"
    assert fair.hand_client_seed(["only"]) == "only"
    for bad in ([], "alice", ["alice", 7]):
        with pytest.raises(ValueError):
            fair.hand_client_seed(bad)  # type: ignore[arg-type]


def test_uniform_below_rejects_words_at_or_above_the_bound() -> None:
    n = 52
    limit = 2**32 - 2**32 % n
    assert limit == 2**32 - 48
    words = iter([limit, 2**32 - 1, limit - 1, 5])
    assert fair.uniform_below(words, n) == (limit - 1) % n
    assert next(words) == 5  # exactly three words consumed
    assert fair.uniform_below(iter([2**32 - 1]), 32) == 31  # a power of two rejects nothing
    with pytest.raises(ValueError, match="ended"):
        fair.uniform_below(iter([limit]), n)


def test_shuffle_discards_rejected_words(monkeypatch: pytest.MonkeyPatch) -> None:
    # The first word is rejected for n = 52; every later word is 0, so each step swaps with deck[0].
    monkeypatch.setattr(fair, "_words", lambda *args: iter([2**32 - 1] + [0] * 51))
    expected = list(CANONICAL_DECK)
    for i in range(51, 0, -1):
        expected[i], expected[0] = expected[0], expected[i]
    assert fair.shuffled_deck(SEED, CLIENT_SEED, NONCE) == expected


def test_word_stream_is_hmac_blocks_big_endian() -> None:
    words = fair.word_stream(SEED, CLIENT_SEED, NONCE)
    first_two_blocks = b"".join(
        hmac.new(bytes.fromhex(SEED), f"{CLIENT_SEED}:{NONCE}:{i}".encode(), hashlib.sha256).digest() for i in (0, 1)
    )
    expected = [int.from_bytes(first_two_blocks[k : k + 4], "big") for k in range(0, 64, 4)]
    assert [next(words) for _ in range(16)] == expected


@pytest.mark.parametrize("nonce", [-1, True, 1.0, "1"])
def test_bad_nonce_is_rejected(nonce: object) -> None:
    with pytest.raises(ValueError, match="nonce"):
        fair.shuffled_deck(SEED, CLIENT_SEED, nonce)  # type: ignore[arg-type]


def test_verify_hand() -> None:
    commitment = fair.commitment_of(SEED)
    deck = fair.shuffled_deck(SEED, CLIENT_SEED, NONCE)
    dealt = cards_from_str(PINNED_PREFIX)
    args = {"server_seed": SEED, "commitment": commitment, "client_seed": CLIENT_SEED, "nonce": NONCE}
    assert fair.verify_hand(**args, cards=dealt)
    assert fair.verify_hand(**args, cards=deck)
    assert fair.verify_hand(**{**args, "commitment": commitment.upper()}, cards=dealt)
    assert not fair.verify_hand(**{**args, "commitment": fair.commitment_of("00" * 32)}, cards=dealt)
    assert not fair.verify_hand(**{**args, "nonce": NONCE + 1}, cards=dealt)
    assert not fair.verify_hand(**{**args, "client_seed": "bob:alice"}, cards=dealt)
    assert not fair.verify_hand(**{**args, "server_seed": "not a seed"}, cards=dealt)
    assert not fair.verify_hand(**args, cards=[dealt[1], dealt[0], *dealt[2:]])
    with pytest.raises(ValueError, match="1 to 52"):
        fair.verify_hand(**args, cards=[])
