"""What the computer opponent knows of EXIMO (read by `pbem/bots`, see its README).

A player with no checkers (or no move) loses, and captures are forced, so material decides
most games: playouts stop after `playout_plies` and score the position by the checkers each
side has left instead of playing on to the last capture.
"""

from __future__ import annotations

import math

from pbem.games.eximo.rules import PIECES, EximoState


class EximoHints:
    playout_plies = 30

    def evaluate(self, state: EximoState) -> tuple[float, float]:
        lead = state.board.count(PIECES[0]) - state.board.count(PIECES[1])
        black = 1.0 / (1.0 + math.exp(-0.5 * lead))
        return (black, 1.0 - black)
