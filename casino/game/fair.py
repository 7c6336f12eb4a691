"""Provably fair shuffle, exactly as SPEC §0 steps 1-9.

The deck of a hand is a pure function of ``(server_seed, client_seed, nonce)``:
HMAC-SHA256 blocks keyed by the server seed form a byte stream, read as big-endian
32-bit words; rejection sampling turns the words into uniform integers that drive a
Fisher-Yates shuffle of the canonical deck.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator, Sequence
from itertools import count

from casino.game.cards import CANONICAL_DECK

SERVER_SEED_BYTES = 32
_HEX_DIGITS = frozenset("0123456789abcdef")
_TWO_32 = 2**32


def new_server_seed() -> str:
    """A fresh server seed: 32 CSPRNG bytes as 64 lowercase hex characters."""
    return secrets.token_bytes(SERVER_SEED_BYTES).hex()


def new_client_seed() -> str:
    """A fresh per-player client seed: 16 random hex characters."""
    return secrets.token_hex(8)


def _seed_key(server_seed: str) -> bytes:
    if (
        not isinstance(server_seed, str)
        or len(server_seed) != 2 * SERVER_SEED_BYTES
        or not _HEX_DIGITS.issuperset(server_seed)
    ):
        raise ValueError("server seed must be 64 lowercase hex characters")
    return bytes.fromhex(server_seed)


def commitment_of(server_seed: str) -> str:
    """``sha256(bytes.fromhex(server_seed)).hexdigest()``, published before the deal."""
    return hashlib.sha256(_seed_key(server_seed)).hexdigest()


def hand_client_seed(seat_seeds: Sequence[str]) -> str:
    """The hand's client seed: the seated players' client seeds in seat order, joined by ':'."""
    if isinstance(seat_seeds, str) or not seat_seeds:
        raise ValueError("seat_seeds must be a non-empty sequence of client seeds")
    if not all(isinstance(seed, str) for seed in seat_seeds):
        raise ValueError("every client seed must be a str")
    return ":".join(seat_seeds)


def word_stream(server_seed: str, client_seed: str, nonce: int) -> Iterator[int]:
    """Endless big-endian u32 words of ``HMAC_SHA256(seed, f"{client_seed}:{nonce}:{i}")``, i = 0, 1, …"""
    key = _seed_key(server_seed)
    if not isinstance(client_seed, str):
        raise ValueError("client seed must be a str")
    if isinstance(nonce, bool) or not isinstance(nonce, int) or nonce < 0:
        raise ValueError(f"nonce must be a non-negative int, got {nonce!r}")
    return _words(key, client_seed, nonce)


def _words(key: bytes, client_seed: str, nonce: int) -> Iterator[int]:
    for i in count():
        block = hmac.new(key, f"{client_seed}:{nonce}:{i}".encode(), hashlib.sha256).digest()
        for offset in range(0, len(block), 4):
            yield int.from_bytes(block[offset : offset + 4], "big")


def uniform_below(words: Iterator[int], n: int) -> int:
    """Uniform int in ``[0, n)``: discard words ``>= 2**32 - 2**32 % n``, else ``word % n``."""
    if not 1 <= n <= _TWO_32:
        raise ValueError(f"n must be in 1..2**32, got {n}")
    limit = _TWO_32 - _TWO_32 % n
    for word in words:
        if word < limit:
            return word % n
    raise ValueError("word stream ended")


def shuffled_deck(server_seed: str, client_seed: str, nonce: int) -> list[int]:
    """The hand's deck: Fisher-Yates from the canonical deck, ``i`` from 51 down to 1."""
    words = word_stream(server_seed, client_seed, nonce)
    deck = list(CANONICAL_DECK)
    for i in range(len(deck) - 1, 0, -1):
        j = uniform_below(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def verify_hand(*, server_seed: str, commitment: str, client_seed: str, nonce: int, cards: Sequence[int]) -> bool:
    """True if ``server_seed`` matches ``commitment`` and the deck it gives starts with ``cards``.

    ``cards`` is the hand's cards in the order they left the deck (``deck[0]`` first),
    or the whole deck. A malformed server seed simply fails verification.
    """
    if not 1 <= len(cards) <= len(CANONICAL_DECK):
        raise ValueError("cards must hold 1 to 52 cards, in the order they were dealt")
    try:
        expected = commitment_of(server_seed)
    except ValueError:
        return False
    if commitment.lower() != expected:
        return False
    deck = shuffled_deck(server_seed, client_seed, nonce)
    return deck[: len(cards)] == list(cards)
