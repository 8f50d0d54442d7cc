"""The three ways in: `pbem inbound` as a real process, `POST /inbound/mime`, and IMAP
polling against a real Dovecot server on loopback."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from imap_tools import AND, MailBoxUnencrypted

from pbem.core.db.connection import bind_database
from pbem.core.mailin.models import InboundMessage
from pbem.core.matches.models import Match
from pbem.mail.inbound import handle
from pbem.mail.inbound.imap import poll
from pbem.worker import Worker
from tests.conftest import START, STRONG_KEY, SUPPORT_TEMPLATES, Clock, make_settings
from tests.mail.conftest import INBOUND_SECRET, REPLY_BASE
from tests.mail.inbound_support import ALICE, BOB, as_sent, latest, reply, start

LATER = START + timedelta(minutes=5)
UNREACHABLE = "postgresql://postgres@127.0.0.1:9/test?connect_timeout=2"


def _pipe_process(raw: bytes, database_url: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PBEM_DATABASE_URL": database_url, "PBEM_SECRET_KEY": STRONG_KEY,
           "PBEM_MAIL_FROM": "pbem <pbem@pbem.test>", "PBEM_REPLY_ADDRESS": REPLY_BASE,
           "PBEM_INSTANCE_PATH": str(tmp_path)}
    env.pop("PBEM_CONFIG", None)
    return subprocess.run([sys.executable, "-m", "pbem.cli", "inbound"], input=raw, env=env,
                          capture_output=True, timeout=60)


def test_the_pipe_command_plays_a_reply_in_a_real_process(mail_settings, db_url,
                                                          tmp_path) -> None:
    start("mimic")
    mail = as_sent(mail_settings, latest(ALICE))
    move = mail.get_body(("plain",)).get_content().split("for example: ", 1)[1].split(")")[0]
    done = _pipe_process(reply(mail, move), db_url, tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    assert b"pbem inbound: moved" in done.stderr
    assert Match.get_by_id(1).ply == 1


def test_the_pipe_asks_the_mail_server_to_retry_when_the_database_is_down(
        mail_settings, tmp_path) -> None:
    start()
    raw = reply(as_sent(mail_settings, latest(ALICE)), "take 2")
    done = _pipe_process(raw, UNREACHABLE, tmp_path)
    assert done.returncode == 75, done.stderr.decode()
    assert b"try again later" in done.stderr
    assert Match.get_by_id(1).ply == 0 and InboundMessage.select().count() == 0


def test_the_pipe_asks_for_a_retry_when_the_configuration_is_broken(tmp_path) -> None:
    env = {**os.environ, "PBEM_SECRET_KEY": "", "PBEM_DEVELOPMENT": "0",
           "PBEM_INSTANCE_PATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "pbem.cli", "inbound"], input=b"x", env=env,
                          capture_output=True, timeout=60)
    assert done.returncode == 75 and b"PBEM_SECRET_KEY" in done.stderr


def test_the_http_endpoint_needs_the_bearer_secret(mail_settings, inbound_client) -> None:
    start()
    raw = reply(as_sent(mail_settings, latest(ALICE)), "take 2")
    for headers in ({}, {"Authorization": "Bearer wrong"},
                    {"Authorization": INBOUND_SECRET}):
        response = inbound_client.post("/inbound/mime", data=raw, headers=headers)
        assert response.status_code == 401
        assert response.mimetype == "application/problem+json"
    assert Match.get_by_id(1).ply == 0 and InboundMessage.select().count() == 0


def test_the_http_endpoint_drops_oversized_mail_with_413(mail_settings,
                                                         inbound_client) -> None:
    start()
    raw = reply(as_sent(mail_settings, latest(ALICE)), "take 2\n" + "x" * (1024 * 1024 + 10))
    response = inbound_client.post("/inbound/mime", data=raw,
                                   headers={"Authorization": f"Bearer {INBOUND_SECRET}"})
    assert response.status_code == 413
    assert InboundMessage.get().action == "oversized" and Match.get_by_id(1).ply == 0


def test_without_a_secret_the_http_endpoint_does_not_exist(db_url, tmp_path) -> None:
    from pbem.web import create_app

    app = create_app(make_settings(db_url, tmp_path, reply_address=REPLY_BASE))
    response = app.test_client().post("/inbound/mime", data=b"x",
                                      headers={"Authorization": "Bearer "})
    assert response.status_code == 404


# --- IMAP --------------------------------------------------------------------------------------

def _imap_settings(db_url, tmp_path, server, **extra):
    return make_settings(db_url, tmp_path, reply_address=REPLY_BASE, imap_host=server.host,
                         imap_port=server.port, imap_user=server.user,
                         imap_password=server.password, imap_tls=False, **extra)


def _deliver(server, *messages: bytes) -> None:
    with MailBoxUnencrypted(server.host, server.port).login(server.user, server.password) as box:
        for raw in messages:
            box.append(raw, "INBOX")


def _unseen(server) -> int:
    with MailBoxUnencrypted(server.host, server.port).login(server.user, server.password) as box:
        return len(box.uids(AND(seen=False)))


def test_the_worker_reads_replies_over_imap_and_marks_them_seen(db_url, tmp_path,
                                                                dovecot) -> None:
    settings = _imap_settings(db_url, tmp_path, dovecot)
    start()
    _deliver(dovecot, reply(as_sent(settings, latest(ALICE)), "take 2"),
             b"From: someone@example.org\r\nTo: hello@pbem.test\r\n\r\nspam\r\n")
    worker = Worker(settings, clock=Clock(LATER), extra_template_dirs=(SUPPORT_TEMPLATES,))
    report = worker.run_once()["inbox"]
    assert (report.handled, report.left) == (2, 0)
    assert Match.get_by_id(1).ply == 1 and _unseen(dovecot) == 0
    assert sorted(r.action for r in InboundMessage.select()) == ["moved", "no_key"]
    # The next poll finds nothing new.
    assert worker.read_inbox().handled == 0


def test_imap_and_the_pipe_delivering_the_same_message_act_once(db_url, tmp_path, dovecot,
                                                                mail_settings) -> None:
    settings = _imap_settings(db_url, tmp_path, dovecot)
    start()
    raw = reply(as_sent(settings, latest(ALICE)), "take 2")
    assert handle(raw, settings, "pipe", LATER).action == "moved"
    _deliver(dovecot, raw, raw)
    assert poll(settings, Clock(LATER)).handled == 2
    assert Match.get_by_id(1).ply == 1
    assert [r.action for r in InboundMessage.select()] == ["moved"]  # duplicates: no record


def test_a_crash_mid_batch_loses_and_duplicates_nothing(db_url, tmp_path, dovecot) -> None:
    settings = _imap_settings(db_url, tmp_path, dovecot)
    start()
    first = reply(as_sent(settings, latest(ALICE)), "take 2")
    _deliver(dovecot, first)
    # A worker handled the first message and died before marking it seen...
    assert handle(first, settings, "imap", LATER).action == "moved"
    second = reply(as_sent(settings, latest(BOB)), "take 3")
    _deliver(dovecot, second)
    # ...and the next poll meets the database down: both stay unseen, nothing recorded.
    bind_database(UNREACHABLE)
    try:
        down = poll(settings, Clock(LATER))
    finally:
        bind_database(db_url)
    assert (down.handled, down.left) == (0, 2) and _unseen(dovecot) == 2
    # Back up: the first is found already done, the second is played; each exactly once.
    assert poll(settings, Clock(LATER)).handled == 2
    match = Match.get_by_id(1)
    assert match.ply == 2 and match.state["pile"] == 4 and _unseen(dovecot) == 0
    assert InboundMessage.select().count() == 2


def test_an_unreachable_imap_server_is_reported_not_raised(db_url, tmp_path) -> None:
    from tests.conftest import free_port

    settings = make_settings(db_url, tmp_path, imap_host="127.0.0.1", imap_port=free_port(),
                             imap_user="x", imap_password="y", imap_tls=False)
    report = poll(settings, Clock(LATER))
    assert report.handled == 0 and report.error


@pytest.fixture(autouse=True)
def _rebind(db_url):
    yield
    bind_database(db_url)


def test_the_http_endpoint_says_try_later_when_the_database_is_down(db_url, tmp_path,
                                                                    mail_settings) -> None:
    from pbem.web import create_app

    start()
    raw = reply(as_sent(mail_settings, latest(ALICE)), "take 2")
    settings = make_settings(UNREACHABLE, tmp_path, reply_address=REPLY_BASE,
                             inbound_secret=INBOUND_SECRET)
    app = create_app(settings)
    response = app.test_client().post("/inbound/mime", data=raw, headers={
        "Authorization": f"Bearer {INBOUND_SECRET}"})
    assert response.status_code == 503 and response.headers["Retry-After"] == "60"
    bind_database(db_url)
    assert Match.get_by_id(1).ply == 0 and InboundMessage.select().count() == 0


def test_the_worker_leaves_the_inbox_alone_while_the_database_is_down(db_url, tmp_path,
                                                                       dovecot) -> None:
    settings = _imap_settings(db_url, tmp_path, dovecot)
    start()
    _deliver(dovecot, reply(as_sent(settings, latest(ALICE)), "take 2"))
    down = _imap_settings(UNREACHABLE, tmp_path, dovecot)
    bind_database(UNREACHABLE)
    try:
        report = Worker(down, clock=Clock(LATER)).read_inbox()
    finally:
        bind_database(db_url)
    assert (report.handled, report.left) == (0, 0) and _unseen(dovecot) == 1
    assert Match.get_by_id(1).ply == 0
