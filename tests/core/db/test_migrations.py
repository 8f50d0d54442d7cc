"""The database layer: SQLite settings, and migrations that bring any database to the models."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import peewee
from playhouse.pool import PooledDatabase

from pbem.core.accounts.models import Player
from pbem.core.db.base import BaseModel
from pbem.core.db.connection import bind_database, database, open_database
from pbem.core.db.migrations import applied, migrate, pending, runner
from pbem.core.matches.models import Vacation
from pbem.core.schema import drop_everything, schema_diff
from tests.conftest import ON_SQLITE


def test_sqlite_runs_with_wal_foreign_keys_normal_sync_and_a_busy_timeout(tmp_path: Path) -> None:
    db = open_database(f"sqlite:///{tmp_path / 'nested' / 'pbem.sqlite3'}")
    db.connect()
    pragma = {name: db.execute_sql(f"PRAGMA {name}").fetchone()[0]
              for name in ("journal_mode", "foreign_keys", "synchronous", "busy_timeout")}
    db.close()
    assert pragma == {"journal_mode": "wal", "foreign_keys": 1, "synchronous": 1,
                      "busy_timeout": 10_000}


def test_a_new_sqlite_file_keeps_no_page_its_migrations_freed(tmp_path: Path) -> None:
    """Migrations drop what earlier ones made (0230 drops 23 indexes): `migrate` gives those
    pages back at once, so a new database starts without free pages in its file."""
    bind_database(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    try:
        database.connect()
        migrate()
        assert database.execute_sql("PRAGMA freelist_count").fetchone()[0] == 0
    finally:
        database.close()


def test_after_init_the_database_and_the_models_have_no_difference(db_url: str) -> None:
    assert not pending()
    diff = schema_diff()
    assert not diff, f"the models and the migrations disagree:\n{diff}"


def test_migrating_twice_changes_nothing(db_url: str) -> None:
    before = applied()
    assert migrate() == []
    assert applied() == before
    assert database.table_exists("match") and database.table_exists("outbox_message")


def test_a_database_from_before_numbered_migrations_upgrades_in_place(db_url: str) -> None:
    # The first release kept one row in `schema_version` and had only the initial tables.
    drop_everything()
    steps = runner()
    steps.up("0001_initial")
    steps.History.delete().execute()
    database.execute_sql("CREATE TABLE schema_version (id INTEGER PRIMARY KEY, version INTEGER)")
    database.execute_sql("INSERT INTO schema_version (id, version) VALUES (1, 1)")
    database.execute_sql("INSERT INTO player (email, created_at) VALUES ('a@b.org', "
                         "'2026-01-01 00:00:00')")

    done = migrate()

    assert "0001_initial" not in done and done == [name for name in applied()
                                                    if name != "0001_initial"]
    assert not database.table_exists("schema_version")
    assert not schema_diff()
    assert Player.get(Player.email == "a@b.org").public_name == "a"  # the data survived


def test_a_half_applied_migration_completes_when_run_again(db_url: str) -> None:
    # MariaDB commits DDL at once: a migration that failed midway has left part of its work.
    # Each migration is written to finish the job when `pbem init` runs again.
    last = applied()[-1]
    history = runner().History
    history.delete().where(history.name == last).execute()
    assert pending() == [last]
    migrate()
    assert not pending() and not schema_diff()


def test_upgrading_keeps_each_players_last_vacation_end_on_the_player_row(db_url: str) -> None:
    ann = Player.create(email="ann@example.org", created_at=datetime(2026, 1, 1))
    ben = Player.create(email="ben@example.org", created_at=datetime(2026, 1, 1))
    for day in (3, 9):
        Vacation.create(player=ann, starts_at=datetime(2026, 2, day),
                        ends_at=datetime(2026, 2, day + 2), created_at=datetime(2026, 1, 1))
    history = runner().History
    history.delete().where(history.name == "0090_player_away_until").execute()
    migrate()
    assert Player.get_by_id(ann.id).away_until == datetime(2026, 2, 11)
    assert Player.get_by_id(ben.id).away_until is None


def test_a_pool_checks_only_a_connection_that_sat_idle(db_url: str, monkeypatch) -> None:
    # A connection handed back moments ago is reused without a round trip to the server; one
    # idle for longer is checked first, and a dead one is replaced, not handed out.
    from pbem.core.db import connection as db_module
    from pbem.core.db import peewee_reach

    scheme, rest = db_url.split("://", 1)
    pooled = db_module.bind_database(f"{scheme.removesuffix('+pool')}+pool://{rest}")
    if db_url.startswith("sqlite"):
        # No server to ask: SQLite's pool keeps playhouse's own local check.
        assert not isinstance(pooled, peewee_reach.TrustRecentlyReturned)
        pooled.close_all()
        db_module.bind_database(db_url)
        return
    checks = []
    # The playhouse pool the trusting one refines.
    parent = next(k for k in type(pooled).__mro__ if k.__module__ == "playhouse.pool")
    original = parent._is_closed
    monkeypatch.setattr(parent, "_is_closed",
                        lambda self, conn: checks.append(id(conn)) or original(self, conn))
    try:
        for _ in range(3):
            database.connect(reuse_if_open=True)
            database.execute_sql("SELECT 1")
            database.close()
        assert checks == []
        monkeypatch.setattr(peewee_reach, "TRUST_RETURNED_SECONDS", 0.0)
        database.connect(reuse_if_open=True)
        first = database.connection()
        database.close()
        assert checks == [id(first)]
        first.close()  # the server side is gone: the next request gets a new connection
        database.connect(reuse_if_open=True)
        assert database.connection() is not first
        database.execute_sql("SELECT 1")
        database.close()
    finally:
        pooled.close_all()
        db_module.bind_database(db_url)
        database.connect(reuse_if_open=True)


def test_a_forked_child_never_uses_nor_ends_its_parents_connections(db_url: str) -> None:
    # The parent holds a connection (in use, and one idle in the pool when pooled); a child
    # forked then must open its own, and its exit must leave the parent's working.
    from pbem.core.db import connection as db_module

    scheme, rest = db_url.split("://", 1)
    urls = [db_url, f"{scheme.removesuffix('+pool')}+pool://{rest}"]
    bound = []
    try:
        for url in urls:
            bound.append(db_module.bind_database(url))
            database.connect(reuse_if_open=True)
            held = database.connection()
            database.execute_sql("SELECT 1")
            child = os.fork()
            if child == 0:  # the child: report through the exit code only
                try:
                    fresh = database.is_closed()
                    database.connect()
                    ours = database.connection() is not held
                    database.execute_sql("SELECT 1")
                    database.close()
                    gc.collect()
                    os._exit(0 if fresh and ours else 1)
                except BaseException:
                    os._exit(2)
            _, status = os.waitpid(child, 0)
            assert os.waitstatus_to_exitcode(status) == 0, url
            gc.collect()
            assert database.connection() is held
            assert database.execute_sql("SELECT 2").fetchone()[0] == 2, url
            database.close()
    finally:
        for db in bound:
            if isinstance(db, PooledDatabase):
                db.close_all()
        db_module.bind_database(db_url)
        database.connect(reuse_if_open=True)


def test_display_names_are_unique_but_optional(db_url: str) -> None:
    from datetime import datetime

    now = datetime(2026, 1, 1)
    Player.create(email="a@x.org", created_at=now)
    Player.create(email="b@x.org", created_at=now)  # two players without a name
    Player.create(email="c@x.org", name="Cleo", created_at=now)
    try:
        with database.atomic():
            Player.create(email="d@x.org", name="Cleo", created_at=now)
    except peewee.IntegrityError:
        pass
    else:
        raise AssertionError("a second player took the name Cleo")


def test_a_pooled_url_reuses_one_connection_across_requests(db_url: str, tmp_path: Path) -> None:
    from pbem.core.db.connection import bind_database

    scheme, rest = db_url.split("://", 1)
    pooled = bind_database(f"{scheme.removesuffix('+pool')}+pool://{rest}")
    try:
        seen = []
        for _ in range(3):  # what a request does: connect at the start, close at the end
            database.connect(reuse_if_open=True)
            seen.append(id(database.connection()))
            database.execute_sql("SELECT 1")
            database.close()
        assert isinstance(pooled, PooledDatabase)
        assert len(set(seen)) == 1
    finally:
        pooled.close_all()
        bind_database(db_url)
        database.connect(reuse_if_open=True)


def test_no_index_is_covered_by_another() -> None:
    """A single-column index beside a composite index that begins with the same column only
    costs space and a write per row (peewee gives every foreign key one): such foreign keys
    say `index=False`, and migration 0230 dropped the ones made before."""
    import pbem.core.schema  # noqa: F401  every model, registered

    def models(cls: type[BaseModel]) -> Iterator[type[BaseModel]]:
        for sub in cls.__subclasses__():
            yield sub
            yield from models(sub)

    covered = []
    for model in set(models(BaseModel)):
        indexes = [([getattr(part, "column_name", None) for part in index._expressions],
                    index._unique or index._where is not None)
                   for index in model._meta.fields_to_index()]
        covered += [(model._meta.table_name, columns[0]) for columns, special in indexes
                    if len(columns) == 1 and not special
                    and any(len(other) > 1 and other[0] == columns[0]
                            for other, _ in indexes)]
    assert covered == []


@ON_SQLITE
def test_upgrading_turns_the_times_stored_as_text_into_numbers(settings) -> None:
    """Rows an older release wrote keep their times as text on SQLite; migration 0330 turns
    them into the numbers the fields now write, so old and new rows compare alike."""
    from pbem.core.mailout.models import OutboxMessage
    from pbem.core.matches.creation import create_match
    from pbem.core.matches.models import ChangeLog, Move
    from pbem.core.matches.play import submit_move
    from tests.conftest import START

    created = create_match("mimic", ["ann@example.org", "ben@example.org"], {},
                           settings.secret_key, START)
    submit_move(created.match.id, 0, "b2-a1", 0, START)
    before = (Move.get().created_at, ChangeLog.select().order_by(ChangeLog.id).first().at,
              [(m.created_at, m.next_attempt_at) for m in OutboxMessage.select()])
    # As an older release left them: text, with microseconds where the column kept them.
    database.execute_sql("UPDATE move SET created_at = datetime(created_at, 'unixepoch')")
    database.execute_sql("UPDATE change_log SET at = datetime(at, 'unixepoch')")
    database.execute_sql("UPDATE outbox_message SET next_attempt_at = "
                         "datetime(next_attempt_at, 'unixepoch'), created_at = "
                         "strftime('%Y-%m-%d %H:%M:%f', created_at / 1000000.0, 'unixepoch')")
    assert database.execute_sql("SELECT typeof(created_at) FROM move").fetchone()[0] == "text"
    history = runner().History
    history.delete().where(history.name == "0330_times_as_numbers").execute()
    assert migrate() == ["0330_times_as_numbers"]
    for table, column in (("move", "created_at"), ("change_log", "at"),
                          ("outbox_message", "next_attempt_at"),
                          ("outbox_message", "created_at")):
        kinds = database.execute_sql(f"SELECT DISTINCT typeof({column}) FROM {table}")
        assert [kind for (kind,) in kinds] == ["integer"], (table, column)
    assert before == (Move.get().created_at,
                      ChangeLog.select().order_by(ChangeLog.id).first().at,
                      [(m.created_at, m.next_attempt_at) for m in OutboxMessage.select()])
