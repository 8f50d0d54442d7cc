"""The base of every table: the deferred database binding and a portable JSON column.
"""

from __future__ import annotations

import json
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


class BaseModel(peewee.Model):
    # peewee adds this primary key to every model anyway; declared so the type checker knows it.
    id = peewee.AutoField()

    class Meta:
        database = database
        legacy_table_names = False
