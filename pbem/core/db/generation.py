"""The database's generation: a value stored in the database that says which history its rows
belong to, so that what a process keeps from it (the version memos, the kept pages) is never
taken for a database put in its place.

A match's version counts its changes, so a version memo is exact while the database only moves
forward. A backup restored under running processes, or a database made again by `pbem init`,
starts the counts again with other content: the same match id and version would mean another
position. So `pbem restore`, `pbem init` and `pbem generation bump` write a new random value
here, and what a process keeps is keyed with the value it knows.

How a process hears of a new generation before it reads anything of the new database:
- SQLite, MariaDB, and PostgreSQL without a pool: `check`, at the start of each request and
  job, reads the row (a primary-key SELECT of a one-row table).
- PostgreSQL with a pool (`postgresql+pool://`): each connection LISTENs on `CHANNEL` and
  reads the row the first time it serves a request or job; the new value is NOTIFYed in the
  transaction that writes it, so the server sends it to every listening connection as that
  transaction commits, and psycopg hands it to `_heard` before the answer to the
  connection's next statement. No round trip is added to a request.
A request or job that began under one generation and finds the process knowing another may
have read rows of both databases: it keeps nothing, and takes nothing kept.

The boundary: a change pbem did not make through its door and that leaves a match's version as
it was (a hand-written UPDATE, a restore by other tools) is not seen; after one, run
`pbem generation bump` (docs/CACHES.md).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any
from weakref import WeakSet

import peewee
from playhouse.pool import PooledDatabase

from pbem.core.db.base import BaseModel
from pbem.core.db.connection import database, write_transaction

ROW = 1
# A process that has read no generation yet (a command, a test calling core directly): its
# caches were filled from the one database it was bound to.
UNREAD = ""


class DatabaseGeneration(BaseModel):
    """One row (id 1): the generation's value, new after every restore and `pbem init`."""

    value = peewee.CharField(max_length=32)

    class Meta:
        table_name = "database_generation"


# The generation the process knew when this request or job began (a thread's context: each
# request and job has its own).
_began: ContextVar[str | None] = ContextVar("pbem_generation", default=None)
# The latest generation the process heard of, from any of its threads and connections.
_latest = UNREAD
# What to call when it moves (the version memos register their `forget_all`).
_ON_NEW: list[Callable[[], None]] = []
CHANNEL = "pbem_generation"
_READ = "SELECT value FROM database_generation WHERE id = 1"
# PostgreSQL connections that listen on CHANNEL (and have read the row since).
_listening: WeakSet[Any] = WeakSet()


def on_new_generation(forget: Callable[[], None]) -> None:
    _ON_NEW.append(forget)


def current() -> str | None:
    """The generation to key what is kept now with; None when this request or job began under
    another one than the process now knows (keep nothing, take nothing kept)."""
    began = _began.get()
    if began is not None and began != _latest:
        return None
    return _latest


def check() -> str:
    """Before a request's or job's reads: make sure the process knows the database's
    generation (see the module's text), and note it as the one this request began under. A
    database without the row yet (made by the models, not by `pbem init`) is `UNREAD`."""
    if _is_postgres() and isinstance(database.obj, PooledDatabase):
        # A connection kept across requests listens; one made for this request (no pool)
        # reads the row, as it would the notice on its first statement.
        connection = database.connection()
        if connection not in _listening:
            connection.add_notify_handler(_notified)
            database.execute_sql(f"LISTEN {CHANNEL}")
            _heard(_read())
            _listening.add(connection)
    else:
        _heard(_read())
    _began.set(_latest)
    return _latest


def bump() -> str:
    """Write a new generation (a restore, `pbem init`, an operator after a hand-made change):
    every running process drops what it keeps before its next request or job reads a row."""
    value = secrets.token_hex(16)
    with write_transaction():
        if not DatabaseGeneration.update(value=value).where(
                DatabaseGeneration.id == ROW).execute():
            DatabaseGeneration.insert(id=ROW, value=value).execute()
        if _is_postgres():
            database.execute_sql("SELECT pg_notify(%s, %s)", (CHANNEL, value))
    return value


def _read() -> str:
    found = database.execute_sql(_READ).fetchone()
    return str(found[0]) if found else UNREAD


def _notified(notice: Any) -> None:
    if notice.channel == CHANNEL:
        _heard(notice.payload)


def _heard(value: str) -> None:
    """The database's generation is `value`: when it is new, drop what the process keeps."""
    global _latest
    if value != _latest:
        _latest = value
        for forget in _ON_NEW:
            forget()


def _is_postgres() -> bool:
    return isinstance(database.obj, peewee.PostgresqlDatabase)
