"""Computer opponents: a seeded Monte Carlo tree search over the rules contract.

Public interface (kept stable for the worker job and the pages built on it):

    from pbem.bots import Level, LEVELS, choose_move
    move = choose_move(rules, state, seat, level, seed)            # deterministic
    move = choose_move(rules, state, seat, level, seed, clock=time.monotonic)  # capped in time

`choose_move` is pure: the same (state, seat, level, seed) gives the same move. It reads no
clock of its own; a caller that wants the level's time budget enforced passes a `clock` (a
function returning seconds), and then the time budget only caps the iteration budget.
"""

from __future__ import annotations

from pbem.bots.levels import LEVELS, Level
from pbem.bots.search import choose_move

__all__ = ["LEVELS", "Level", "choose_move"]
