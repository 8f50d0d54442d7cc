"""The deadline sweep must cost O(due matches), not O(all matches).

    python bench/sweep.py [--database-url URL] [--idle 1000 100000] [--due 100]

For each idle count it builds a fresh database with that many idle matches (deadlines far
ahead) plus `--due` matches past their deadline, then times one sweep that settles the due
ones into the adjudication queue. Prints the times and their ratio: they should be close.
Default database: a temporary SQLite file; pass a PostgreSQL URL to measure that too (its
tables are dropped and recreated).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbem.core.db import bind_database, database
from pbem.core.migrations import drop_everything, migrate
from pbem.core.models import Adjudication, Match, Player, Seat
from pbem.core.sweep import sweep
from pbem.games import get_rules

NOW = datetime(2026, 6, 1, 12, 0)
BATCH = 1000


def build(url: str, idle: int, due: int) -> None:
    bind_database(url)
    database.connect(reuse_if_open=True)
    drop_everything()
    migrate()
    rules = get_rules("mimic")
    state = rules.dump(rules.new_game(2, {}, 1))
    players = [Player.create(email=f"p{i}@example.org", created_at=NOW).id for i in range(2)]
    total = idle + due
    with database.atomic():
        for start in range(0, total, BATCH):
            numbers = range(start, min(start + BATCH, total))
            Match.insert_many([{
                "game": "mimic", "rules_version": 1, "options": {}, "seed": 1,
                "status": "active", "ply": 0, "turn": 0, "to_move": [0], "state": state,
                "thread_key": f"k{n}", "time_control": "3d", "on_timeout": "adjudicate",
                "created_at": NOW, "updated_at": NOW} for n in numbers]).execute()
        ids = [row.id for row in Match.select(Match.id).order_by(Match.id)]
        for start in range(0, total, BATCH):
            rows = []
            for index in range(start, min(start + BATCH, total)):
                is_due = index >= idle
                when = NOW - timedelta(minutes=1) if is_due else NOW + timedelta(days=2)
                for seat in (0, 1):
                    rows.append({
                        "match": ids[index], "seat": seat, "player": players[seat],
                        "token_hash": f"{index:08d}{seat}", "token_generation": 1,
                        "allowance_seconds": 259_200,
                        "owes_since": NOW - timedelta(days=3) if seat == 0 else None,
                        "deadline": when if seat == 0 else None,
                        "remind_at": None, "version": 0})
            Seat.insert_many(rows).execute()


def time_sweep() -> tuple[float, int]:
    sweep(NOW - timedelta(hours=1), timedelta(days=1))  # the worker's previous heartbeat
    started = time.perf_counter()
    report = sweep(NOW, timedelta(days=1))
    return time.perf_counter() - started, report.settled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database-url")
    parser.add_argument("--idle", type=int, nargs="+", default=[1000, 100_000])
    parser.add_argument("--due", type=int, default=100)
    args = parser.parse_args()
    timings = []
    with tempfile.TemporaryDirectory() as folder:
        for idle in args.idle:
            url = args.database_url or f"sqlite:///{folder}/sweep-{idle}.sqlite3"
            started = time.perf_counter()
            build(url, idle, args.due)
            built = time.perf_counter() - started
            elapsed, settled = time_sweep()
            assert settled == args.due and Adjudication.select().count() == args.due
            timings.append(elapsed)
            print(f"{idle:>8,} idle + {args.due} due: sweep {elapsed * 1000:8.1f} ms "
                  f"({elapsed / args.due * 1000:.2f} ms per due match; built in {built:.1f} s)")
            database.close()
    if len(timings) > 1:
        print(f"ratio largest/smallest: {timings[-1] / timings[0]:.2f} (close to 1 = O(due))")


if __name__ == "__main__":
    main()
