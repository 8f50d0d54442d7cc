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


def test_a_server_with_a_thread_per_request_leaves_no_connection_open(tmp_path: Path) -> None:
    """`pbem serve` (werkzeug, a new thread per request) left each finished thread's SQLite
    connection open: dozens of handles after a few thousand requests."""
    import os
    import threading
    import urllib.request

    from werkzeug.serving import make_server

    from pbem.config import load_settings
    from pbem.web import create_app
    from tests.conftest import STRONG_KEY, free_port

    path = tmp_path / "serve.sqlite3"
    url = f"sqlite:///{path}"
    settings = load_settings({"database_url": url, "secret_key": STRONG_KEY,
                              "instance_path": str(tmp_path)}, environ={})
    bind_database(url)
    with database.connection_context():
        migrate()
    app = create_app(settings)
    app.config["PBEM_THREAD_PER_REQUEST"] = True
    port = free_port()
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        for _ in range(60):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/matches").read()
    finally:
        server.shutdown()
    opened = [name for name in os.listdir("/proc/self/fd")
              if os.path.realpath(f"/proc/self/fd/{name}") == str(path)]
    # The one connection the process holds the file with (connection.py, `_HoldTheFile`),
    # and one closed connection's descriptor, which SQLite keeps for its next open while
    # another connection of the process has the file locked.
    assert len(opened) <= 2, f"{len(opened)} connections to the file left open"
