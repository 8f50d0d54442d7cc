"""A read-only database (a PostgreSQL hot standby after a failover): writes answer 503 with
Retry-After, never 500; a seat's own page still shows (its visit note is skipped); inbound
mail is asked to be sent again, as problem+json; the worker logs one line a job."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest

from pbem.core.db.connection import bind_database, database
from pbem.core.matches.creation import create_match
from pbem.worker import Worker
from tests.conftest import START, SUPPORT_TEMPLATES
from tests.mail.conftest import INBOUND_SECRET
from tests.mail.conftest import inbound_client as inbound_client
from tests.mail.conftest import mail_settings as mail_settings

PAIR = ["ann@example.org", "ben@example.org"]


def _read_only_url(db_url: str) -> str:
    """The same database, every connection refusing writes: a PostgreSQL hot standby
    (default_transaction_read_only), a MariaDB replica (a read-only session on connect)."""
    if db_url.startswith("postgres"):
        return db_url + "%20-c%20default_transaction_read_only%3Don"
    if db_url.startswith("mysql"):
        joiner = "&" if "?" in db_url else "?"
        return db_url + joiner + "init_command=SET%20SESSION%20TRANSACTION%20READ%20ONLY"
    return db_url  # SQLite: its kept connection is made query-only (below)


@pytest.fixture
def standby(db_url: str, tmp_path, monkeypatch):
    """Returns a function making an app (from settings) whose database refuses writes."""
    made = []

    def read_only_app(settings):
        from dataclasses import replace

        from pbem.web import create_app

        app = create_app(replace(settings, database_url=_read_only_url(db_url)),
                         extra_template_dirs=(SUPPORT_TEMPLATES,))
        app.config["TESTING"] = True
        if db_url.startswith("sqlite"):
            database.connect(reuse_if_open=True)
            database.execute_sql("PRAGMA query_only = ON")
            made.append(True)
        return app
    yield read_only_app
    if made:
        database.execute_sql("PRAGMA query_only = OFF")
    bind_database(db_url)
    database.connect(reuse_if_open=True)


def test_writes_answer_503_and_pages_still_show(settings, standby, caplog) -> None:
    created = create_match("mimic", PAIR, {}, settings.secret_key, START)
    token = created.tokens[0]
    client = standby(settings).test_client()
    shown = client.get(f"/play/{token}")
    assert shown.status_code == 200  # the visit note is skipped, the page shows
    posted = client.post(f"/play/{token}", data={"move": "b2-a1", "ply": "0"})
    assert posted.status_code == 503 and posted.headers["Retry-After"]
    api = client.post(f"/api/play/{token}", json={"move": "b2-a1", "ply": 0})
    assert api.status_code == 503 and api.mimetype == "application/problem+json"
    worker = Worker(settings, extra_template_dirs=(SUPPORT_TEMPLATES,))
    with caplog.at_level(logging.WARNING):
        worker.sweep_deadlines()
        worker.compact_storage()


@pytest.mark.parametrize("kind", ["player", "admin"])
def test_a_seats_page_shows_to_a_reader_whose_session_cannot_be_noted(settings, standby,
                                                                      kind: str) -> None:
    """A session found is noted as used (at most once a minute), which a standby refuses: the
    page shows as to a reader signed out, as its menu does (whoever decides whether the page
    may be kept asks the same way)."""
    from pbem.core.accounts import sessions
    from pbem.core.accounts.admins import create_admin
    from pbem.core.accounts.models import Player, SessionKind

    token = create_match("mimic", PAIR, {}, settings.secret_key, START).tokens[0]
    policy = sessions.SessionPolicy.from_days(14, 90)
    if kind == "player":
        ann = Player.get(Player.email == PAIR[0])
        cookie = "pbem_player", sessions.start(settings.secret_key, SessionKind.PLAYER, START,
                                               policy, player=ann)
    else:
        admin = create_admin("ref@club.org", "x" * 20, START, role="admin")
        cookie = "pbem_admin", sessions.start(settings.secret_key, SessionKind.ADMIN, START,
                                              policy, admin=admin)
    client = standby(settings).test_client()
    client.set_cookie(*cookie)
    assert client.get(f"/play/{token}").status_code == 200


def test_inbound_mail_is_asked_again_as_problem_json(mail_settings, standby) -> None:
    answer = standby(mail_settings).test_client().post(
        "/inbound/mime", data=b"From: a@b.org\r\nTo: play.x@pbem.test\r\n\r\ntake 1\r\n",
        headers={"Authorization": f"Bearer {INBOUND_SECRET}",
                 "Content-Type": "message/rfc822"})
    assert answer.status_code == 503 and answer.mimetype == "application/problem+json"
    assert answer.headers["Retry-After"]


def test_a_form_body_to_the_inbound_endpoint_is_refused_not_lost(mail_settings,
                                                                 inbound_client) -> None:
    answer = inbound_client.post(
        "/inbound/mime", data={"x": "From: a@b.org"},
        headers={"Authorization": f"Bearer {INBOUND_SECRET}"})
    assert answer.status_code == 415 and answer.mimetype == "application/problem+json"


def test_every_route_answers_a_read_only_database_without_a_server_error(db_url, tmp_path,
                                                                         standby) -> None:
    """Every route of the URL map (read from the app, so a new route is covered without
    touching this test), with valid ids and seat tokens, as a stranger and as a signed-in
    admin, GET and POST: a page, or a 503 with Retry-After, never a 500."""
    import re
    from urllib.parse import quote

    from pbem.core.accounts.admins import create_admin
    from pbem.core.mailout.models import OutboxMessage
    from pbem.core.matches.models import Adjudication
    from pbem.core.matches.sweep import sweep
    from tests.conftest import make_settings
    from tests.web.test_fuzz_routes import ADMIN, PASSWORD, PLAYERS, _routes

    settings = make_settings(db_url, tmp_path, development=True)
    nim = create_match("nim", PLAYERS[:2], {}, settings.secret_key, START, time_control="1h")
    bids = create_match("bids", PLAYERS, {"hand": "2"}, settings.secret_key, START)
    sweep(START + timedelta(hours=2), timedelta(days=1))
    create_admin(ADMIN, PASSWORD, START)
    # Signed in while the database still took writes; the cookie is then used on the standby.
    from pbem.web import create_app

    writable = create_app(settings, extra_template_dirs=(SUPPORT_TEMPLATES,))
    writable.config.update(TESTING=True, CSRF_ENABLED=False)
    admin = writable.test_client()
    assert admin.post("/admin/login", data={"email": ADMIN, "password": PASSWORD}
                      ).status_code == 303
    values = {"match_id": nim.match.id, "entry_id": Adjudication.select().first().id,
              "message_id": OutboxMessage.select().first().id, "token": nim.tokens[0],
              "slug": "nim", "game": "nim", "seat": 0, "name": "ann"}
    app = standby(settings)
    app.config.update(CSRF_ENABLED=False)
    clients = {"stranger": app.test_client(), "admin": app.test_client()}
    clients["admin"].set_cookie("pbem_admin", admin.get_cookie("pbem_admin").value)
    asked = 0
    unavailable = 0
    for rule, method in _routes(app):
        path = re.sub(r"<(?:(\w+):)?(\w+)>",
                      lambda m: quote(str(values.get(m.group(2), 1)), safe=""), rule)
        for who, client in clients.items():
            body = ({"data": {"move": "take 1", "ply": "0", "email": PLAYERS[0],
                              "password": PASSWORD, "reason": "r", "ruling": "draw"}}
                    if method == "POST" else {})
            answer = client.open(path, method=method, **body)
            asked += 1
            assert answer.status_code < 500 or answer.status_code == 503, \
                (who, method, path, answer.status_code, answer.data[:300])
            if answer.status_code == 503 and path != "/healthz":  # health: no worker here
                unavailable += 1
                assert answer.headers.get("Retry-After"), (who, method, path)
    assert asked > 100 and unavailable > 10, (asked, unavailable)
    assert bids.match.id  # both matches exist: the standby read them


@pytest.fixture
def read_only_file(tmp_path):
    """An SQLite file with a match in it, then made read-only: immutable for root (whom file
    modes do not stop), mode 444 for anyone else. Its folder stays writable, as SQLite needs
    for the WAL of a file it only reads."""
    import os
    import subprocess

    from pbem.core import settlers
    from pbem.core.db.migrations import migrate
    from tests.conftest import STRONG_KEY

    path = tmp_path / "pbem.sqlite3"
    url = f"sqlite:///{path}"
    bind_database(url)
    settlers.install()
    database.connect(reuse_if_open=True)
    migrate()
    created = create_match("mimic", PAIR, {}, STRONG_KEY, START)
    database.close()
    root = os.geteuid() == 0
    if root:
        subprocess.run(["chattr", "+i", str(path)], check=True)
    else:
        path.chmod(0o444)
    yield url, created
    if root:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_a_read_only_sqlite_file_serves_reads_and_refuses_writes(read_only_file,
                                                                 tmp_path) -> None:
    """Every connection set `auto_vacuum` as it opened, a write to the file's header that a
    read-only file refuses: every page answered 503."""
    from pbem.config import load_settings
    from pbem.web import create_app
    from tests.conftest import STRONG_KEY

    url, created = read_only_file
    bind_database(url.replace("sqlite:", "sqlite+pool:"))  # a new connection, then back
    bind_database(url)
    settings = load_settings({"database_url": url, "secret_key": STRONG_KEY,
                              "instance_path": str(tmp_path / "instance"),
                              "base_url": "http://pbem.test"}, environ={})
    client = create_app(settings).test_client()
    token = created.tokens[0]
    for path in ("/", f"/api/play/{token}", f"/play/{token}", f"/matches/{created.match.id}",
                 "/matches", "/games/mimic"):
        assert client.get(path).status_code == 200, path
    refused = client.post(f"/api/play/{token}", json={"move": "b2-a1", "ply": 0})
    assert refused.status_code == 503 and refused.headers["Retry-After"]
