"""Fixed-shape queries compiled to SQL once per database, not on every call.

peewee builds a query's SQL afresh each time it runs; on the hottest queries (a seat by its
link, a match and its seats under the door's lock, the rows a move writes) that was a large
share of a request. A `Prepared` query is written as ordinary peewee code taking
placeholders; it is compiled the first time it runs on a database, and later calls only
substitute the values.

The values are passed to the driver as they are (no field conversion), so give them as the
database stores them: integers, strings, datetimes. `insert_row` and `update_columns` do that
conversion themselves, for writes whose columns vary.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from inspect import signature
from typing import TYPE_CHECKING, Any, TypeVar

import peewee

from pbem.core.db import database

if TYPE_CHECKING:
    from pbem.core.models import BaseModel

M = TypeVar("M", bound="BaseModel")


class _Slot:
    """Stands for the n-th argument while a query is compiled."""

    def __init__(self, index: int) -> None:
        self.index = index


class Prepared:
    """A query built by `build(*placeholders)`: a SELECT run with `rows` or `first`, an
    UPDATE or DELETE with `run`, an INSERT with `insert`.

    `build` may ask which database it is compiled for (`is_sqlite()`, say, to leave out
    `FOR UPDATE`): it runs once per bound database. `arity` is for a `build(*slots)`.
    """

    # `build` returns a query of any model; peewee's stubs make ModelSelect invariant.
    def __init__(self, build: Callable[..., Any], arity: int | None = None) -> None:
        self._build = build
        self._arity = len(signature(build).parameters) if arity is None else arity
        self._compiled: dict[int, tuple[peewee.Database, Any, str, list[Any]]] = {}
        self._lock = threading.Lock()

    def rows(self, *values: Any) -> list[Any]:
        query, cursor = self._execute(values)
        # The query object only describes the columns and joins to build rows from.
        return list(query._get_cursor_wrapper(cursor))

    def first(self, *values: Any) -> Any:
        found = self.rows(*values)
        return found[0] if found else None

    def run(self, *values: Any) -> int:
        """An UPDATE or DELETE: how many rows it changed."""
        _, cursor = self._execute(values)
        return int(cursor.rowcount)

    def insert(self, *values: Any) -> int:
        """An INSERT: the new row's id."""
        _, cursor = self._execute(values)
        return int(cursor.fetchone()[0] if database.obj.returning_clause else cursor.lastrowid)

    def _execute(self, values: tuple[Any, ...]) -> tuple[Any, Any]:
        db = database.obj
        entry = self._compiled.get(id(db))
        if entry is None or entry[0] is not db:
            entry = self._compile(db)
        _, query, sql, template = entry
        params = [values[item.index] if isinstance(item, _Slot) else item for item in template]
        return query, db.execute_sql(sql, params)

    def _compile(self, db: peewee.Database) -> tuple[peewee.Database, Any, str, list[Any]]:
        with self._lock:
            slots = [peewee.Value(_Slot(i), converter=False) for i in range(self._arity)]
            query = self._build(*slots)
            if isinstance(query, peewee.ModelInsert) and db.returning_clause:
                query = query.returning(query.model._meta.primary_key)
            sql, template = db.get_sql_context().sql(query).query()
            entry = (db, query, sql, list(template))
            # Databases are few (one in production; tests bind a new one now and then).
            if len(self._compiled) > 8:
                self._compiled.clear()
            self._compiled[id(db)] = entry
            return entry


class Shapes:
    """Prepared queries of one kind whose shape varies with a key (a model and the columns a
    write sets): one compiled per key seen, a handful in practice."""

    def __init__(self, build: Callable[..., Prepared]) -> None:
        self._build = build
        self._made: dict[tuple[Any, ...], Prepared] = {}

    def __call__(self, *key: Any) -> Prepared:
        found = self._made.get(key)
        if found is None:
            found = self._made.setdefault(key, self._build(*key))
        return found


def insert_row(model: type[M], **values: Any) -> M:
    """`model.create(**values)` with its INSERT compiled once per set of columns. Defaults are
    filled in here, as `create` does, so none is frozen into the compiled SQL."""
    row = model(**values)
    data = row.__data__
    names = tuple(name for name in data if name != "id")
    fields = model._meta.fields
    row.id = _INSERTS(model, names).insert(*[fields[name].db_value(data[name]) for name in names])
    row._dirty.clear()  # type: ignore[attr-defined]  # as after `create`
    return row


def update_columns(row: BaseModel, names: Iterable[str]) -> int:
    """Write these columns of `row` (as it holds them now) to its database row, by id: a save
    of only what a change touched, compiled once per set of columns."""
    names = tuple(names)
    fields = type(row)._meta.fields
    return _UPDATES(type(row), names).run(
        *[fields[name].db_value(getattr(row, name)) for name in names], row.id)


def _insert_shape(model: type[BaseModel], names: tuple[str, ...]) -> Prepared:
    fields = [model._meta.fields[name] for name in names]
    return Prepared(lambda *slots: model.insert(dict(zip(fields, slots, strict=True))),
                    arity=len(names))


def _update_shape(model: type[BaseModel], names: tuple[str, ...]) -> Prepared:
    fields = [model._meta.fields[name] for name in names]
    return Prepared(lambda *slots: model.update(dict(zip(fields, slots[:-1], strict=True)))
                    .where(model._meta.primary_key == slots[-1]), arity=len(names) + 1)


_INSERTS = Shapes(_insert_shape)
_UPDATES = Shapes(_update_shape)
