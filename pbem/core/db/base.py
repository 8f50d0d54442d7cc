"""The base of every table: the deferred database binding and a portable JSON column.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import peewee

from pbem.core.db.connection import database, is_sqlite

_EPOCH = datetime(1970, 1, 1)


class JSONField(peewee.TextField):
    """JSON kept as text. Portable to SQLite, PostgreSQL and MariaDB alike (MariaDB has no
    `CAST(… AS JSON)`, which peewee's own JSONField emits); we never query inside it."""

    def db_value(self, value: Any) -> str | None:
        return None if value is None else json.dumps(value, separators=(",", ":"))

    def python_value(self, value: str | None) -> Any:
        return None if value is None else json.loads(value)


class _NumberOnSQLite(peewee.DateTimeField):
    """A time column for rows written by the hundred (a mail or a move a ply). SQLite keeps a
    time as text, 19 to 26 characters; there this one is kept as a count of `unit`s since
    1970 instead, an integer of 4 to 6 bytes: a finished match has several hundred of them.
    The column's declared DATETIME gives SQLite numeric affinity, so no column changes type
    (migration 0330 turned the text values already stored into numbers, since SQLite orders
    every number before any text). PostgreSQL and MariaDB keep their own time types."""

    unit = timedelta(seconds=1)

    def db_value(self, value: Any) -> Any:
        if isinstance(value, str):  # a time given as text is stored as any other
            value = super().python_value(value)
        if isinstance(value, datetime):
            value = self.kept(value)
            if is_sqlite():
                return (value.replace(tzinfo=None) - _EPOCH
                        - (value.utcoffset() or timedelta())) // self.unit
        return super().db_value(value)

    def python_value(self, value: Any) -> Any:
        if isinstance(value, int):
            return _EPOCH + value * self.unit
        return super().python_value(value)

    def kept(self, value: datetime) -> datetime:
        return value


class SecondsField(_NumberOnSQLite):
    """A time kept to the second, for rows whose times nothing reads finer."""

    def kept(self, value: datetime) -> datetime:
        return value.replace(microsecond=0)

    def same_second_as(self, other: peewee.Field) -> peewee.Expression:
        """An SQL test that this column holds the second `other` (a time column of the
        ordinary kind, text on SQLite) holds."""
        if is_sqlite():
            return self == peewee.Cast(peewee.fn.strftime("%s", other), "INTEGER")
        return self == other


class MicrosecondsField(_NumberOnSQLite):
    """A time kept to the microsecond (a mail is rendered as of the moment it was queued)."""

    unit = timedelta(microseconds=1)


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
