"""`pbem backup` and `pbem restore`: a copy of the whole database, and the database put back
from one under running processes, which then show the restored matches at their next request.

SQLite is copied with its own backup API (a consistent copy while the file is in use) and put
back the same way, page by page in one write transaction that other connections see as any
other write. PostgreSQL is dumped with `pg_dump` (the tables of pbem's schema, as plain SQL
that drops and makes them again) and put back with `psql` in one transaction. Either way the
restored database gets a new generation in that same write (`generation.py`; on PostgreSQL
also NOTIFYed to every listening connection), so no process takes its match versions for the
ones it remembers; then `restore` applies any migration the
backup predates, as `pbem init` would. MariaDB is not covered: use `mariadb-dump`, then
`pbem init` and `pbem generation bump`.
"""

from __future__ import annotations

import os
import secrets
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import peewee
from playhouse.db_url import parse

from pbem.core.db.connection import database, is_sqlite, one_host_form
from pbem.core.db.generation import CHANNEL
from pbem.errors import PbemError

_SET_GENERATION = ("INSERT INTO {table} (id, value) VALUES (1, '{value}') "
                   "ON CONFLICT (id) DO UPDATE SET value = excluded.value")
# PostgreSQL's processes hear of it as the restore commits (generation.py).
_NOTIFY = "SELECT pg_notify('{channel}', '{value}')"


class BackupFailed(Exception):
    """The copy or the restore did not complete (a tool failed, the disk is full): the
    database is as it was."""


def backup(url: str, target: Path) -> None:
    """Write a copy of the database bound for `url` to `target` (replaced whole, never left
    half written)."""
    if is_sqlite():
        _write_whole(target, _sqlite_backup)
    elif _is_postgres():
        _write_whole(target, lambda out: _run(
            ["pg_dump", "--format=plain", "--clean", "--if-exists", "--no-owner",
             # pbem's tables and their sequences, not the schema itself: a restore then
             # never drops a schema (`public` is the database owner's).
             "--no-privileges", f'--table="{_schema()}".*', f"--file={out}",
             f"--dbname={_conninfo(url)}"], url))
    else:
        raise PbemError(_UNSUPPORTED)


def restore(url: str, source: Path) -> str:
    """Put the database bound for `url` back as `source` holds it, with a new generation, in
    one write; return that generation."""
    if not source.is_file():
        raise PbemError(f"there is no backup file {str(source)!r}")
    value = secrets.token_hex(16)
    if is_sqlite():
        _sqlite_restore(source, value)
    elif _is_postgres():
        table = f'"{_schema()}".database_generation'
        _run(["psql", "--quiet", "--no-psqlrc", "--single-transaction", "-v",
              "ON_ERROR_STOP=1", f"--file={source}", "--command",
              _SET_GENERATION.format(table=table, value=value) + "; "
              + _NOTIFY.format(channel=CHANNEL, value=value),
              f"--dbname={_conninfo(url)}"], url)
    else:
        raise PbemError(_UNSUPPORTED)
    return value


_UNSUPPORTED = ("pbem backup and restore cover SQLite and PostgreSQL; for MariaDB use "
                "mariadb-dump, then `pbem init` and `pbem generation bump`")


def _sqlite_backup(out: Path) -> None:
    with closing(sqlite3.connect(out)) as copy:
        database.connection().backup(copy)


def _sqlite_restore(source: Path, value: str) -> None:
    """Copy `source` beside the live file, give the copy its new generation, and copy that
    into the live database in one step (readers see the old database or the new one)."""
    live = Path(database.obj.database)
    with _scratch(live.parent) as scratch, closing(sqlite3.connect(source)) as given, \
                closing(sqlite3.connect(scratch)) as copy:
        _refuse_unless_pbem(given, source)
        given.backup(copy)
        copy.execute("CREATE TABLE IF NOT EXISTS database_generation "
                     "(id INTEGER NOT NULL PRIMARY KEY, value VARCHAR(32) NOT NULL)")
        with copy:
            copy.execute(_SET_GENERATION.format(table="database_generation", value=value))
        try:
            copy.backup(database.connection())
        except sqlite3.Error as error:
            raise BackupFailed(f"the backup could not be copied in: {error}") from error


def _refuse_unless_pbem(given: sqlite3.Connection, source: Path) -> None:
    try:
        found = given.execute("SELECT 1 FROM sqlite_master WHERE name = 'schema_migration'")
        if found.fetchone() is None:
            raise PbemError(f"{str(source)!r} is not a pbem database (no schema_migration)")
    except sqlite3.DatabaseError as error:
        raise PbemError(f"{str(source)!r} is not an SQLite database: {error}") from None


def _write_whole(target: Path, write: Callable[[Path], None]) -> None:
    """Write through a scratch file beside `target`, renamed over it when complete."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with _scratch(target.parent) as scratch:
        try:
            write(scratch)
        except (OSError, sqlite3.Error) as error:
            raise BackupFailed(f"the copy failed: {error}") from error
        os.replace(scratch, target)


@contextmanager
def _scratch(folder: Path) -> Iterator[Path]:
    handle, name = tempfile.mkstemp(prefix=".pbem-backup-", dir=folder)
    os.close(handle)
    path = Path(name)
    try:
        yield path
    finally:
        for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            leftover.unlink(missing_ok=True)


def _is_postgres() -> bool:
    return isinstance(database.obj, peewee.PostgresqlDatabase)


def _schema() -> str:
    """The schema pbem's tables are in (the URL may choose one with `search_path`)."""
    return str(database.execute_sql("SELECT current_schema()").fetchone()[0])


def _conninfo(url: str) -> str:
    """libpq's connection string for `url` (without its password, given by PGPASSWORD)."""
    parts = parse(one_host_form(url))
    keys = {"dbname": parts.get("database"), "user": parts.get("user"),
            "host": parts.get("host"), "port": parts.get("port"),
            "options": parts.get("options"), "sslmode": parts.get("sslmode"),
            # With a standby in the host list, dump from and restore into the primary.
            "target_session_attrs": parts.get("target_session_attrs")}
    return " ".join(f"{key}={_quoted(str(value))}" for key, value in keys.items() if value)


def _quoted(value: str) -> str:
    # libpq's keyword=value syntax: a value in single quotes, its quotes and backslashes
    # escaped by a backslash (psycopg, which says the same, is only the postgres extra's).
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _run(command: list[str], url: str) -> None:
    if shutil.which(command[0]) is None:
        raise BackupFailed(f"{command[0]} is not installed (PostgreSQL's client tools)")
    environment = dict(os.environ)
    password = parse(one_host_form(url)).get("password")
    if password:
        environment["PGPASSWORD"] = str(password)
    done = subprocess.run(command, env=environment, capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise BackupFailed(f"{command[0]} failed: {done.stderr.strip() or done.returncode}")
