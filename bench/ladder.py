"""Sequential strength tests for `bench/bots.py --sprt`, `--ladder` and `--status`.

A pairing (game, level, against: a lower level or uniform random) is played in *groups*: one
deal, and the level in each seat in turn (two matches in a two-player game, seats swapped;
three in Mimic Taking, each against two copies of the other). A group's score is the level's
mean share; the GSPRT (`pbem/bots/sprt.py`, pentanomial for pairs) runs on the groups'
scores until it accepts H0 or H1, or the match cap is reached.

Every finished match is appended to `bench/results/matches.jsonl` as it ends (one JSON line,
with the commit and the engine measured), so a run cut short resumes where it stopped and
figures from several runs of the same engine add up. The engine is what decides the play:
the files of the search and of the rules (`pbem/bots`, `pbem/games`, their docs and the
strength tables left out), so a commit that changes neither (a page, a mail, these results)
keeps the figures, and one that changes either starts them again.
`bench/results/strength.json` is rewritten from that log after every match: one entry a
pairing of the engine measured, with the latest commit that played it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem.bots import sprt
from pbem.bots.search import decide
from pbem.games import DESCRIPTIONS, REGISTRY

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
LOG = RESULTS / "matches.jsonl"
STRENGTH = RESULTS / "strength.json"
PACKAGED = ROOT / "pbem" / "bots" / "strength.json"
README = ROOT / "README.md"
RANDOM = 0
PLAYERS = {"mimic-taking": 3}


@dataclass(frozen=True)
class Pairing:
    game: str
    level: int
    against: int  # a level, or RANDOM (0)
    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def players(self) -> int:
        return PLAYERS.get(self.game, 2)

    @property
    def against_name(self) -> str:
        return "random" if self.against == RANDOM else str(self.against)

    def key(self) -> tuple[str, int, str]:
        return (self.game, self.level, self.against_name)


def ladder(games: Sequence[str]) -> list[Pairing]:
    """The decided ladder, cheapest pairings first: 2 beats random, then 3>2, 4>3, 5>4
    (elo1 50 up to level 3, 100 above)."""
    steps = ((2, RANDOM, 50.0), (3, 2, 50.0), (4, 3, 100.0), (5, 4, 100.0))
    return [Pairing(game, level, against, elo1=elo1)
            for level, against, elo1 in steps for game in games]


ENGINE = ("pbem/bots", "pbem/games")
NOT_ENGINE = ("strength.json", ".md")


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()


def commit() -> str:
    """The commit checked out. Whether the engine's files differ from it is the engine's
    "+dirty"; other files (a page, a mail) do not change the play."""
    return git("rev-parse", "HEAD")


@functools.cache
def engine(at: str = "HEAD") -> str:
    """The engine at a commit: a digest of the search's and the rules' files (git's hashes of
    their content). "+dirty" when the checkout's engine files differ from HEAD's (then nothing
    is comparable). A commit git does not know is its own engine (an old or foreign line)."""
    try:
        listing = git("ls-tree", "-r", at.removesuffix("+dirty"), "--", *ENGINE)
    except subprocess.CalledProcessError:
        return at
    files = [line for line in listing.splitlines() if not line.endswith(NOT_ENGINE)]
    digest = hashlib.sha256("\n".join(files).encode()).hexdigest()[:16]
    if at != "HEAD":
        return digest
    changed = [line for line in git("status", "--porcelain", "--", *ENGINE).splitlines()
               if not line.endswith(NOT_ENGINE)]
    return digest + ("+dirty" if changed else "")


def engine_of(line: dict[str, Any]) -> str:
    """The engine a logged match was played by (lines before engines were logged: the
    engine at their commit)."""
    return line.get("engine") or engine(line["commit"])


def last_engine(path: Path | None = None) -> str:
    """The engine of the last match in the log ("" when the log is empty)."""
    lines = read_log(path or LOG)
    return engine_of(lines[-1]) if lines else ""


# -- one match ----------------------------------------------------------------------------

def play_match(game: str, level: int, against: int, group: int, seat: int,
               max_plies: int) -> dict[str, Any]:
    """One match of a group: the deal `group`, `level` in `seat`, every other seat `against`.
    Runs in a worker process; returns the log line (without the commit)."""
    started = time.process_time()
    rules = REGISTRY[game]
    players = PLAYERS.get(game, 2)
    state = rules.new_game(players, {}, 1000 + group)
    rng = random.Random(f"ladder/{game}/{level}/{against}/{group}/{seat}")
    plies = 0
    while plies < max_plies and rules.to_move(state):
        for mover in sorted(rules.to_move(state)):
            if mover not in rules.to_move(state):
                continue
            strength = level if mover == seat else against
            if strength == RANDOM:
                moves = rules.legal_moves(state, mover)
                move = moves[rng.randrange(len(moves))]
            else:
                move = decide(rules, state, mover, strength, seed=group * 1000 + plies).move
            state = rules.apply_move(state, mover, move).state
        plies += 1
    outcome = rules.outcome(state)
    if outcome is None or not outcome.winners:
        score, result = 1 / players, "draw"  # stopped at the ply cap, or nobody won
    elif seat in outcome.winners:
        score = 1 / len(outcome.winners)
        result = "win" if len(outcome.winners) == 1 else "draw"
    else:
        score, result = 0.0, "loss"
    return {"game": game, "level": level, "against": "random" if against == RANDOM
            else str(against), "group": group, "seat": seat, "score": score,
            "result": result, "plies": plies, "cpu_s": round(time.process_time() - started, 3)}


# -- the log ------------------------------------------------------------------------------

def read_log(path: Path = LOG) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    lines = []
    for line in path.read_text().splitlines():
        if line.strip():
            try:
                lines.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut short by a stop mid-write: the match is played again
    return lines


def append_log(line: dict[str, Any], path: Path = LOG) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as log:
        log.write(json.dumps(line, sort_keys=True) + "\n")


def matches_of(pairing: Pairing, lines: Sequence[dict[str, Any]],
               measured: str) -> dict[tuple[int, int], dict[str, Any]]:
    """The pairing's finished matches of this engine, by (group, seat)."""
    return {(line["group"], line["seat"]): line for line in lines
            if engine_of(line) == measured
            and (line["game"], line["level"], line["against"]) == pairing.key()}


