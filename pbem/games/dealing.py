"""Committed deals: the documented random stream every hidden deal of a new match is drawn
from, so that anyone holding the match's record can deal the cards again.

The scheme (named `DEAL_SCHEME`; `docs/players/fair-play.md` says it for players, and
`docs/verify_record.py` is a second, independent implementation that needs only Python):

- The **seed** is 32 random bytes, written as 64 lowercase hexadecimal digits.
- The **commitment**, published when the match is created, is
  `SHA-256(seed ‖ match id)`: the seed's 32 bytes followed by the match id in ASCII decimal
  digits (match 42: the two bytes `34 32`), written as 64 hexadecimal digits.
- Each seat has a **salt**, a text of 1 to 64 characters. A seat's default salt is the first
  16 hexadecimal digits of `HMAC-SHA-256(key=seed, "pbem salt " ‖ seat in ASCII decimal)`:
  fixed by the committed seed, so the server cannot choose it after seeing the other salts.
- A deal named `label` (Mimic Taking: `mimic-taking round 1`, …) reads the **stream**
  `block(0) ‖ block(1) ‖ …`, where `block(i) = HMAC-SHA-256(key=seed,
  LP("pbem-deal-v1") ‖ LP(label) ‖ LP(salt of seat 0) ‖ … ‖ LP(salt of the last seat) ‖ i)`,
  with `LP(x)` = the UTF-8 bytes of x preceded by their length as a 4-byte big-endian number,
  and `i` an 8-byte big-endian number. The stream is read 4 bytes at a time, each a
  big-endian unsigned number `w` below 2^32.
- A number below `n` is drawn by **rejection**: words at or above `2^32 - (2^32 mod n)` are
  skipped, and the first word below it gives `w mod n`, so every answer is equally likely.
- A **shuffle** is Fisher-Yates: for `i` from the last index down to 1, swap item `i` with
  item `j`, where `j` is a number below `i + 1`.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, MutableSequence, Sequence
from typing import TypeVar

# The name records carry; a match without one was dealt by the scheme before it (its seed an
# integer fed to Python's `random`), which its record keeps replaying exactly.
DEAL_SCHEME = "pbem-deal-v1"
SALT_LIMIT = 64
_WORD = 2**32

T = TypeVar("T")


def seed_bytes(seed: str) -> bytes:
    """The seed's 32 bytes; a `ValueError` for anything that is not 64 hexadecimal digits."""
    raw = bytes.fromhex(seed)
    if len(raw) != 32 or seed != seed.lower():
        raise ValueError("a deal seed is 64 lowercase hexadecimal digits")
    return raw


def commitment(seed: str, match_id: int) -> str:
    return hashlib.sha256(seed_bytes(seed) + str(match_id).encode("ascii")).hexdigest()


def default_salt(seed: str, seat: int) -> str:
    mac = hmac.new(seed_bytes(seed), b"pbem salt " + str(seat).encode("ascii"), hashlib.sha256)
    return mac.hexdigest()[:16]


def salt_problem(salt: str) -> str | None:
    """Why a text cannot be a salt (in English, for the caller to translate), or None."""
    if not salt:
        return "empty"
    if len(salt) > SALT_LIMIT:
        return "long"
    if any(not ch.isprintable() for ch in salt):
        return "control"
    return None


class DealStream:
    """The stream of one deal (see the module docstring), drawing unbiased numbers."""

    def __init__(self, seed: str, salts: Sequence[str], label: str) -> None:
        self._key = seed_bytes(seed)
        self._prefix = b"".join(_length_prefixed(part)
                                for part in (DEAL_SCHEME, label, *salts))
        self._words = self._read()

    def _read(self) -> Iterator[int]:
        counter = 0
        while True:
            block = hmac.new(self._key, self._prefix + counter.to_bytes(8, "big"),
                             hashlib.sha256).digest()
            for at in range(0, len(block), 4):
                yield int.from_bytes(block[at:at + 4], "big")
            counter += 1

    def below(self, n: int) -> int:
        if not 0 < n <= _WORD:
            raise ValueError(f"cannot draw a number below {n}")
        limit = _WORD - _WORD % n
        while True:
            word = next(self._words)
            if word < limit:
                return word % n

    def shuffle(self, items: MutableSequence[T]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def _length_prefixed(text: str) -> bytes:
    raw = text.encode("utf-8")
    return len(raw).to_bytes(4, "big") + raw
