"""The outbox's status index holds only mail not yet sent, and a new sent-time index only mail
whose params are still kept: a finished match's mails then leave no index entries (they were a
tenth of what the match left in the database). MariaDB has no partial indexes, so there the two
are plain indexes on the same columns."""

from __future__ import annotations

from typing import Any

import peewee

from pbem.core.db.migrations.helpers import has_index

TABLE = "outbox_message"
OLD = "outbox_message_status_next_attempt_at"


def up(migrator: Any, db: Any) -> None:
    partial = not isinstance(db, peewee.MySQLDatabase)
    unsent = " WHERE status <> 'sent'" if partial else ""
    retained = " WHERE params IS NOT NULL" if partial else ""
    if not has_index(db, TABLE, "outbox_message_unsent"):
        db.execute_sql(f"CREATE INDEX outbox_message_unsent ON {TABLE} "
                       f"(status, next_attempt_at){unsent}")
    if not has_index(db, TABLE, "outbox_message_retained"):
        db.execute_sql(f"CREATE INDEX outbox_message_retained ON {TABLE} (sent_at){retained}")
    if has_index(db, TABLE, OLD):
        migrator.migrate(migrator.drop_index(TABLE, OLD))
