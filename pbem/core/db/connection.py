"""The database: one deferred proxy, bound at start-up from the configured URL.

SQLite gets WAL, foreign keys, `synchronous=NORMAL` and a busy timeout, so the web process and
the worker can share one file. PostgreSQL (`postgresql://…`, psycopg 3) and MariaDB/MySQL
(`mysql://…`, PyMySQL) are used as `playhouse.db_url` parses them.

A `+pool` scheme (`postgresql+pool://…`, `mysql+pool://…`, `sqlite+pool:///…`) keeps
connections open across requests and jobs (`playhouse.pool`): closing one at the end of a
request hands it back to the pool instead of ending a server backend.
"""

from __future__ import annotations

import functools
import logging
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import peewee
from playhouse.db_url import connect, parse, register_database
from playhouse.pool import (
    PooledDatabase,
    PooledMySQLDatabase,
    PooledPostgresqlDatabase,
    PooledSqliteDatabase,
)

from pbem.core.db.peewee_reach import (
    AS_PEEWEES,
    ConnectHook,
    TrustRecentlyReturned,
    forget_connections,
)

database = peewee.DatabaseProxy()
_log = logging.getLogger(__name__)
_bound_url: str | None = None

POOL_SIZE = 32
# A pooled connection idle this long is closed rather than reused (servers drop idle ones).
POOL_STALE_SECONDS = 300
# What a down, unreachable or restarting server raises (at connect or mid-query). Adapters answer
# these with "try again" (503 on the web, a retry on the next worker tick), not a traceback.
UNAVAILABLE = (peewee.OperationalError, peewee.InterfaceError)
CONNECT_TIMEOUT_SECONDS = 10

# Set on every connection. Not `auto_vacuum` (see `use_incremental_vacuum`): setting it is a
# write to the file's header, which a read-only file refuses at connect, so every page of a
# read-only install answered 503.
SQLITE_PRAGMAS = {
    "journal_mode": "wal",
    "foreign_keys": 1,
    "synchronous": "normal",
    "busy_timeout": 10_000,
    # SQLite's own page cache per connection: 512 KiB, not its default 2,000 KiB. Every
    # commit by another process (the other web workers, the mail worker) empties it anyway,
    # so on a live server it rarely holds more than the last few reads, and the operating
    # system's file cache answers a page read again in microseconds; a worker serving many
    # matches kept about 1.5 MiB more with the default (bench/memory.py).
    "cache_size": -512,
}


class _AnsweringCursors(ConnectHook):
    """PostgreSQL connections whose cursors answer inside a pipeline as outside one
    (`pbem/core/db/pipeline.py`). There psycopg meets a statement's answer only when it is
    read: its `rowcount` is -1 until then (a caller would read "no row changed"), and its
    error is raised by the read, as psycopg's, where peewee raises its own from `execute_sql`.
    These cursors' count waits for its answer, and a read raises peewee's error."""

    def on_connect(self, connection: Any) -> Any:
        # A pool hands back connections it made before, already answering.
        if not getattr(connection.cursor_factory, "answers", False):
            connection.cursor_factory = _answering(connection.cursor_factory)
        return connection


@functools.cache
def _answering(cursor: type[Any]) -> type[Any]:
    class AnsweringCursor(cursor):
        answers = True

        @property
        def rowcount(self) -> int:
            with AS_PEEWEES:
                self._fetch_pipeline()
            return int(self._rowcount)

        def fetchone(self) -> Any:
            with AS_PEEWEES:
                return super().fetchone()

        def fetchmany(self, size: int = 0) -> list[Any]:
            with AS_PEEWEES:
                return list(super().fetchmany(size))

        def fetchall(self) -> list[Any]:
            with AS_PEEWEES:
                return list(super().fetchall())

        def __next__(self) -> Any:
            with AS_PEEWEES:
                return super().__next__()

    return AnsweringCursor


class AnsweringPostgresqlDatabase(_AnsweringCursors, peewee.PostgresqlDatabase):
    pass


class TrustingPooledPostgresqlDatabase(TrustRecentlyReturned, _AnsweringCursors,
                                       PooledPostgresqlDatabase):
    pass


class TrustingPooledMySQLDatabase(TrustRecentlyReturned, PooledMySQLDatabase):
    pass


