"""A full disk is reported as a full disk. SQLite ends the transaction by itself on
SQLITE_FULL, and peewee's rollback after it used to fail with "cannot rollback - no
transaction is active", which replaced the cause in the worker's log and in every error. The
disk is filled for real (a page limit on the file, every page used), on SQLite: PostgreSQL and
MariaDB report a full disk as an ordinary error, with no rollback of their own."""

from __future__ import annotations

import logging
from datetime import timedelta

import peewee
import pytest

from pbem.core.db.connection import bind_database, database, write_transaction
from pbem.core.db.migrations import migrate
from pbem.core.matches.creation import create_match
from pbem.worker import Worker
from tests.conftest import START, SUPPORT_TEMPLATES, Clock, make_settings

FILLER = "x" * 4000


def _fill_the_disk() -> None:
    """Cap the file just above its size, then use every free page, so the next new row fails."""
    pages = database.execute_sql("PRAGMA page_count").fetchone()[0]
    database.execute_sql(f"PRAGMA max_page_count = {pages + 20}")
    database.execute_sql("CREATE TABLE IF NOT EXISTS filler (text TEXT)")
    with pytest.raises(peewee.OperationalError, match="full"):
        for _ in range(100_000):
            database.execute_sql("INSERT INTO filler VALUES (?)", (FILLER,))


@pytest.fixture
def sqlite_file(tmp_path):
    url = f"sqlite:///{tmp_path / 'full.db'}"
    bind_database(url)
    database.connect(reuse_if_open=True)
    migrate()
    yield url
    database.close()


def test_a_write_on_a_full_disk_says_the_disk_is_full(sqlite_file) -> None:
    _fill_the_disk()
    with pytest.raises(peewee.OperationalError) as failed, write_transaction():
        for _ in range(50):
            database.execute_sql("INSERT INTO filler VALUES (?)", (FILLER,))
    assert "database or disk is full" in str(failed.value)
    # The connection is usable again at once: no transaction was left open.
    assert not database.in_transaction()
    assert database.execute_sql("SELECT 1").fetchone() == (1,)


def test_the_worker_logs_the_full_disk_not_a_failed_rollback(sqlite_file, tmp_path,
                                                             caplog) -> None:
    settings = make_settings(sqlite_file, tmp_path)
    # Enough matches past their deadline that settling them needs new pages, not only the
    # slack in the pages already there.
    for _ in range(150):
        create_match("nim", ["ann@example.org", "ben@example.org"], {}, settings.secret_key,
                     START, time_control="1d")
    clock = Clock(START + timedelta(days=3))
    worker = Worker(settings, clock=clock, extra_template_dirs=(SUPPORT_TEMPLATES,))
    _fill_the_disk()
    with caplog.at_level(logging.INFO):
        try:
            worker.sweep_deadlines()
        except peewee.OperationalError as error:  # raised to the scheduler, which logs it
            logging.getLogger("pbem.worker").exception("deadlines failed: %s", error)
    text = caplog.text
    assert "database or disk is full" in text, text
    assert "cannot rollback" not in text
