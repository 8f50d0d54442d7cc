"""A read-only database (a PostgreSQL hot standby after a failover): writes answer 503 with
Retry-After, never 500; a seat's own page still shows (its visit note is skipped); inbound
mail is asked to be sent again, as problem+json; the worker logs one line a job."""

from __future__ import annotations

import logging

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
