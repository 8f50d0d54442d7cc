"""The base of every table: the deferred database binding and a portable JSON column.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import peewee

from pbem.core.db.connection import database


class JSONField(peewee.TextField):
    """JSON kept as text. Portable to SQLite, PostgreSQL and MariaDB alike (MariaDB has no
    `CAST(… AS JSON)`, which peewee's own JSONField emits); we never query inside it."""

    def db_value(self, value: Any) -> str | None:
        return None if value is None else json.dumps(value, separators=(",", ":"))

    def python_value(self, value: str | None) -> Any:
        return None if value is None else json.loads(value)


class SecondsField(peewee.DateTimeField):
    """A time kept to the second, for rows written by the hundred (a mail a move) whose times
    nothing reads finer: SQLite keeps a time as text, 19 characters without microseconds
    against 26 with them (PostgreSQL and MariaDB store 8 bytes either way)."""

    def db_value(self, value: Any) -> Any:
        if isinstance(value, datetime):
            value = value.replace(microsecond=0)
        return super().db_value(value)


class BaseModel(peewee.Model):
    # peewee gives every foreign key an index of its own. Where one of the model's composite
    # indexes begins with that key, the key says `index=False`: the composite serves lookups
    # by the key alone and its constraint, and a second index would cost space and a write
    # per row (tests/core/db/test_migrations.py holds this; migration 0230 dropped them).
    # peewee adds this primary key to every model anyway; declared so the type checker knows it.
    id = peewee.AutoField()

    class Meta:
        database = database
        legacy_table_names = False
