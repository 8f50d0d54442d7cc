"""Fixed-shape SELECTs compiled to SQL once per database, not on every call.

peewee builds a query's SQL afresh each time it runs; on the hottest queries (a seat by its
link, a match and its seats under the door's lock) that was a large share of a request. A
`Prepared` query is written as ordinary peewee code taking placeholders; it is compiled the
first time it runs on a database, and later calls only substitute the values.

The values are passed to the driver as they are (no field conversion), so give them as the
database stores them: integers, strings.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from inspect import signature
from typing import Any

import peewee

from pbem.core.db import database


class _Slot:
    """Stands for the n-th argument while a query is compiled."""

    def __init__(self, index: int) -> None:
        self.index = index


class Prepared:
    """A SELECT built by `build(*placeholders)`, run with `rows(*values)` or `first(*values)`.

    `build` may ask which database it is compiled for (`is_sqlite()`, say, to leave out
    `FOR UPDATE`): it runs once per bound database.
    """

    # `build` returns a ModelSelect of any model; peewee's stubs make ModelSelect invariant.
    def __init__(self, build: Callable[..., Any]) -> None:
        self._build = build
        self._arity = len(signature(build).parameters)
        self._compiled: dict[int, tuple[peewee.Database, Any, str, list[Any]]] = {}
        self._lock = threading.Lock()

    def rows(self, *values: Any) -> list[Any]:
        db = database.obj
        entry = self._compiled.get(id(db))
        if entry is None or entry[0] is not db:
            entry = self._compile(db)
        _, query, sql, template = entry
        params = [values[item.index] if isinstance(item, _Slot) else item for item in template]
        cursor = db.execute_sql(sql, params)
        # The query object only describes the columns and joins to build rows from.
        return list(query._get_cursor_wrapper(cursor))

    def first(self, *values: Any) -> Any:
        found = self.rows(*values)
        return found[0] if found else None

    def _compile(self, db: peewee.Database) -> tuple[peewee.Database, Any, str, list[Any]]:
        with self._lock:
            slots = [peewee.Value(_Slot(i), converter=False) for i in range(self._arity)]
            query = self._build(*slots)
            sql, template = db.get_sql_context().sql(query).query()
            entry = (db, query, sql, list(template))
            # Databases are few (one in production; tests bind a new one now and then).
            if len(self._compiled) > 8:
                self._compiled.clear()
            self._compiled[id(db)] = entry
            return entry