class _KeepTheCause:
    """SQLite ends a transaction by itself when the disk is full (SQLITE_FULL), as it may on
    an I/O error: peewee's rollback that follows then fails with "cannot rollback - no
    transaction is active", and that error replaces the cause ("database or disk is full") in
    every log line and answer. A rollback with nothing to roll back does nothing here, so the
    cause is what propagates."""

    def rollback(self) -> None:
        conn = None if self.is_closed() else self.connection()  # type: ignore[attr-defined]
        if conn is not None and not conn.in_transaction:
            return
        super().rollback()  # type: ignore[misc]


class _HoldTheFile(ConnectHook):
    """An SQLite file in WAL mode is read through its `-shm` index, which SQLite makes when the
    first connection opens and deletes when the last one closes. On a full disk it cannot be
    made again, and every connection then fails at its first pragma ("disk I/O error"): the
    site answered 503 on every page, reads included, as soon as no connection was open
    (`pbem serve` closes each request's). Each process keeps one idle connection of its own to
    the file from its first successful connection on, so the index stays while it runs."""

    def on_connect(self, connection: Any) -> Any:
        _hold(str(self.database))  # type: ignore[attr-defined]
        return super().on_connect(connection)


class CauseKeepingSqliteDatabase(_HoldTheFile, _KeepTheCause, peewee.SqliteDatabase):
    pass


class CauseKeepingPooledSqliteDatabase(_HoldTheFile, _KeepTheCause, PooledSqliteDatabase):
    pass


# (process id, path) → the idle connection holding the file (see `_HoldTheFile`). A forked
# child's inherited ones stay referenced here and unused, as its other inherited connections.
_held: dict[tuple[int, str], sqlite3.Connection] = {}


def _hold(path: str) -> None:
    if path == ":memory:" or path.startswith("file:") or (os.getpid(), path) in _held:
        return
    try:
        keeper = sqlite3.connect(path, check_same_thread=False)
        keeper.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()  # opens the index
    except sqlite3.Error:
        return  # the connection that called will say what is wrong, if anything is
    _held[(os.getpid(), path)] = keeper


def _let_go() -> None:
    """Close this process's held files (the models are bound to another database)."""
    for key in [key for key in _held if key[0] == os.getpid()]:
        _held.pop(key).close()


register_database(AnsweringPostgresqlDatabase, "postgres", "postgresql")
register_database(TrustingPooledPostgresqlDatabase, "postgres+pool", "postgresql+pool")
register_database(TrustingPooledMySQLDatabase, "mysql+pool")
register_database(CauseKeepingSqliteDatabase, "sqlite")
register_database(CauseKeepingPooledSqliteDatabase, "sqlite+pool")


def one_host_form(url: str) -> str:
    """`url` with a PostgreSQL host list written in its query: libpq's first form,
    `postgresql://u@a:5432,b:5433/db`, as `postgresql://u@/db?host=a,b&port=5432,5433`, which
    is what a URL parser reads (it takes one host and one port, and refused "5432,b:5433" as a
    port). Any other URL is given back as it is."""
    scheme, sep, rest = url.partition("://")
    if not sep or not scheme.startswith("postgres"):
        return url
    netloc, _slash, tail = rest.partition("/")
    userinfo, at, hostlist = netloc.rpartition("@")
    if "," not in hostlist:
        return url
    hosts, ports = [], []
    for entry in hostlist.split(","):
        host, port = _host_and_port(entry)
        hosts.append(host)
        ports.append(port)
    path, _question, query = tail.partition("?")
    extra = [f"host={','.join(hosts)}"]
    if any(ports):
        # libpq takes one port per host: a host without one gets the default.
        extra.append("port=" + ",".join(port or "5432" for port in ports))
    query = "&".join([part for part in (query,) if part] + extra)
    return f"{scheme}://{userinfo}{at}/{path}?{query}"


def _host_and_port(entry: str) -> tuple[str, str]:
    """One entry of a host list: `host`, `host:port`, `[v6]` or `[v6]:port`."""
    if entry.startswith("["):
        host, _bracket, after = entry[1:].partition("]")
        return host, after.removeprefix(":")
    host, _colon, port = entry.partition(":")
    return host, port


