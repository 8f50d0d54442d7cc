"""Fixed-shape queries compiled to SQL once per database, not on every call.

peewee builds a query's SQL afresh each time it runs; on the hottest queries (a seat by its
link, a match and its seats under the door's lock, the rows a move writes) that was a large
share of a request. A `Prepared` query is written as ordinary peewee code taking
placeholders; it is compiled the first time it runs on a database, and later calls only
substitute the values.

The values are passed to the driver as they are (no field conversion), so give them as the
database stores them: integers, strings, datetimes. `insert_row` and `update_columns` do that
conversion themselves, for writes whose columns vary.

The SQL is compiled by peewee's own `sql()` of the query. The first rows are built by peewee,
through the query's public `execute` (`_Sent`); a plain shape's later rows are made from
what peewee showed with peewee's public parts (`_Shape`). Nothing here touches peewee's
private state. Only the hot paths listed in tests/test_layers.py use it.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from inspect import signature
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

import peewee

from pbem.core.db.connection import database

if TYPE_CHECKING:
    from pbem.core.db.base import BaseModel

M = TypeVar("M", bound="BaseModel")


class _Slot:
    """Stands for the n-th argument while a query is compiled."""

    def __init__(self, index: int) -> None:
        self.index = index


class ReadAhead(NamedTuple):
    """A read some code will make later in this request: its statement and values, to send
    ahead with others (`pipeline.read_ahead`)."""

    prepared: Prepared
    values: tuple[Any, ...]

    def rows(self) -> list[Any]:
        """The read made now (its answer taken, if it was sent ahead)."""
        return self.prepared.rows(*self.values)


# The answers to reads sent ahead (`pipeline.read_ahead`), by `ahead_key`, each taken by the
# first `start` (or `rows`, `first`) that asks for the same read. None: none sent.
SENT_AHEAD: ContextVar[dict[tuple[int, tuple[Any, ...]], Answer] | None] = ContextVar(
    "pbem_sent_ahead", default=None)


def ahead_key(prepared: Prepared, values: tuple[Any, ...]) -> tuple[int, tuple[Any, ...]]:
    """A read sent ahead: its statement and its values with their types (1, True and 1.0
    are equal as keys, but not as values sent)."""
    return id(prepared), tuple((type(value), value) for value in values)


class Prepared:
    """A query built by `build(*placeholders)`: a SELECT run with `rows` or `first`, an
    UPDATE or DELETE with `run`, an INSERT with `insert`; or any of them sent with `start`
    and its answer read later, or with `send` and no answer read (see `pipelined()`). A read
    named by `ahead` can be sent early, with others (`pipeline.read_ahead`): its `rows` or
    `first` then takes the answer already there.

    `build` may ask which database it is compiled for (`is_sqlite()`, say, to leave out
    `FOR UPDATE`): it runs once per bound database. `arity` is for a `build(*slots)`.
    `returning=False` compiles an INSERT without `RETURNING id` (for `send`).
    """

    # `build` returns a query of any model; peewee's stubs make ModelSelect invariant.
    def __init__(self, build: Callable[..., Any], arity: int | None = None,
                 returning: bool = True, share_joined: bool = False) -> None:
        self._build = build
        self._returning = returning
        self._share_joined = share_joined
        self._arity = len(signature(build).parameters) if arity is None else arity
        self._compiled: dict[int, tuple[peewee.Database, Any, str, list[Any]]] = {}
        # By the compiled query's id: how its rows are made (None: by peewee).
        self._shapes: dict[int, _Shape | None] = {}
        self._lock = threading.Lock()

    def rows(self, *values: Any) -> list[Any]:
        return self.start(*values).rows()

    def first(self, *values: Any) -> Any:
        return self.start(*values).first()

    def run(self, *values: Any) -> int:
        """An UPDATE or DELETE: how many rows it changed."""
        return self.start(*values).changed()

    def insert(self, *values: Any) -> int:
        """An INSERT: the new row's id."""
        _, cursor = self._execute(values)
        return int(cursor.fetchone()[0] if database.obj.returning_clause else cursor.lastrowid)

    def ahead(self, *values: Any) -> ReadAhead:
        """This read, to be sent ahead (`pipeline.read_ahead`) of the code that makes it."""
        return ReadAhead(self, values)

    def start(self, *values: Any) -> Answer:
        """Send the statement; read its answer from what this returns, when it is needed
        (inside `pipelined()` on PostgreSQL, the statements sent before reading travel
        together). A read sent ahead with these values is not sent again: its answer is
        taken, once."""
        sent = SENT_AHEAD.get()
        if sent is not None:
            answer = sent.pop(ahead_key(self, values), None)
            if answer is not None:
                return answer
        query, cursor = self._execute(values)
        return Answer(self, query, cursor)

    def send(self, *values: Any) -> None:
        """Send a write whose answer no one reads (inside `pipelined()` it does not wait)."""
        self._execute(values)

    def rows_of(self, query: Any, cursor: Any) -> list[Any]:
        """The rows of `cursor`, an answer to `query`'s compiled SQL: made by the query's
        `_Shape` once one is known, else by peewee (whose first rows find the shape)."""
        read = cursor.fetchall()
        if not read:  # no rows to build (a first read's chat, notes, ratings)
            return []
        shape = self._shapes.get(id(query), _UNKNOWN)
        if shape is None:
            found = list(query.clone().execute(_Sent(_Fetched(cursor.description, read))))
        elif shape is not _UNKNOWN:
            # A shared joined row is made once (`_share_joined` has nothing left to do).
            return shape.rows(read, shared=self._share_joined)
        else:
            wrapper = query.clone().execute(_Sent(_Fetched(cursor.description, read)))
            found = list(wrapper)
            self._shapes[id(query)] = _Shape.of(query, wrapper, read, found)
        if self._share_joined and found:
            _share_joined(query, found)
        return found

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
                # peewee adds `RETURNING id` to a model's INSERT by itself; `returning=False`
                # leaves it out (an INSERT sent with `send`, whose id no one reads).
                query = query.returning(
                    *([query.model._meta.primary_key] if self._returning else []))
            sql, template = query.sql()
            entry = (db, query, sql, list(template))
            # Databases are few (one in production; tests bind a new one now and then).
            if len(self._compiled) > 8:
                self._compiled.clear()
                self._shapes.clear()
            self._compiled[id(db)] = entry
            return entry


