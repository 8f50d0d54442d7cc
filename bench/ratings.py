"""Ratings must stay fast as rated matches pile up, and the rebuild must run in minutes.

    python bench/ratings.py [--database-url postgresql://…/test] [--matches 1000 100000]
                            [--rounds 5] [--requests 10] [--keep]

For each size it fills its own PostgreSQL schema (`bench_ratings_<n>`) by COPY: a hundred
players (so that even at 1,000 matches all are on the leaderboard, two pages of it), N
finished rated two-player matches of Eximo over the last 300 days (one player, "Regular", in
every tenth), their seats and one `rating_event` row per seat with its rank but
no values yet. Then `rebuild()` computes every rating from that history (timed: the
rebuild's throughput), and, in interleaved rounds through the Flask app, it times the
leaderboard's first page, a deep page, its JSON API, Regular's player page (rating, rank,
history chart) and `/api/players/Regular`. Prints each as the ratio largest/smallest size
(target <= 1.5). Schemas are dropped at the end unless --keep.
"""

from __future__ import annotations

import argparse
import importlib
import json
import secrets
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbem.config import load_settings
from pbem.core import settlers
from pbem.core.accounts.models import Player
from pbem.core.db.connection import bind_database, database, open_database
from pbem.core.db.migrations import migrate
from pbem.core.ratings.queries import leaderboard
from pbem.core.ratings.rebuild import rebuild
from pbem.web import create_app

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"
NOW = datetime(2026, 6, 1, 12, 0)
GAME = "eximo"
PLAYERS = 100
REGULAR = 1
SPAN = timedelta(days=300)


def schema_url(base: str, schema: str) -> str:
    return f"{base}?options=-c%20search_path%3D{schema}"


def build(base: str, size: int) -> tuple[str, float | None]:
    """The schema's URL, and the rebuild's seconds (None when an earlier run's was kept)."""
    schema = f"bench_ratings_{size}"
    admin = open_database(base)
    admin.connect()
    exists = admin.execute_sql("SELECT 1 FROM information_schema.schemata WHERE schema_name = "
                               "%s", (schema,)).fetchone()
    url = schema_url(base, schema)
    if exists:
        admin.close()
        bind_database(url)
        database.connect(reuse_if_open=True)
        count = database.execute_sql("SELECT count(*) FROM rating").fetchone()[0]
        database.close()
        if count:
            return url, None
        admin.connect(reuse_if_open=True)
        admin.execute_sql(f'DROP SCHEMA "{schema}" CASCADE')
    admin.execute_sql(f'CREATE SCHEMA "{schema}"')
    admin.close()
    bind_database(url)
    database.connect(reuse_if_open=True)
    migrate()
    _copy(size)
    # The players' tallies, counted from the seats as the migration that made them does.
    importlib.import_module("pbem.core.db.migrations.0171_player_tally").up(None, database.obj)
    database.execute_sql("ANALYZE")
    started = time.perf_counter()
    report = rebuild(_progress)
    seconds = time.perf_counter() - started
    sys.stderr.write("\n")
    assert report.events == 2 * size
    database.execute_sql("ANALYZE")
    database.close()
    return url, seconds


def _progress(done: int, total: int) -> None:
    if sys.stderr.isatty():
        sys.stderr.write(f"\r  rebuilding: {done:,}/{total:,} rating events")


def _pair(number: int) -> tuple[int, int]:
    first = REGULAR if number % 10 == 0 else 2 + number % (PLAYERS - 1)
    second = 2 + (number * 7 + 3) % (PLAYERS - 1)
    if second == first:
        second = 2 + (second - 1) % (PLAYERS - 1)
    return first, second


def _copy(size: int) -> None:
    connection = database.connection()
    step = SPAN / size
    # Players through the model (a hundred rows), so every column gets its default.
    Player.insert_many([{"id": number, "email": f"p{number}@example.org",
                         "name": "Regular" if number == REGULAR else f"Player {number}",
                         "created_at": NOW - SPAN} for number in range(1, PLAYERS + 1)]
                       ).execute()
    with connection.cursor() as cursor:
        columns = ("id, game, rules_version, options, seed, status, ply, turn, to_move, state, "
                   "result, thread_key, time_control, on_timeout, created_at, updated_at, "
                   "finished_at, outcome, version, rated, has_computer")
        with cursor.copy(f"COPY match ({columns}) FROM STDIN") as copy:
            for number in range(1, size + 1):
                finished = NOW - SPAN + step * number
                winner = number % 3  # 0, 1, or 2 for a draw
                winners = [0, 1] if winner == 2 else [winner]
                result = json.dumps({"winners": winners, "scores": [0.5, 0.5] if winner == 2
                                     else [1.0 * (winner == 0), 1.0 * (winner == 1)],
                                     "reason": "bench"})
                copy.write_row((number, GAME, 1, "{}", number, "finished", 40, 20, "[]", "{}",
                                result, f"k{number}", "3d", "adjudicate",
                                finished - timedelta(days=3), finished, finished,
                                "draw" if winner == 2 else "win", 0, True, False))
        with cursor.copy("COPY seat (match_id, seat, player_id, token_hash, token_generation, "
                         "allowance_seconds, version, outcome) FROM STDIN") as copy:
            for number in range(1, size + 1):
                winner = number % 3
                for seat, player in enumerate(_pair(number)):
                    outcome = "draw" if winner == 2 else ("win" if seat == winner else "loss")
                    copy.write_row((number, seat, player, f"{number:x}.{seat}", 1, 259_200, 0,
                                    outcome))
        with cursor.copy("COPY rating_event (match_id, player_id, game, seat, rank, outcome, "
                         "mu_before, sigma_before, days_away, mu_after, sigma_after, "
                         "display_before, display_after, timed_out, at) FROM STDIN") as copy:
            for number in range(1, size + 1):
                finished = NOW - SPAN + step * number
                winner = number % 3
                for seat, player in enumerate(_pair(number)):
                    rank = 1 if winner in (2, seat) else 2
                    outcome = "draw" if winner == 2 else ("win" if seat == winner else "loss")
                    # Values left at zero: the rebuild computes them.
                    copy.write_row((number, player, GAME, seat, rank, outcome, 0, 0, 0, 0, 0,
                                    0, 0, False, finished))
        for table in ("player", "match"):
            cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                           f"(SELECT max(id) FROM {table}))")
    connection.commit()