def open_database(url: str) -> peewee.Database:
    """Make (but do not connect) a database for a URL, with our per-backend settings."""
    url = one_host_form(url)
    scheme = url.split(":", 1)[0]
    kwargs: dict[str, Any] = {}
    if scheme.startswith("sqlite"):
        kwargs = {"pragmas": SQLITE_PRAGMAS, "timeout": 10}
        path = parse(url).get("database")
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
    elif scheme.startswith("mysql"):
        kwargs = {"charset": "utf8mb4"}
    elif scheme.startswith("postgres"):
        # psycopg 3 even where psycopg2 is installed too (peewee would take psycopg2): the
        # pipeline and the answering cursors are psycopg 3's.
        kwargs = {"prefer_psycopg3": True}
        if "connect_timeout" not in url:
            # libpq waits forever for a host that drops packets; a request or tick must not
            # hang.
            kwargs["connect_timeout"] = CONNECT_TIMEOUT_SECONDS
    if scheme.endswith("+pool"):
        kwargs.update(max_connections=POOL_SIZE, stale_timeout=POOL_STALE_SECONDS)
        if scheme.startswith("sqlite"):
            # A pooled connection serves whichever thread takes it next.
            kwargs["check_same_thread"] = False
    return connect(url, **kwargs)


# A read-only database (a PostgreSQL hot standby after a failover, a MariaDB replica, a
# read-only SQLite file): a write fails, and trying again later (on the new primary) is the
# answer, as for a database that is down.
_READ_ONLY_SQLSTATE = "25006"
_READ_ONLY_MYSQL_CODES = {1290, 1792, 1836}


def driver_error(error: BaseException) -> BaseException:
    """The database driver's own error under peewee's (peewee keeps it as `orig`, and its
    message as the first argument), where its SQLSTATE or MySQL error number is."""
    while isinstance(error, peewee.PeeweeException) and isinstance(
            getattr(error, "orig", None), BaseException):
        error = error.orig  # type: ignore[attr-defined]
    return error


def is_read_only(error: BaseException) -> bool:
    original = driver_error(error)
    if getattr(original, "sqlstate", None) == _READ_ONLY_SQLSTATE:
        return True
    codes = getattr(original, "args", ())
    if codes and codes[0] in _READ_ONLY_MYSQL_CODES:
        return True
    text = str(error).lower()
    return "read-only" in text or "readonly database" in text or "read only" in text


def is_unavailable(error: BaseException) -> bool:
    """The database cannot do this now (down, unreachable, read-only): try again later."""
    return isinstance(error, UNAVAILABLE) or (isinstance(error, peewee.DatabaseError)
                                              and is_read_only(error))


def note_if_possible(write: Callable[[], object], what: str) -> None:
    """A note a read makes on the side (when a session or an API token was last used): a
    database that cannot take it now (read-only, a full disk, down) must not cost the reader
    the page. Run in a savepoint, so a refused write leaves the request's reads intact; the
    refusal is one log line."""
    try:
        with database.atomic():
            write()
    except peewee.DatabaseError as error:
        if not is_unavailable(error):
            raise
        _log.warning("%s not noted: %s", what, unavailable_reason(error))


def discard_connection() -> None:
    """Close this thread's connection for good (a pool's is not handed back), after it
    refused a write as read-only. After a failover a connection can stay open to a server that
    no longer takes writes (the old primary come back as a standby, or a URL without
    `target_session_attrs=read-write`), and a pool would lend it again and again: every write
    refused until a restart. A new connection finds the primary by itself (libpq tries each
    host of the URL's list and keeps the one that takes writes)."""
    db = database.obj
    if db is None or db.is_closed():
        return
    try:
        if isinstance(db, PooledDatabase):
            db.manual_close()
        else:
            db.close()
    except peewee.PeeweeException:
        _log.warning("a read-only connection could not be closed; it is left to the pool")


def unavailable_reason(error: BaseException) -> str:
    """The first line of a driver's error, for one clear log line instead of a traceback."""
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def bind_database(url: str) -> peewee.Database:
    """Point the models at the database for `url` and return it (reused if already bound)."""
    global _bound_url
    if database.obj is not None and _bound_url == url:
        return database.obj
    old = database.obj
    if old is not None:
        if not old.is_closed():
            old.close()
        if isinstance(old, PooledDatabase):
            # The old database is abandoned: its pooled connections are closed now rather
            # than left to the garbage collector, each holding a session on its server.
            old.close_idle()
    _let_go()
    db = open_database(url)
    database.initialize(db)
    _bound_url = url
    # Match ids start again in another database: nothing derived from the old one holds.
    for forget in _ON_REBIND:
        forget()
    return db


# What to call when the models are bound to another database (`memo.py` registers its
# `forget_all`: it reads this module, so this module cannot import it).
_ON_REBIND: list[Callable[[], None]] = []


def on_rebind(forget: Callable[[], None]) -> None:
    _ON_REBIND.append(forget)


