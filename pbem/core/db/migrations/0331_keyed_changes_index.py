"""The change log's unique index of admin form keys holds only the rows that have a key (a
partial index): every move's row has none, and each left an entry in the old index (about
2 KiB a finished match on SQLite). MariaDB has no partial indexes: there the new index is a
plain unique one, as the old was. Re-runnable: each step checks first."""

from __future__ import annotations

from typing import Any

import peewee

from pbem.core.db.migrations.helpers import has_index

TABLE = "change_log"
OLD = "change_log_match_id_action_key"
NEW = "change_log_keyed"


def up(migrator: Any, db: Any) -> None:
    keyed = "" if isinstance(db, peewee.MySQLDatabase) else " WHERE action_key IS NOT NULL"
    if not has_index(db, TABLE, NEW):
        db.execute_sql(f"CREATE UNIQUE INDEX {NEW} ON {TABLE} (match_id, action_key){keyed}")
    if has_index(db, TABLE, OLD):
        migrator.migrate(migrator.drop_index(TABLE, OLD))
