"""Everything pbem does with peewee's private state, in one place, for the peewee release it
was written against: importing this module under another release fails at once, naming the
pieces to check (tests/core/db/test_reaches.py holds the check).

What stays here pays for itself or is needed for correctness:
- the pool's check of a connection before reuse, skipped for one handed back seconds ago
  (`TrustRecentlyReturned`, peewee's pool's `_close` and `_is_closed`): a busy worker would
  otherwise wait for a `SELECT 1` round trip on every request;
- the connection peewee opens, handed to `on_connect` to adjust (`connect_hook`, peewee's
  `_connect`): PostgreSQL's cursors that answer inside a pipeline;
- peewee's mapping of a driver's errors to its own (`AS_PEEWEES`);
- a forked child's start without its parent's connections (`forget_connections`, peewee's
  per-thread state and the pool's lists), the fork-safety fix;
- whether a row holds the row a foreign key leads to, read with it (`joined_row`, peewee's
  `__rel__`): reading the attribute would ask the database when it does not.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import peewee
from playhouse.pool import PooledDatabase

from pbem.library_versions import check_version

# The peewee release (major.minor) these reaches were written and tested against.
WRITTEN_FOR = "4.5"


check_version("peewee", peewee.__version__, WRITTEN_FOR, __name__)  # type: ignore[attr-defined]

# peewee's own mapping of a driver's errors to its classes (not in its type stubs).
AS_PEEWEES: Any = getattr(peewee, "__exception_wrapper__")  # noqa: B009

# A pooled connection handed back this recently is taken again without the pool's check.
TRUST_RETURNED_SECONDS = 5.0


class TrustRecentlyReturned:
    """A pool that checks a connection before reuse (PostgreSQL: a `SELECT 1` round trip,
    MariaDB: a ping) only when it has sat idle: a busy web worker would otherwise pay that
    round trip on every request, for a connection it handed back milliseconds before. A
    server that restarted in those seconds shows as one unavailable request (a 503 the
    player is asked to retry, a job retried next tick); its connection is then discarded."""

    _returned: dict[int, float]

    def _close(self, conn: Any, close_conn: bool = False) -> Any:
        returned = self.__dict__.setdefault("_returned", {})
        if close_conn:
            returned.pop(id(conn), None)
        else:
            returned[id(conn)] = time.monotonic()
        return super()._close(conn, close_conn)  # type: ignore[misc]

    def _is_closed(self, conn: Any) -> bool:
        returned = self.__dict__.get("_returned", {}).get(id(conn))
        if returned is not None and time.monotonic() - returned < TRUST_RETURNED_SECONDS:
            # What the driver already knows, without asking the server: psycopg's `closed`,
            # PyMySQL's `open`.
            return bool(getattr(conn, "closed", False)) or not getattr(conn, "open", True)
        return bool(super()._is_closed(conn))  # type: ignore[misc]


class ConnectHook:
    """A database whose new driver connections pass through `on_connect` (a pool's too:
    it opens them the same way)."""

    def on_connect(self, connection: Any) -> Any:
        return connection

    def _connect(self) -> Any:
        return self.on_connect(super()._connect())  # type: ignore[misc]


def forget_connections(db: peewee.Database, keep: Callable[[Any], None]) -> None:
    """Make `db` hold no connection, without closing any: each one it held (its thread's,
    and a pool's idle and lent ones) is given to `keep`, then peewee's `dispose` forgets
    them."""
    keep(db._state.conn)  # type: ignore[attr-defined]
    if isinstance(db, PooledDatabase):
        for entry in getattr(db, "_connections", ()):
            keep(entry[-1])
        for used in getattr(db, "_in_use", {}).values():
            keep(used.connection)
    db.dispose()


def joined_row(row: peewee.Model, key: str) -> Any:
    """The row that `row`'s foreign key `key` leads to, if it was read with `row` (joined or
    set); None if reading it would ask the database. Reads only."""
    found = row.__rel__.get(key)
    return found if isinstance(found, peewee.Model) else None
