"""A dict of the latest few values made: what pbem keeps per process to skip repeating work
(a match version's derivations, a rendered page part, an address)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from contextlib import suppress
from typing import TypeVar

T = TypeVar("T")


class Latest(OrderedDict[Hashable, T]):
    """At most `size` values, the oldest dropped first when another is kept (`used` makes a
    value the newest again). Safe for threads without a lock (each step is one call into
    OrderedDict's C code): threads keeping at once never fail; for a moment they may hold one
    value each beyond `size`, and the next value kept drops back to it."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"Latest keeps at least one value, not {size}")
        super().__init__()
        self.size = size

    def keep(self, key: Hashable, value: T) -> T:
        while len(self) >= self.size:
            with suppress(KeyError):  # another thread emptied it first
                self.popitem(last=False)
        self[key] = value
        return value

    def used(self, key: Hashable) -> T | None:
        """The value kept for `key`, made the newest; None if none is."""
        try:
            self.move_to_end(key)
        except KeyError:
            return None
        return self.get(key)  # (None if another thread dropped it meanwhile)
