"""The database's generation: a value stored in the database that says which history its rows
belong to, so that what a process keeps from it (the version memos, the kept pages) is never
taken for a database put in its place.

A match's version counts its changes, so a version memo is exact while the database only moves
forward. A backup restored under running processes, or a database made again by `pbem init`,
starts the counts again with other content: the same match id and version would mean another
position. So `pbem restore`, `pbem init` and `pbem generation bump` write a new random value
here, and every request and worker job reads it first (`check`, one primary-key SELECT of a
one-row table) and keys what it keeps with it.

The boundary: a change pbem did not make through its door and that leaves a match's version as
it was (a hand-written UPDATE) is not seen; after one, run `pbem generation bump`
(docs/CACHES.md).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from contextvars import ContextVar

import peewee

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


# The generation this request or job read first, before any of its other reads: what it
# keeps is keyed with it (a thread's context: each request and job has its own).
_read_now: ContextVar[str | None] = ContextVar("pbem_generation", default=None)
# The latest generation any thread of this process read, to drop kept values when it moves.
_latest = UNREAD
# What to call when it moves (the version memos register their `forget_all`).
_ON_NEW: list[Callable[[], None]] = []
_READ = "SELECT value FROM database_generation WHERE id = 1"


def on_new_generation(forget: Callable[[], None]) -> None:
    _ON_NEW.append(forget)


def current() -> str:
    """The generation what is kept now is keyed with: this request's or job's, else the latest
    the process read."""
    read = _read_now.get()
    return _latest if read is None else read


def check() -> str:
    """Read the database's generation (before the request's or job's other reads, so nothing
    read from an older database is kept under a newer one); when it is not the one this
    process read last, drop what the process keeps. A database without the row yet (made by
    the models, not by `pbem init`) is generation `UNREAD`."""
    global _latest
    found = database.execute_sql(_READ).fetchone()
    value = found[0] if found else UNREAD
    _read_now.set(value)
    if value != _latest:
        _latest = value
        for forget in _ON_NEW:
            forget()
    return value


def bump() -> str:
    """Write a new generation (a restore, `pbem init`, an operator after a hand-made change):
    every running process drops what it keeps at its next request or job."""
    value = secrets.token_hex(16)
    with write_transaction():
        if not DatabaseGeneration.update(value=value).where(
                DatabaseGeneration.id == ROW).execute():
            DatabaseGeneration.insert(id=ROW, value=value).execute()
    return value
