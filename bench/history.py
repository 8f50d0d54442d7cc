"""History pages must cost about the same at any ply (issue: "replay without replaying").

    python bench/history.py [--database-url URL] [--rounds 7] [--requests 20]

Builds a Move-in-Synch match of 600 plies, one of 500 and one of 10 through the real move
service, then times, in interleaved rounds through the Flask app:
- the public page `/matches/<id>?ply=500` against `?ply=10` on the 600-ply match;
- the play page of the 500-ply match against that of the 10-ply match;
- and, to tell history's cost from the position's, the public record alone (no HTML) and the
  board drawing alone at the same two plies.
Prints each as a ratio (median over rounds, with the spread). With `--sweep STEP` the 600-ply
match is then finished and its public page read at every STEP plies against `?ply=10`.
Default database: a temporary SQLite file; a PostgreSQL URL works too (its tables are
dropped and recreated).
"""

from __future__ import annotations

import argparse
import random
import secrets
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flask import render_template

from pbem.config import load_settings
from pbem.core import settlers
from pbem.core.db.connection import bind_database, database
from pbem.core.db.migrations import migrate
from pbem.core.matches.changes import apply_change
from pbem.core.matches.creation import create_match, current_state, replay, rules_for, state_after
from pbem.core.matches.models import Match
from pbem.core.matches.play import submit_move
from pbem.core.matches.rulings import Forfeit
from pbem.core.records.match_record import public_record
from pbem.core.schema import drop_everything
from pbem.web import create_app

NOW = datetime(2026, 6, 1, 12, 0)
# Any strong key: links are never followed here, but weak keys are refused.
SECRET = secrets.token_urlsafe(32)
GAME = "move-in-synch"


def build(url: str) -> tuple[int, dict[int, str]]:
    """The 600-ply match's id, and a seat token of a match at each of 10 and 500 plies."""
    bind_database(url)
    database.connect(reuse_if_open=True)
    drop_everything()
    migrate()
    long_id = None
    tokens = {}
    for target in (600, 500, 10):
        for seed in range(1, 200):
            created = create_match(GAME, ["a@example.org", "b@example.org"], {}, SECRET, NOW,
                                   seed=seed, time_control="30d")
            if _play(created.match.id, seed, target):
                break
        else:
            raise SystemExit(f"no seed gave a {target}-ply match")
        if target == 600:
            long_id = created.match.id
        else:
            match = Match.get_by_id(created.match.id)
            rules = rules_for(match)
            seat = min(rules.to_move(current_state(match)))
            tokens[target] = created.tokens[seat]
    assert long_id is not None
    return long_id, tokens


def _play(match_id: int, seed: int, plies: int) -> bool:
    chooser = random.Random(seed)
    for ply in range(plies):
        match = Match.get_by_id(match_id)
        if not match.is_live:
            return False
        rules = rules_for(match)
        state = current_state(match)
        seat = min(rules.to_move(state))
        text = rules.format_move(state, chooser.choice(list(rules.legal_moves(state, seat))))
        submit_move(match_id, seat, text, ply, NOW + timedelta(minutes=ply))
    return Match.get_by_id(match_id).is_live


def measure(client, paths: dict[str, str], rounds: int, requests: int
            ) -> dict[str, dict[str, list[float]]]:
    """Per path, the wall-clock and the process CPU time per request in each round. On a
    shared machine the CPU time is the steadier figure (on SQLite it includes the queries)."""
    for path in paths.values():  # warm up: templates compiled, caches filled
        assert client.get(path).status_code == 200, path
    times = {name: {"wall": [], "cpu": []} for name in paths}
    for number in range(rounds):
        order = list(paths.items())
        if number % 2:
            order.reverse()
        for name, path in order:
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(requests):
                client.get(path)
            times[name]["wall"].append((time.perf_counter() - wall) / requests)
            times[name]["cpu"].append((time.process_time() - cpu) / requests)
    return times


def report(label: str, slow: dict[str, list[float]], fast: dict[str, list[float]],
           target: str) -> None:
    parts = []
    for clock in ("wall", "cpu"):
        ratios = [a / b for a, b in zip(slow[clock], fast[clock], strict=True)]
        parts.append(f"{clock} {statistics.median(ratios):.2f} (spread {min(ratios):.2f}-"
                     f"{max(ratios):.2f}; {statistics.median(slow[clock]) * 1000:.1f} vs "
                     f"{statistics.median(fast[clock]) * 1000:.1f} ms)")
    print(f"{label} [target {target}]:\n  " + "\n  ".join(parts))


