"""The archive must stay fast at a million matches: keyset pages, never OFFSET scans.

    python bench/archive.py [--database-url postgresql://…/test] [--matches 1000 1000000]
                            [--rounds 7] [--requests 10] [--keep]

For each size it fills its own PostgreSQL schema (`bench_archive_<n>`) by COPY: matches of
every game in every status, two seats each, a thousand players, one of whom ("Regular")
plays every tenth match. Then, in interleaved rounds through the Flask app, it times the
archive's first page, a deep page (the cursor of match 301, i.e. near the oldest end), the
same with a game+status filter and with a player filter, and the JSON API's first page.
Prints each as the ratio largest/smallest size (target <= 1.5) with its spread. Use a
smaller `--matches 1000 100000` for a quick run. Schemas are dropped at the end unless
--keep (then a second run with the same sizes reuses them).
"""

from __future__ import annotations

import argparse
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
from pbem.core.records.archive import encode_cursor
from pbem.web import create_app

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"
NOW = datetime(2026, 6, 1, 12, 0)
GAMES = ("eximo", "frozen-forest", "mimic", "mimic-taking", "move-in-synch")
PLAYERS = 1000
REGULAR = 1  # player id of "Regular", seated in every tenth match


def schema_url(base: str, schema: str) -> str:
    return f"{base}?options=-c%20search_path%3D{schema}"


def build(base: str, size: int) -> str:
    schema = f"bench_archive_{size}"
    admin = open_database(base)
    admin.connect()
    exists = admin.execute_sql("SELECT 1 FROM information_schema.schemata WHERE schema_name = "
                               "%s", (schema,)).fetchone()
    url = schema_url(base, schema)
    if exists:
        admin.close()
        bind_database(url)
        database.connect(reuse_if_open=True)
        count = database.execute_sql("SELECT count(*) FROM match").fetchone()[0]
        if count == size:
            database.close()
            return url
        database.close()
        admin.connect(reuse_if_open=True)
        admin.execute_sql(f'DROP SCHEMA "{schema}" CASCADE')
    admin.execute_sql(f'CREATE SCHEMA "{schema}"')
    admin.close()
    bind_database(url)
    database.connect(reuse_if_open=True)
    migrate()
    _copy(size)
    database.execute_sql("ANALYZE")
    database.close()
    return url


def _copy(size: int) -> None:
    connection = database.connection()
    # The few players through the model, so every column gets its default (a raw COPY broke
    # each time a player column without a database default was added).
    Player.insert_many([{"id": number, "email": f"p{number}@example.org",
                         "name": "Regular" if number == REGULAR else f"Player {number}",
                         "created_at": NOW} for number in range(1, PLAYERS + 1)]).execute()
    with connection.cursor() as cursor:
        columns = ("id, game, rules_version, options, seed, status, ply, turn, to_move, state, "
                   "result, thread_key, time_control, on_timeout, created_at, updated_at, "
                   "finished_at, outcome, version, rated, has_computer")
        with cursor.copy(f"COPY match ({columns}) FROM STDIN") as copy:
            for number in range(1, size + 1):
                # Casual matches between people: the columns have no database default.
                copy.write_row((*_match_row(number), 0, False, False))
        with cursor.copy("COPY seat (match_id, seat, player_id, token_hash, token_generation, "
                         "allowance_seconds, version, outcome) FROM STDIN") as copy:
            for number in range(1, size + 1):
                _, outcome = _status(number)
                first = REGULAR if number % 10 == 0 else 2 + number % (PLAYERS - 1)
                second = 2 + (number * 7 + 3) % (PLAYERS - 1)
                if second == first:
                    second = 2 + (second - 1) % (PLAYERS - 1)
                for seat, player in enumerate((first, second)):
                    seat_outcome = None
                    if outcome == "draw":
                        seat_outcome = "draw"
                    elif outcome == "win":
                        seat_outcome = "win" if seat == number % 2 else "loss"
                    copy.write_row((number, seat, player, f"{number:x}.{seat}", 1, 259_200, 0,
                                    seat_outcome))
        for table in ("player", "match"):
            cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                           f"(SELECT max(id) FROM {table}))")
    connection.commit()


