"""The database's generation (`pbem/core/db/generation.py`): `pbem init`, `pbem restore` and
`pbem generation bump` make it new; every request and worker job reads it first; what the
process keeps is keyed with it, and forgotten when it moves."""

from __future__ import annotations

import contextvars
import sqlite3
from pathlib import Path
from types import SimpleNamespace

import pytest

from pbem.cli import main
from pbem.core.db import generation
from pbem.core.db.connection import bind_database, database, is_sqlite
from pbem.core.db.memo import VersionMemo
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match
from pbem.errors import PbemError
from tests.conftest import ON_SQLITE, START, STRONG_KEY
from tests.core.db.test_restore import BACKED_UP, pbem_command
from tests.support.statements import statements

MATCH = SimpleNamespace(id=1, version=1)  # a match row as read, for the memo alone
PLAYERS = ["ann@example.org", "ben@example.org"]


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, db_url: str, tmp_path: Path) -> None:
    for name, value in {"PBEM_DATABASE_URL": db_url, "PBEM_SECRET_KEY": STRONG_KEY,
                        "PBEM_INSTANCE_PATH": str(tmp_path)}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("PBEM_CONFIG", raising=False)


def stored() -> str:
    """The generation in the database (PostgreSQL's tests empty every table, this one too)."""
    with database.connection_context():
        row = generation.DatabaseGeneration.get_or_none(id=generation.ROW)
    return generation.UNREAD if row is None else row.value


def test_pbem_init_and_bump_make_a_new_generation(env, capsys) -> None:
    assert main(["init"]) == 0
    made = stored()
    assert main(["init"]) == 0
    assert stored() not in ("", made)
    again = stored()
    assert main(["generation", "bump"]) == 0
    assert stored() not in (made, again)
    assert "new database generation" in capsys.readouterr().out


def test_what_was_kept_is_forgotten_when_the_generation_moves(db_url: str) -> None:
    memo: VersionMemo[str] = VersionMemo(4)
    first = generation.check()
    assert generation.current() == first
    assert memo.remember(MATCH, lambda: "before") == "before"
    assert generation.check() == first and len(memo) == 1  # the same database: kept
    generation.bump()
    assert generation.check() != first
    assert len(memo) == 0
    assert memo.remember(MATCH, lambda: "after") == "after"


def test_a_value_read_before_a_restore_is_never_served_after_it(db_url: str) -> None:
    """A request that read the old generation (it began before the restore) keeps what it
    read under that generation, after another request saw the new one and forgot: a request
    of the new generation does not get it."""
    memo: VersionMemo[str] = VersionMemo(4)
    before, after = contextvars.copy_context(), contextvars.copy_context()
    old = before.run(generation.check)
    generation.bump()
    assert after.run(generation.check) != old
    assert before.run(memo.remember, MATCH, lambda: "old position") == "old position"
    assert after.run(memo.remember, MATCH, lambda: "restored position") == "restored position"


def test_a_request_and_a_worker_job_read_the_generation_first(client, worker) -> None:
    made = generation.bump()
    assert client.get("/games").status_code == 200
    assert generation.current() == made  # the test client serves on this thread
    made = generation.bump()
    worker.sweep_deadlines()
    assert generation.current() == made


@ON_SQLITE  # PostgreSQL's processes hear of a new generation, not of a row deleted by hand
def test_a_database_without_the_row_is_a_generation_too(db_url: str) -> None:
    generation.DatabaseGeneration.delete().execute()
    assert generation.check() == generation.UNREAD
    made = generation.bump()
    assert generation.check() == made != generation.UNREAD


@pytest.mark.parametrize("db_url", BACKED_UP, indirect=True)
def test_a_restore_refuses_what_is_not_a_backup(env, tmp_path: Path, capsys) -> None:
    create_match("nim", PLAYERS, {}, STRONG_KEY, START, seed=1)
    database.close()
    before = stored()
    assert main(["restore", str(tmp_path / "missing.db")]) == 2
    assert "there is no backup file" in capsys.readouterr().err
    garbage = tmp_path / "garbage.db"
    garbage.write_text("not a backup\n")
    if is_sqlite():
        assert main(["restore", str(garbage)]) == 2
        assert "is not an SQLite database" in capsys.readouterr().err
        other = tmp_path / "other.db"
        with sqlite3.connect(other) as made:
            made.execute("CREATE TABLE t (x)")
        assert main(["restore", str(other)]) == 2
        assert "is not a pbem database" in capsys.readouterr().err
    else:
        assert main(["restore", str(garbage)]) == 1
        assert "the database is as it was" in capsys.readouterr().err
    with database.connection_context():
        assert Match.select().count() == 1
    assert stored() == before


@pytest.mark.parametrize("db_url", BACKED_UP, indirect=True)
def test_a_backup_restores_what_it_copied(env, tmp_path: Path) -> None:
    create_match("nim", PLAYERS, {}, STRONG_KEY, START, seed=1)
    database.close()
    backup = tmp_path / "copies" / "backup.db"
    assert main(["backup", str(backup)]) == 0
    with database.connection_context():
        create_match("nim", PLAYERS, {}, STRONG_KEY, START, seed=2)
    before = stored()
    assert main(["restore", str(backup)]) == 0
    with database.connection_context():
        assert [match.seed for match in Match.select()] == [1]
    assert stored() != before
    assert [path.name for path in backup.parent.iterdir()] == ["backup.db"]



def test_mariadb_is_told_what_to_use_instead(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    """Neither SQLite nor PostgreSQL: refused with what to do instead, nothing written."""
    from pbem.core.db import backups

    monkeypatch.setattr(backups, "is_sqlite", lambda: False)
    monkeypatch.setattr(backups, "_is_postgres", lambda: False)
    with pytest.raises(PbemError, match="for MariaDB use mariadb-dump"):
        backups.backup("mysql://root@127.0.0.1/pbem", tmp_path / "backup.sql")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "backup.sql").write_text("SELECT 1;\n")
    with pytest.raises(PbemError, match="then `pbem init` and `pbem generation bump`"):
        backups.restore("mysql://root@127.0.0.1/pbem", tmp_path / "backup.sql")


@pytest.mark.parametrize("db_url", [name for name in BACKED_UP if name == "postgres"],
                         indirect=True)
def test_on_postgresql_a_connection_hears_a_new_generation_with_its_next_answer(
        db_url: str) -> None:
    """No statement a request: the connection listens, and the generation another process
    writes arrives with the answer to the connection's next statement, before its rows."""
    generation.check()  # the connection's first request: it listens from now on
    with statements() as seen:
        first = generation.check()
    assert seen == []
    done = pbem_command(db_url, "generation", "bump")
    assert done.returncode == 0, done.stderr
    assert generation.check() == first  # nothing read since: nothing heard yet
    assert Match.select().count() == 0  # any statement
    assert generation.current() is None  # begun under the old one: keep nothing, take nothing
    assert generation.check() not in (first, generation.UNREAD)
    assert generation.current() == generation.check() == stored()


@pytest.mark.parametrize("db_url", [name for name in BACKED_UP if name == "postgres"],
                         indirect=True)
def test_on_postgresql_without_a_pool_each_request_reads_the_row(db_url: str) -> None:
    """A connection made for one request has missed no notice: it reads the row, and does
    not listen."""
    bind_database(db_url.replace("+pool", "", 1))
    database.connect(reuse_if_open=True)
    made = generation.bump()
    with statements() as seen:
        assert generation.check() == made
    assert seen == ["SELECT value FROM database_generation WHERE id = 1"]
