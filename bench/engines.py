"""Legal-move generation against other engines: pbem's EXIMO and Mimic ÷ outside baselines.

    python bench/engines.py [--eximo DIR] [--mimic JS] [--rounds 7] [--games 20] [--seconds 0.3]

The baselines are not part of pbem and are not in this repository; point the bench at them:

- `--eximo DIR` (or `$PBEM_BENCH_EXIMO`): a checkout of the student engine
  github.com/daviddias99/minmax-board-game-feup-iart (FEUP IART 2017/18; `Eximo.py` and
  `board.py`). Its legal-move generation is `exec_all_moves()`, which returns every whole
  turn (jumps, captures and drops played out) as a state; from a free position it only
  flags mandatory captures, so it is then called a second time to play them out (cheaper for
  it than its game loop's `perform_full_checkup()` first, which finds the captures twice).
  So pbem is timed making the same: `legal_moves` with each move played out to the board it
  reaches, and again with each move also written as text (`format_move`). `legal_moves`
  alone (the moves, not the positions) is printed beside, for reference only: it does less
  than the student engine's call, and an earlier version of this bench compared it.
- `--mimic JS` (or `$PBEM_BENCH_MIMIC`): Abstract Play's `src/games/mimic.ts`
  (github.com/AbstractPlay/gameslib) bundled for Node as CommonJS exporting `MimicGame`, e.g.
  export `src/games/{_base,mimic}.ts`, `src/common` and `src/schemas`, reduce
  `src/common/index.ts` to what `_base.ts` and `mimic.ts` import (`coords2algebraic`,
  `algebraic2coords`, `reviver`, `replacer`, `sortingReplacer`, `UserFacingError`) so the
  bundle needs only `i18next lodash rfdc json-stringify-deterministic` from npm, then
  `esbuild entry.ts --bundle --platform=node --format=cjs --external:@abstractplay/*
  --outfile=mimic.js` with `entry.ts` re-exporting `MimicGame`. Its legal-move generation,
  `moves()`, returns the moves as text (`b2-b3`), so pbem is timed twice: `legal_moves`
  alone (moves as index pairs) and with each move formatted by `format_move`. The baseline
  loop runs inside `node` (a driver this bench writes to a temporary directory), which
  reports its own CPU time.

A missing path prints a message and skips that comparison. The positions are those of seeded
random games played by pbem (`--games` of each game); each is converted to the baseline's
form once, outside the timing. Before timing, the bench compares the moves of both engines
on every position and prints how many agree (the rules differ in corners: Abstract Play
forbids undoing the last move and its mimic, pbem forbids recreating the board before the
opponent's last turn). Each round times every side for about `--seconds` of CPU, the order
alternating between rounds so the machine's load falls on both alike; the ratio is pbem's
generations per CPU second ÷ the baseline's in the same round (Node's CPU time counts its
compiler and collector threads too, so the ratio by wall-clock time is printed beside it).
The median and spread (lowest to highest round) are printed, the first round (warm-up, Node's
JIT) left out. Targets: EXIMO (positions) ≥ 6, Mimic ≥ 1.5, Mimic as text ≥ 1.0.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Measure this checkout's code, whichever pbem the virtualenv has installed.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbem.games import REGISTRY
from pbem.games.base import GameRules
from pbem.games.eximo import rules as eximo
from pbem.games.mimic import rules as mimic

MAX_PLIES = 2000

# Runs Abstract Play's MimicGame.moves() over the positions it is given, in node.
NODE_DRIVER = r"""
const readline = require("readline");
const { MimicGame } = require(process.argv[2]);
const game = new MimicGame();
let positions = [];
function load(p) {  // moves() only reads the board, so each position's Map is built once
    game.board = p.board;
    game.currplayer = p.player;
    game.reversemove = p.reversemove;
    game.reversemimic = p.reversemimic;
    game.gameover = false;
}
const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
    const space = line.indexOf(" ");
    const command = space < 0 ? line : line.slice(0, space);
    const arg = space < 0 ? "" : line.slice(space + 1);
    if (command === "positions") {
        positions = JSON.parse(arg).map((p) => ({ ...p, board: new Map(p.board) }));
        console.log(JSON.stringify({ count: positions.length }));
    } else if (command === "moves") {
        console.log(JSON.stringify(positions.map((p) => { load(p); return game.moves(); })));
    } else if (command === "time") {
        const seconds = parseFloat(arg);
        let generations = 0;
        const cpu0 = process.cpuUsage();
        const wall0 = process.hrtime.bigint();
        let cpu = 0;
        while (cpu < seconds) {
            for (const p of positions) {
                load(p);
                game.moves();
            }
            generations += positions.length;
            const used = process.cpuUsage(cpu0);
            cpu = (used.user + used.system) / 1e6;
        }
        const wall = Number(process.hrtime.bigint() - wall0) / 1e9;
        console.log(JSON.stringify({ generations, cpu, wall }));
    } else if (command === "quit") {
        rl.close();
    }
});
"""


def random_positions(rules: GameRules, games: int) -> list[tuple[Any, int]]:
    """The positions (state, seat to move) of `games` seeded random games."""
    positions = []
    for seed in range(games):
        rng = random.Random(seed)
        state = rules.new_game(min(rules.player_counts), {}, seed)
        for _ in range(MAX_PLIES):
            to_move = sorted(rules.to_move(state))
            if not to_move:
                break
            seat = rng.choice(to_move)
            positions.append((state, seat))
            move = rng.choice(list(rules.legal_moves(state, seat)))
            state = rules.apply_move(state, seat, move).state
    return positions


def time_loop(run: Callable[[], int], seconds: float) -> tuple[int, float, float]:
    """Call `run` (which returns how many generations it made) for about `seconds` of CPU."""
    generations, cpu0, wall0 = 0, time.process_time(), time.perf_counter()
    while time.process_time() - cpu0 < seconds:
        generations += run()
    return generations, time.process_time() - cpu0, time.perf_counter() - wall0


class Side:
    """One engine's loop over the positions, timed by CPU."""

    def __init__(self, name: str, measure: Callable[[float], tuple[int, float, float]]):
        self.name = name
        self.measure = measure
        self.rates: list[float] = []
        self.cpu: list[float] = []
        self.wall: list[float] = []


