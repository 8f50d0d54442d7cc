"""Fixed-shape queries compiled to SQL once per database, not on every call.

peewee builds a query's SQL afresh each time it runs; on the hottest queries (a seat by its
link, a match and its seats under the door's lock, the rows a move writes) that was a large
share of a request. A `Prepared` query is written as ordinary peewee code taking
placeholders; it is compiled the first time it runs on a database, and later calls only
substitute the values.

The values are passed to the driver as they are (no field conversion), so give them as the
database stores them: integers, strings, datetimes. `insert_row` and `update_columns` do that
conversion themselves, for writes whose columns vary.

It reads peewee's internals (a query's cursor wrapper, a model's metadata), so peewee is pinned
to the minor version below in pyproject.toml, a test holds the two together, and only the hot
paths listed in tests/test_layers.py use it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from inspect import signature
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

import peewee

from pbem.core.db.connection import database

if TYPE_CHECKING:
    from pbem.core.db.base import BaseModel

# The peewee release this layer was written and tested against (major.minor).
PEEWEE_MINOR = "4.5"

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
        self._plans: dict[int, _RowPlan | _TuplePlan | None] = {}
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

    def _rows(self, query: Any, cursor: Any) -> list[Any]:
        plan = self._plans.get(id(database.obj))
        if plan is not None:
            if self._share_joined:
                seen: dict[tuple[int, Any], Any] = {}
                return [plan.build(row, seen) for row in cursor.fetchall()]
            return [plan.build(row) for row in cursor.fetchall()]
        if id(database.obj) in self._plans:  # a shape peewee builds: it was asked already
            return list(query._get_cursor_wrapper(cursor))
        # The query object only describes the columns and joins to build rows from; once
        # peewee has worked out how (on the first rows), the plan is kept.
        wrapper = query._get_cursor_wrapper(cursor)
        found = list(wrapper)
        if wrapper.initialized or _described(wrapper):
            self._plans[id(database.obj)] = _RowPlan.of(wrapper, self._share_joined)
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
            sql, template = db.get_sql_context().sql(query).query()
            entry = (db, query, sql, list(template))
            # Databases are few (one in production; tests bind a new one now and then).
            if len(self._compiled) > 8:
                self._compiled.clear()
                self._plans.clear()
            self._compiled[id(db)] = entry
            self._plans.pop(id(db), None)
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
        return self._prepared._rows(self._query, self._cursor)

    def first(self) -> Any:
        found = self.rows()
        return found[0] if found else None

    def changed(self) -> int:
        return int(self._cursor.rowcount)


class Planned:
    """Rows of a SELECT whose SQL varies from call to call (an IN list of ids, say) but whose
    columns and joins do not: peewee compiles it each time, but its rows are built by the
    plan kept from the first call (see `_RowPlan`), not by peewee's cursor wrapper. A batch
    of mails reads a few hundred match, seat and player rows this way."""

    def __init__(self) -> None:
        self._plans: dict[int, _RowPlan | _TuplePlan | None] = {}

    def rows(self, query: Any) -> list[Any]:
        cursor = database.execute(query)
        key = id(database.obj)
        if key in self._plans:
            plan = self._plans[key]
            if plan is not None:
                return [plan.build(row) for row in cursor.fetchall()]
            return list(query._get_cursor_wrapper(cursor))
        wrapper = query._get_cursor_wrapper(cursor)
        found = list(wrapper)
        if wrapper.initialized or _described(wrapper):
            if len(self._plans) > 8:  # databases are few; tests bind a new one now and then
                self._plans.clear()
            self._plans[key] = _RowPlan.of(wrapper)
        return found


def _described(wrapper: Any) -> bool:
    """Set up a cursor wrapper that met no row, as peewee sets one up on its first row, when
    its cursor still describes the columns (SQLite's and PyMySQL's do; psycopg's, closed, do
    not): a read that answers nothing (no chat yet, no rating) is then planned like one that
    answered, not left to peewee's wrapper on every call until a row comes."""
    if getattr(wrapper.cursor, "description", None) is None:
        return False
    wrapper.initialize()
    wrapper.initialized = True
    return True


