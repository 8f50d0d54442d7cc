"""On SQLite, the time columns written a row a ply (a mail's, a push's, a move's, a change's)
are stored as numbers since 1970: whole seconds (`SecondsField`, 4 bytes instead of 19
characters of text) or microseconds (`MicrosecondsField`, 6 bytes instead of 26). A finished
match has several hundred of them. This turns the text values already stored into numbers,
so old and new rows compare alike (SQLite orders every number before any text). PostgreSQL
and MariaDB keep their own time types: nothing to do there. Re-runnable: only text values
are rewritten."""

from __future__ import annotations

from typing import Any

import peewee

SECONDS = {
    "outbox_message": ("next_attempt_at", "claimed_until", "sent_at"),
    "push_message": ("next_attempt_at", "claimed_until", "sent_at"),
    "move": ("created_at",),
    "change_log": ("at",),
}
MICROSECONDS = {"outbox_message": ("created_at",), "push_message": ("created_at",)}


def up(migrator: Any, db: Any) -> None:
    if not isinstance(db, peewee.SqliteDatabase):
        return
    for table, columns in SECONDS.items():
        for column in columns:
            _rewrite(db, table, column, _seconds(column))
    for table, columns in MICROSECONDS.items():
        for column in columns:
            # The text's fraction ("…:03.268457", or none) padded to six digits.
            fraction = (f"CASE WHEN instr(\"{column}\", '.') > 0 THEN CAST(substr(substr("
                        f"\"{column}\", instr(\"{column}\", '.') + 1) || '000000', 1, 6) "
                        f"AS INTEGER) ELSE 0 END")
            _rewrite(db, table, column, f"{_seconds(column)} * 1000000 + {fraction}")


def _seconds(column: str) -> str:
    # strftime('%s') reads the stored text as UTC, as pbem writes it, and drops a fraction.
    return f"CAST(strftime('%s', \"{column}\") AS INTEGER)"


def _rewrite(db: Any, table: str, column: str, number: str) -> None:
    db.execute_sql(f'UPDATE "{table}" SET "{column}" = {number} '
                   f"WHERE typeof(\"{column}\") = 'text'")
