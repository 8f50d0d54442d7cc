"""What the computer opponent knows of Mimic (read by `pbem/bots`, see its README).

Mimic is a race to the far row: a playout always takes a move that reaches its goal row (an
original move there wins at once), and stops after `playout_plies` to score the race by how
far each side's best checker has come, the side to move counting one step ahead.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from pbem.games.mimic.rules import GOAL_RANK, PIECES, SIZE, MimicState

Move = tuple[int, int]


class MimicHints:
    playout_plies = 24

    def playout_move(self, state: MimicState, seat: int, moves: Sequence[Move],
                     rng: random.Random) -> Move | None:
        goal = GOAL_RANK[seat]
        for move in moves:
            if move[1] // SIZE == goal:
                return move
        return None

    def evaluate(self, state: MimicState) -> tuple[float, float]:
        ahead = [0, 0]
        for square, stack in enumerate(state.board):
            if stack:
                seat = PIECES.index(stack[-1])
                rank = square // SIZE
                progress = rank if seat == 0 else SIZE - 1 - rank
                ahead[seat] = max(ahead[seat], progress)
        ahead[state.turn] += 1
        blue = 1.0 / (1.0 + math.exp(-0.8 * (ahead[0] - ahead[1])))
        return (blue, 1.0 - blue)
