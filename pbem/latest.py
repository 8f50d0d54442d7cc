"""A dict of the latest few values made: what pbem keeps per process to skip repeating work
(a match version's derivations, a rendered page part, an address)."""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from contextlib import suppress
from typing import Any, ClassVar, Generic, TypeVar

T = TypeVar("T")
_MISSING = object()


def text_bytes(value: Any) -> int:
    """The memory a kept text takes (a `str`, `Markup` or `bytes`; a dict or tuple of them,
    its values'; None nothing): its object's size, which counts its characters as stored."""
    if value is None:
        return 0
    if isinstance(value, dict):
        return sum(text_bytes(item) for item in value.values())
    if isinstance(value, tuple | list):
        return sum(text_bytes(item) for item in value)
    return sys.getsizeof(value)


class Latest(OrderedDict[Hashable, T]):
    """At most `size` values, the oldest dropped first when another is kept (`used` makes a
    value the newest again). Safe for threads without a lock (each step is one call into
    OrderedDict's C code): threads keeping at once never fail; for a moment they may hold one
    value each beyond `size`, and the next value kept drops back to it.

    With a `budget` (bytes, each value weighed by `weigh`) the values kept also weigh at most
    that together: the oldest are dropped until the new one fits, and a value heavier than
    the whole budget is not kept. Keeping then takes a lock (only keeping: a value found is
    not weighed again), so the sum is exact."""

    def __init__(self, size: int, budget: int | None = None,
                 weigh: Callable[[T], int] = text_bytes) -> None:
        if size < 1:
            raise ValueError(f"Latest keeps at least one value, not {size}")
        super().__init__()
        self.size = size
        self.budget = budget
        self.weigh = weigh
        self.weight = 0  # what the values kept weigh together (with a budget)
        self._weights: dict[Hashable, int] = {}
        self._lock = threading.Lock()

    def keep(self, key: Hashable, value: T) -> T:
        if self.budget is not None:
            return self._keep_weighed(key, value)
        while len(self) >= self.size:
            with suppress(KeyError):  # another thread emptied it first
                self.popitem(last=False)
        self[key] = value
        return value

    def _keep_weighed(self, key: Hashable, value: T) -> T:
        weight, budget = self.weigh(value), self.budget or 0
        if weight > budget:
            return value
        with self._lock:
            self.weight -= self._weights.pop(key, 0)
            self.pop(key, None)
            while self and (len(self) >= self.size or self.weight + weight > budget):
                dropped, _ = self.popitem(last=False)
                self.weight -= self._weights.pop(dropped, 0)
            self[key] = value
            self._weights[key] = weight
            self.weight += weight
        return value

    def clear(self) -> None:
        with self._lock:
            super().clear()
            self._weights.clear()
            self.weight = 0

    def used(self, key: Hashable) -> T | None:
        """The value kept for `key`, made the newest; None if none is."""
        try:
            self.move_to_end(key)
        except KeyError:
            return None
        return self.get(key)  # (None if another thread dropped it meanwhile)


class Kept(Generic[T]):
    """A cache of what was made lately, by key, in a `Latest` (the least used dropped first):
    the base of the process's kept match derivations, fragments, pages and JSON answers, which
    differ only in their key and in when a value made may be kept."""

    # Whether a value used again becomes the newest (else the oldest made is dropped first).
    renews: ClassVar[bool] = True

    def __init__(self, size: int, budget: int | None = None) -> None:
        self._made: Latest[T] = Latest(size, budget)

    def made(self, key: Hashable, make: Callable[[], T], keep: Callable[[T], bool]) -> T:
        """The value kept for `key`, else what `make` makes, kept when `keep` says so of it
        (asked after making: making may tell that the value is for this caller alone)."""
        found = self._made.get(key, _MISSING)
        if found is not _MISSING:
            if self.renews:
                with suppress(KeyError):  # another thread dropped it meanwhile
                    self._made.move_to_end(key)
            return found  # type: ignore[return-value]
        value = make()
        if keep(value):
            self._made.keep(key, value)
        return value

    def clear(self) -> None:
        self._made.clear()

    def __len__(self) -> int:
        return len(self._made)

    @property
    def weight(self) -> int:
        """What the values kept weigh together, in bytes (0 without a budget)."""
        return self._made.weight

    @property
    def budget(self) -> int | None:
        """What the values kept may weigh together, in bytes (None: bounded by count only)."""
        return self._made.budget