@dataclass(frozen=True)
class Standing:
    pairing: Pairing
    verdict: sprt.Verdict
    matches: int
    groups: int
    wins: int
    draws: int
    losses: int
    cpu_hours: float
    commit: str  # the latest commit that played one of its matches

    def entry(self, measured: str) -> dict[str, Any]:
        p = self.pairing
        return {"game": p.game, "level": p.level, "against": p.against_name,
                "elo0": p.elo0, "elo1": p.elo1, "alpha": p.alpha, "beta": p.beta,
                "wins": self.wins, "draws": self.draws, "losses": self.losses,
                "matches": self.matches, "groups": self.groups,
                "llr": round(self.verdict.llr, 3), "lower": round(self.verdict.lower, 3),
                "upper": round(self.verdict.upper, 3), "decision": self.verdict.decision,
                "cpu_hours": round(self.cpu_hours, 3), "commit": self.commit,
                "engine": measured}


def standing(pairing: Pairing, played: dict[tuple[int, int], dict[str, Any]]) -> Standing:
    """The GSPRT on the pairing's complete groups (a group missing a seat waits)."""
    groups: dict[int, list[float]] = {}
    for (group, _seat), line in sorted(played.items()):
        groups.setdefault(group, []).append(line["score"])
    scores = [sum(found) / len(found) for found in groups.values()
              if len(found) == pairing.players]
    categories = sprt.PENTANOMIAL if pairing.players == 2 else ()
    verdict = sprt.test(scores, pairing.elo0, pairing.elo1, pairing.alpha, pairing.beta,
                        pairing.players, categories)
    results = [line["result"] for line in played.values()]
    return Standing(pairing, verdict, len(played), len(scores), results.count("win"),
                    results.count("draw"), results.count("loss"),
                    sum(line["cpu_s"] for line in played.values()) / 3600,
                    # Lines logged before engines were may say "+dirty" of files outside the
                    # engine; the engine they share is that commit's.
                    max((line["commit"].removesuffix("+dirty") for line in played.values()),
                        key=_commit_order, default=""))


@functools.cache
def _commit_order(commit: str) -> int:
    """How many commits lead to `commit` (0 for one git does not know)."""
    try:
        return int(git("rev-list", "--count", commit))
    except subprocess.CalledProcessError:
        return 0


def write_strength(standings: Sequence[Standing], measured: str,
                   path: Path = STRENGTH) -> None:
    """Rewrite strength.json: this run's pairings, kept with the others already there."""
    entries: dict[tuple[str, int, str], dict[str, Any]] = {}
    if path.exists():
        for entry in json.loads(path.read_text())["pairings"]:
            entries[(entry["game"], entry["level"], entry["against"])] = entry
    for one in standings:
        entries[one.pairing.key()] = one.entry(measured)
    ordered = sorted(entries.values(), key=lambda e: (e["game"], e["level"], e["against"]))
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"pairings": ordered}, indent=1) + "\n"
    path.write_text(text)
    if path == STRENGTH:
        PACKAGED.write_text(text)  # the rules pages' copy (pbem/bots/strength.py)
        write_readme_table(ordered)


# The README's table of the ladder, between these marks, made from strength.json.
TABLE_START = "<!-- strength table: bench/bots.py --sprt writes it -->"
TABLE_END = "<!-- end of strength table -->"
STEPS = (("2", "random"), ("3", "2"), ("4", "3"), ("5", "4"))