def compare(title: str, ours: list[Side], theirs: Side, rounds: int, seconds: float) -> None:
    sides = [*ours, theirs]
    print(f"\n{title}: {rounds} rounds of about {seconds} s CPU each side "
          f"(first round is warm-up)")
    for number in range(rounds):
        order = sides if number % 2 == 0 else sides[::-1]
        for side in order:
            generations, cpu, wall = side.measure(seconds)
            side.rates.append(generations / cpu)
            side.cpu.append(cpu / generations)
            side.wall.append(wall / generations)
        row = "  ".join(f"{side.name} {side.rates[-1]:10,.0f}/s" for side in sides)
        print(f"  round {number + 1}: {row}")
    for side in sides:
        print(f"  {side.name:32} {statistics.median(side.rates[1:]):10,.0f} generations/CPU s "
              f"({statistics.median(side.cpu[1:]) * 1e6:6.1f} µs CPU, "
              f"{statistics.median(side.wall[1:]) * 1e6:6.1f} µs wall each)")
    for side in ours:
        ratios = [a / b for a, b in zip(side.rates[1:], theirs.rates[1:], strict=True)]
        walls = [b / a for a, b in zip(side.wall[1:], theirs.wall[1:], strict=True)]
        print(f"  ratio {side.name} ÷ {theirs.name}: median {statistics.median(ratios):.2f} "
              f"(spread {min(ratios):.2f} to {max(ratios):.2f}); by wall-clock time "
              f"{statistics.median(walls):.2f} ({min(walls):.2f} to {max(walls):.2f})")


# -- EXIMO against the student engine ----------------------------------------------------------

