"""The sweep and a play page at 1,000 matches and at a million, on PostgreSQL.

    python bench/scale.py [--database-url URL] [--matches 1000000] [--rounds 3]

Fills two private schemas of the database (created here, dropped at the end): one with 1,000
live matches, one with `--matches`. Every match has one seat owing a move with a deadline days
away (idle) and 100 more seats are due now. The copies are made in bulk by the database itself
(`INSERT … SELECT` over `generate_series`, one statement per table) from one match made the
ordinary way.

Then, in interleaved rounds, it times a sweep over 100 due seats (each sweep runs in a
transaction rolled back afterwards, so every round finds the same due work) and a seat's play
page (Flask test client, in process), and prints the large schema's time ÷ the small one's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pbem.config import load_settings  # noqa: E402
from pbem.core import settlers  # noqa: E402
from pbem.core.db.connection import bind_database, database  # noqa: E402
from pbem.core.db.migrations import migrate  # noqa: E402
from pbem.core.matches.creation import create_match  # noqa: E402
from pbem.core.matches.models import Match, Seat  # noqa: E402
from pbem.core.matches.sweep import sweep  # noqa: E402

SECRET = "bench-scale-key-0123456789-abcdefghijklmnopqrstuvwxyz"
NOW = datetime(2026, 6, 1, 12, 0)
SMALL = 1_000
DUE = 100
SWEEP_GRACE = timedelta(days=365)  # no outage extension in the timed sweeps


# The door hands every change to its settlers, as pbem's own start-ups install them.
settlers.install()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=50)
    args = parser.parse_args()
    tag = f"pbem_scale_{os.getpid()}"
    sizes = {"small": SMALL, "large": args.matches}
    urls = {name: _schema_url(args.database_url, f"{tag}_{name}") for name in sizes}

    try:
        for name, count in sizes.items():
            bind_database(args.database_url)
            database.connect(reuse_if_open=True)
            database.execute_sql(f'CREATE SCHEMA "{tag}_{name}"')
            database.close()
            started = time.perf_counter()
            tokens = _fill(urls[name], count)
            print(f"filled {count:,} matches in {time.perf_counter() - started:.0f} s")
        with tempfile.TemporaryDirectory() as folder:
            apps = {name: _app(url, folder) for name, url in urls.items()}
            times: dict[str, dict[str, list[float]]] = {"sweep": {}, "play": {}}
            for number in range(args.rounds):
                order = list(sizes) if number % 2 == 0 else list(reversed(sizes))
                for name in order:
                    bind_database(urls[name])
                    database.connect(reuse_if_open=True)
                    times["sweep"].setdefault(name, []).append(_time_sweep())
                    client = apps[name].test_client()
                    times["play"].setdefault(name, []).append(
                        _time_play(client, tokens, args.requests))
                    database.close()
        print(f"postgresql: {args.matches:,} matches ÷ {SMALL:,}, {args.rounds} interleaved "
              "rounds")
        for figure, label in (("sweep", f"sweep ({DUE} due)"), ("play", "GET play page")):
            large, small = times[figure]["large"], times[figure]["small"]
            ratios = [big / little for big, little in zip(large, small, strict=True)]
            print(f"  {label:17} {statistics.median(small) * 1000:8.1f} ms at {SMALL:,}, "
                  f"{statistics.median(large) * 1000:8.1f} ms at {args.matches:,}   ratio "
                  f"{statistics.median(ratios):.2f} (spread {min(ratios):.2f} to "
                  f"{max(ratios):.2f})")
    finally:
        bind_database(args.database_url)
        database.connect(reuse_if_open=True)
        for name in sizes:
            database.execute_sql(f'DROP SCHEMA IF EXISTS "{tag}_{name}" CASCADE')
        database.close()


def _schema_url(url: str, schema: str) -> str:
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options=-c%20search_path%3D{schema}"


def _fill(url: str, count: int) -> list[str]:
    """`count` live matches, each with one seat owing a move days from now, and DUE more due
    now. Returns the token of the template match's owing seat (for the play page)."""
    bind_database(url)
    database.connect(reuse_if_open=True)
    migrate()
    created = create_match("mimic", ["ann@example.org", "ben@example.org"], {}, SECRET,
                           NOW - timedelta(days=1), seed=1, time_control="7d")
    template = created.match.id
    owing = Match.get_by_id(template).to_move[0]
    match_columns = [f.column_name for f in Match._meta.sorted_fields if f.name != "id"]
    seat_columns = [f.column_name for f in Seat._meta.sorted_fields
                    if f.name not in ("id", "match", "token_hash")]
    listed = ", ".join(f'"{c}"' for c in match_columns)
    with database.atomic():
        database.execute_sql(
            f'INSERT INTO "match" ({listed}) SELECT {listed} FROM "match", '
            f"generate_series(2, %s) WHERE id = %s", (count, template))
        seat_listed = ", ".join(f'"{c}"' for c in seat_columns)
        from_seat = ", ".join(f's."{c}"' for c in seat_columns)
        database.execute_sql(
            f'INSERT INTO "seat" ("match_id", "token_hash", {seat_listed}) '
            f"SELECT m.id, md5(m.id::text || '-' || s.seat) || md5(s.seat || '-' || m.id::text),"
            f' {from_seat} FROM "match" m JOIN "seat" s ON s.match_id = %s WHERE m.id <> %s',
            (template, template))
        # DUE owing seats (not the template's) are past their deadline now.
        database.execute_sql(
            'UPDATE "seat" SET deadline = %s, remind_at = NULL WHERE id IN (SELECT id FROM '
            '"seat" WHERE deadline IS NOT NULL AND match_id <> %s ORDER BY id LIMIT %s)',
            (NOW - timedelta(minutes=1), template, DUE))
    database.execute_sql("ANALYZE")
    database.close()
    return [created.tokens[owing]]


def _app(url: str, folder: str):  # type: ignore[no-untyped-def]
    from pbem.web import create_app

    settings = load_settings({"database_url": url, "secret_key": SECRET,
                              "base_url": "http://127.0.0.1", "instance_path": folder},
                             environ={})
    app = create_app(settings, clock=lambda: NOW)
    return app


def _time_sweep() -> float:
    with database.atomic() as transaction:
        started = time.perf_counter()
        report = sweep(NOW, SWEEP_GRACE)
        elapsed = time.perf_counter() - started
        transaction.rollback()
    if report.settled + report.held + report.failed != DUE:
        raise SystemExit(f"the sweep found {vars(report)}, not {DUE} due seats")
    return elapsed


def _time_play(client, tokens: list[str], count: int) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    for _ in range(count):
        response = client.get(f"/play/{tokens[0]}")
        if response.status_code != 200:
            raise SystemExit(f"the play page answered {response.status_code}")
    return (time.perf_counter() - started) / count


if __name__ == "__main__":
    main()
