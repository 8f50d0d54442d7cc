"""The outbox writes a mail's bytes itself (pbem/mail/wire.py): they must be the bytes the
`email` package would write for the same message, and what the SMTP server receives must be a
well-formed message."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from email import message_from_bytes, policy
from email.generator import BytesGenerator
from email.header import Header
from email.message import Message
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText

from aiosmtpd.controller import Controller
from hypothesis import given
from hypothesis import strategies as st

from pbem.core.mailout import accounts as account_mail
from pbem.core.mailout import verp
from pbem.core.mailout.models import MessageStatus, OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.core.matches.play import submit_move
from pbem.mail.compose import _UTF8, Composer, _header
from pbem.mail.wire import alternative
from pbem.worker import Worker
from tests.conftest import START, SUPPORT_TEMPLATES, SMTPRecorder, free_port

ALICE, BOB = "alice@example.org", "bob@example.org"
_BOUNDARY = re.compile(rb'boundary="([^"]+)"')


def flattened(email: Message) -> bytes:
    """What `smtplib.send_message` puts on the wire for `email`."""
    out = io.BytesIO()
    BytesGenerator(out).flatten(email, linesep="\r\n")
    return out.getvalue()


def same_boundary(data: bytes) -> bytes:
    found = _BOUNDARY.search(data)
    assert found is not None, data[:200]
    return data.replace(found.group(1), b"BOUNDARY")


def stdlib_alternative(headers: list[tuple[str, str | Header]], text: str, html: str) -> bytes:
    email = MIMEMultipart("alternative")
    for name, value in headers:
        email[name] = value
    email.attach(MIMEText(text, "plain", _UTF8))  # type: ignore[arg-type]
    email.attach(MIMEText(html, "html", _UTF8))  # type: ignore[arg-type]
    return flattened(email)


_words = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF, exclude_characters="\x7f"),
                 max_size=120)


@given(subject=_words, kind=st.text("abcdefghijklmnopqrstuvwxyz_ ,;<>=\"", max_size=90),
       link=st.text("abcdefghijklmnopqrstuvwxyz./:-_", max_size=150),
       text=st.text(max_size=400), html=st.text(max_size=400))
def test_the_bytes_are_those_the_email_package_writes(subject: str, kind: str, link: str,
                                                       text: str, html: str) -> None:
    headers: list[tuple[str, str | Header]] = [
        ("From", "=?utf-8?q?Zo=C3=AB?= <pbem@pbem.test>"), ("To", ALICE),
        ("Subject", _header(subject)), ("List-Unsubscribe", f"<{link}>"),
        ("X-Pbem-Kind", kind)]
    ours = alternative(headers, text, html)
    assert same_boundary(ours) == same_boundary(stdlib_alternative(headers, text, html))


def test_every_line_ends_in_crlf_and_stays_short() -> None:
    subject = " ".join(["Zoë"] * 60)
    data = alternative([("Subject", _header(subject)), ("To", ALICE),
                        ("References", " ".join(f"<m{n}@pbem.test>" for n in range(40)))],
                       "ünïcode text\n" * 200, "<p>" + "é" * 5000 + "</p>")
    lines = data.split(b"\r\n")
    assert lines[-1] == b"" and not any(b"\n" in line or b"\r" in line for line in lines)
    assert max(len(line) for line in lines) <= 78
    parsed = message_from_bytes(data, policy=policy.default)
    assert parsed["Subject"] == subject
    assert parsed.get_body(("plain",)).get_content() == "ünïcode text\n" * 200  # type: ignore[union-attr]


def test_composed_mails_are_the_same_either_way(mail_settings) -> None:
    """`Composer.outgoing` (the outbox) and `Composer.to_email` (the admin pages) agree, for
    a match's mails with a reply address and for a mail whose subject is not ASCII."""
    match_id = create_match("nim", [ALICE, BOB], {}, mail_settings.secret_key, START,
                            seed=1).match.id
    submit_move(match_id, 0, "take 2", 0, START)
    account_mail.queue(BOB, "challenge_declined",
                       {"decliner": "Zoë Ünderwood " * 8, "title": "Nim", "clock": "3 days"},
                       START)
    composer = Composer(mail_settings, (SUPPORT_TEMPLATES,))
    rows = list(OutboxMessage.select().order_by(OutboxMessage.id))
    assert {row.template for row in rows} >= {"welcome", "your_turn", "challenge_declined"}
    sent = []
    for row in rows:
        mail = composer.outgoing(row, START)
        # The envelope's sender names the mail (VERP), so a later bounce finds it.
        assert (mail.sender, mail.recipient) == (
            verp.address_for(mail_settings.secret_key, "bounces@pbem.test", row),
            row.to_address)
        assert same_boundary(mail.data) == same_boundary(flattened(composer.to_email(row, START)))
        sent.append(mail.data)
    assert all(b"\r\nReply-To: play." in data for data in sent[:-1])
    assert b"\r\nSubject: =?utf-8?" in sent[-1]


def test_a_mail_to_an_address_that_is_not_ascii_goes_by_smtputf8(settings, worker,
                                                                   smtp: SMTPRecorder) -> None:
    # The test server offers SMTPUTF8 (aiosmtpd's default).
    create_match("nim", ["jörg@example.de", BOB], {}, settings.secret_key, START, seed=1)
    assert worker.send_outbox().sent == 3
    assert [m["To"] for m in smtp.messages] == ["jörg@example.de", BOB, "jörg@example.de"]


def test_without_smtputf8_only_that_mail_fails_and_says_why(settings, clock) -> None:
    recorder = SMTPRecorder("127.0.0.1", free_port())
    controller = Controller(recorder, hostname=recorder.host, port=recorder.port,
                            enable_SMTPUTF8=False)
    controller.start()
    try:
        create_match("nim", ["jörg@example.de", BOB], {}, settings.secret_key, START, seed=1)
        worker = Worker(replace(settings, smtp_port=recorder.port), clock=clock,
                        extra_template_dirs=(SUPPORT_TEMPLATES,))
        report = worker.send_outbox()
    finally:
        controller.stop()
    assert (report.sent, report.retrying, report.failed) == (1, 0, 2)
    assert [m["To"] for m in recorder.messages] == [BOB]
    failed = OutboxMessage.select().where(OutboxMessage.status == MessageStatus.FAILED)
    assert {m.to_address for m in failed} == {"jörg@example.de"}
    assert all("SMTPUTF8" in m.last_error for m in failed)
