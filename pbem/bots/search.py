"""The search: UCT Monte Carlo tree search over the rules contract, information-set MCTS when
the game hides information.

One iteration walks down the tree (UCB1 picks among moves already tried), adds one new move,
plays the game out to the end (or, when the game offers an evaluation, to a depth limit) and
credits every move on the way with the result *for the seat that made it*, so the same code
searches two-player and three- or four-player games (each seat maximises its own share).

Hidden information (`rules.hidden_information`): the search never looks at the real state
beyond the searching seat's own view. It first asks the game for a state that seat cannot tell
from the real one (`HidesInformation.shuffle_hidden`), and each iteration re-deals everything
hidden from a fresh seed (a *determinization*). The tree is keyed by moves, so it gathers
statistics over all the deals, as in single-observer information-set MCTS (Cowling, Powley and
Whitehouse 2012): a move that is legal in only some deals is scored against the iterations in
which it was available.

Simultaneous decisions (`to_move` names several seats): the seats' choices are secret from each
other, so a tree node belongs to one seat only (the searching seat when it is among them, else
the lowest); the other seats' choices are drawn from the playout policy before it chooses, as
chance, so the node's statistics never depend on what the others chose. Multi-step moves need
nothing special: a seat that moves again is the mover of the next node.

Determinism: every random choice comes from `random.Random` seeded with the caller's seed, the
moves are taken in the rules' own order, and ties are broken by that order; the iteration
budget decides the move, and a clock (only if the caller passes one) can only stop it early.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pbem.bots.hints import hints_of
from pbem.bots.levels import level_of
from pbem.bots.tactics import safe_moves, winning_move
from pbem.games.base import GameRules, HidesInformation, Move, Seat, StepsQuickly

# UCB1's exploration constant for rewards in [0, 1] (1/sqrt(2) is the textbook value).
EXPLORATION = 0.7
# Without a game's evaluation a playout runs to the end; this only stops a game that could
# run forever (no game has a move cap), scoring it as the game's evaluation or a draw.
MAX_PLAYOUT_PLIES = 2000


class Node:
    """A move in the tree: who made it, how often it was tried, and how it did for them."""

    __slots__ = ("available", "children", "mover", "moves", "reward", "state", "visits")

    def __init__(self, mover: Seat) -> None:
        self.mover = mover
        self.visits = 0
        self.available = 0
        self.reward = 0.0
        self.children: dict[Move, Node] = {}
        # Perfect-information games keep the state after the move and the legal moves there,
        # so a walk down the tree needs no `apply_move`.
        self.state: Any = None
        self.moves: tuple[Seat, Sequence[Move]] | None = None


class Search:
    """One `choose_move` call's search: the rules, the game's hints, the random source."""

    def __init__(self, rules: GameRules, seat: Seat, rng: random.Random) -> None:
        self.rules = rules
        self.seat = seat
        self.rng = rng
        self.hints = hints_of(rules)
        self.hidden = bool(getattr(rules, "hidden_information", False))
        self.playouts = 0
        # The state after a move, for the tree and the playouts: a game's cheap successor
        # when it offers one (no events built), else `apply_move`'s state.
        self.step: Callable[[Any, Seat, Move], Any] = (
            rules.next_state if isinstance(rules, StepsQuickly)
            else lambda state, seat, move: rules.apply_move(state, seat, move).state)

    # -- one iteration ----------------------------------------------------------------------

    def iterate(self, root: Node, state: Any, root_moves: Sequence[Move]) -> None:
        """Walk down from the root (whose moves tactics may have pruned), add one move, play
        out, and credit every move on the path for the seat that made it."""
        node, path = root, [root]
        while True:
            movers = self.rules.to_move(state)
            if not movers:
                break
            actor = self.seat if self.seat in movers else min(movers)
            if len(movers) > 1:
                state = self._others_choose(state, movers, actor)
                node.state = None  # depends on the others' sampled choices: never cache it
            actor_moves = root_moves if node is root else self._moves(node, state, actor)
            for move in actor_moves:
                child = node.children.get(move)
                if child is not None:
                    child.available += 1
            untried = [move for move in actor_moves if move not in node.children]
            if untried:
                # At the root the moves are tried in the rules' order; below it, at random.
                move = untried[0] if node is root else untried[self.rng.randrange(len(untried))]
                child = Node(actor)
                child.available = 1
                node.children[move] = child
                state = self.step(state, actor, move)
                if not self.hidden and len(movers) == 1:
                    child.state = state
                path.append(child)
                break
            move = self._select(node, actor_moves)
            node = node.children[move]
            state = node.state if node.state is not None else self.step(state, actor, move)
            path.append(node)
        rewards = self.playout(state)
        root.visits += 1
        for visited in path[1:]:
            visited.visits += 1
            visited.reward += rewards.get(visited.mover, 0.5)

    def _moves(self, node: Node, state: Any, actor: Seat) -> Sequence[Move]:
        if node.moves is not None and node.moves[0] == actor and node.state is not None:
            return node.moves[1]
        moves = self.rules.legal_moves(state, actor)
        if node.state is not None:
            node.moves = (actor, moves)
        return moves

    def _select(self, node: Node, moves: Sequence[Move]) -> Move:
        best: Move = moves[0]
        best_score = -1.0
        for move in moves:
            child = node.children[move]
            score = (child.reward / child.visits
                     + EXPLORATION * math.sqrt(math.log(child.available) / child.visits))
            if score > best_score:
                best, best_score = move, score
        return best

    def _others_choose(self, state: Any, movers: frozenset[Seat], actor: Seat) -> Any:
        for other in sorted(movers - {actor}):
            if other in self.rules.to_move(state):
                move = self.policy(state, other, self.rules.legal_moves(state, other))
                state = self.step(state, other, move)
        return state

    # -- playouts -----------------------------------------------------------------------------

    def policy(self, state: Any, seat: Seat, moves: Sequence[Move]) -> Move:
        if self.hints is not None:
            chosen = self.hints.playout_move(state, seat, moves, self.rng)
            if chosen is not None:
                return chosen
        return moves[self.rng.randrange(len(moves))]

    def playout(self, state: Any) -> dict[Seat, float]:
        """Play on with the playout policy; each seat's share of the result, in [0, 1] (a seat
        missing from the answer gets an even 0.5: the game stopped undecided)."""
        self.playouts += 1
        limit = MAX_PLAYOUT_PLIES
        if self.hints is not None and self.hints.playout_plies is not None:
            limit = self.hints.playout_plies
        rules, policy, step = self.rules, self.policy, self.step
        # Without a game's playout move the policy is a uniform draw, made here directly
        # (the same draw from the same source: only the calls are saved).
        guided = self.hints is not None and getattr(self.hints, "guided", True)
        randrange = self.rng.randrange
        movers = rules.to_move(state)
        for _ in range(limit):
            if not movers:
                return self.rewards(state)
            if len(movers) == 1:
                # The common case: one seat moves, and `to_move` is asked once per ply.
                (mover,) = movers
                moves = rules.legal_moves(state, mover)
                state = step(state, mover, policy(state, mover, moves) if guided
                             else moves[randrange(len(moves))])
            else:
                for mover in sorted(movers):
                    if mover in rules.to_move(state):
                        moves = rules.legal_moves(state, mover)
                        state = step(state, mover, policy(state, mover, moves))
            movers = rules.to_move(state)
        if not movers:
            return self.rewards(state)
        if self.hints is not None:
            estimate = self.hints.evaluate(state)
            if estimate is not None:
                return dict(enumerate(estimate))
        return {}

    def rewards(self, state: Any) -> dict[Seat, float]:
        outcome = self.rules.outcome(state)
        if outcome is None or not outcome.winners:
            return {}
        share = 1.0 / len(outcome.winners)
        seats = max(len(outcome.scores), max(outcome.winners) + 1)
        return {seat: share if seat in outcome.winners else 0.0 for seat in range(seats)}


@dataclass(frozen=True)
class Decision:
    """A chosen move and what the search did for it (for the bench and the logs)."""

    move: Move
    iterations: int  # iterations run (0 when the move was forced or found by tactics)
    playouts: int


def choose_move(rules: GameRules, state: Any, seat: Seat, level: int, seed: int, *,
                clock: Callable[[], float] | None = None,
                iterations: int | None = None) -> Move:
    """The computer's move for `seat` at `level` (1 to 5).

    Pure and seeded: the same (state, seat, level, seed) gives the same move. `iterations`
    overrides the level's iteration budget (tests); `clock`, a function returning seconds (the
    caller's `time.monotonic`), lets the level's time budget stop the search early. Raises
    ValueError when the seat has no legal move (or the level does not exist).
    """
    return decide(rules, state, seat, level, seed, clock=clock, iterations=iterations).move


def decide(rules: GameRules, state: Any, seat: Seat, level: int, seed: int, *,
           clock: Callable[[], float] | None = None,
           iterations: int | None = None) -> Decision:
    """`choose_move` with the search's figures."""
    budget = level_of(level)
    # The look-ahead and the first re-deal count against the time budget too.
    begun = None if clock is None else clock()
    rng = random.Random(f"pbem-bots/{rules.slug}/{level}/{seed}")
    search = Search(rules, seat, rng)
    if search.hidden:
        if not isinstance(rules, HidesInformation):
            raise ValueError(f"{rules.title} hides information but cannot re-deal it")
        # From here on only the seat's own view exists: the real state is never read again.
        state = rules.shuffle_hidden(state, seat, rng.randrange(2**31))
    moves = list(rules.legal_moves(state, seat)) if seat in rules.to_move(state) else []
    if not moves:
        raise ValueError(f"seat {seat} has no legal move in this position")
    if len(moves) == 1:
        return Decision(moves[0], 0, 0)
    if not search.hidden and budget.look_ahead >= 1:
        won = winning_move(rules, state, seat, moves)
        if won is not None:
            return Decision(won, 0, 0)
    if not search.hidden and budget.look_ahead >= 2:
        moves = safe_moves(rules, state, seat, moves)
        if len(moves) == 1:
            return Decision(moves[0], 0, 0)
    limit = budget.iterations if iterations is None else iterations
    # 5 % of the budget is kept for what follows the search: freeing a tree of thousands of
    # nodes and returning.
    seconds = budget.seconds * 0.95
    if clock is not None and begun is not None:
        seconds -= clock() - begun
    move, done = run(search, state, moves, limit, seconds, clock)
    return Decision(move, done, search.playouts)