class Answer:
    """A statement sent, its answer read when asked for: rows (a SELECT) or the count of rows
    changed (an UPDATE or DELETE)."""

    __slots__ = ("_cursor", "_prepared", "_query")

    def __init__(self, prepared: Prepared, query: Any, cursor: Any) -> None:
        self._prepared = prepared
        self._query = query
        self._cursor = cursor

    def rows(self) -> list[Any]:
        return self._prepared.rows_of(self._query, self._cursor)

    def first(self) -> Any:
        found = self.rows()
        return found[0] if found else None

    def changed(self) -> int:
        return int(self._cursor.rowcount)


class _Sent:
    """Stands for the database in peewee's `execute`, for a statement already sent: peewee
    asks it to run the query and gets the cursor holding its answer, from which peewee then
    builds the rows as it builds any query's."""

    __slots__ = ("cursor",)

    def __init__(self, cursor: Any) -> None:
        self.cursor = cursor

    def execute(self, query: Any, **_options: Any) -> Any:
        return self.cursor


class _Fetched:
    """A cursor's answer already read, for peewee to build its rows from."""

    __slots__ = ("description", "rows")

    def __init__(self, description: Any, rows: list[tuple[Any, ...]]) -> None:
        self.description = description
        self.rows = iter(rows)

    def fetchone(self) -> tuple[Any, ...] | None:
        return next(self.rows, None)

    def close(self) -> None:
        """peewee closes a cursor it has read to the end; this one holds nothing open."""


_UNKNOWN: Any = object()


