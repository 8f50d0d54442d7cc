"""Database bytes per finished 180-ply match, with many matches in one database.

    python bench/mailsize.py [--game mimic | --all] [--matches 200] [--together 20]
                             [--plies 180] [--database-url URL] [--tables]

Plays `--matches` matches of a real game (or of each of the five with `--all`), each at the
game's fewest seats (Mimic Taking at 3), with random legal moves (fixed seeds), on a fresh
database, `--together` of them live at a time with their moves interleaved as a server's
are (so rows of different matches share pages), the worker sending every mail as it goes
(welcome, every turn, the result); a match the game has not ended by `--plies` is forfeited
by the seat to move, as a timeout would settle it. Then the worker's jobs run once more, as
they would on their next tick, and a match's cost is the database's growth as the server
leaves it, divided by the matches: on SQLite the file's size (no manual VACUUM; a WAL
checkpoint, which SQLite makes by itself, writes the log back first), on PostgreSQL
(`--database-url`) the tables' and indexes' total size. The size after a full VACUUM is
printed beside it on SQLite, for comparison. Target: at most 64 KiB a match on SQLite with
200 matches in the file. The clock moves 10 minutes and some microseconds a move, as a real
one does (stored times keep what they keep). `--tables` adds, on SQLite, where the bytes
are: each table's and index's pages a match (SQLite's `dbstat`), largest first.
"""

from __future__ import annotations

import argparse
import random
import secrets
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbem.config import load_settings
from pbem.core import settlers
from pbem.core.db.connection import bind_database, database
from pbem.core.db.migrations import migrate
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.changes import apply_change
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match, Move
from pbem.core.matches.play import submit_move
from pbem.core.matches.rulings import Forfeit
from pbem.core.schema import drop_everything
from pbem.games import REGISTRY, get_rules
from pbem.mail.compose import Composer
from pbem.mail.outbox import deliver_due
from pbem.mail.senders import DevMailboxSender
from pbem.worker import Worker

SECRET = secrets.token_urlsafe(32)
START = datetime(2026, 6, 1, 12, 0)
TARGET = 64 * 1024


