"""What the computer opponent knows of Move In Synch (read by `pbem/bots`, see its README).

Symbols once drawn are never lost, so the lead in symbols, weighed against the empty squares
still to share, is a good guess of who wins: playouts stop after `playout_plies` and score
the position by it instead of running hundreds of plies to a full board.
"""

from __future__ import annotations

import math

from pbem.games.move_in_synch.rules import EMPTY, SYMBOLS, SynchState


class MoveInSynchHints:
    playout_plies = 40  # twenty moves: each is an announcement and a direction

    def evaluate(self, state: SynchState) -> tuple[float, float]:
        lead = state.marks.count(SYMBOLS[0]) - state.marks.count(SYMBOLS[1])
        empty = state.marks.count(EMPTY)
        blue = 1.0 / (1.0 + math.exp(-3.0 * lead / math.sqrt(empty + 1.0)))
        return (blue, 1.0 - blue)