class _Shape:
    """How to make the rows of a SELECT from the driver's tuples, with peewee's public parts
    only: each column through its field's `python_value`, each model's row made by its own
    constructor (`Model(**columns)`), each joined row set on the foreign key that leads to
    it. peewee works the same out again from the cursor on every query, which cost a
    posted move a third more instructions.

    Only plain shapes are made: `.tuples()` of any columns, or rows of a model (whole, or
    with every column that has a default) joined to whole models on required foreign keys of
    the first model, with expressions selected beside them (`EXISTS (…) AS name`) set on
    the first model's row. `of` returns None for the rest,
    and for any shape whose first rows differ from peewee's; peewee builds those."""

    def __init__(self, converters: list[tuple[Any, Callable[[Any], Any] | None]],
                 models: list[tuple[type[peewee.Model], list[tuple[int, str]]]] | None,
                 links: list[tuple[int, str]]) -> None:
        self.converters = [(number, converter, _kept_as_read(node))
                           for number, (node, converter) in enumerate(converters)
                           if converter is not None]
        self.models = models  # None: tuples
        self.links = links  # (model number, the first model's foreign key to it)
        # Where each joined row's primary key is read (None: not selected), to make a row
        # that several share once.
        self.keys = [_key_column(*models[number]) for number, _ in links] if models else []

    @classmethod
    def of(cls, query: Any, wrapper: Any, read: list[tuple[Any, ...]],
           found: list[Any]) -> _Shape | None:
        """The shape of `query`'s rows, if plain and if its rows are `found`, peewee's."""
        selected = list(query.selected_columns)
        converters = [(node, _converter(node)) for node in selected]
        shape: _Shape | None
        if type(wrapper) is peewee.ModelTupleCursorWrapper:
            shape = cls(converters, None, [])
        elif type(wrapper) in (peewee.ModelCursorWrapper, peewee.ModelObjectCursorWrapper):
            shape = cls._of_models(query.model, selected, converters, wrapper.cursor)
            if shape is not None and shape.links and type(wrapper) is not (
                    peewee.ModelCursorWrapper):
                return None  # `.objects()`: peewee puts every column on the one row
        else:
            return None
        return shape if shape is not None and shape.made_alike(read, found) else None

    @classmethod
    def _of_models(cls, model: type[peewee.Model], selected: list[Any],
                   converters: list[tuple[Any, Callable[[Any], Any] | None]],
                   cursor: Any) -> _Shape | None:
        names = [column[0] for column in cursor.description]
        owners: list[type[peewee.Model]] = [model]
        columns: list[list[tuple[int, str]]] = [[]]
        for number, node in enumerate(selected):
            owner = node.model if isinstance(node, peewee.Field) else model
            if owner not in owners:
                owners.append(owner)
                columns.append([])
            name = node.name if isinstance(node, peewee.Field) else names[number]
            columns[owners.index(owner)].append((number, name))
        for number, (owner, made) in enumerate(zip(owners, columns, strict=True)):
            if not isinstance(owner, type):
                return None  # a model alias
            unselected = set(owner._meta.fields) - {name for _, name in made}
            # A joined row is selected whole; the first may leave out columns without a
            # default (its constructor would fill those in, which peewee's rows leave unset).
            if unselected and (number > 0 or any(
                    owner._meta.fields[name] in owner._meta.defaults for name in unselected)):
                return None
        links = []
        for number, owner in enumerate(owners[1:], start=1):
            keys = [field for field in model._meta.sorted_fields
                    if isinstance(field, peewee.ForeignKeyField) and field.rel_model is owner]
            if len(keys) != 1 or keys[0].null:
                return None
            links.append((number, keys[0].name))
        return cls(converters, list(zip(owners, columns, strict=True)), links)

    def rows(self, read: list[tuple[Any, ...]], shared: bool = False) -> list[Any]:
        """The rows of `read`; `shared`: each joined row that several carry (the same
        primary key) is one object, made once."""
        converted = [self._converted(row) for row in read] if self.converters else read
        if self.models is None:
            return [tuple(row) for row in converted]
        made: dict[tuple[int, Any], Any] | None = {} if shared else None
        return [self._made(row, made) for row in converted]

    def _converted(self, row: tuple[Any, ...]) -> list[Any]:
        values = list(row)
        for number, converter, kept in self.converters:
            value = values[number]
            if value is not None and type(value) is not kept:
                values[number] = converter(value)
        return values

    def _made(self, row: Any, made: dict[tuple[int, Any], Any] | None = None) -> Any:
        """The row's first model, its joined rows set on it; with `made`, a joined row
        already made (by model number and primary key) is taken from there."""
        models = self.models or []
        owner, columns = models[0]
        first = owner(**{name: row[number] for number, name in columns})
        for (number, key), at in zip(self.links, self.keys, strict=True):
            shared = (number, row[at]) if at is not None else None
            joined = made.get(shared) if made is not None and shared else None
            if joined is None:
                owner, columns = models[number]
                joined = owner(**{name: row[column] for column, name in columns})
                if made is not None and shared:
                    made[shared] = joined
            setattr(first, key, joined)
        return first

    def made_alike(self, read: list[tuple[Any, ...]], found: list[Any]) -> bool:
        """Whether this shape makes of `read` the rows peewee made (`found`)."""
        mine = self.rows(read)
        if self.models is None:
            return mine == found
        return [_seen(row, self.models, self.links) for row in mine] == [
            _seen(row, self.models, self.links) for row in found]