def pages(url: str) -> dict[str, str]:
    bind_database(url)
    database.connect(reuse_if_open=True)
    first = leaderboard(GAME, NOW, size=50)
    cursor = first.next_cursor
    assert cursor is not None, "every player has 10 rated games: the board has two pages"
    database.close()
    return {
        "leaderboard, first": f"/ratings/{GAME}",
        "leaderboard, page 2": f"/ratings/{GAME}?cursor={cursor}",
        "leaderboard API": f"/api/ratings/{GAME}",
        "player page": "/players/Regular",
        "player API": "/api/players/Regular",
    }


def measure(urls: dict[int, str], rounds: int, requests: int, folder: str
            ) -> tuple[dict[int, dict[str, list[float]]], dict[int, dict[str, list[float]]]]:
    settings = load_settings({"database_url": next(iter(urls.values())),
                              "secret_key": secrets.token_urlsafe(32),
                              "base_url": "http://bench.test",
                              "instance_path": f"{folder}/instance"}, environ={})
    app = create_app(settings, clock=lambda: NOW)
    client = app.test_client()
    paths = {size: pages(url) for size, url in urls.items()}
    names = list(next(iter(paths.values())))
    times: dict[int, dict[str, list[float]]] = {size: {name: [] for name in names}
                                                for size in urls}
    # This process's CPU per request (the app's own work; PostgreSQL's is in its server).
    cpu: dict[int, dict[str, list[float]]] = {size: {name: [] for name in names}
                                              for size in urls}
    for size, url in urls.items():  # warm up each database's caches
        bind_database(url)
        for path in paths[size].values():
            answer = client.get(path)
            assert answer.status_code == 200, (path, answer.data[:300])
    for number in range(rounds):
        for name in names:
            order = list(urls.items())
            if number % 2:
                order.reverse()
            for size, url in order:
                bind_database(url)
                path = paths[size][name]
                client.get(path)
                started, used = time.perf_counter(), time.process_time()
                for _ in range(requests):
                    client.get(path)
                times[size][name].append((time.perf_counter() - started) / requests)
                cpu[size][name].append((time.process_time() - used) / requests)
    return times, cpu


# The door hands every change to its settlers, as pbem's own start-ups install them.
settlers.install()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--matches", type=int, nargs=2, default=[1000, 100_000])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=10)
    parser.add_argument("--keep", action="store_true", help="keep the filled schemas")
    args = parser.parse_args()
    small, large = sorted(args.matches)
    urls = {}
    for size in (small, large):
        started = time.perf_counter()
        urls[size], seconds = build(args.database_url, size)
        print(f"{size:>9,} rated matches ready in {time.perf_counter() - started:.1f} s")
        if seconds is not None:
            print(f"          rebuild: {2 * size:,} rating events in {seconds:.1f} s "
                  f"({size / seconds:,.0f} matches/s)")
    with tempfile.TemporaryDirectory() as folder:
        times, cpu = measure(urls, args.rounds, args.requests, folder)
    print(f"time per request, {large:,} vs {small:,} rated matches (median; ratio spread over "
          f"{args.rounds} interleaved rounds):")
    for name in times[small]:
        ratios = [a / b for a, b in zip(times[large][name], times[small][name], strict=True)]
        print(f"  {name:20} {statistics.median(times[large][name]) * 1000:6.1f} ms vs "
              f"{statistics.median(times[small][name]) * 1000:6.1f} ms: ratio "
              f"{statistics.median(ratios):.2f} (spread {min(ratios):.2f}-{max(ratios):.2f}); "
              f"CPU {statistics.median(cpu[large][name]) * 1000:.1f} ms vs "
              f"{statistics.median(cpu[small][name]) * 1000:.1f} ms a request")
    print("target: <= 1.5")
    if not args.keep:
        database.close()
        admin = open_database(args.database_url)
        admin.connect()
        for size in (small, large):
            admin.execute_sql(f'DROP SCHEMA IF EXISTS "bench_ratings_{size}" CASCADE')
        admin.close()


if __name__ == "__main__":
    main()