# What a forked child inherited of its parent's connections: kept referenced, so that neither
# garbage collection nor a pool ever closes or uses them in the child (see below).
_inherited: list[Any] = []


def _forget_inherited_connections() -> None:
    """In a forked child, start with no connection. An inherited one shares its socket with
    the parent: using it garbles both processes' replies (seen as a string where a datetime
    was due), and closing it would end the parent's session (PostgreSQL's Terminate message).
    peewee's `dispose` forgets connections without closing them; they are kept here so that
    nothing closes them later either. Runs for any fork: a test's worker processes, a server
    that forks workers after its master touched the database."""
    db = database.obj
    if db is not None:
        forget_connections(db, _inherited.append)


os.register_at_fork(after_in_child=_forget_inherited_connections)


def release(thread_ends: bool = False) -> None:
    """End a request's or job's use of the database. A pooled connection goes back to its
    pool. A plain SQLite connection stays open for the thread's next request: opening one is
    cheap, but closing the last one to a file checkpoints the whole WAL into it on the spot
    (most of a small write's cost); SQLite checkpoints on its own as the WAL grows. With
    `thread_ends` (a server that runs each request on a thread of its own, as `pbem serve`
    does), there is no next request on this thread: the connection is closed, not left for
    the garbage collector to find (dozens stayed open)."""
    if database.obj is None or database.is_closed():
        return
    # Never carry a half-done transaction over to the next request.
    if (is_sqlite() and not isinstance(database.obj, PooledDatabase)
            and not database.in_transaction() and not thread_ends):
        return
    database.close()


def is_sqlite() -> bool:
    return isinstance(database.obj, peewee.SqliteDatabase)


def locking(query: Any) -> Any:
    """`query` as a `SELECT … FOR UPDATE` (inside write_transaction): its rows stay locked
    until the transaction ends. SQLite has no row locks; its IMMEDIATE transaction already
    lets one writer in at a time."""
    return query if is_sqlite() else query.for_update()


def write_transaction() -> Any:
    """A transaction that will write. On SQLite it takes the write lock at BEGIN (IMMEDIATE),
    so racing writers queue on the busy timeout instead of failing when they upgrade."""
    if is_sqlite():
        return database.obj.atomic(lock_type="IMMEDIATE")
    return database.atomic()


# SQLite's auto_vacuum setting for incremental (PRAGMA auto_vacuum returns 0, 1 or 2).
_INCREMENTAL = 2


def start_with_incremental_vacuum() -> None:
    """A new SQLite file keeps the pages freed by deleted rows (a finished match's thinned
    positions, pruned sessions, mail past retention) in its free list, to be given back by
    `reclaim_space` (the worker's storage job) rather than left in the file for good. Set
    before the first table is made (`pbem init` calls this before migrating), where it costs
    nothing; an older file is converted by `use_incremental_vacuum`."""
    if isinstance(database.obj, peewee.SqliteDatabase) and not database.get_tables():
        database.execute_sql("PRAGMA auto_vacuum = INCREMENTAL")


def use_incremental_vacuum() -> bool:
    """Make an SQLite file made before incremental auto-vacuum use it (one VACUUM, outside any
    transaction; `pbem init` calls this after migrating). True when it converted the file."""
    if not isinstance(database.obj, peewee.SqliteDatabase):
        return False
    mode = database.execute_sql("PRAGMA auto_vacuum").fetchone()[0]
    if mode == _INCREMENTAL:
        return False
    database.execute_sql("PRAGMA auto_vacuum = INCREMENTAL")
    database.execute_sql("VACUUM")
    return True


def reclaim_space() -> int:
    """Give the database's free pages back to the file system; return how many (SQLite; on
    PostgreSQL and MariaDB the server's own vacuuming does this, and it returns 0)."""
    if not isinstance(database.obj, peewee.SqliteDatabase):
        return 0
    free = database.execute_sql("PRAGMA freelist_count").fetchone()[0]
    if free:
        # The PRAGMA frees one page per step, and Python's execute() steps once: a script
        # runs it to the end.
        # (peewee's wrapper turns the driver's errors into peewee's, as `execute_sql` does,
        # so a read-only or full database is reported like any other.)
        with AS_PEEWEES:
            database.connection().executescript("PRAGMA incremental_vacuum;")
        # In WAL mode the shrunken pages reach the file at the next checkpoint: make it now.
        database.execute_sql("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
    return int(free)