def bench_eximo(directory: str | None, rounds: int, games: int, seconds: float) -> None:
    if not directory or not (Path(directory) / "Eximo.py").is_file():
        print(f"EXIMO: skipped, no student engine (Eximo.py) at {directory!r}: pass --eximo "
              f"DIR or set PBEM_BENCH_EXIMO to a checkout of "
              f"daviddias99/minmax-board-game-feup-iart")
        return
    sys.path.insert(0, directory)
    from board import Board  # type: ignore[import-not-found]
    from Eximo import Eximo  # type: ignore[import-not-found]

    rules = REGISTRY["eximo"]
    positions = random_positions(rules, games)

    def student_state(state: eximo.EximoState) -> Any:
        # Their rows run from rank 8 down to rank 1; player 1 is Black (seat 0).
        matrix = [[{"b": 1, "w": 2}.get(state.board[(7 - row) * 8 + file], 0)
                   for file in range(8)] for row in range(8)]
        return Eximo(state.turn + 1, Eximo.FREE, set(), Board(boards=matrix))

    def student_moves(student: Any) -> list[Any]:
        # From a free position exec_all_moves finds the mandatory captures, but then only
        # flags them and returns nothing; asked again, it plays them out.
        student.next_move, student.next_pieces = Eximo.FREE, set()
        moves = student.exec_all_moves()
        if not moves and student.next_move == Eximo.CAPT:
            moves = student.exec_all_moves()
        return list(moves)

    def as_board(student: Any) -> str:
        cells = student.board.board
        return "".join(".bw"[cells[7 - index // 8][index % 8]] for index in range(64))

    students = [student_state(state) for state, _seat in positions]
    agree = sum(
        {eximo._after(state.board, seat, m) for m in rules.legal_moves(state, seat)}
        == {as_board(after) for after in student_moves(student)}
        for (state, seat), student in zip(positions, students, strict=True))
    print(f"EXIMO: {len(positions)} positions from {games} random games; the two engines "
          f"reach the same positions in {agree} of them")

    legal, after, fmt = rules.legal_moves, eximo._after, rules.format_move
    boards = [(state.board, state, seat) for state, seat in positions]

    # The same call on both sides: every legal turn played out to the position it reaches,
    # which is what exec_all_moves returns.
    def ours(seconds: float) -> tuple[int, float, float]:
        return time_loop(
            lambda: [[after(b, t, m) for m in legal(s, t)] for b, s, t in boards]
            and len(boards), seconds)

    # The same, each turn also written as text (which the student engine never writes).
    def ours_text(seconds: float) -> tuple[int, float, float]:
        return time_loop(
            lambda: [[(after(b, t, m), fmt(s, m)) for m in legal(s, t)] for b, s, t in boards]
            and len(boards), seconds)

    # Only the moves, not the positions they reach: less than the student engine does, so
    # this ratio is printed for reference and is not comparable.
    def ours_moves(seconds: float) -> tuple[int, float, float]:
        return time_loop(lambda: [legal(s, t) for s, t in positions] and len(positions),
                         seconds)

    def theirs(seconds: float) -> tuple[int, float, float]:
        return time_loop(lambda: [student_moves(s) for s in students] and len(students),
                         seconds)

    compare("EXIMO legal turns played out", [
        Side("pbem legal_moves + positions", ours),
        Side("pbem legal_moves + positions + text", ours_text),
        Side("pbem legal_moves only (not comparable)", ours_moves)],
        Side("student exec_all_moves", theirs), rounds, seconds)


# -- Mimic against Abstract Play --------------------------------------------------------------

def abstract_play_position(state: mimic.MimicState) -> dict[str, Any]:
    board = [[mimic._name(i), [mimic.PIECES.index(c) + 1 for c in stack]]
             for i, stack in enumerate(state.board) if stack]
    last = state.last
    reverse_move = reverse_mimic = None
    if last is not None and last.mimic_from is not None and last.mimic_to is not None:
        reverse_move = f"{mimic._name(last.mimic_to)}-{mimic._name(last.mimic_from)}"
        reverse_mimic = f"{mimic._name(last.target)}-{mimic._name(last.origin)}"
    return {"board": board, "player": state.turn + 1, "reversemove": reverse_move,
            "reversemimic": reverse_mimic}


def bench_mimic(bundle: str | None, rounds: int, games: int, seconds: float) -> None:
    if not bundle or not Path(bundle).is_file():
        print(f"Mimic: skipped, no Abstract Play bundle at {bundle!r}: pass --mimic JS or set "
              f"PBEM_BENCH_MIMIC to mimic.ts bundled for node (see this script's docstring)")
        return
    rules = REGISTRY["mimic"]
    positions = random_positions(rules, games)
    with tempfile.TemporaryDirectory() as tmp:
        driver = Path(tmp) / "driver.js"
        driver.write_text(NODE_DRIVER)
        node = subprocess.Popen(["node", str(driver), str(Path(bundle).resolve())],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert node.stdin is not None and node.stdout is not None
        stdin, stdout = node.stdin, node.stdout

        def ask(line: str) -> Any:
            stdin.write(line + "\n")
            stdin.flush()
            return json.loads(stdout.readline())

        try:
            ask("positions " + json.dumps([abstract_play_position(s) for s, _ in positions]))
            fmt = rules.format_move
            agree = sum(
                sorted(fmt(state, m) for m in rules.legal_moves(state, seat)) == sorted(theirs)
                for (state, seat), theirs in zip(positions, ask("moves"), strict=True))
            print(f"\nMimic: {len(positions)} positions from {games} random games; the two "
                  f"engines list the same moves in {agree} of them")

            def ours(seconds: float) -> tuple[int, float, float]:
                legal = rules.legal_moves
                return time_loop(lambda: [legal(s, t) for s, t in positions] and len(positions),
                                 seconds)

            def ours_text(seconds: float) -> tuple[int, float, float]:
                legal = rules.legal_moves
                return time_loop(
                    lambda: [[fmt(s, m) for m in legal(s, t)] for s, t in positions]
                    and len(positions), seconds)

            def theirs(seconds: float) -> tuple[int, float, float]:
                answer = ask(f"time {seconds}")
                return answer["generations"], answer["cpu"], answer["wall"]

            compare("Mimic legal moves", [Side("pbem legal_moves", ours),
                                          Side("pbem legal_moves + format_move", ours_text)],
                    Side("Abstract Play moves() in node", theirs), rounds, seconds)
        finally:
            stdin.write("quit\n")
            stdin.close()
            node.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eximo", default=os.environ.get("PBEM_BENCH_EXIMO"))
    parser.add_argument("--mimic", default=os.environ.get("PBEM_BENCH_MIMIC"))
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=0.3)
    args = parser.parse_args()
    if args.rounds < 2:
        parser.error("--rounds must be at least 2 (the first is warm-up)")
    bench_eximo(args.eximo, args.rounds, args.games, args.seconds)
    bench_mimic(args.mimic, args.rounds, args.games, args.seconds)


if __name__ == "__main__":
    main()
