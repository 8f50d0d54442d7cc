"""How strong and how fast is each computer level? Win rates, think times, playouts per second.

    python bench/bots.py [--games 100] [--levels 1 2 3 4 5] [--game mimic eximo …]
                         [--workers 1] [--max-plies 600] [--clock cpu|wall|none]
                         [--against both|random|below] [--think-only 20]

For every game and level it plays `--games` matches against uniform random and `--games`
against the level below (level 1 only against random), the level's seat alternating (in
Mimic Taking, 3 players, the level takes each seat in turn and the other two seats are random,
or the level below). Prints per game and level:

- the level's score (a win 1, a shared win or draw 1/number sharing) with its 95 % Wilson
  interval, against random and against the level below (in 3-player Mimic Taking the fair
  share is 1/3, not 1/2);
- the median and 95th-percentile think time of the level's moves, and the level's time budget;
- playouts per second during its searches.

The clock given to the search, which also times the moves: `cpu` (the default) is this
process's CPU time, so a level gets its time budget "on one core" even on a busy shared
machine; `wall` is `time.monotonic`, as the worker runs it (a busy machine then cuts searches
short); `none` lets the iteration budgets alone decide, so every run plays the same games
(think times are then CPU time). A match running past `--max-plies` is stopped and counted as
a draw (the count is printed).

`--think-only N` plays no matches: it times each level's move in N positions per game (taken
from random games), for the think-time columns of the high levels, whose matches take long.

Use `--games 10 --levels 1 2` for a quick run; the full run (100 games, 5 levels, 5 games) takes
days on one core. `--workers` spreads matches over processes (use sparingly on a shared box).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import ladder
from pbem.bots import LEVELS
from pbem.bots.search import decide
from pbem.games import REGISTRY

RANDOM = 0  # "level 0": a uniform random legal move
PLAYERS = {"mimic-taking": 3}


@dataclass
class Tally:
    score: float = 0.0
    games: int = 0
    stopped: int = 0
    think: list[float] = field(default_factory=list)
    playouts: int = 0
    searching: float = 0.0

    def add(self, other: Tally) -> None:
        self.score += other.score
        self.games += other.games
        self.stopped += other.stopped
        self.think += other.think
        self.playouts += other.playouts
        self.searching += other.searching


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a proportion (draws count half)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


CLOCKS = {"cpu": time.process_time, "wall": time.monotonic, "none": None}


def play(slug: str, level: int, opponent: int, game: int, max_plies: int,
         clock_name: str) -> Tally:
    """One match: `level` in seat `game % players`, every other seat at `opponent`."""
    rules = REGISTRY[slug]
    players = PLAYERS.get(slug, 2)
    hero = game % players
    state = rules.new_game(players, {}, 1000 + game)
    rng = random.Random(f"bench/{slug}/{level}/{opponent}/{game}")
    tally = Tally(games=1)
    for ply in range(max_plies):
        movers = rules.to_move(state)
        if not movers:
            break
        for seat in sorted(movers):
            if seat not in rules.to_move(state):
                continue
            strength = level if seat == hero else opponent
            if strength == RANDOM:
                moves = rules.legal_moves(state, seat)
                move = moves[rng.randrange(len(moves))]
            else:
                clock = CLOCKS[clock_name]
                timer = clock or time.process_time
                started = timer()
                decision = decide(rules, state, seat, strength, seed=game * 1000 + ply,
                                  clock=clock)
                spent = timer() - started
                move = decision.move
                if seat == hero:
                    tally.think.append(spent)
                    if decision.playouts:
                        tally.playouts += decision.playouts
                        tally.searching += spent
            state = rules.apply_move(state, seat, move).state
    outcome = rules.outcome(state)
    if outcome is None:
        tally.stopped = 1
        tally.score = 1 / players
    elif hero in outcome.winners:
        tally.score = 1 / len(outcome.winners)
    return tally


def think_only(slug: str, level: int, positions: int, clock_name: str) -> Tally:
    """Time the level's move in positions reached by random play (no match is played)."""
    rules = REGISTRY[slug]
    players = PLAYERS.get(slug, 2)
    rng = random.Random(f"bench/think/{slug}")
    tally = Tally()
    clock = CLOCKS[clock_name]
    timer = clock or time.process_time
    for index in range(positions):
        state = rules.new_game(players, {}, 2000 + index)
        for _ in range(rng.randrange(0, 40)):
            movers = sorted(rules.to_move(state))
            if not movers:
                break
            moves = rules.legal_moves(state, movers[0])
            state = rules.apply_move(state, movers[0], moves[rng.randrange(len(moves))]).state
        movers = sorted(rules.to_move(state))
        if not movers:
            continue
        started = timer()
        decision = decide(rules, state, movers[0], level, seed=index, clock=clock)
        spent = timer() - started
        tally.think.append(spent)
        if decision.playouts:
            tally.playouts += decision.playouts
            tally.searching += spent
    return tally


def series(pool: ProcessPoolExecutor | None, slug: str, level: int, opponent: int, games: int,
           max_plies: int, clock_name: str) -> Tally:
    total = Tally()
    jobs = [(slug, level, opponent, game, max_plies, clock_name) for game in range(games)]
    results = (pool.map(play, *zip(*jobs, strict=True)) if pool is not None
               else (play(*job) for job in jobs))
    for result in results:
        total.add(result)
    return total


def percentile(values: Sequence[float], fraction: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(fraction * len(ordered)) - 1)]


def describe(tally: Tally) -> str:
    low, high = wilson(tally.score, tally.games)
    stopped = f", {tally.stopped} stopped" if tally.stopped else ""
    return (f"{100 * tally.score / tally.games:5.1f} % [{100 * low:4.1f}-{100 * high:5.1f}] "
            f"of {tally.games}{stopped}")


