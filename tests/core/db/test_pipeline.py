"""The door's statements travel together on PostgreSQL (`pbem.core.db.pipeline`): a move waits
for the server three times, not twelve, and nothing about what it does changes. On every
backend: counts are real counts inside the block, errors arrive as peewee's, a guarded write
that finds another version is a lost race, and a database error caught inside the block can
never let its transaction commit."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import timedelta
from typing import ClassVar

import peewee
import pytest
from playhouse.pool import PooledDatabase

from pbem.core.db.connection import database
from pbem.core.db.pipeline import AbortedBlock, pipelined, pipelined_transaction, read_ahead
from pbem.core.db.prepared import Prepared, add_row, insert_row
from pbem.core.db.retry import LostRace
from pbem.core.matches.changes import Change, Locked, apply_change, locked
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import ChangeLog, Match, Move
from pbem.core.matches.play import submit_move
from pbem.errors import ConflictError
from tests.conftest import BACKENDS, START

SECRET = "test-secret-key"
PLAYERS = ["ann@example.org", "ben@example.org"]
FIRST = "b2-a1"  # a legal first move of seat 0 in every new mimic match
POSTGRES_ONLY = [name for name in BACKENDS if name == "postgres"]


@contextmanager
def waits(db: peewee.Database | None = None) -> Iterator[list[str]]:
    """Each time the client waited for PostgreSQL while inside, from libpq's trace of the
    messages: a run of messages sent that ends in a simple query, a Sync or a Flush and is
    answered. Each is named by the statements executed in it ("BEGIN+SELECT+SELECT"),
    prepared ones too (psycopg prepares a statement run five times on a connection, and then
    sends it without its text). On `db`'s connection (default: pbem's)."""
    import psycopg

    seen: list[str] = []
    connection = (db or database).connection()
    pgconn = connection.pgconn
    # The statements prepared on this connection before the trace, by name (those prepared
    # inside are named by their Parse messages).
    verbs = {name: text.split()[0] for name, text in connection.execute(
        "SELECT name, statement FROM pg_prepared_statements").fetchall()}
    with tempfile.TemporaryFile() as trace:
        pgconn.trace(trace.fileno())
        pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
        try:
            yield seen
        finally:
            pgconn.untrace()
            trace.seek(0)
            sent: list[str] = []
            asked = False
            bound = ""
            for line in trace.read().decode().splitlines():
                if line.count("\t") < 2:  # the rest of a message's text that spans lines
                    continue
                direction, _, kind, *rest = line.split("\t")
                if direction == "F" and kind == "Parse":
                    name, _, text = rest[0].split('"')[1:4]
                    verbs[name] = text.split()[0]
                elif direction == "F" and kind == "Bind":
                    bound = rest[0].split('"')[3]
                elif direction == "F" and kind == "Execute":
                    sent.append(verbs.get(bound, f"?{bound}"))
                elif direction == "F" and kind == "Query":
                    sent.append(rest[0].split('"')[1].split()[0])
                asked = asked or (direction == "F" and kind in ("Query", "Sync", "Flush"))
                if direction == "B" and asked:
                    seen.append("+".join(sent))
                    sent, asked = [], False


def _match() -> int:
    return create_match("mimic", PLAYERS, {}, SECRET, START, seed=3).match.id


def _logged(match_id: int) -> int:
    """Rows of the change log made after the match's creation (which logs one)."""
    return ChangeLog.select().where(ChangeLog.match == match_id).count() - 1


@pytest.mark.parametrize("db_url", POSTGRES_ONLY, indirect=True)
def test_a_move_waits_for_postgresql_three_times(db_url: str) -> None:
    """The door's three reads in one round trip (with BEGIN); the change's five writes with
    the turn mail's question (did its seat look lately, does its player take pushes:
    mailout/waiting.py) in another; the mail and the change log's rows with the COMMIT at
    the block's end. Each statement waited for its own answer before: twelve round trips."""
    match_id = _match()
    with waits() as seen:
        submit_move(match_id, 0, FIRST, 0, START + timedelta(minutes=1))
    assert seen == ["BEGIN+SELECT+SELECT+SELECT",
                    "UPDATE+INSERT+INSERT+UPDATE+UPDATE+SELECT", "INSERT+INSERT+COMMIT"], seen
    match = Match.get_by_id(match_id)
    assert (match.ply, match.version) == (1, 1)
    assert Move.select().where(Move.match == match_id).count() == 1
    assert _logged(match_id) == 1


@pytest.mark.parametrize("db_url", POSTGRES_ONLY, indirect=True)
def test_a_refused_move_leaves_the_connection_idle(db_url: str) -> None:
    """The change refuses after the door's reads: the rollback goes out after the pipeline,
    and the connection serves the next statement."""
    from pbem.games.base import RulesError

    match_id = _match()
    with pytest.raises(RulesError):
        submit_move(match_id, 0, "z9-z9", 0, START)
    assert not database.in_transaction()
    assert database.connection().info.transaction_status == 0  # idle
    assert Match.get_by_id(match_id).version == 0


