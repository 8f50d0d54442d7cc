"""A backup restored under a running server is what the server shows at its next request,
on SQLite and PostgreSQL: its caches, warm with the later positions, are keyed with the
database's generation (`pbem/core/db/generation.py`), which the restore makes new.

The server runs in a thread of this process (as `pbem serve` runs it: a thread per request),
the moves go through its API, and `pbem backup` / `pbem restore` run as processes of their own,
as an operator runs them. The hazard is concrete: after the restore a different move is played
at the same ply, so the match reaches the same version number with another position, which a
cache keyed by match version alone would answer with the position it kept.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

import pbem
from pbem.config import Settings
from pbem.core.db.connection import database
from pbem.core.matches.creation import create_match
from tests.conftest import BACKENDS, START, SUPPORT_TEMPLATES, free_port

PLAYERS = ["ann@example.org", "ben@example.org"]
CHECKOUT = str(Path(pbem.__file__).resolve().parent.parent)
# The backends `pbem backup` and `pbem restore` cover (MariaDB: test_generation.py).
BACKED_UP = [name for name in BACKENDS if name in ("sqlite", "postgres")]


@pytest.fixture
def served(settings: Settings) -> Iterator[str]:
    """The app served over HTTP on a thread, as `pbem serve` serves it: its address."""
    from pbem.web import create_app

    app = create_app(settings, extra_template_dirs=(SUPPORT_TEMPLATES,))
    app.config["PBEM_THREAD_PER_REQUEST"] = True
    httpd = make_server("127.0.0.1", free_port(), app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()
        thread.join()


def pbem_command(db_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`pbem ARGS` run as its own process on the test's database."""
    env = {**os.environ, "PBEM_DATABASE_URL": db_url, "PYTHONPATH": CHECKOUT}
    return subprocess.run([sys.executable, "-m", "pbem.cli", "--dev", *args], env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def call(url: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    sent = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(sent, timeout=30) as answer:
        read = answer.read()
    return json.loads(read) if answer.headers.get_content_type() == "application/json" \
        else read.decode()


def moves_of(record: dict[str, Any]) -> list[str]:
    return [move["text"] for move in record["moves"]]


@pytest.mark.parametrize("db_url", BACKED_UP, indirect=True)
def test_a_backup_restored_under_a_running_server_is_what_it_shows(
        db_url: str, settings: Settings, served: str, tmp_path: Path) -> None:
    tokens = create_match("mimic", PLAYERS, {}, settings.secret_key, START, seed=1).tokens
    database.close()  # the server and the commands use the database from here on
    api = [f"{served}/api/play/{token}" for token in tokens]
    first = call(api[0])["legal_moves"][0]
    call(api[0], {"move": first, "ply": 0})
    backup = tmp_path / "backup.db"
    done = pbem_command(db_url, "backup", str(backup))
    assert done.returncode == 0, done.stderr

    # After the backup: seat 1 answers, and every cache is warmed with that position.
    answers = call(api[1])["legal_moves"]
    assert len(answers) > 1
    later, other = answers[0], answers[-1]
    call(api[1], {"move": later, "ply": 1})
    for url in api:
        assert moves_of(call(url)) == [first, later]
    page = call(f"{served}/play/{tokens[0]}")
    assert later in page

    done = pbem_command(db_url, "restore", str(backup))
    assert done.returncode == 0, done.stderr

    # The restored position, at the server's next request.
    restored = call(api[1])
    assert (restored["ply"], moves_of(restored)) == (1, [first])
    assert restored["your_turn"]
    assert later not in call(f"{served}/play/{tokens[0]}")
    # Another answer at the same ply: the same match version, another position.
    call(api[1], {"move": other, "ply": 1})
    for url in api:
        assert moves_of(call(url)) == [first, other]
    page = call(f"{served}/play/{tokens[0]}")
    assert other in page and later not in page


def test_the_connection_string_for_the_client_tools_reads_back_as_the_url_says() -> None:
    from psycopg.conninfo import conninfo_to_dict

    from pbem.core.db.backups import _conninfo

    url = ("postgresql://ann@db.example:6543/pbem"
           "?options=-c%20search_path%3Dit%27s%5Cx&sslmode=require")
    assert conninfo_to_dict(_conninfo(url)) == {
        "dbname": "pbem", "user": "ann", "host": "db.example", "port": "6543",
        "options": "-c search_path=it's\\x", "sslmode": "require"}