def _time_pair(work, rounds: int, repeat: int = 20
               ) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """`work(500)` and `work(10)` timed in interleaved rounds, like `measure`."""
    times = {ply: {"wall": [], "cpu": []} for ply in (500, 10)}
    for ply in (500, 10):
        work(ply)
    for number in range(rounds):
        for ply in ((500, 10) if number % 2 == 0 else (10, 500)):
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(repeat):
                work(ply)
            times[ply]["wall"].append((time.perf_counter() - wall) / repeat)
            times[ply]["cpu"].append((time.process_time() - cpu) / repeat)
    return times[500], times[10]


# The door hands every change to its settlers, as pbem's own start-ups install them.
settlers.install()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database-url")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--sweep", type=int, default=0, metavar="STEP",
                        help="also finish the 600-ply match and read it every STEP plies")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = args.database_url or f"sqlite:///{folder}/history.sqlite3"
        started = time.perf_counter()
        long_id, tokens = build(url)
        print(f"built 600-, 500- and 10-ply {GAME} matches in "
              f"{time.perf_counter() - started:.1f} s ({url.split(':', 1)[0]})")
        settings = load_settings({"database_url": url, "secret_key": SECRET,
                                  "base_url": "http://bench.test",
                                  "instance_path": f"{folder}/instance"}, environ={})
        client = create_app(settings).test_client()
        times = measure(client, {
            "ply500": f"/matches/{long_id}?ply=500", "ply10": f"/matches/{long_id}?ply=10",
            "play500": f"/play/{tokens[500]}", "play10": f"/play/{tokens[10]}",
        }, args.rounds, args.requests)
        report("/matches/<id>?ply=500 / ?ply=10 (600-ply match)", times["ply500"],
               times["ply10"], "<= 1.2")
        report("play page at ply 500 / at ply 10", times["play500"], times["play10"],
               "<= 1.3")
        database.connect(reuse_if_open=True)
        match = Match.get_by_id(long_id)
        app = client.application
        core = _time_pair(lambda ply: public_record(match, NOW, ply), args.rounds)
        report("public record alone at ply 500 / ply 10 (position + move page, no HTML)",
               *core, "~1")
        with app.test_request_context():
            rules = rules_for(match)
            board = _time_pair(lambda ply: render_template(
                f"games/{GAME}/board.html", view=rules.view(state_after(match, ply), None),
                seat=None, legal_moves=[]), args.rounds)
        report("board drawing alone at ply 500 / ply 10 (it grows as the game fills the "
               "board)", *board, "n/a")
        started = time.perf_counter()
        replay(match, 500)
        print(f"(for comparison: replaying 500 moves from the seed takes "
              f"{(time.perf_counter() - started) * 1000:.1f} ms, which a page no longer does)")
        if args.sweep:
            sweep(client, long_id, args)
        database.close()


def sweep(client, long_id: int, args: argparse.Namespace) -> None:  # type: ignore[no-untyped-def]
    """The 600-ply match finished (its seat to move forfeits), then its public page at every
    `--sweep` plies (and 549, the worst case an earlier run found) against `?ply=10`, by
    CPU a request in interleaved rounds: the worst ratio is what the target bounds."""
    database.connect(reuse_if_open=True)
    match = Match.get_by_id(long_id)
    seat = min(rules_for(match).to_move(current_state(match)))
    apply_change(long_id, Forfeit(seat=seat), NOW + timedelta(days=1))
    assert not Match.get_by_id(long_id).is_live
    plies = sorted({10, 549, *range(args.sweep, 601, args.sweep)})
    times = measure(client, {ply: f"/matches/{long_id}?ply={ply}" for ply in plies},
                    args.rounds, args.requests)
    print(f"finished 600-ply match, /matches/<id>?ply=N ÷ ?ply=10 by CPU a request "
          f"(median of {args.rounds} rounds) [target <= 1.2 for every N]:")
    ratios = {}
    for ply in plies:
        each = [a / b for a, b in zip(times[ply]["cpu"], times[10]["cpu"], strict=True)]
        ratios[ply] = statistics.median(each)
        print(f"  ply {ply:3}: {ratios[ply]:.2f} ({statistics.median(times[ply]['cpu']) * 1000:.2f}"
              f" ms; spread {min(each):.2f} to {max(each):.2f})")
    worst = max(ratios, key=ratios.__getitem__)
    print(f"  worst: ply {worst}, {ratios[worst]:.2f}")


if __name__ == "__main__":
    main()
