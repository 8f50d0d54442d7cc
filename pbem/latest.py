"""A dict of the latest few values made: what pbem keeps per process to skip repeating work
(a match version's derivations, a rendered page part, an address)."""

from __future__ import annotations

from collections.abc import Hashable
from contextlib import suppress
from typing import Generic, TypeVar

T = TypeVar("T")


class Latest(dict[Hashable, T], Generic[T]):
    """At most `size` values, the oldest dropped first when another is kept. Safe for threads
    without a lock: two threads keeping at once may drop one value too many, never fail."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def keep(self, key: Hashable, value: T) -> T:
        if len(self) >= self.size:
            # Another thread may have dropped it first, or be changing the dict.
            with suppress(KeyError, RuntimeError, StopIteration):
                del self[next(iter(self))]
        self[key] = value
        return value
