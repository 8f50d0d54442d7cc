"""A poison mail never stalls reply by email: a UTF-7 body that decodes to a lone surrogate,
a multipart nested a thousand deep, or anything else the reader chokes on ends as a recorded
refusal. Over IMAP it is moved aside (quarantine) and the next genuine reply is handled; over
HTTP the answer is 200 (the provider must not retry it for days); on the pipe the exit is 0.
Each way is tried with a batch of 50 poison mails followed by a genuine reply."""

from __future__ import annotations

import pytest
from imap_tools import AND, MailBoxUnencrypted

from pbem.core.mailin.models import InboundMessage
from pbem.core.matches.models import Match
from pbem.mail.inbound import handle
from pbem.worker import Worker
from tests.conftest import SUPPORT_TEMPLATES, Clock, make_settings
from tests.mail.conftest import INBOUND_SECRET, REPLY_BASE
from tests.mail.inbound_support import ALICE, as_sent, latest, reply, start
from tests.mail.test_inbound import LATER

HEAD = (b"From: mallory@example.org\r\nTo: play.x@pbem.test\r\n"
        b"Subject: hello\r\n")


def surrogate_mail(number: int) -> bytes:
    """A UTF-7 body whose first line decodes to a lone surrogate."""
    return (HEAD + f"Message-ID: <utf7-{number}@evil.example>\r\n".encode()
            + b"Content-Type: text/plain; charset=utf-7\r\n\r\n+2D3-\r\n")


def nested_mail(number: int, depth: int = 1000) -> bytes:
    """A multipart a thousand levels deep."""
    parts = [HEAD + f"Message-ID: <deep-{number}@evil.example>\r\n".encode()]
    for level in range(depth):
        parts.append(f'Content-Type: multipart/mixed; boundary="b{level}"\r\n\r\n'
                     f"--b{level}\r\n".encode())
    parts.append(b"Content-Type: text/plain\r\n\r\ntake 1\r\n")
    return b"".join(parts)


POISON = [surrogate_mail, nested_mail]


@pytest.mark.parametrize("poison", POISON, ids=["surrogate", "nested"])
def test_a_poison_mail_is_recorded_as_refused(mail_settings, poison) -> None:
    start()
    receipt = handle(poison(1), mail_settings, "pipe", LATER)
    assert receipt.action in ("unknown_key", "malformed")
    row = InboundMessage.get()
    assert row.action == receipt.action  # recorded, and the text stored is storable
    if poison is surrogate_mail:
        assert row.first_line == "\ufffd"  # the lone surrogate, replaced


def test_fifty_poison_mails_then_a_reply_over_the_pipe(mail_settings, pipe) -> None:
    start()
    genuine = reply(as_sent(mail_settings, latest(ALICE)), "take 2")
    for number in range(25):
        for poison in POISON:
            assert pipe(poison(number)) == 0  # handled: the mail server must not retry it
    assert pipe(genuine) == 0
    assert Match.get_by_id(1).ply == 1


def test_fifty_poison_mails_then_a_reply_over_http(mail_settings, inbound_client) -> None:
    start()
    genuine = reply(as_sent(mail_settings, latest(ALICE)), "take 2")
    headers = {"Authorization": f"Bearer {INBOUND_SECRET}",
               "Content-Type": "message/rfc822"}
    for number in range(25):
        for poison in POISON:
            answer = inbound_client.post("/inbound/mime", data=poison(number), headers=headers)
            assert answer.status_code == 200, answer.data
    assert inbound_client.post("/inbound/mime", data=genuine,
                               headers=headers).status_code == 200
    assert Match.get_by_id(1).ply == 1


def test_fifty_poison_mails_then_a_reply_over_imap(db_url, tmp_path, dovecot) -> None:
    settings = make_settings(db_url, tmp_path, reply_address=REPLY_BASE,
                             imap_host=dovecot.host, imap_port=dovecot.port,
                             imap_user=dovecot.user, imap_password=dovecot.password,
                             imap_tls=False)
    start()
    genuine = reply(as_sent(settings, latest(ALICE)), "take 2")
    with MailBoxUnencrypted(dovecot.host, dovecot.port).login(dovecot.user,
                                                               dovecot.password) as box:
        for number in range(25):
            for poison in POISON:
                box.append(poison(number), "INBOX")
        box.append(genuine, "INBOX")
    worker = Worker(settings, clock=Clock(LATER), extra_template_dirs=(SUPPORT_TEMPLATES,))
    for _ in range(3):  # three polls of 50: the reply is reached whatever the first ones were
        worker.read_inbox()
    assert Match.get_by_id(1).ply == 1
    with MailBoxUnencrypted(dovecot.host, dovecot.port).login(dovecot.user,
                                                               dovecot.password) as box:
        assert box.uids(AND(seen=False)) == []
