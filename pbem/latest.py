"""A dict of the latest few values made: what pbem keeps per process to skip repeating work
(a match version's derivations, a rendered page part, an address)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from contextlib import suppress
from typing import ClassVar, Generic, TypeVar

T = TypeVar("T")
_MISSING = object()


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


class Kept(Generic[T]):
    """A cache of what was made lately, by key, in a `Latest` (the least used dropped first):
    the base of the process's kept match derivations, fragments, pages and JSON answers, which
    differ only in their key and in when a value made may be kept."""

    # Whether a value used again becomes the newest (else the oldest made is dropped first).
    renews: ClassVar[bool] = True

    def __init__(self, size: int) -> None:
        self._made: Latest[T] = Latest(size)

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
