"""Database bytes per finished 180-ply match, beside the size of its move list.

    python bench/mailsize.py [--game mimic] [--plies 180]

Plays one match of a real game with random legal moves (a fixed seed) on a fresh SQLite
database, the worker sending every mail as it goes (welcome, every turn, the result); if the
game has not ended by `--plies`, the seat to move forfeits, as a timeout would settle it. The
database is vacuumed before and after, and the difference is the match's cost: its rows, their
indexes and the outbox records its mails left. Target: at most 64 KiB.
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
from pbem.core.db.connection import bind_database, database
from pbem.core.db.migrations import migrate
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.changes import apply_change
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match, Move
from pbem.core.matches.play import submit_move
from pbem.core.matches.rulings import forfeit
from pbem.games import get_rules
from pbem.mail.compose import Composer
from pbem.mail.outbox import deliver_due
from pbem.mail.senders import DevMailboxSender

SECRET = secrets.token_urlsafe(32)
START = datetime(2026, 6, 1, 12, 0)
TARGET = 64 * 1024


def database_bytes(path: Path) -> int:
    database.execute_sql("VACUUM")
    # In WAL mode the vacuumed pages sit in the log until a checkpoint writes them back.
    database.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    return path.stat().st_size


def play(game: str, plies: int, settings: object) -> int:
    rules = get_rules(game)
    chooser = random.Random(2026)
    composer = Composer(settings)  # type: ignore[arg-type]
    sender = DevMailboxSender()
    match = create_match(game, ["ann@example.org", "ben@example.org"], {},
                         SECRET, START, seed=7).match
    now = START
    while True:
        deliver_due(settings, sender, composer, now)  # type: ignore[arg-type]
        match = Match.get_by_id(match.id)
        if not match.is_live:
            return match.id
        state = rules.load(match.state)
        seat = min(rules.to_move(state))
        now += timedelta(minutes=10)
        if match.ply >= plies:
            apply_change(match.id, lambda door, late=seat: forfeit(door, late), now)
            continue
        move = chooser.choice(list(rules.legal_moves(state, seat)))
        submit_move(match.id, seat, rules.format_move(state, move), match.ply, now)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="mimic")
    parser.add_argument("--plies", type=int, default=180)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.sqlite3"
        url = f"sqlite:///{path}"
        settings = load_settings({"database_url": url, "secret_key": SECRET,
                                  "instance_path": folder}, environ={})
        bind_database(url)
        database.connect()
        migrate()
        empty = database_bytes(path)
        match_id = play(args.game, args.plies, settings)
        used = database_bytes(path) - empty
        moves = list(Move.select().where(Move.match == match_id).order_by(Move.ply))
        move_list = len("\n".join(move.text for move in moves).encode())
        mails = OutboxMessage.select().where(OutboxMessage.match == match_id).count()
        print(f"{args.game}: a finished match of {len(moves)} plies, {mails} mails sent")
        print(f"database bytes for the match: {used:,} ({used / 1024:.1f} KiB; target ≤ "
              f"{TARGET // 1024} KiB: {'met' if used <= TARGET else 'NOT met'})")
        print(f"its move list as text: {move_list:,} bytes "
              f"(the database holds {used / max(move_list, 1):.0f} times that)")
        database.close()


if __name__ == "__main__":
    main()
