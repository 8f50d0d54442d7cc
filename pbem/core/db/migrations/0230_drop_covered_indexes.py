"""Drop the single-column indexes that a composite index beginning with the same column
already covers (`move (match_id)` beside `move (match_id, ply)`, and 22 more).

peewee gives every foreign key an index of its own, and most tables also have a composite
index that starts with that key, for their lookups in order. A lookup by the key alone, and
the foreign key constraint (MariaDB's needs an index that starts with its column), use the
composite index as well, so the single-column one only cost space and a write for every row
inserted: three more index entries a move on SQLite, and more on PostgreSQL, where a seat's
or a match's row rewritten elsewhere than its page is indexed again in every index.

Each index is found by what it covers, not by its name, and dropped only while a composite
index beginning with its column exists: safe to run again, and on every database."""

from __future__ import annotations

from typing import Any

# (table, column): the tables' composite indexes beginning with the column stay.
COVERED = (
    ("match", "game"), ("match", "status"),
    ("seat", "match_id"), ("seat", "player_id"),
    ("move", "match_id"), ("position", "match_id"), ("change_log", "match_id"),
    ("conditional_tree", "match_id"), ("computer_job", "match_id"),
    ("chat_message", "match_id"), ("chat_message", "author_id"),
    ("chat_report", "message_id"), ("player_block", "player_id"), ("chat_mute", "match_id"),
    ("invite", "challenge_id"), ("seek_entry", "seek_id"),
    ("inbound_message", "match_id"),
    ("rating_event", "match_id"), ("rating_event", "player_id"),
    ("player_tally", "player_id"),
    ("tournament_entry", "tournament_id"), ("tournament_round", "tournament_id"),
    ("pairing", "tournament_id"),
)


def up(migrator: Any, db: Any) -> None:
    for table, column in COVERED:
        indexes = db.get_indexes(table)
        covering = [index for index in indexes
                    if len(index.columns) > 1 and index.columns[0] == column]
        if not covering:
            continue
        for index in indexes:
            if index.columns == [column] and not index.unique:
                migrator.migrate(migrator.drop_index(table, index.name))