def database_bytes(path: Path | None, vacuum: bool = False) -> int:
    """The database's size as it stands (or after a full VACUUM, on SQLite)."""
    if path is None:  # PostgreSQL: every table with its indexes and TOAST
        tables = database.execute_sql(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.relkind = 'r' AND n.nspname = current_schema()").fetchone()
        return int(tables[0])
    if vacuum:
        database.execute_sql("VACUUM")
    # In WAL mode written pages sit in the log until a checkpoint (SQLite makes one by itself
    # every 1,000 pages) writes them back to the file.
    database.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    return path.stat().st_size


def play(game: str, matches: int, together: int, plies: int,
         settings: object) -> tuple[list[int], datetime]:
    """Play `matches` matches of `game`, `together` live at a time, their moves interleaved."""
    rules = get_rules(game)
    seats = min(rules.player_counts)
    chooser = random.Random(2026)
    ticks = random.Random(1)
    composer = Composer(settings)  # type: ignore[arg-type]
    sender = DevMailboxSender()
    now = START
    finished: list[int] = []
    live: list[int] = []
    started = 0
    while started < matches or live:
        while started < matches and len(live) < together:
            emails = [f"p{started}-{seat}@example.org" for seat in range(seats)]
            live.append(create_match(game, emails, {}, SECRET, now, seed=started).match.id)
            started += 1
        while deliver_due(settings, sender, composer, now).claimed:  # type: ignore[arg-type]
            pass
        # A server's clock has microseconds, and the stored times keep them.
        now += timedelta(minutes=10, microseconds=ticks.randrange(1, 1_000_000))
        for match_id in list(live):
            match = Match.get_by_id(match_id)
            if not match.is_live:
                live.remove(match_id)
                finished.append(match_id)
                continue
            state = rules.load(match.state)
            seat = min(rules.to_move(state))
            if match.ply >= plies:
                apply_change(match.id, Forfeit(seat=seat), now)
                continue
            move = _lasting(rules, state, seat, chooser)
            submit_move(match.id, seat, rules.format_move(state, move), match.ply, now)
    while deliver_due(settings, sender, composer, now).claimed:  # type: ignore[arg-type]
        pass
    return finished, now


def _lasting(rules: Any, state: Any, seat: int, chooser: random.Random) -> Any:
    """A random legal move, but one that does not end the game where a few tries find one:
    random play ends most games of some (EXIMO) long before 180 plies."""
    moves = list(rules.legal_moves(state, seat))
    for _ in range(8):
        move = chooser.choice(moves)
        if rules.outcome(rules.apply_move(state, seat, move).state) is None:
            return move
    return move


# The door hands every change to its settlers, as pbem's own start-ups install them.
settlers.install()


def print_tables(matches: int) -> None:
    """Each table's and index's pages (SQLite's `dbstat`), in bytes a match, with the bytes
    its rows hold, so a reader sees what a match's storage is made of."""
    rows = database.execute_sql(
        "SELECT name, SUM(pgsize), SUM(payload) FROM dbstat GROUP BY name "
        "ORDER BY SUM(pgsize) DESC").fetchall()
    for name, pages, payload in rows:
        if pages / matches >= 256:
            print(f"    {name:<40} {pages / matches:>9,.0f} bytes a match "
                  f"({payload / matches:,.0f} of them rows)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="mimic")
    parser.add_argument("--all", action="store_true", help="each of the five games in turn")
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--together", type=int, default=20)
    parser.add_argument("--plies", type=int, default=180)
    parser.add_argument("--database-url", help="a PostgreSQL URL (its tables are recreated)")
    parser.add_argument("--tables", action="store_true",
                        help="each table's and index's bytes a match (SQLite)")
    args = parser.parse_args()
    for game in sorted(REGISTRY) if args.all else [args.game]:
        measure(game, args)


def measure(game: str, args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = None if args.database_url else Path(folder) / "bench.sqlite3"
        url = args.database_url or f"sqlite:///{path}"
        settings = load_settings({"database_url": url, "secret_key": SECRET,
                                  "instance_path": folder}, environ={})
        bind_database(url)
        database.connect()
        drop_everything()
        migrate()
        if path is None:
            database.execute_sql("VACUUM ANALYZE")
        empty = database_bytes(path)
        ids, finished = play(game, args.matches, args.together, args.plies, settings)
        # The worker's next tick, as the server would run it after the matches end.
        Worker(settings, sender=DevMailboxSender(), clock=lambda: finished).run_once()
        used = (database_bytes(path) - empty) / len(ids)
        moves = Move.select().where(Move.match.in_(ids))
        move_list = sum(len(move.text.encode()) + 1 for move in moves) / len(ids)
        plies = moves.count() / len(ids)
        mails = OutboxMessage.select().where(OutboxMessage.match.in_(ids)).count() / len(ids)
        seats = min(get_rules(game).player_counts)
        where = "PostgreSQL tables and indexes" if path is None else "the SQLite file"
        print(f"{game} ({seats} seats): {len(ids)} finished matches of {plies:.0f} plies on "
              f"average, {mails:.0f} mails each")
        print(f"  {where} grew by {used:,.0f} bytes a match, as the server leaves it "
              f"({used / 1024:.1f} KiB" + ("" if path is None else
                                           f"; target ≤ {TARGET // 1024} KiB: "
                                           f"{'met' if used <= TARGET else 'NOT met'}") + ")")
        if path is not None and args.tables:
            print_tables(len(ids))
        if path is not None:
            vacuumed = (database_bytes(path, vacuum=True) - empty) / len(ids)
            print(f"  after a full VACUUM, which pbem never runs: {vacuumed:,.0f} bytes "
                  f"({vacuumed / 1024:.1f} KiB)")
        if plies < args.plies:
            scaled = used / plies * args.plies
            print(f"  scaled to {args.plies} plies (as if every byte grew with the plies, "
                  f"which overstates): {scaled:,.0f} bytes ({scaled / 1024:.1f} KiB)")
        print(f"  its move list as text: {move_list:,.0f} bytes "
              f"(the database holds {used / max(move_list, 1):.0f} times that)", flush=True)
        database.close()


if __name__ == "__main__":
    main()
