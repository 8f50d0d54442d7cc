"""A sent mail's record shrinks: its Message-ID is derived from the row (`notify.message_key`)
instead of stored with a unique index, and due messages are found through the (status,
next_attempt_at) index alone, so the index on next_attempt_at by itself goes. Together they
were about a quarter of what a finished match left in the database."""

from __future__ import annotations

from typing import Any

from pbem.core.db.migrations.helpers import has_column, has_index

TABLE = "outbox_message"


def up(migrator: Any, db: Any) -> None:
    for name in ("outbox_message_next_attempt_at", "outbox_message_message_id"):
        if has_index(db, TABLE, name):
            migrator.migrate(migrator.drop_index(TABLE, name))
    if has_column(db, TABLE, "message_id"):
        migrator.migrate(migrator.drop_column(TABLE, "message_id"))