def _key_column(model: type[peewee.Model], columns: list[tuple[int, str]]) -> int | None:
    """Where a model's primary key is in the rows (None: not selected)."""
    key = getattr(model._meta.primary_key, "name", None)
    return next((number for number, name in columns if name == key), None)


def _seen(row: Any, models: list[tuple[type[peewee.Model], list[tuple[int, str]]]],
          links: list[tuple[int, str]]) -> list[dict[str, Any]]:
    """A row as public API reads it, asking the database nothing: its columns (a foreign key
    as its id) and its other attributes, and its joined rows' columns."""
    rows = [row] + [getattr(row, key) for _, key in links]
    owners = [models[0]] + [models[number] for number, _ in links]
    return [{name: getattr(made, _stored_as(owner, name)) for _, name in columns}
            for made, (owner, columns) in zip(rows, owners, strict=True)]


def _stored_as(model: type[peewee.Model], name: str) -> str:
    """The attribute that holds a column's value as read: a foreign key's id, not its row."""
    field = model._meta.fields.get(name)
    return str(field.object_id_name) if isinstance(field, peewee.ForeignKeyField) else name


# Fields of these exact types give back a value of this type as it is (their `python_value`
# is peewee's `adapt`, `int(value)` or `str(value)`): such a value is taken without the call.
_KEPT_AS_READ: dict[type[peewee.Field], type] = {
    **dict.fromkeys((peewee.AutoField, peewee.BigAutoField, peewee.IntegerField,
                     peewee.BigIntegerField, peewee.SmallIntegerField), int),
    **dict.fromkeys((peewee.CharField, peewee.TextField, peewee.FixedCharField), str)}


def _kept_as_read(node: Any) -> type | None:
    """The type a selected field's values keep through its converter (a foreign key's: its
    key field's), or None."""
    if type(node) is peewee.ForeignKeyField:
        node = node.rel_field
    return _KEPT_AS_READ.get(type(node))


def _converter(node: Any) -> Callable[[Any], Any] | None:
    """What peewee converts a selected column's value with: a field's `python_value`, and a
    function of a field (`MAX(created_at)`) its field's."""
    inner = node.node if isinstance(node, peewee.Alias) else node
    if isinstance(inner, peewee.Field):
        return inner.python_value
    if isinstance(inner, peewee.Function) and inner.arguments and isinstance(
            inner.arguments[0], peewee.Field):
        return inner.arguments[0].python_value
    return None


