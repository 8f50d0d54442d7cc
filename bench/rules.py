"""Rules speed: legal-move generations per second and complete random games per second.

    python bench/rules.py [--games N] [slug …]    (from any checkout)

Prints figures per game, not pass/fail (GAMES.md, "Speed"). The server may replay a whole match
on every request, so both numbers matter.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

# Measure this checkout's code, whichever pbem the virtualenv has installed.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbem.games import REGISTRY
from pbem.games.base import GameRules

MAX_PLIES = 2000


def random_game(rules: GameRules, players: int, seed: int) -> tuple[list[Any], list[int]]:
    """Play one seeded random game; return the states seen and the seats to move in them."""
    rng = random.Random(seed)
    state = rules.new_game(players, {}, seed)
    states, seats = [], []
    for _ in range(MAX_PLIES):
        to_move = sorted(rules.to_move(state))
        if not to_move:
            break
        seat = rng.choice(to_move)
        states.append(state)
        seats.append(seat)
        move = rng.choice(list(rules.legal_moves(state, seat)))
        state = rules.apply_move(state, seat, move).state
    return states, seats


def bench_game(rules: GameRules, games: int) -> None:
    players = min(rules.player_counts)
    started = time.perf_counter()
    positions: list[tuple[Any, int]] = []
    plies = 0
    for seed in range(games):
        states, seats = random_game(rules, players, seed)
        plies += len(states)
        positions.extend(zip(states, seats, strict=True))
    games_elapsed = time.perf_counter() - started
    started = time.perf_counter()
    for state, seat in positions:
        rules.legal_moves(state, seat)
    gen_elapsed = time.perf_counter() - started
    print(f"{rules.slug:15} {players}p  "
          f"{len(positions) / gen_elapsed:12,.0f} legal-move generations/s  "
          f"{games / games_elapsed:10,.1f} random games/s  "
          f"({plies / games:.0f} plies/game on average)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("slugs", nargs="*", default=sorted(REGISTRY))
    args = parser.parse_args()
    if not args.slugs:
        print("no games registered yet")
    for slug in args.slugs:
        bench_game(REGISTRY[slug], args.games)


if __name__ == "__main__":
    main()