def test_a_count_inside_the_block_is_the_real_count(db_url: str) -> None:
    """psycopg answers -1 for an UPDATE not yet answered in a pipeline; the count must wait
    for its answer, or a caller would read "no row changed"."""
    match_id = _match()
    with pipelined_transaction():
        changed = Match.update(turn=Match.turn + 1).where(Match.id == match_id).execute()
        none = Match.update(turn=Match.turn + 1).where(Match.id == match_id + 1000).execute()
    assert (changed, none) == (1, 0)


def test_an_error_inside_arrives_as_peewees_and_nothing_is_kept(db_url: str) -> None:
    """A unique violation sent without waiting (on PostgreSQL it is met at the block's end)
    is peewee's IntegrityError, and the rows written before it in the block are gone."""
    match_id = _match()
    with pytest.raises(peewee.IntegrityError), pipelined_transaction():
        add_row(ChangeLog, match=match_id, version=0, kind="note", actor="server",
                channel="cli", payload={}, at=START)
        for _ in range(2):  # the same (match, ply) twice: the second is refused
            add_row(Move, match=match_id, ply=1, turn=0, seat=0, text=FIRST,
                    created_at=START)
    assert not database.in_transaction()
    assert _logged(match_id) == 0
    assert Move.select().where(Move.match == match_id).count() == 0


@pytest.mark.parametrize("savepoint", [True, False], ids=["in a savepoint", "bare"])
def test_a_caught_error_inside_can_never_commit(db_url: str, savepoint: bool) -> None:
    """Catching a statement's error and carrying on works on SQLite and MariaDB (the
    statement alone is undone). On PostgreSQL the transaction is lost with it, and inside a
    pipeline the server skips everything after the error: the block raises (a savepoint's
    rollback is refused; with nothing sent after the error, `AbortedBlock`) rather than
    commit what PostgreSQL would quietly roll back; the connection is usable after."""
    match_id = _match()

    def duplicate() -> None:
        Move.create(match=match_id, ply=1, turn=0, seat=0, text=FIRST, created_at=START)

    def block() -> None:
        with pipelined_transaction():
            add_row(ChangeLog, match=match_id, version=0, kind="note", actor="server",
                    channel="cli", payload={}, at=START)
            add_row(Move, match=match_id, ply=1, turn=0, seat=0, text=FIRST, created_at=START)
            try:
                if savepoint:
                    with database.atomic():
                        duplicate()
                else:
                    duplicate()
            except peewee.IntegrityError:
                pass

    if db_url.startswith("postgres"):
        with pytest.raises(AbortedBlock):
            block()
        kept = 0
    else:
        block()
        kept = 1
    assert _logged(match_id) == kept
    assert Move.select().where(Move.match == match_id).count() == kept
    assert not database.in_transaction()


def test_a_guarded_write_that_finds_another_version_is_a_lost_race(db_url: str) -> None:
    """The match row's guard is checked once the change is done (`check_writes`): a write
    made against a version the row no longer has is a lost race, and nothing is kept."""
    match_id = _match()
    with pytest.raises(LostRace), pipelined_transaction():
        door = locked(match_id, START)
        door.match.version += 1  # as if read before another change
        door.write(turn=door.match.turn)
        door.check_writes()
    assert Match.get_by_id(match_id).version == 0


def test_pipelined_does_nothing_but_run_the_block_where_there_is_no_pipeline(
        db_url: str) -> None:
    """SQLite and MariaDB run each statement as it is sent; PostgreSQL answers the same."""
    match_id = _match()
    with database.atomic(), pipelined():
        first = Match.select(Match.ply).where(Match.id == match_id).scalar()
        add_row(ChangeLog, match=match_id, version=0, kind="note", actor="server",
                channel="cli", payload={}, at=START)
        logged = _logged(match_id)
    assert (first, logged) == (0, 1)


@pytest.mark.parametrize("db_url", POSTGRES_ONLY, indirect=True)
def test_every_postgresql_connection_answers_once(db_url: str) -> None:
    """Pooled or not, a connection's cursors are the answering kind, made once: a pooled
    connection handed out again is not wrapped again."""
    from pbem.core.db.connection import bind_database

    scheme, rest = db_url.split("://", 1)
    for url in (f"{scheme.removesuffix('+pool')}://{rest}",
                f"{scheme.removesuffix('+pool')}+pool://{rest}"):
        bind_database(url)
        made = []
        for _ in range(3):
            database.connect(reuse_if_open=True)
            made.append(database.connection().cursor_factory)
            database.close()
        assert made[0].answers and made[0].__mro__[1].__name__ == "Cursor"
        assert made == [made[0]] * 3
        if isinstance(database.obj, PooledDatabase):
            database.obj.close_all()
    bind_database(db_url)


