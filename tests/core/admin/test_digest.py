"""The daily mail to admins about queue entries older than a day, sent through real SMTP."""

from __future__ import annotations

from datetime import timedelta

from pbem.core.accounts.admins import create_admin
from pbem.core.matches.creation import create_match
from pbem.core.matches.sweep import sweep
from tests.conftest import START


def test_admins_are_mailed_once_a_day_about_entries_older_than_a_day(
        settings, worker, clock, smtp) -> None:
    create_admin("ref@club.org", "a long enough password", START)
    create_admin("mod@club.org", "a long enough password", START, role="moderator")
    create_match("nim", ["ann@example.org", "ben@example.org"], {}, settings.secret_key,
                 START, time_control="45s")
    sweep(START + timedelta(minutes=1), timedelta(minutes=10))  # into the queue at 12:01
    clock.now = START + timedelta(hours=1)
    assert worker.mail_admins().admins == 0  # the entry is not a day old yet
    clock.advance(days=1)  # the next day, after the digest hour (8)
    assert worker.mail_admins().admins == 2
    assert worker.mail_admins().admins == 0  # once a day
    worker.send_outbox()
    mail = smtp.to("ref@club.org")[-1]
    assert "1 entry waiting over a day" in mail["Subject"]
    body = mail.get_body(("plain",)).get_content()
    assert "ann late 1 day" in body and "http://pbem.test/admin" in body
    assert smtp.to("mod@club.org")
    clock.advance(days=1)
    assert worker.mail_admins().admins == 2  # still waiting the day after


def test_no_mail_before_the_hour_or_with_a_fresh_queue(settings, worker, clock) -> None:
    create_admin("ref@club.org", "a long enough password", START)
    create_match("nim", ["ann@example.org", "ben@example.org"], {}, settings.secret_key,
                 START, time_control="45s")
    sweep(START + timedelta(minutes=1), timedelta(minutes=10))
    clock.now = START.replace(hour=7) + timedelta(days=3)
    assert worker.mail_admins().admins == 0
