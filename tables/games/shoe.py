"""Shoes: where cards come from, provably.

Electronic shoe
    The server draws a 32-byte random seed (outside the engine) and publishes
    ``commitment = sha256(seed).hexdigest()`` before the first card. The deck order is
    ``shuffle(deck, seed)``:

    * a byte stream ``HMAC-SHA256(key=seed, msg=counter as 8-byte big-endian)`` for
      counter = 0, 1, 2, …, concatenated;
    * Fisher–Yates from the last position ``i = n-1`` down to 1: read 4 bytes as a
      big-endian unsigned integer ``r``; reject ``r`` if ``r >= 2**32 - (2**32 % (i+1))``
      (so every index is equally likely); otherwise swap positions ``i`` and ``r % (i+1)``.
    * The deck before shuffling is the game's deck in canonical order (``cards.FULL_DECK``:
      suits S H D C, each A..K; Farmer's 45 cards in the same order).

    Anyone holding the revealed seed can recompute the deck with this module alone.

Manual shoe
    The dealer keys each card as it leaves a physical shoe; ``ManualShoe.take`` refuses a
    card already out or not in this game's deck.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence

from tables.games.cards import card_label
from tables.games.errors import IllegalAction


def commitment_for(seed_hex: str) -> str:
    """The public commitment to a hex seed: SHA-256 of the seed's bytes, as hex."""
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


def _random_words(seed: bytes) -> Iterator[int]:
    counter = 0
    while True:
        block = hmac.new(seed, counter.to_bytes(8, "big"), hashlib.sha256).digest()
        for offset in range(0, len(block), 4):
            yield int.from_bytes(block[offset : offset + 4], "big")
        counter += 1


def shuffle(deck: Sequence[str], seed_hex: str) -> tuple[str, ...]:
    """Deterministic, unbiased Fisher–Yates driven by an HMAC-SHA256 counter stream."""
    cards = list(deck)
    words = _random_words(bytes.fromhex(seed_hex))
    for i in range(len(cards) - 1, 0, -1):
        bound = i + 1
        limit = 2**32 - (2**32 % bound)
        r = next(words)
        while r >= limit:
            r = next(words)
        j = r % bound
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


def check_keyed_card(card: str, *, deck: Sequence[str], out: Sequence[str] | frozenset[str]) -> None:
    """Refuse a manually keyed card that cannot be in the shoe now."""
    if card not in deck:
        raise IllegalAction("card_not_in_shoe", f"{card_label(card)} is not in this game's deck.")
    if card in out:
        raise IllegalAction("card_not_in_shoe", f"{card_label(card)} has already been dealt.")
