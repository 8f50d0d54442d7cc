"""What a game may tell the search about itself: its own knowledge, declared in its folder.

A game offers hints in its description (`GameType.bot_hints`, set in the game's
`__init__.py` from its `hints.py`, e.g. `pbem/games/move_in_synch/hints.py`); a rules object
may also carry them as a `bot_hints` attribute (a test-only game). The hints object has any of
the members of `BotHints`. The engine never branches on a game's name; a game without hints
is searched with uniform random playouts to the end.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from pbem.games import DESCRIPTIONS
from pbem.games.base import GameRules, Move, Seat


@runtime_checkable
class BotHints(Protocol):
    """A game's knowledge for the search. All members are optional on the game's object;
    `hints_of` fills in the ones it leaves out."""

    # Stop a playout after this many plies and ask `evaluate` (None: play to the end).
    playout_plies: int | None

    def playout_move(self, state: Any, seat: Seat, moves: Sequence[Move],
                     rng: random.Random) -> Move | None:
        """A better-than-random move for a playout (must be one of `moves`; use only `rng` for
        chance), or None for a uniform random one. Called very often: keep it cheap."""
        ...

    def evaluate(self, state: Any) -> Sequence[float] | None:
        """Each seat's chance of winning from a position a playout stopped in, in [0, 1], or
        None to count it as undecided (0.5 each)."""
        ...


class _Complete:
    """A game's hints with the members it leaves out filled in."""

    def __init__(self, declared: Any) -> None:
        self.playout_plies: int | None = getattr(declared, "playout_plies", None)
        self._move = getattr(declared, "playout_move", None)
        # Whether `playout_move` can answer at all (else every playout move is uniform).
        self.guided = self._move is not None
        self._evaluate = getattr(declared, "evaluate", None)

    def playout_move(self, state: Any, seat: Seat, moves: Sequence[Move],
                     rng: random.Random) -> Move | None:
        return None if self._move is None else self._move(state, seat, moves, rng)

    def evaluate(self, state: Any) -> Sequence[float] | None:
        return None if self._evaluate is None else self._evaluate(state)


def hints_of(rules: GameRules) -> BotHints | None:
    """The game's declared hints, completed; None when it declares none."""
    declared = getattr(rules, "bot_hints", None)
    if declared is None:
        description = DESCRIPTIONS.get(rules.slug)
        if description is not None and description.rules is rules:
            declared = description.bot_hints
    return None if declared is None else _Complete(declared)
