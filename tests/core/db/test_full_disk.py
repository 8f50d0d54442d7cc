"""A full disk is reported as a full disk. SQLite ends the transaction by itself on
SQLITE_FULL, and peewee's rollback after it used to fail with "cannot rollback - no
transaction is active", which replaced the cause in the worker's log and in every error. The
disk is filled for real (a page limit on the file, every page used), on SQLite: PostgreSQL and
MariaDB report a full disk as an ordinary error, with no rollback of their own."""

from __future__ import annotations

import logging
from datetime import timedelta

import peewee
import pytest

from pbem.core import settlers
from pbem.core.db.connection import bind_database, database, write_transaction
from pbem.core.db.migrations import migrate
from pbem.core.matches.creation import create_match
from pbem.worker import Worker
from tests.conftest import START, SUPPORT_TEMPLATES, Clock, make_settings

FILLER = "x" * 4000


def _fill_the_disk() -> None:
    """Cap the file just above its size, then use every free page, so the next new row fails."""
    pages = database.execute_sql("PRAGMA page_count").fetchone()[0]
    database.execute_sql(f"PRAGMA max_page_count = {pages + 20}")
    database.execute_sql("CREATE TABLE IF NOT EXISTS filler (text TEXT)")
    with pytest.raises(peewee.OperationalError, match="full"):
        for _ in range(100_000):
            database.execute_sql("INSERT INTO filler VALUES (?)", (FILLER,))


@pytest.fixture
def sqlite_file(tmp_path):
    url = f"sqlite:///{tmp_path / 'full.db'}"
    bind_database(url)
    settlers.install()  # as every program does at start (a test run alone has no other)
    database.connect(reuse_if_open=True)
    migrate()
    yield url
    database.close()


def test_a_write_on_a_full_disk_says_the_disk_is_full(sqlite_file) -> None:
    _fill_the_disk()
    with pytest.raises(peewee.OperationalError) as failed, write_transaction():
        for _ in range(50):
            database.execute_sql("INSERT INTO filler VALUES (?)", (FILLER,))
    assert "database or disk is full" in str(failed.value)
    # The connection is usable again at once: no transaction was left open.
    assert not database.in_transaction()
    assert database.execute_sql("SELECT 1").fetchone() == (1,)


def test_the_worker_logs_the_full_disk_not_a_failed_rollback(sqlite_file, tmp_path,
                                                             caplog) -> None:
    settings = make_settings(sqlite_file, tmp_path)
    # Enough matches past their deadline that settling them needs new pages, not only the
    # slack in the pages already there.
    for _ in range(150):
        create_match("nim", ["ann@example.org", "ben@example.org"], {}, settings.secret_key,
                     START, time_control="1d")
    clock = Clock(START + timedelta(days=3))
    worker = Worker(settings, clock=clock, extra_template_dirs=(SUPPORT_TEMPLATES,))
    _fill_the_disk()
    with caplog.at_level(logging.INFO):
        try:
            worker.sweep_deadlines()
        except peewee.OperationalError as error:  # raised to the scheduler, which logs it
            logging.getLogger("pbem.worker").exception("deadlines failed: %s", error)
    text = caplog.text
    assert "database or disk is full" in text, text
    assert "cannot rollback" not in text


# A process that can no longer grow any file: as on a full disk, nothing can be appended to the
# WAL and SQLite's `-shm` index cannot be made again; reading what is there still works.
# (RLIMIT_FSIZE: no root needed, and it holds only the process it is set in.)
_SERVE_FULL = """
import json, resource, signal, sys
from pbem.config import load_settings
from pbem.core import settlers
from pbem.core.db.connection import bind_database, database
from pbem.web import create_app
url, key, token, session, bearer = sys.argv[1:6]
settings = load_settings({"database_url": url, "secret_key": key, "instance_path": sys.argv[6],
                          "base_url": "http://pbem.test"}, environ={})
app = create_app(settings)
database.connect(reuse_if_open=True)  # the server ran before the disk filled
database.execute_sql("SELECT 1").fetchall()
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a refused write is an error, not a signal
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY))
database.close()  # each request's connection ends with it (as `pbem serve` closes them)
answers = {}
for who, cookie in (("stranger", None), ("signed in", session)):
    client = app.test_client()
    if cookie:
        client.set_cookie("pbem_player", cookie)
    for path in ("/", "/api/play/" + token, "/play/" + token, "/matches"):
        headers = {"Authorization": "Bearer " + bearer} if cookie and "api" in path else {}
        answers[who + " " + path.split("/")[1]] = client.get(path, headers=headers).status_code
        database.close()
print(json.dumps(answers))
"""


def test_a_full_disk_still_serves_the_pages_that_only_read(sqlite_file, tmp_path) -> None:
    """`GET /` and a seat's `GET /api/play/<token>` read only, but each request opened a new
    connection, which on a full disk could not make SQLite's `-shm` index again (503 on
    every page), and a signed-in reader's page noted its session's use (refused: 503)."""
    import json
    import subprocess
    import sys

    from pbem.core.accounts import api_tokens, sessions
    from pbem.core.accounts.models import Player, SessionKind
    from tests.conftest import STRONG_KEY

    created = create_match("mimic", ["ann@example.org", "ben@example.org"], {}, STRONG_KEY,
                           START)
    ann = Player.get(Player.email == "ann@example.org")
    earlier = START - timedelta(hours=2)  # so this visit would note the session's use
    session = sessions.start(STRONG_KEY, SessionKind.PLAYER, earlier,
                             sessions.SessionPolicy.from_days(14, 9000), player=ann)
    _, bearer = api_tokens.create(STRONG_KEY, ann, "script", earlier, scopes=("read",))
    database.close()
    ran = subprocess.run([sys.executable, "-c", _SERVE_FULL, sqlite_file, STRONG_KEY,
                          created.tokens[0], session, bearer, str(tmp_path / "instance")],
                         capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[-3000:]
    answers = json.loads(ran.stdout.strip().splitlines()[-1])
    assert set(answers.values()) == {200}, (answers, ran.stderr[-2000:])
