"""Schema migrations: numbered files in this folder, applied in order by peewee's own runner
(`playhouse.migrations`), each recorded by name in the `schema_migration` table.

`pbem init` (the Procfile's `release:` step) applies the missing ones. A lock taken for the
whole run (an advisory lock on PostgreSQL and MariaDB, a lock file beside a SQLite database)
keeps two processes from migrating at once. See README.md here for how to write one.
"""

from __future__ import annotations

import contextlib
import fcntl
import zlib
from collections.abc import Iterator
from pathlib import Path

import peewee
from playhouse.migrations import Runner

from pbem.core.db.connection import (
    database,
    reclaim_space,
    start_with_incremental_vacuum,
    use_incremental_vacuum,
)

FOLDER = Path(__file__).resolve().parent
INITIAL = "0001_initial"
# Before numbered files, one row in `schema_version` said the initial schema was in place.
LEGACY_TABLE = "schema_version"
_LOCK_KEY = zlib.crc32(b"pbem-migrate")


def runner() -> Runner:
    return Runner(database.obj, str(FOLDER))


def applied() -> list[str]:
    return sorted(runner().applied())


def pending() -> list[str]:
    return [m.name for m in runner().status() if m.path is not None and not m.applied]


def migrate() -> list[str]:
    """Apply every missing migration in order; return their names. Idempotent."""
    with _exclusive():
        start_with_incremental_vacuum()
        steps = runner()
        _adopt_legacy_schema(steps)
        done = steps.up()
        # Not a numbered migration: a VACUUM cannot run inside the runner's transaction.
        if not use_incremental_vacuum():
            # What a migration dropped (an index, a column's values) goes back to the file
            # system now, not at the worker's next storage job (SQLite; a no-op elsewhere).
            reclaim_space()
        return done


def _adopt_legacy_schema(steps: Runner) -> None:
    """A database made before numbered migrations already has the initial schema."""
    if steps.applied() or not database.table_exists(LEGACY_TABLE):
        return
    steps.fake(INITIAL)
    database.execute_sql(f"DROP TABLE {LEGACY_TABLE}")


@contextlib.contextmanager
def _exclusive() -> Iterator[None]:
    db = database.obj
    if isinstance(db, peewee.PostgresqlDatabase):
        db.execute_sql("SELECT pg_advisory_lock(%s)", (_LOCK_KEY,))
        try:
            yield
        finally:
            db.execute_sql("SELECT pg_advisory_unlock(%s)", (_LOCK_KEY,))
    elif isinstance(db, peewee.MySQLDatabase):
        db.execute_sql("SELECT GET_LOCK('pbem-migrate', 600)")
        try:
            yield
        finally:
            db.execute_sql("SELECT RELEASE_LOCK('pbem-migrate')")
    elif db.database and db.database != ":memory:":
        with open(f"{db.database}.migrate-lock", "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield
    else:
        yield
