"""Look-ahead at the root, before the search: take a win in one, never hand one over.

Both read only the rules contract and run for perfect-information games only (with hidden
information a "win in one" would depend on what the seat cannot see). A multi-step move (the
same seat moves again) is simply not a win yet, and an opponent's reply is checked only when
exactly one seat moves next.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pbem.games.base import GameRules, Move, Seat


def wins_alone(rules: GameRules, state: Any, seat: Seat) -> bool:
    outcome = rules.outcome(state)
    return outcome is not None and outcome.winners == frozenset({seat})


def winning_move(rules: GameRules, state: Any, seat: Seat,
                 moves: Sequence[Move]) -> Move | None:
    """The first move (in the rules' order) after which `seat` has won outright, if any."""
    for move in moves:
        if wins_alone(rules, rules.apply_move(state, seat, move).state, seat):
            return move
    return None


def safe_moves(rules: GameRules, state: Any, seat: Seat,
               moves: Sequence[Move]) -> list[Move]:
    """The moves after which no single opponent to move can win at once; all of them when
    every move loses that way (the search then picks the least bad)."""
    safe = []
    for move in moves:
        after = rules.apply_move(state, seat, move).state
        movers = rules.to_move(after)
        if len(movers) == 1 and seat not in movers:
            (opponent,) = movers
            if winning_move(rules, after, opponent, rules.legal_moves(after, opponent)):
                continue
        safe.append(move)
    return safe or list(moves)