def _status(number: int) -> tuple[str, str | None]:
    kind = number % 10
    if kind < 3:
        return "active", None
    if kind == 3:
        return "aborted", None
    return "finished", "draw" if number % 7 == 0 else "win"


def _match_row(number: int) -> tuple:
    status, outcome = _status(number)
    created = NOW - timedelta(minutes=10 * (10_000_000 - number))
    result = None
    if outcome == "draw":
        result = json.dumps({"winners": [0, 1], "scores": [0.5, 0.5], "reason": "drawn"})
    elif outcome == "win":
        result = json.dumps({"winners": [number % 2], "scores": [1.0 * (number % 2 == 0),
                                                                 1.0 * (number % 2 == 1)],
                             "reason": "won"})
    finished = created + timedelta(days=3) if status != "active" else None
    return (number, GAMES[number % len(GAMES)], 1, "{}", number, status, 40 + number % 60,
            20 + number % 30, "[0]" if status == "active" else "[]", "{}", result,
            f"k{number}", "3d", "adjudicate", created, finished or created + timedelta(days=1),
            finished, outcome)


PAGES = {
    "first page": "/matches",
    "deep page": f"/matches?cursor={encode_cursor(301)}",
    "game+status, first": "/matches?game=eximo&status=finished",
    "game+status, deep": f"/matches?game=eximo&status=finished&cursor={encode_cursor(301)}",
    "player, first": "/matches?player=Regular",
    "player, deep": f"/matches?player=Regular&cursor={encode_cursor(301)}",
    "API first page": "/api/matches",
}


def measure(urls: dict[int, str], rounds: int, requests: int, folder: str
            ) -> dict[int, dict[str, list[float]]]:
    settings = load_settings({"database_url": next(iter(urls.values())),
                              "secret_key": secrets.token_urlsafe(32), "base_url": "http://bench.test",
                              "instance_path": f"{folder}/instance"}, environ={})
    client = create_app(settings).test_client()
    times = {size: {name: [] for name in PAGES} for size in urls}
    for url in urls.values():  # warm up each database's caches
        bind_database(url)
        for path in PAGES.values():
            answer = client.get(path)
            assert answer.status_code == 200, (path, answer.data[:300])
    for number in range(rounds):
        for name, path in PAGES.items():
            order = list(urls.items())
            if number % 2:
                order.reverse()
            for size, url in order:
                bind_database(url)
                client.get(path)
                started = time.perf_counter()
                for _ in range(requests):
                    client.get(path)
                times[size][name].append((time.perf_counter() - started) / requests)
    return times


# The door hands every change to its settlers, as pbem's own start-ups install them.
settlers.install()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--matches", type=int, nargs=2, default=[1000, 1_000_000])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--requests", type=int, default=10)
    parser.add_argument("--keep", action="store_true", help="keep the filled schemas")
    args = parser.parse_args()
    small, large = sorted(args.matches)
    urls = {}
    for size in (small, large):
        started = time.perf_counter()
        urls[size] = build(args.database_url, size)
        print(f"{size:>9,} matches ready in {time.perf_counter() - started:.1f} s")
    with tempfile.TemporaryDirectory() as folder:
        times = measure(urls, args.rounds, args.requests, folder)
    print(f"time per request, {large:,} vs {small:,} matches (median; ratio spread over "
          f"{args.rounds} interleaved rounds):")
    for name in PAGES:
        ratios = [a / b for a, b in zip(times[large][name], times[small][name], strict=True)]
        print(f"  {name:20} {statistics.median(times[large][name]) * 1000:6.1f} ms vs "
              f"{statistics.median(times[small][name]) * 1000:6.1f} ms: ratio "
              f"{statistics.median(ratios):.2f} (spread {min(ratios):.2f}-{max(ratios):.2f})")
    print("target: <= 1.5")
    if not args.keep:
        database.close()
        admin = open_database(args.database_url)
        admin.connect()
        for size in (small, large):
            admin.execute_sql(f'DROP SCHEMA IF EXISTS "bench_archive_{size}" CASCADE')
        admin.close()


if __name__ == "__main__":
    main()
