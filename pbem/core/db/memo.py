"""What a committed match version derives to, kept per process.

A match's row changes only through the door, which bumps its `version` on every write, and a
match is never deleted; its moves are never rewritten. So what pages and the API derive from
one match version (the loaded position, each seat's view and legal moves, a page of the move
list) is the same on every read until the next change, and correspondence matches are read
many times between two moves (a player reloads, a client polls, spectators look in). A
`VersionMemo` keeps those derivations for the latest versions read.

Only committed rows may be remembered: inside a transaction a version may yet roll back and be
reused by another writer with another position, so `remember` then computes without keeping.
A process whose models are bound to another database (`bind_database`, a test's fresh
database) forgets everything, since match ids start again there. A database restored under
the running process, or made again by `pbem init`, has a new generation (`generation.py`):
each value is kept with the generation the process knows, and the process forgets everything
when that moves.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Protocol, TypeVar

from pbem.core.db import generation
from pbem.core.db.connection import database, on_rebind
from pbem.latest import Kept

T = TypeVar("T")


class Versioned(Protocol):
    """A match row as read: its id and the version the door counts its changes with."""

    id: int
    version: int


class VersionMemo(Kept[T]):
    """At most `size` values, each for one match version and `detail` (a seat, a language…),
    oldest dropped first; with a `budget`, also at most that many bytes of text together
    (`latest.Latest`). Safe for threads: a value made twice at once is kept once, and both
    are equal."""

    renews = False

    def __init__(self, size: int, budget: int | None = None) -> None:
        super().__init__(size, budget)
        _ALL.append(self)

    def remember(self, match: Versioned, make: Callable[[], T], *detail: Hashable) -> T:
        """What `make` derives from `match` as read (and `detail`), made once per version."""
        era = generation.current()
        if era is None:  # begun under another database generation: keep and take nothing
            return make()
        return self.made((era, match.id, match.version, *detail), make, _committed)


def _committed(_value: object) -> bool:
    """Whether what was just read is committed (see the module's text)."""
    return database.obj is None or not database.in_transaction()


_ALL: list[VersionMemo] = []


def forget_all() -> None:
    """Drop every remembered value (the models now point at another database)."""
    for memo in _ALL:
        memo.clear()


on_rebind(forget_all)
generation.on_new_generation(forget_all)
