"""Analysis after the game: at every ply, the computer's best move for the seat that moved, its
win estimate, and the estimate of the move that was played.

Pure like the search (`search.py`): the same rules, the same seeded tree search, no clock of its
own. Each ply is searched from the position *as the moving seat knew it*: in a game with hidden
information the search first re-deals everything that seat could not see
(`HidesInformation.shuffle_hidden`), exactly as the computer does when it plays, so the
analysis of a Mimic Taking move never uses the other hands.

The estimate is the mean result (a win 1, a shared win 1/k, a loss 0) the search found for the
seat after its best move; `played_estimate` the same for the move played, searched on its own
when the main search left it with few tries. A move whose estimate is more than `MISTAKE`
below the best's is marked a mistake.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pbem.bots.levels import level_of
from pbem.bots.search import Node, Search, grow
from pbem.games.base import GameRules, HidesInformation, Move, Seat

# A move that gives up more than this share of the win estimate is a mistake.
MISTAKE = 0.15
# The played move's own estimate is searched afresh when the main search tried it fewer times
# than this: a handful of playouts says little.
FEW_TRIES = 30


@dataclass(frozen=True)
class PlyAnalysis:
    ply: int  # 1 for the first move
    seat: Seat
    played: str  # the moves in the game's notation
    best: str
    estimate: float  # the seat's win estimate after the best move, in [0, 1]
    played_estimate: float  # after the move played
    mistake: bool


def _mean(node: Node | None) -> float | None:
    if node is None or node.visits == 0:
        return None
    return node.reward / node.visits


def appraise(rules: GameRules, state: Any, seat: Seat, played: Move, level: int, seed: int,
             iterations: int | None = None) -> tuple[Move, float, float]:
    """(best move, its estimate, the played move's estimate) for `seat` in `state`."""
    budget = iterations if iterations is not None else level_of(level).iterations
    rng = random.Random(f"pbem-bots/analysis/{rules.slug}/{level}/{seed}")
    search = Search(rules, seat, rng)
    if search.hidden:
        if not isinstance(rules, HidesInformation):
            raise ValueError(f"{rules.title} hides information but cannot re-deal it")
        state = rules.shuffle_hidden(state, seat, rng.randrange(2**31))
    moves = list(rules.legal_moves(state, seat))
    if played not in moves:
        moves.append(played)  # legal in the real deal; the seat's own view always allows it
    root, _ = grow(search, state, moves, budget, float("inf"), None)
    ranked = sorted(moves, key=lambda m: (-(root.children[m].visits if m in root.children
                                            else 0), moves.index(m)))
    best = ranked[0]
    estimate = _mean(root.children.get(best)) or 0.0
    played_estimate = _mean(root.children.get(played))
    node = root.children.get(played)
    if played_estimate is None or node is None or node.visits < FEW_TRIES:
        # Never more tries than the whole search had: a budget smaller than FEW_TRIES (a
        # quick look, as in tests) is rough throughout, and the played move's own search must
        # not cost many times the analysis it completes.
        alone, _ = grow(search, state, [played], max(min(FEW_TRIES, budget), budget // 4),
                        float("inf"), None)
        played_estimate = _mean(alone.children.get(played)) or 0.0
    if played == best:
        played_estimate = estimate
    return best, estimate, played_estimate


def analyse(rules: GameRules, start: Any, plies: Sequence[tuple[Seat, Move]], level: int,
            seed: int, iterations: int | None = None) -> list[PlyAnalysis]:
    """Every ply of a finished match, from its first position and its moves in order."""
    found = []
    state = start
    for number, (seat, move) in enumerate(plies, start=1):
        best, estimate, played_estimate = appraise(rules, state, seat, move, level,
                                                   seed * 10_000 + number, iterations)
        found.append(PlyAnalysis(number, seat, rules.format_move(state, move),
                                 rules.format_move(state, best), round(estimate, 3),
                                 round(played_estimate, 3),
                                 estimate - played_estimate > MISTAKE))
        state = rules.apply_move(state, seat, move).state
    return found
