"""The deadline sweep must cost O(due matches), not O(all matches).

    python bench/sweep.py [--database-url URL] [--idle 1000 100000] [--due 100] [--rounds 5]

It builds two databases, each with `--due` matches past their deadline and, beside them, a
small or a large number of idle matches (deadlines far ahead). Then, in interleaved rounds,
it puts the due seats back and times one sweep that settles them into the adjudication queue,
on each database in turn. Prints the median times and the ratio large ÷ small with its spread:
close to 1 means a sweep costs O(due work), whatever the number of live matches.
Default: temporary SQLite files; pass a PostgreSQL URL to measure that (two schemas of their
own are dropped and recreated).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbem.core import settlers
from pbem.core.accounts.models import Player
from pbem.core.admin.models import Heartbeat
from pbem.core.db.connection import bind_database, database, open_database
from pbem.core.db.migrations import migrate
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.models import Adjudication, Match, Seat
from pbem.core.matches.sweep import sweep
from pbem.core.schema import drop_everything
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


def reset_due(due_ids: list[int]) -> None:
    """Put the due seats back as they were before a sweep settled them."""
    with database.atomic():
        Adjudication.delete().execute()
        OutboxMessage.delete().execute()
        Seat.update(deadline=NOW - timedelta(minutes=1)).where(
            Seat.match.in_(due_ids), Seat.seat == 0).execute()
        Heartbeat.delete().execute()
    sweep(NOW - timedelta(hours=1), timedelta(days=1))  # the worker's previous heartbeat


def time_sweep(due: int) -> float:
    started = time.perf_counter()
    report = sweep(NOW, timedelta(days=1))
    elapsed = time.perf_counter() - started
    assert report.settled == due and Adjudication.select().count() == due
    return elapsed


# The door hands every change to its settlers, as pbem's own start-ups install them.
settlers.install()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database-url", help="a PostgreSQL URL (default: SQLite files)")
    parser.add_argument("--idle", type=int, nargs=2, default=[1000, 100_000])
    parser.add_argument("--due", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        urls = {idle: _url(args.database_url, folder, idle) for idle in args.idle}
        due_ids = {}
        for idle, url in urls.items():
            started = time.perf_counter()
            build(url, idle, args.due)
            due_ids[idle] = [row.id for row in Match.select(Match.id).order_by(Match.id)
                             .offset(idle)]
            database.close()
            print(f"built {idle:,} idle + {args.due} due in {time.perf_counter() - started:.1f} s")
        timings: dict[int, list[float]] = {idle: [] for idle in urls}
        for _ in range(args.rounds):
            for idle, url in urls.items():
                bind_database(url)
                database.connect(reuse_if_open=True)
                reset_due(due_ids[idle])
                timings[idle].append(time_sweep(args.due))
                database.close()
    small, large = args.idle
    for idle in args.idle:
        print(f"{idle:>8,} idle + {args.due} due: sweep "
              f"{statistics.median(timings[idle]) * 1000:8.1f} ms (median of {args.rounds})")
    ratios = [big / little for big, little in zip(timings[large], timings[small], strict=True)]
    print(f"ratio {large:,} ÷ {small:,}: {statistics.median(ratios):.2f} "
          f"(spread {min(ratios):.2f} to {max(ratios):.2f}; close to 1 = O(due))")


def _url(base: str | None, folder: str, idle: int) -> str:
    """One database per size: a SQLite file, or a PostgreSQL schema of its own."""
    if base is None:
        return f"sqlite:///{folder}/sweep-{idle}.sqlite3"
    schema = f"pbem_bench_sweep_{idle}"
    admin = open_database(base)
    admin.connect()
    admin.execute_sql(f"CREATE SCHEMA IF NOT EXISTS {schema}")
    admin.close()
    joiner = "&" if "?" in base else "?"
    return f"{base}{joiner}options=-c%20search_path%3D{schema}"


if __name__ == "__main__":
    main()