@dataclass(frozen=True, kw_only=True)
class StaleWrite(Change):
    """A change that writes the match row as if it had read it one version ago, then stores
    the move a first move already stored (`clash`)."""

    kind: ClassVar[str] = "move"
    clash: bool = False

    def apply(self, door: Locked) -> None:
        door.match.version -= 1
        door.write(turn=door.match.turn + 1)
        if self.clash:
            add_row(Move, match=door.match.id, ply=1, turn=0, seat=0, text=FIRST,
                    created_at=door.now)


@pytest.mark.parametrize("clash", [False, True], ids=["alone", "then a clash"])
def test_a_guard_the_door_finds_failed_is_a_lost_race_retried(db_url: str,
                                                             clash: bool) -> None:
    """Through the door: the stale write changes nothing, and the change is a lost race,
    tried again until the door gives up with a clear 409, leaving the match as it was. A
    later write that clashes with rows already there (as a race's winner would have made
    them) is explained by the lost race, not reported as an integrity error."""
    match_id = _match()
    submit_move(match_id, 0, FIRST, 0, START)
    with pytest.raises(ConflictError):
        apply_change(match_id, StaleWrite(seat=0, by="server", via="cli", clash=clash),
                     START)
    match = Match.get_by_id(match_id)
    assert (match.ply, match.turn, match.version) == (1, 1, 1)
    assert _logged(match_id) == 1


@dataclass(frozen=True, kw_only=True)
class RefusedWrite(Change):
    """A change whose guarded write the database refuses (a status too long for its column),
    or (`caught`) that catches an earlier statement's error and then writes."""

    kind: ClassVar[str] = "move"
    caught: bool = False

    def apply(self, door: Locked) -> None:
        if not self.caught:
            door.write(status="x" * 40)
            return
        with suppress(peewee.IntegrityError):
            insert_row(Move, match=door.match.id, ply=1, turn=0, seat=0, text=FIRST,
                       created_at=door.now)
        door.write(turn=door.match.turn + 1)


@pytest.mark.parametrize("db_url", POSTGRES_ONLY, indirect=True)
@pytest.mark.parametrize("caught", [False, True], ids=["refused", "after a caught error"])
def test_a_guard_without_an_answer_is_not_a_lost_race(db_url: str, caught: bool) -> None:
    """A guarded write that got no answer (refused itself, or skipped after an error the
    change caught) is not a lost race tried eight times and reported as "very busy": the
    database's error is raised, or `AbortedBlock`, and the match is as it was."""
    match_id = _match()
    submit_move(match_id, 0, FIRST, 0, START)
    with pytest.raises(AbortedBlock if caught else peewee.DataError):
        apply_change(match_id, RefusedWrite(seat=0, by="server", via="cli", caught=caught),
                     START)
    match = Match.get_by_id(match_id)
    assert (match.ply, match.turn, match.version, match.status) == (1, 1, 1, "active")
    assert not database.in_transaction()


_MOVES_OF = Prepared(lambda match_id: Move.select(Move.ply, Move.text)
                     .where(Move.match == match_id).order_by(Move.ply).tuples())


def test_reads_sent_ahead_answer_as_reads_sent_when_asked(db_url: str) -> None:
    """Each read sent ahead is taken once by the code that asks for it with the same values;
    other values, or the same read asked again, are sent then. On PostgreSQL the reads
    ahead wait once together; elsewhere nothing is sent early."""
    first, second = _match(), _match()
    submit_move(first, 0, FIRST, 0, START + timedelta(minutes=1))
    expected = _MOVES_OF.rows(first)
    with read_ahead(_MOVES_OF.ahead(first), _MOVES_OF.ahead(second)), waits_if_postgres() as seen:
        assert _MOVES_OF.rows(first) == expected == [(1, FIRST)]
        assert _MOVES_OF.rows(first) == expected  # asked again: sent again
        assert _MOVES_OF.first(second) is None
        assert _MOVES_OF.rows(first + second + 1) == []  # values not sent ahead
    if seen is not None:
        assert seen == ["SELECT", "SELECT"], seen  # the second ask and the other values


def test_a_read_sent_ahead_that_fails_raises_peewees_error(db_url: str) -> None:
    broken = Prepared(lambda match_id: Move.select(peewee.SQL("no_such_column"))
                      .where(Move.match == match_id))
    with pytest.raises(peewee.DatabaseError), read_ahead(broken.ahead(1)):
        broken.rows(1)
    assert _MOVES_OF.rows(_match()) == []


@contextmanager
def waits_if_postgres() -> Iterator[list[str] | None]:
    if isinstance(database.obj, peewee.PostgresqlDatabase):
        with waits() as seen:
            yield seen
    else:
        yield None