def think_json(slugs: Sequence[str], levels: Sequence[int], positions: int) -> dict[str, Any]:
    """Per game and level: the median and 95th percentile of a move's CPU seconds (no
    clock given to the search: the iteration budget alone decides, as on a busy server)."""
    found: dict[str, Any] = {}
    for slug in slugs:
        for level in levels:
            tally = think_only(slug, level, positions, "none")
            found.setdefault(slug, {})[str(level)] = {
                "median_cpu_s": round(statistics.median(tally.think), 3),
                "p95_cpu_s": round(percentile(tally.think, 0.95), 3),
                "positions": len(tally.think)}
            print(slug, level, found[slug][str(level)], file=sys.stderr, flush=True)
    return found


def sequential_tests(args: argparse.Namespace) -> None:
    pairings = [replace(p, elo0=args.elo0, alpha=args.alpha, beta=args.beta,
                        elo1=p.elo1 if args.elo1 is None else args.elo1)
                for p in ladder.ladder(args.slugs) if p.level in args.levels]
    if args.status:
        # The figures of the engine at the commit asked for, else of the last one measured;
        # the log is the truth, and strength.json is written again from it.
        measured = ladder.engine(args.commit) if args.commit else ladder.last_engine()
        standings = [one for one in ladder.status(pairings, measured) if one.matches]
        ladder.write_strength(standings, measured)
        print(f"engine {measured}")
        print(ladder.table(standings))
        print(f"CPU hours: {sum(one.cpu_hours for one in standings):.2f}")
        return
    measured = ladder.engine()
    pool = ProcessPoolExecutor(args.workers) if args.workers > 1 else None
    standings = []
    for pairing in pairings:
        standings.append(ladder.run_pairing(pairing, pool, args.workers, args.cap,
                                            args.max_plies, measured))
        ladder.write_strength(standings, measured)
    if pool is not None:
        pool.shutdown()
    print(ladder.table(standings))
    print(f"CPU hours: {sum(one.cpu_hours for one in standings):.2f}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100, help="matches per pairing")
    parser.add_argument("--levels", type=int, nargs="+", default=sorted(LEVELS))
    parser.add_argument("--game", nargs="+", default=sorted(REGISTRY), dest="slugs")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--max-plies", type=int, default=600)
    parser.add_argument("--against", choices=("both", "random", "below"), default="both",
                        help="play random, the level below, or both (the default)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="the search's clock: CPU time (default), wall time or none")
    parser.add_argument("--think-only", type=int, default=0, metavar="POSITIONS",
                        help="only time each level's move in this many positions per game")
    parser.add_argument("--json", action="store_true",
                        help="with --think-only: print JSON (median_cpu_s, p95_cpu_s)")
    sequential = parser.add_argument_group("sequential tests (GSPRT, pbem/bots/sprt.py)")
    sequential.add_argument("--sprt", action="store_true",
                            help="play the ladder's pairings (2 vs random, 3>2, 4>3, 5>4) of "
                            "the --game and --levels until each is decided")
    sequential.add_argument("--status", action="store_true",
                            help="print each pairing's LLR and bounds so far (plays nothing)")
    sequential.add_argument("--elo0", type=float, default=0.0)
    sequential.add_argument("--elo1", type=float, default=None,
                            help="default 50 (100 for 4>3 and 5>4)")
    sequential.add_argument("--alpha", type=float, default=0.05)
    sequential.add_argument("--beta", type=float, default=0.05)
    sequential.add_argument("--cap", type=int, default=400, help="most matches a pairing")
    sequential.add_argument("--commit", default="",
                            help="with --status: the engine at this commit "
                                 "(default: the last one measured)")
    args = parser.parse_args(argv)
    if args.sprt or args.status:
        sequential_tests(args)
        return
    if args.think_only and args.json:
        print(json.dumps(think_json(args.slugs, args.levels, args.think_only), indent=1))
        return
    if args.think_only:
        print("| game | level | think median / p95 / max (budget) | playouts/s |")
        print("|---|---|---|---|")
        for level in args.levels:
            for slug in args.slugs:
                tally = think_only(slug, level, args.think_only, args.clock)
                speed = f"{tally.playouts / tally.searching:.0f}" if tally.searching else "-"
                print(f"| {slug} | {level} | {statistics.median(tally.think):.2f} / "
                      f"{percentile(tally.think, 0.95):.2f} / {max(tally.think):.2f} s "
                      f"({LEVELS[level].seconds} s) | {speed} |", flush=True)
        return
    pool = ProcessPoolExecutor(args.workers) if args.workers > 1 else None
    print("| game | level | vs random | vs level below | think median / p95 (budget) "
          "| playouts/s |")
    print("|---|---|---|---|---|---|")
    for level in args.levels:
        for slug in args.slugs:
            clock = args.clock
            both = Tally()
            against_random = "-"
            if args.against != "below":
                random_series = series(pool, slug, level, RANDOM, args.games, args.max_plies,
                                       clock)
                against_random = describe(random_series)
                both.add(random_series)
            below = "-"
            if level > 1 and args.against != "random":
                lower = series(pool, slug, level, level - 1, args.games, args.max_plies, clock)
                below = describe(lower)
                both.add(lower)
            think = (f"{statistics.median(both.think):.3f} / {percentile(both.think, 0.95):.3f} s"
                     f" ({LEVELS[level].seconds} s)") if both.think else "-"
            speed = f"{both.playouts / both.searching:.0f}" if both.searching else "-"
            print(f"| {slug} | {level} | {against_random} | {below} | {think} "
                  f"| {speed} |", flush=True)
    if pool is not None:
        pool.shutdown()


if __name__ == "__main__":
    main()