class _RowPlan:
    """How to make model rows of a compiled SELECT from the driver's tuples: which model and
    field each column fills (and its converter), and which joined row each FK holds.

    Read once from peewee's own cursor wrapper, which otherwise works it out again for every
    query and then sets each column through the model's descriptors; for a page's handful of
    reads that was as much as the reading itself. Only plain shapes are planned (one model,
    or models joined on their foreign keys, and on the first model any selected expression
    under a name of its own, `EXISTS (…) AS name`); `of` returns None for others, which
    peewee keeps building.
    """

    def __init__(self, models: list[type[peewee.Model]],
                 columns: list[tuple[int, str, Callable[[Any], Any] | None, bool]],
                 links: list[tuple[int, str, int]], share_joined: bool = False) -> None:
        # The plan lives on only as the function written for it.
        self.build = _row_builder(models, columns, links, share_joined)

    @classmethod
    def of(cls, wrapper: Any, share_joined: bool = False) -> _RowPlan | _TuplePlan | None:
        """The plan of the rows `wrapper` read. `share_joined`: a joined row read again in
        the same answer (the same primary key) is the row already made, not made again."""
        if type(wrapper) is peewee.ModelTupleCursorWrapper:
            return _TuplePlan(list(wrapper.converters))
        # A selected expression that is no field (`EXISTS (…) AS name`, say) is set on the
        # main row as a plain attribute, as peewee does. Not planned: one on a joined row, or
        # one named like something the model has (peewee would set that field instead).
        extras = [field is None for field in wrapper.fields]
        if type(wrapper) is peewee.ModelObjectCursorWrapper and wrapper.is_model:
            columns = [(0, wrapper.unique_columns[i], wrapper.converters[i], extras[i])
                       for i in range(wrapper.ncols)]
            return cls([wrapper.constructor], columns, []) if _plain_extras(
                [wrapper.constructor], columns) else None
        if type(wrapper) is not peewee.ModelCursorWrapper:
            return None
        joined: Any = wrapper  # its join set-up is not in peewee's type stubs
        keys = [joined.model] + [key for key, _, _ in joined._constructor_list
                                 if key is not joined.model]
        if not all(isinstance(key, type) and issubclass(key, peewee.Model) for key in keys):
            return None
        index = {key: number for number, key in enumerate(keys)}
        links = []
        for source, attr, dest, is_dict, is_outer, is_fk in joined.src_to_dest:
            if is_dict or is_outer or not is_fk:
                return None
            links.append((index[source], attr, index[dest]))
        columns = [(index[key], column, converter, extra) for (_, key, column, converter), extra
                   in zip(joined._row_spec, extras, strict=True)]
        return (cls(keys, columns, links, share_joined) if _plain_extras(keys, columns)
                else None)


def _row_builder(models: list[type[peewee.Model]],
                 columns: list[tuple[int, str, Callable[[Any], Any] | None, bool]],
                 links: list[tuple[int, str, int]],
                 share_joined: bool = False) -> Callable[..., Any]:
    """A plan's rows as one function written for its columns: each model row made as peewee's
    Model.__init__ would (without its defaults and descriptors), each column put straight
    into its row's data, through its converter if it has one, each joined row linked to the
    row whose foreign key holds it. Looping over the plan for every column of every row was
    about a third of reading a play page's rows. The function is written as `dataclasses`
    writes an `__init__`: its text is made here from the plan's positions, and every name in
    it is a string literal (`repr`), never code; the models and converters are passed in as
    values. (Converters run model by model here, not strictly in column order; none has a
    side effect.)

    With `share_joined`, the function takes a dict as well, kept for one answer's rows: a
    joined row whose primary key it has seen is that row, not made (and converted) again (a
    match's seats read with their match carry the match's columns once per seat)."""
    names: dict[str, Any] = {f"_model{number}": model for number, model in enumerate(models)}
    lines = ["def build(row, seen=None):",
             f"    if len(row) != {len(columns)}:",
             f"        raise ValueError(f'a row of {{len(row)}} columns, not {len(columns)}')"]
    if share_joined:
        lines.append("    seen = {} if seen is None else seen")
    data: list[list[str]] = [[] for _ in models]
    extras: list[str] = []
    for place, (number, name, converter, extra) in enumerate(columns):
        value = f"row[{place}]"
        if converter is not None:
            names[f"_convert{place}"] = converter
            value = f"_convert{place}({value})"
            kept_as_read = _kept_as_read(converter)
            if kept_as_read is not None:
                # A value the converter would return unchanged is taken as it is.
                names[f"_type{place}"] = kept_as_read
                value = (f"(_v if (_v := row[{place}]) is None or type(_v) is _type{place} "
                         f"else _convert{place}(_v))")
        (extras if extra else data[number]).append(f"{name!r}: {value}")
    for number, model in enumerate(models):
        made = [f"made{number} = _model{number}.__new__(_model{number})",
                f"made{number}.__data__ = {{{', '.join(data[number])}}}",
                f"made{number}._dirty = set()",
                f"made{number}.__rel__ = {{}}"]
        key = next((place for place, (owner, name, _, extra) in enumerate(columns)
                    if owner == number and not extra
                    and name == getattr(model._meta.primary_key, "name", None)), None)
        if not share_joined or number == 0 or key is None:
            lines += [f"    {line}" for line in made]
            continue
        lines += [f"    key{number} = ({number}, row[{key}])",
                  f"    made{number} = seen.get(key{number})",
                  f"    if made{number} is None:",
                  *[f"        {line}" for line in made],
                  f"        seen[key{number}] = made{number}"]
    if extras:
        lines.append(f"    made0.__dict__.update({{{', '.join(extras)}}})")
    lines += [f"    made{source}.__rel__[{attr!r}] = made{dest}" for source, attr, dest in links]
    lines.append("    return made0")
    exec(compile("\n".join(lines), "<pbem row plan>", "exec"), names)
    return names["build"]


