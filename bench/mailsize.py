"""Database bytes per finished 180-ply match, beside the size of its move list.

    python bench/mailsize.py [--game mimic] [--plies 180]

Plays one match of a real game with random legal moves (a fixed seed) on a fresh database,
the worker sending every mail as it goes (welcome, every turn, the result); if the game has not
ended by `--plies`, the seat to move forfeits, as a timeout would settle it. Then the worker's
jobs run once more, as they would on their next tick, and the match's cost is the growth of the
database as the server leaves it: on SQLite the file's size (no manual VACUUM; a WAL
checkpoint, which SQLite makes by itself, writes the log back first), on PostgreSQL
(`--database-url`) the tables' and indexes' total size. The size after a full VACUUM is
printed beside it on SQLite, for comparison. Target: at most 64 KiB on SQLite. The clock moves
10 minutes and some microseconds a move, as a real one does (stored times keep what they keep).
"""

from __future__ import annotations

import argparse
import random
import secrets
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

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
from pbem.games import get_rules
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


def play(game: str, plies: int, settings: object) -> tuple[int, datetime]:
    rules = get_rules(game)
    chooser = random.Random(2026)
    ticks = random.Random(1)
    composer = Composer(settings)  # type: ignore[arg-type]
    sender = DevMailboxSender()
    match = create_match(game, ["ann@example.org", "ben@example.org"], {},
                         SECRET, START, seed=7).match
    now = START
    while True:
        deliver_due(settings, sender, composer, now)  # type: ignore[arg-type]
        match = Match.get_by_id(match.id)
        if not match.is_live:
            return match.id, now
        state = rules.load(match.state)
        seat = min(rules.to_move(state))
        # A server's clock has microseconds, and the stored times keep them.
        now += timedelta(minutes=10, microseconds=ticks.randrange(1, 1_000_000))
        if match.ply >= plies:
            apply_change(match.id, Forfeit(seat=seat), now)
            continue
        move = chooser.choice(list(rules.legal_moves(state, seat)))
        submit_move(match.id, seat, rules.format_move(state, move), match.ply, now)


# The door hands every change to its settlers, as pbem's own start-ups install them.
settlers.install()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="mimic")
    parser.add_argument("--plies", type=int, default=180)
    parser.add_argument("--database-url", help="a PostgreSQL URL (its tables are recreated)")
    args = parser.parse_args()
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
        match_id, finished = play(args.game, args.plies, settings)
        # The worker's next tick, as the server would run it after the match ends.
        Worker(settings, sender=DevMailboxSender(), clock=lambda: finished).run_once()
        used = database_bytes(path) - empty
        moves = list(Move.select().where(Move.match == match_id).order_by(Move.ply))
        move_list = len("\n".join(move.text for move in moves).encode())
        mails = OutboxMessage.select().where(OutboxMessage.match == match_id).count()
        where = "PostgreSQL tables and indexes" if path is None else "the SQLite file"
        print(f"{args.game}: a finished match of {len(moves)} plies, {mails} mails sent")
        print(f"{where} grew by {used:,} bytes for the match, as the server leaves it "
              f"({used / 1024:.1f} KiB" + ("" if path is None else
                                           f"; target ≤ {TARGET // 1024} KiB: "
                                           f"{'met' if used <= TARGET else 'NOT met'}") + ")")
        if path is not None:
            vacuumed = database_bytes(path, vacuum=True) - empty
            print(f"after a full VACUUM, which pbem never runs: {vacuumed:,} bytes "
                  f"({vacuumed / 1024:.1f} KiB)")
        print(f"its move list as text: {move_list:,} bytes "
              f"(the database holds {used / max(move_list, 1):.0f} times that)")
        database.close()


if __name__ == "__main__":
    main()
