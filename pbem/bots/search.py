"""The search: flat Monte Carlo over the legal moves (first version, to be replaced by UCT)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from pbem.bots.levels import level_of
from pbem.games.base import GameRules, Move, Seat


def choose_move(rules: GameRules, state: Any, seat: Seat, level: int, seed: int, *,
                clock: Callable[[], float] | None = None,
                iterations: int | None = None) -> Move:
    budget = level_of(level)
    moves = list(rules.legal_moves(state, seat))
    if not moves:
        raise ValueError(f"seat {seat} has no legal move in this position")
    if len(moves) == 1:
        return moves[0]
    rng = random.Random(f"pbem-bots/{seed}")
    total = budget.iterations if iterations is None else iterations
    wins = [0.0] * len(moves)
    for i in range(total):
        index = i % len(moves)
        wins[index] += _playout(rules, rules.apply_move(state, seat, moves[index]).state,
                                seat, rng)
    return moves[max(range(len(moves)), key=lambda i: wins[i])]


def _playout(rules: GameRules, state: Any, seat: Seat, rng: random.Random) -> float:
    while True:
        movers = rules.to_move(state)
        if not movers:
            break
        mover = min(movers)
        state = rules.apply_move(state, mover, rng.choice(list(rules.legal_moves(state, mover)))).state
    outcome = rules.outcome(state)
    if outcome is None or seat not in outcome.winners:
        return 0.0
    return 1.0 / len(outcome.winners)
