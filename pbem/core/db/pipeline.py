"""Statements sent to PostgreSQL together: one round trip for many.

A move is a dozen statements: the door's three reads (the match and its seats, locked, and the
seated players) and the rows the move writes (the match, the move, the position, two seats'
clocks, a turn mail, the change log). On PostgreSQL each statement used to wait for its answer
before the next was sent: a round trip each, most of a move's time. Inside `pipelined()`,
psycopg sends each statement at once (its pipeline mode) and waits only when an answer is read:
a SELECT's rows, an UPDATE's count, an INSERT's id. The server still runs them one after
another, in order, so what a statement sees is what it saw before; only the waiting between
them goes.

So code inside reads an answer only when it needs it:
- `Prepared.start` sends a statement and reads its answer later (the door sends its three
  reads, then reads them);
- `add_row` and `update_columns` read no answer at all, and the door's guarded write of the
  match row checks its count once, after the change (`Locked.check_writes`);
- everything else (peewee queries, `insert_row`, `Prepared.rows`) reads its answer at once,
  which waits, as before. Counts wait too: pbem's PostgreSQL cursors (`_AnsweringCursors` in
  `connection.py`) make a `rowcount` wait for its statement, where psycopg would report -1
  for one not answered yet, and raise a statement's error, met when its answer is read, as
  peewee's.

A block must not catch a database error and carry on (a savepoint's "insert, or else"): after
an error PostgreSQL skips every statement until the block ends, and a COMMIT after that would
quietly roll back. The block raises `AbortedBlock` instead (for the statement skipped, or at
its end), so the transaction ends in a rollback and its caller hears of it as the mistake it
is, not as a database that is down. Catching an error and raising another, as the audit log's
"already done" does, is fine.

On SQLite and MariaDB `pipelined()` does nothing: each statement runs when it is sent (a
SQLite statement is a function call; PyMySQL has no pipeline).

Those cursors read two of psycopg's internals (a cursor's `_fetch_pipeline` and `_rowcount`);
tests/core/db/test_pipeline.py fails if a psycopg release changes them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import peewee

from pbem.core.db.connection import AS_PEEWEES as _AS_PEEWEES
from pbem.core.db.connection import database, write_transaction
from pbem.core.db.prepared import SENT_AHEAD, ReadAhead, ahead_key

__all__ = ["AbortedBlock", "ReadAhead", "pipelined", "pipelined_transaction", "pipelining",
           "read_ahead"]

log = logging.getLogger(__name__)


class AbortedBlock(peewee.InternalError):
    """A statement failed inside `pipelined()` and the error was caught there: the
    transaction cannot go on, and must not commit."""


def pipelining() -> bool:
    """Whether statements sent now travel in a pipeline (and their answers come later)."""
    db = database.obj
    return bool(isinstance(db, peewee.PostgresqlDatabase) and not db.is_closed()
                and db.connection().pgconn.pipeline_status != _PIPELINE_OFF)


@contextmanager
def pipelined() -> Iterator[None]:
    """Send the statements run inside to PostgreSQL without waiting for each answer (see the
    module's docstring). Leaving the block waits for every answer still due; an error in any
    statement is raised, as peewee's error, by the read that meets it or at the block's end."""
    db = database.obj
    if not isinstance(db, peewee.PostgresqlDatabase):
        yield
        return
    connection = db.connection()
    if connection.pgconn.pipeline_status != _PIPELINE_OFF:  # inside one: it carries these
        yield
        return
    # peewee maps a driver's errors to its own (IntegrityError, OperationalError, …) only
    # around `execute_sql`; here an error arrives when an answer is read, or at the block's end.
    with _skipped_as_aborted(), _as_peewees(), connection.pipeline():
        yield
        aborted = _aborted(connection)
    if aborted:
        raise AbortedBlock(_ABORTED)


@contextmanager
def pipelined_transaction() -> Iterator[None]:
    """`write_transaction()` with `pipelined()` inside it, except that on PostgreSQL the
    transaction's BEGIN and COMMIT travel with its statements too: BEGIN with the first
    reads, COMMIT with the block's end, which waits for every answer anyway. (Leaving a
    pipeline waits for the server once more; a COMMIT sent after it would wait again.)

    Inside a transaction already open it is `pipelined()` alone. An error, or an exception
    of the block's own (a refused move), rolls the transaction back, outside the pipeline:
    a ROLLBACK inside one that met an error would be skipped with everything else."""
    db = database.obj
    if not isinstance(db, peewee.PostgresqlDatabase) or db.in_transaction():
        with write_transaction(), pipelined():
            yield
        return
    connection = db.connection()
    transaction = db.transaction()  # peewee's bookkeeping: `in_transaction()`, savepoints
    try:
        with pipelined():
            db.begin()
            db.push_transaction(transaction)
            try:
                yield
            finally:
                db.pop_transaction()
            if not _aborted(connection):  # else `pipelined()` raises AbortedBlock
                db.commit()
    except BaseException:
        # Not after a COMMIT that failed (the server has ended the transaction), nor on a
        # broken connection (a rollback's error would hide the cause).
        if connection.info.transaction_status in (_IN_TRANSACTION, _IN_ERROR):
            try:
                db.rollback()
            except (peewee.DatabaseError, peewee.InterfaceError):
                # The connection broke too: what raised first is the cause to report (the
                # pool discards a broken connection).
                log.warning("could not roll back after an error in a pipelined block",
                            exc_info=True)
        raise


@contextmanager
def read_ahead(*reads: ReadAhead) -> Iterator[None]:
    """Send `reads` (`Prepared.ahead`) together now, for code inside to read: a page's
    independent reads (a play page's notes, ratings, tournament and chat, each asked for by
    its own package) wait for PostgreSQL once, not once each. Each read's own `rows` or
    `first` inside takes its answer, if called with the same values; one not called is
    dropped, and one called again is sent again. An answer is what the database held when
    it was sent: only for reads that nothing written inside the block changes (a play page
    notes the seat's visit, a column none of its reads ahead selects). Elsewhere nothing is
    sent early: a SQLite read costs no round trip, and PyMySQL has no pipeline."""
    if not isinstance(database.obj, peewee.PostgresqlDatabase) or pipelining():
        yield
        return
    with pipelined():
        # Leaving the pipeline waits once for every answer; each stays with its cursor.
        sent = {ahead_key(read.prepared, read.values): read.prepared.start(*read.values)
                for read in reads}
    token = SENT_AHEAD.set(sent)
    try:
        yield
    finally:
        SENT_AHEAD.reset(token)


@contextmanager
def _as_peewees() -> Iterator[None]:
    """peewee's mapping of the driver's errors to its own, for an error met when an answer
    is read or when the pipeline syncs; an error that is peewee's already passes as it is
    (mapped again, it would hide the driver's error one level deeper)."""
    try:
        yield
    except peewee.PeeweeException:
        raise
    except Exception:
        with _AS_PEEWEES:
            raise


@contextmanager
def _skipped_as_aborted() -> Iterator[None]:
    """A statement skipped because an earlier one failed and the block caught its error
    (psycopg's PipelineAborted) is `AbortedBlock`, not a database that is down."""
    try:
        yield
    except peewee.OperationalError as error:
        if type(getattr(error, "orig", None)).__name__ != "PipelineAborted":
            raise
        raise AbortedBlock(_ABORTED) from error


def _aborted(connection: Any) -> bool:
    """Whether a statement of the block failed and the block caught its error: the server
    has skipped what came after it (the pipeline is aborted until it syncs), or the
    transaction has failed (it synced since)."""
    return bool(connection.pgconn.pipeline_status == _PIPELINE_ABORTED
                or connection.info.transaction_status == _IN_ERROR)


# Raised outside peewee's mapping of errors, which would make it a plain InternalError.
_ABORTED = ("a statement failed inside a pipelined block and its error was caught there; "
            "the transaction is rolled back")


# psycopg's TransactionStatus and PipelineStatus values, without importing psycopg where it
# is not installed.
_IN_TRANSACTION = 2
_IN_ERROR = 3
_PIPELINE_OFF = 0
_PIPELINE_ABORTED = 2
