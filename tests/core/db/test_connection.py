"""The SQLite file gives back what deleted rows leave: incremental auto-vacuum from the first
table, an older file converted once by `pbem init`, and the worker's storage job returning free
pages to the file system."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from pbem.core.db.connection import bind_database, database, reclaim_space
from pbem.core.db.migrations import migrate


def _pages(path: Path) -> tuple[int, int, int]:
    with sqlite3.connect(path) as plain:
        return (plain.execute("PRAGMA auto_vacuum").fetchone()[0],
                plain.execute("PRAGMA freelist_count").fetchone()[0],
                plain.execute("PRAGMA page_count").fetchone()[0])


def test_a_new_file_vacuums_incrementally_and_the_storage_job_gives_pages_back(
        tmp_path: Path) -> None:
    path = tmp_path / "fresh.sqlite3"
    bind_database(f"sqlite:///{path}")
    with database.connection_context():
        migrate()
        database.execute_sql("CREATE TABLE ballast (body TEXT)")
        for _ in range(200):
            database.execute_sql("INSERT INTO ballast VALUES (?)", ("x" * 4000,))
        database.execute_sql("DELETE FROM ballast")
        database.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        mode, free, pages = _pages(path)
        assert mode == 2 and free >= 200  # incremental: kept on the free list until asked
        assert reclaim_space() >= 200
        _, free_after, pages_after = _pages(path)
        assert free_after == 0 and pages_after <= pages - 200
        assert reclaim_space() == 0  # nothing left to give back


def test_init_converts_a_file_made_before_incremental_vacuum(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as plain:  # as pbem used to make them: auto_vacuum NONE
        plain.execute("CREATE TABLE already_here (id INTEGER)")
    assert _pages(path)[0] == 0
    bind_database(f"sqlite:///{path}")
    with database.connection_context():
        migrate()
    assert _pages(path)[0] == 2