def _share_joined(query: Any, rows: list[peewee.Model]) -> None:
    """Make each joined row that several rows carry (the same primary key) one object: the
    first row's."""
    for field in _joined_keys(query):
        seen: dict[Any, Any] = {}
        for row in rows:
            key = getattr(row, field.object_id_name)
            if key is None:
                continue
            first = seen.setdefault(key, getattr(row, field.name))
            if first is not getattr(row, field.name):
                setattr(row, field.name, first)


@functools.lru_cache(maxsize=256)
def _joined_keys(query: Any) -> list[peewee.ForeignKeyField]:
    """The foreign keys of the query's model that lead to a model whose columns it selects
    (its compiled queries are few, kept with their `Prepared`)."""
    model = query.model
    selected = {getattr(column, "model", None) for column in query.selected_columns}
    return [field for field in model._meta.sorted_fields
            if isinstance(field, peewee.ForeignKeyField) and field.rel_model in selected
            and field.rel_model is not model]


class Planned:
    """Rows of a SELECT whose SQL varies from call to call (an IN list of ids, say): peewee
    compiles it and builds its rows each time. (Once the rows were built by a plan kept from
    the first call; kept as a name for the callers.)"""

    def rows(self, query: Any) -> list[Any]:
        return list(query.execute())


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
    row, names, stored = _new_row(model, values)
    row.id = _INSERTS(model, names).insert(*stored)
    return row


def add_row(model: type[BaseModel], **values: Any) -> None:
    """`insert_row` for a row whose id no one needs: it reads no answer from the database, so
    inside `pipelined()` it travels with the statements around it instead of waiting."""
    fields, given = _set_fields(model, values)
    _ADDS(model, tuple(field.name for field in fields)).send(*[
        field.db_value(given[field.name] if field.name in given else _default(model, field))
        for field in fields])


def _set_fields(model: type[BaseModel], values: dict[str, Any]
                ) -> tuple[list[peewee.Field], dict[str, Any]]:
    """The columns but the id that `model(**values)` sets (given by name or column name, or
    with a default), and the values given, by field name."""
    meta = model._meta
    given = {meta.combined[name].name: value for name, value in values.items()
             if name in meta.combined}
    return [field for field in meta.sorted_fields if field.name != "id"
            and (field.name in given or field in meta.defaults)], given


def _default(model: type[BaseModel], field: peewee.Field) -> Any:
    default = model._meta.defaults[field]
    return default() if callable(default) else default


def _new_row(model: type[M], values: dict[str, Any]) -> tuple[M, tuple[str, ...], list[Any]]:
    """The row `values` make with the model's defaults, its columns but the id that are set,
    and their values as the database stores them."""
    row = model(**values)
    fields, _ = _set_fields(model, values)
    return row, tuple(field.name for field in fields), [
        field.db_value(getattr(row, str(getattr(field, "object_id_name", field.name))))
        for field in fields]


def update_columns(row: BaseModel, names: Iterable[str]) -> None:
    """Write these columns of `row` (as it holds them now) to its database row, by id: a save
    of only what a change touched, compiled once per set of columns. It reads no answer (how
    many rows changed), so inside `pipelined()` it does not wait."""
    names = tuple(names)
    fields = type(row)._meta.fields
    _UPDATES(type(row), names).send(
        *[fields[name].db_value(getattr(row, name)) for name in names], row.id)


def _insert_shape(model: type[BaseModel], names: tuple[str, ...],
                  returning: bool = True) -> Prepared:
    fields = [model._meta.fields[name] for name in names]
    return Prepared(lambda *slots: model.insert(dict(zip(fields, slots, strict=True))),
                    arity=len(names), returning=returning)


def _update_shape(model: type[BaseModel], names: tuple[str, ...]) -> Prepared:
    fields = [model._meta.fields[name] for name in names]
    return Prepared(lambda *slots: model.update(dict(zip(fields, slots[:-1], strict=True)))
                    .where(model._meta.primary_key == slots[-1]), arity=len(names) + 1)


_INSERTS = Shapes(_insert_shape)
_ADDS = Shapes(lambda model, names: _insert_shape(model, names, returning=False))
_UPDATES = Shapes(_update_shape)