def _kept_as_read(converter: Callable[[Any], Any]) -> type | None:
    """The type whose values (and None) `converter` returns unchanged, when it is a plain
    integer or text field's (or a foreign key's to one): peewee's `python_value` then calls
    `adapt`, which returns an `int` or a `str` as it is; a column of the row's ints and
    strings took two calls each to stay what it was. None for any other converter (a field
    that overrides either method, JSON, times, booleans)."""
    field = getattr(converter, "__self__", None)
    if not isinstance(field, peewee.Field) or converter != field.python_value:
        return None
    kind = type(field)
    if isinstance(field, peewee.ForeignKeyField) and (
            kind.python_value is peewee.ForeignKeyField.python_value):
        field = field.rel_field  # an int is no row of the model: it goes to the key's field
        kind = type(field)
    if kind.python_value is not peewee.Field.python_value:
        return None
    if kind.adapt is peewee.IntegerField.adapt:
        return int
    if kind.adapt is peewee._StringField.adapt:
        return str
    return None


def _plain_extras(models: list[type[peewee.Model]],
                  columns: list[tuple[int, str, Callable[[Any], Any] | None, bool]]) -> bool:
    """Whether every selected expression goes on the first row, under a name its model lacks."""
    return all(number == 0 and not hasattr(models[0], name)
               for number, name, _, extra in columns if extra)


class _TuplePlan:
    """`_RowPlan` for a `.tuples()` SELECT: each column through its field's converter, as
    peewee's tuple wrapper does, without working out the converters again for every query."""

    def __init__(self, converters: list[Callable[[Any], Any] | None]) -> None:
        self.converted = [(number, converter) for number, converter in enumerate(converters)
                          if converter is not None]

    def build(self, row: tuple[Any, ...], seen: Any = None) -> tuple[Any, ...]:
        if not self.converted:
            return tuple(row)
        values = list(row)
        for number, converter in self.converted:
            values[number] = converter(values[number])
        return tuple(values)


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
    row._dirty.clear()  # type: ignore[attr-defined]  # as after `create`
    return row


def add_row(model: type[BaseModel], **values: Any) -> None:
    """`insert_row` for a row whose id no one needs: it reads no answer from the database, so
    inside `pipelined()` it travels with the statements around it instead of waiting."""
    _, names, stored = _new_row(model, values)
    _ADDS(model, names).send(*stored)


def _new_row(model: type[M], values: dict[str, Any]) -> tuple[M, tuple[str, ...], list[Any]]:
    """The row `values` make with the model's defaults, its columns but the id, and their
    values as the database stores them."""
    row = model(**values)
    data = row.__data__
    names = tuple(name for name in data if name != "id")
    fields = model._meta.fields
    return row, names, [fields[name].db_value(data[name]) for name in names]


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