def readme_table(entries: Sequence[dict[str, Any]]) -> str:
    """A line a game: each step of the ladder's decision with the matches behind it."""
    found = {(e["game"], str(e["level"]), e["against"]): e for e in entries}
    rows = ["| game | " + " | ".join(f"{level} beats {against}" for level, against in STEPS)
            + " |", "|---" * (len(STEPS) + 1) + "|"]
    for game in sorted(DESCRIPTIONS):  # the real games (tests add toy ones to REGISTRY)
        cells = []
        title = DESCRIPTIONS[game].title
        for level, against in STEPS:
            entry = found.get((game, level, against))
            cells.append("not run" if entry is None else
                         f"{_DECISIONS[entry['decision']]} ({entry['wins']}-{entry['draws']}-"
                         f"{entry['losses']} in {entry['matches']})")
        rows.append(f"| {title} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


_DECISIONS = {"H1": "yes", "H0": "no", "open": "open"}


def write_readme_table(entries: Sequence[dict[str, Any]], path: Path = README) -> None:
    text = path.read_text()
    start, end = text.index(TABLE_START) + len(TABLE_START), text.index(TABLE_END)
    path.write_text(text[:start] + "\n" + readme_table(entries) + "\n" + text[end:])


# -- running ------------------------------------------------------------------------------

def todo_matches(pairing: Pairing, played: dict[tuple[int, int], dict[str, Any]],
          cap: int) -> Iterator[tuple[int, int]]:
    """The (group, seat) matches still to play, in order, up to the cap."""
    group = 0
    while group * pairing.players < cap:
        for seat in range(pairing.players):
            if (group, seat) not in played:
                yield group, seat
        group += 1


def progress(one: Standing, cap: int) -> str:
    width = 24
    # Where the LLR stands between the bounds, as a bar from H0 (left) to H1 (right).
    span = one.verdict.upper - one.verdict.lower
    at = min(width, max(0, round(width * (one.verdict.llr - one.verdict.lower) / span)))
    p = one.pairing
    return (f"\r{p.game} {p.level} vs {p.against_name}: [{'#' * at}{'.' * (width - at)}] "
            f"LLR {one.verdict.llr:+.2f} ({one.verdict.lower:.2f}, {one.verdict.upper:.2f}) "
            f"{one.matches}/{cap} matches {one.wins}-{one.draws}-{one.losses} "
            f"{one.verdict.decision}   ")


def run_pairing(pairing: Pairing, pool: ProcessPoolExecutor | None, workers: int, cap: int,
                max_plies: int, measured: str, log: Path = LOG) -> Standing:
    """Play the pairing until the GSPRT decides or `cap` matches are played."""
    played = matches_of(pairing, read_log(log), measured)
    todo = todo_matches(pairing, played, cap)
    running: dict[Future[dict[str, Any]], tuple[int, int]] = {}
    now = standing(pairing, played)
    while now.verdict.decision == "open":
        while len(running) < workers:
            nxt = next(todo, None)
            if nxt is None:
                break
            args = (pairing.game, pairing.level, pairing.against, *nxt, max_plies)
            if pool is None:
                done_line = play_match(*args)
                future: Future[dict[str, Any]] = Future()
                future.set_result(done_line)
            else:
                future = pool.submit(play_match, *args)
            running[future] = nxt
        if not running:
            break  # the cap is reached
        finished, _ = wait(running, return_when=FIRST_COMPLETED)
        for future in finished:
            line = {**future.result(), "commit": commit(), "engine": measured}
            append_log(line, log)
            played[running.pop(future)] = line
        now = standing(pairing, played)
        print(progress(now, cap), end="", file=sys.stderr, flush=True)
    for future in running:
        future.cancel()
    print(progress(now, cap), file=sys.stderr, flush=True)
    return now


def status(pairings: Sequence[Pairing], measured: str, log: Path = LOG) -> list[Standing]:
    lines = read_log(log)
    return [standing(p, matches_of(p, lines, measured)) for p in pairings]


def table(standings: Sequence[Standing]) -> str:
    rows = ["| game | level | against | elo0..elo1 | W-D-L | matches | LLR (bounds) "
            "| decision | CPU h |", "|---|---|---|---|---|---|---|---|---|"]
    for one in standings:
        p = one.pairing
        rows.append(f"| {p.game} | {p.level} | {p.against_name} | {p.elo0:g}..{p.elo1:g} "
                    f"| {one.wins}-{one.draws}-{one.losses} | {one.matches} "
                    f"| {one.verdict.llr:+.2f} ({one.verdict.lower:.2f}, "
                    f"{one.verdict.upper:.2f}) | {one.verdict.decision} "
                    f"| {one.cpu_hours:.2f} |")
    return "\n".join(rows)