def run(search: Search, state: Any, moves: Sequence[Move], iterations: int, seconds: float,
        clock: Callable[[], float] | None) -> tuple[Move, int]:
    """Search from `state` among the root's `moves` (tactics may have pruned some); the most
    tried move wins, ties going to the better mean and then to the rules' order. Also returns
    the number of iterations run."""
    root, done = grow(search, state, moves, iterations, seconds, clock)
    return max(moves, key=lambda m: _rank(root.children.get(m), -moves.index(m))), done


def grow(search: Search, state: Any, moves: Sequence[Move], iterations: int, seconds: float,
         clock: Callable[[], float] | None) -> tuple[Node, int]:
    """The search tree from `state` among the root's `moves`, and the iterations run."""
    root = Node(mover=-1)
    started = None if clock is None else clock()
    done = 0
    for _ in range(max(1, iterations)):
        if done and started is not None and clock is not None:
            # Stop before an iteration that would likely end past the budget: the budget is
            # a promise (think time p95), so the average iteration so far is kept in hand.
            spent = clock() - started
            if spent + spent / done >= seconds:
                break
        determinized = state
        if search.hidden and isinstance(search.rules, HidesInformation):
            determinized = search.rules.shuffle_hidden(state, search.seat,
                                                       search.rng.randrange(2**31))
        search.iterate(root, determinized, moves)
        done += 1
    return root, done


def _rank(node: Node | None, order: int) -> tuple[int, float, int]:
    if node is None or node.visits == 0:
        return (0, 0.0, order)
    return (node.visits, node.reward / node.visits, order)
