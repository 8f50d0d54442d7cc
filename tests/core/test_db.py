"""The database layer: SQLite settings, and a schema that `pbem init` creates exactly once."""

from __future__ import annotations

from pathlib import Path

from pbem.core.db import database, open_database
from pbem.core.migrations import LATEST, current_version, migrate


def test_sqlite_runs_with_wal_foreign_keys_normal_sync_and_a_busy_timeout(tmp_path: Path) -> None:
    db = open_database(f"sqlite:///{tmp_path / 'nested' / 'pbem.sqlite3'}")
    db.connect()
    pragma = {name: db.execute_sql(f"PRAGMA {name}").fetchone()[0]
              for name in ("journal_mode", "foreign_keys", "synchronous", "busy_timeout")}
    db.close()
    assert pragma == {"journal_mode": "wal", "foreign_keys": 1, "synchronous": 1,
                      "busy_timeout": 10_000}


def test_migrating_twice_changes_nothing(db_url: str) -> None:
    assert current_version() == LATEST
    assert migrate() == (LATEST, LATEST)
    assert database.table_exists("match") and database.table_exists("outbox_message")
