"""The outbox over real SMTP (aiosmtpd on loopback): delivery, threading, retries, restarts."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

import pytest

from pbem.core.accounts.models import Player
from pbem.core.mailout.accounts import reissue_seat_link
from pbem.core.mailout.models import MessageStatus, OutboxMessage
from pbem.core.mailout.notify import message_key
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match
from pbem.core.matches.play import submit_move
from pbem.mail.compose import Composer
from pbem.mail.outbox import backoff
from pbem.worker import Worker
from tests.conftest import START, SUPPORT_TEMPLATES, Clock, SMTPRecorder

ALICE, BOB = "alice@example.org", "bob@example.org"


def start_nim(settings) -> int:
    return create_match("nim", [ALICE, BOB], {}, settings.secret_key, START, seed=1).match.id


def test_queued_mail_is_delivered_as_text_and_html(settings, worker, smtp: SMTPRecorder) -> None:
    start_nim(settings)
    report = worker.send_outbox()
    assert report.sent == 3
    assert [m["To"] for m in smtp.messages] == [ALICE, BOB, ALICE]
    turn = smtp.messages[2]
    assert turn["Auto-Submitted"] == "auto-generated"
    text = turn.get_body(("plain",)).get_content()
    html = turn.get_body(("html",)).get_content()
    assert "Your turn in Nim (test game), match #1" in text
    assert "Pile: 9 ooooooooo" in text and "take 1, take 2, take 3" in text
    assert "http://pbem.test/play/" in text and "<table>" in html
    # A narrow mail client wraps the list between moves, never inside one ("b9-" / "a10").
    assert '<span style="white-space:nowrap">take 1</span>, ' in html
    assert all(m.status == MessageStatus.SENT for m in OutboxMessage.select())


def test_one_thread_per_player_under_a_stable_subject(settings, worker, smtp) -> None:
    match_id = start_nim(settings)
    submit_move(match_id, 0, "take 1", 0, START)
    worker.send_outbox()
    to_alice, to_bob = smtp.to(ALICE), smtp.to(BOB)
    assert {m["Subject"] for m in smtp.messages} == {"Nim (test game), match #1"}
    for mails in (to_alice, to_bob):
        root = mails[0]["Message-ID"]
        assert root.endswith("@pbem.test>") and "In-Reply-To" not in mails[0]
        for before, later in pairwise(mails):
            # Under the mail before it, and the root first among the thread's latest.
            assert later["In-Reply-To"] == before["Message-ID"]
            assert later["References"].split()[0] == root
    assert len({m["Message-ID"] for m in smtp.messages}) == len(smtp.messages)


def test_sending_times_are_kept_to_the_second_for_a_lone_mail_and_a_batch(
        settings, worker, smtp, clock: Clock) -> None:
    """A match's three opening mails go in one UPDATE, a lone turn mail through the prepared
    one, which passes its values to the driver unconverted: both must cut the time to the
    second, as `sent_at` promises (a mail a move: 7 characters a row on SQLite)."""
    match_id = start_nim(settings)
    clock.advance(microseconds=123_456)
    assert worker.send_outbox().sent == 3
    submit_move(match_id, 0, "take 1", 0, clock.now)
    clock.advance(seconds=1, microseconds=654_321)
    assert worker.send_outbox().sent == 1
    times = [row.sent_at for row in OutboxMessage.select(OutboxMessage.sent_at)]
    assert len(times) == 4 and clock.now.microsecond
    assert all(at.microsecond == 0 for at in times), times
    assert max(times) == clock.now.replace(microsecond=0)


def test_a_match_mail_keeps_no_copy_of_its_thread_subject_and_others_keep_theirs(
        settings, worker, smtp, clock: Clock) -> None:
    """A mail a move repeating the match's name is what the record would be made of: the
    thread's subject is given again from the match, in the recipient's language; a subject
    of its own (a new seat link, a mail outside a match) is kept as sent."""
    match_id = start_nim(settings)
    Player.update(language="de").where(Player.email == BOB).execute()
    reissue_seat_link(settings.secret_key, match_id, 0, clock.now)
    assert worker.send_outbox().sent == 4
    composer = Composer(settings)
    sent = {(m.template, m.to_address): m for m in OutboxMessage.select()}
    for mail in smtp.messages:
        record = sent[(_kind(mail), mail["To"])]
        assert composer.recorded_subject(record) == mail["Subject"]
    assert sent[("welcome", ALICE)].subject is None
    assert sent[("welcome", BOB)].subject is None
    assert composer.recorded_subject(sent[("welcome", BOB)]) == "Nim (test game), Partie #1"
    assert sent[("seat_link", ALICE)].subject == "Nim (test game), match #1: your new link"
    pending = OutboxMessage.create(match=match_id, seat=0, to_address=ALICE,
                                   template="your_turn", next_attempt_at=clock.now,
                                   created_at=clock.now, ply=0)
    assert composer.recorded_subject(pending) is None, "an unsent mail's is written when sent"


def _kind(mail) -> str:
    subject = mail["Subject"]
    return "seat_link" if "link" in subject else ("your_turn" if mail["In-Reply-To"]
                                                  else "welcome")


def test_a_temporary_failure_is_retried_with_backoff_under_the_same_message_id(
        settings, worker, smtp: SMTPRecorder, clock: Clock) -> None:
    start_nim(settings)
    smtp.answer = "451 4.3.0 try again later"
    report = worker.send_outbox()
    assert (report.sent, report.retrying) == (0, 3)
    first = OutboxMessage.get_by_id(1)
    assert first.status == MessageStatus.PENDING and first.attempts == 1
    assert first.next_attempt_at == clock.now + backoff(1) and "451" in first.last_error
    assert worker.send_outbox().sent == 0, "nothing is due before the backoff ends"
    smtp.answer = None
    clock.advance(minutes=2)
    assert worker.send_outbox().sent == 3
    assert smtp.messages[0]["Message-ID"] == (
        f"<{message_key(first, Match.get_by_id(first.match_id))}@pbem.test>")
    assert OutboxMessage.get_by_id(1).attempts == 2


def test_a_permanent_failure_stops_and_stays_visible(settings, worker, smtp, clock) -> None:
    start_nim(settings)
    smtp.answer = "550 5.1.1 no such user"
    report = worker.send_outbox()
    assert report.failed == 3
    failed = OutboxMessage.get_by_id(1)
    assert failed.status == MessageStatus.FAILED and "550" in failed.last_error
    clock.advance(days=1)
    smtp.answer = None
    assert worker.send_outbox().sent == 0 and smtp.messages == []


def test_retries_end_after_the_configured_number_of_attempts(settings, worker, smtp,
                                                             clock) -> None:
    start_nim(settings)
    smtp.answer = "421 4.7.0 busy"
    for _ in range(settings.outbox_max_attempts):
        worker.send_outbox()
        clock.advance(hours=3)
    assert {m.status for m in OutboxMessage.select()} == {MessageStatus.FAILED}


def test_an_unreachable_server_is_a_temporary_failure(settings, worker, smtp) -> None:
    from dataclasses import replace

    from pbem.mail.senders import SMTPSender

    start_nim(settings)
    worker.sender = SMTPSender(replace(settings, smtp_port=1, smtp_timeout=2))
    assert worker.send_outbox().retrying == 3


def test_a_restarted_worker_loses_nothing_and_sends_nothing_twice(settings, smtp, clock) -> None:
    match_id = start_nim(settings)
    first = Worker(settings, clock=clock, extra_template_dirs=(SUPPORT_TEMPLATES,))
    first.send_outbox()
    # The worker stops; play goes on; a new worker process takes over.
    submit_move(match_id, 0, "take 2", 0, START)
    submit_move(match_id, 1, "take 2", 1, START)
    second = Worker(settings, clock=clock, extra_template_dirs=(SUPPORT_TEMPLATES,))
    second.send_outbox()
    second.send_outbox()
    ids = [m["Message-ID"] for m in smtp.messages]
    assert len(ids) == len(set(ids)) == OutboxMessage.select().count() == 5


def test_a_worker_that_died_mid_send_is_retried_after_its_lease(settings, smtp, clock) -> None:
    from pbem.mail.outbox import LEASE, claim_batch

    start_nim(settings)
    claim_batch(clock.now, 1)  # claimed, then the process died before sending
    worker = Worker(settings, clock=clock, extra_template_dirs=(SUPPORT_TEMPLATES,))
    assert worker.send_outbox().sent == 2, "a live claim is left alone"
    clock.advance(seconds=LEASE.total_seconds() + 1)
    assert worker.send_outbox().sent == 1
    assert sorted(m["To"] for m in smtp.messages) == [ALICE, ALICE, BOB]


def test_a_batch_goes_out_over_one_connection(settings, worker, smtp) -> None:
    for _ in range(3):
        start_nim(settings)
    assert worker.send_outbox().sent == 9
    assert len(smtp.connections) == 9 and len(set(smtp.connections)) == 1


def test_a_refused_message_fails_alone_and_the_rest_of_the_batch_goes(settings, worker,
                                                                       smtp) -> None:
    """Each message's verdict is read while the next is rendered: a refusal must still land
    on the message it was about, not on its neighbour."""
    for _ in range(3):
        start_nim(settings)
    smtp.refuse_data[BOB] = "550 5.7.1 refused by policy"
    report = worker.send_outbox()
    assert (report.sent, report.failed) == (6, 3)
    by_status = {status: sorted(m.to_address for m in OutboxMessage.select().where(
        OutboxMessage.status == status)) for status in (MessageStatus.SENT, MessageStatus.FAILED)}
    assert by_status == {MessageStatus.SENT: [ALICE] * 6, MessageStatus.FAILED: [BOB] * 3}
    assert sorted(m["To"] for m in smtp.messages) == [ALICE] * 6
    assert all("550" in m.last_error for m in OutboxMessage.select().where(
        OutboxMessage.status == MessageStatus.FAILED))


def test_a_connection_the_server_drops_mid_batch_is_opened_again_once(settings, worker,
                                                                       smtp) -> None:
    for _ in range(2):
        start_nim(settings)
    smtp.drop_at_mail = {2}  # the second message finds the connection closed
    assert worker.send_outbox().sent == 6
    assert len(smtp.messages) == 6 and len(set(smtp.connections)) == 2
    ids = [m["Message-ID"] for m in smtp.messages]
    assert len(ids) == len(set(ids)) == 6
    assert OutboxMessage.select().where(OutboxMessage.status != MessageStatus.SENT).count() == 0


def test_a_refusal_over_the_reopened_connection_is_recorded_like_any_other(settings, worker,
                                                                            smtp) -> None:
    start_nim(settings)
    smtp.drop_at_mail = {2}
    smtp.refuse = {ALICE, BOB}
    report = worker.send_outbox()  # it used to escape as smtplib's own error, batch and all
    assert (report.sent, report.failed) == (0, 3)
    assert all("550" in m.last_error for m in OutboxMessage.select())


def test_a_connection_lost_before_a_verdict_retries_that_mail_and_the_batch_goes_on(
        settings, worker, smtp) -> None:
    for _ in range(2):
        start_nim(settings)
    smtp.drop_at_data = {2}
    report = worker.send_outbox()
    assert (report.sent, report.retrying) == (5, 1)
    (waiting,) = OutboxMessage.select().where(OutboxMessage.status == MessageStatus.PENDING)
    assert "lost before the server's reply" in waiting.last_error
    assert len(set(smtp.connections)) == 2, "the rest went over a new connection"


def test_only_a_refused_address_marks_it_undeliverable() -> None:
    import smtplib

    from pbem.mail.senders import SMTPSession

    session = SMTPSession(None)  # type: ignore[arg-type]  # no connection is made

    def failure(error: Exception) -> tuple[bool, bool]:
        session.unreachable = None
        mapped = session._failure(error)
        return mapped.temporary, mapped.bounce

    assert failure(smtplib.SMTPRecipientsRefused({"a@b": (550, b"no such user")})) == (
        False, True)
    assert failure(smtplib.SMTPDataError(550, b"5.1.1 no such user")) == (False, True)
    assert failure(smtplib.SMTPDataError(554, b"5.7.1 message refused as spam")) == (
        False, False)
    assert failure(smtplib.SMTPSenderRefused(553, b"5.7.1 sender not allowed", "p@x")) == (
        False, False)
    assert failure(smtplib.SMTPAuthenticationError(535, b"5.7.8 bad password")) == (
        True, False), "a wrong password waits for the operator; no address is to blame"
    assert failure(smtplib.SMTPDataError(451, b"4.3.0 try later")) == (True, False)


def test_a_line_starting_with_a_dot_arrives_as_written(settings, smtp) -> None:
    from pbem.mail.senders import SMTPSender
    from pbem.mail.wire import Outgoing

    body = (b"From: pbem@pbem.test\r\nTo: alice@example.org\r\nSubject: dots\r\n\r\n"
            b".hidden\r\n..two\r\nmiddle . dot\r\n.")
    with SMTPSender(settings).session() as session:
        session.send(Outgoing("pbem@pbem.test", ALICE, body))
    received = smtp.messages[0].get_content().replace("\r\n", "\n")
    assert received == ".hidden\n..two\nmiddle . dot\n.\n"


def test_each_batch_opens_its_own_connection(settings, worker, smtp) -> None:
    from dataclasses import replace

    start_nim(settings)
    worker.settings = replace(settings, outbox_batch_size=2)
    assert worker.send_outbox().sent == 3  # two batches, in one tick
    assert len(set(smtp.connections)) == 2


def test_one_tick_drains_everything_due_batch_after_batch(settings, worker, smtp) -> None:
    """Before, a tick sent one batch: at the defaults 5 mails a second at most, however fast a
    batch went, and a busy server's backlog grew without end."""
    from dataclasses import replace

    for _ in range(12):
        start_nim(settings)  # 36 mails
    worker.settings = replace(settings, outbox_batch_size=5)
    report = worker.send_outbox()
    assert report.sent == 36 and len(smtp.messages) == 36
    assert len(set(smtp.connections)) == 8  # eight batches
    assert worker.send_outbox().sent == 0


def test_a_tick_stops_at_its_time_slice_and_when_stopping(settings, worker, smtp) -> None:
    from dataclasses import replace

    for _ in range(4):
        start_nim(settings)  # 12 mails
    worker.settings = replace(settings, outbox_batch_size=5, outbox_slice_seconds=0)
    assert worker.send_outbox().sent == 5  # one batch, then the slice is over
    worker.settings = replace(settings, outbox_batch_size=5)
    worker.stopping.set()
    assert worker.send_outbox().sent == 0  # a stopping worker starts no batch's mail
    worker.stopping.clear()
    assert worker.send_outbox().sent == 7


def test_a_batch_is_claimed_in_one_statement(settings, worker, clock) -> None:
    from pbem.mail.outbox import claim_batch

    for _ in range(2):
        start_nim(settings)
    claimed = claim_batch(clock.now, 4)
    assert [m.id for m in claimed] == [1, 2, 3, 4]
    assert {m.status for m in claimed} == {MessageStatus.SENDING}
    assert [m.id for m in claim_batch(clock.now, 10)] == [5, 6], "claimed rows are left alone"
    assert claim_batch(clock.now, 10) == []


def test_three_workers_at_once_send_every_message_exactly_once(settings, smtp, clock) -> None:
    import threading
    from dataclasses import replace

    from pbem.core.db.connection import database

    for _ in range(10):
        start_nim(settings)
    small = replace(settings, outbox_batch_size=4)
    barrier = threading.Barrier(3)

    def run() -> None:
        worker = Worker(small, clock=clock, extra_template_dirs=(SUPPORT_TEMPLATES,))
        barrier.wait()
        with database.connection_context():
            while worker.send_outbox().sent:
                pass

    threads = [threading.Thread(target=run) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ids = [m["Message-ID"] for m in smtp.messages]
    assert len(ids) == len(set(ids)) == 30
    assert {m.status for m in OutboxMessage.select()} == {MessageStatus.SENT}
    assert len(set(smtp.connections)) >= 3, "each worker used its own connections"


class _Snapshots:
    """The real SMTP sender, watched: how many mails were recorded as sent at the moment each
    mail's `begin` hands over its previous work (`meanwhile`), i.e. before its bytes go."""

    def __init__(self, settings) -> None:
        from pbem.mail.senders import SMTPSender

        self.inner = SMTPSender(settings)
        self.recorded: list[int] = []
        self.calls = 0

    def send(self, mail) -> None:
        self.inner.send(mail)

    def session(self):
        import contextlib

        watcher = self

        @contextlib.contextmanager
        def watched():
            with self.inner.session() as session:
                class Watched:
                    def begin(self, mail, meanwhile=None) -> None:
                        def then():
                            watcher.calls += 1
                            finishing = meanwhile() if meanwhile is not None else None

                            def finish() -> None:  # just before the bytes go
                                if finishing is not None:
                                    finishing()
                                watcher.recorded.append(OutboxMessage.select().where(
                                    OutboxMessage.status == MessageStatus.SENT).count())
                            return finish
                        session.begin(mail, then)

                    def end(self) -> None:
                        session.end()
                yield Watched()
        return watched()


def test_each_mail_is_recorded_as_sent_before_the_next_ones_bytes_go(settings, worker,
                                                                      smtp) -> None:
    """A killed worker re-sends at most one mail: the one accepted and not yet recorded is
    recorded while the server answers the next MAIL, before that mail's bytes are sent."""
    for _ in range(2):
        start_nim(settings)
    worker.sender = _Snapshots(settings)
    assert worker.send_outbox().sent == 6
    assert worker.sender.recorded == [0, 1, 2, 3, 4, 5]
    assert OutboxMessage.select().where(OutboxMessage.status == MessageStatus.SENT).count() == 6


def test_the_previous_mails_record_is_written_once_whatever_happens_to_the_next(
        settings, worker, smtp) -> None:
    """Over a dropped and reopened connection, to a refused recipient, and to a server that
    cannot be reached, the work handed to `begin` runs exactly once."""
    from dataclasses import replace

    from pbem.mail.senders import DeliveryError, SMTPSession
    from pbem.mail.wire import Outgoing

    for _ in range(2):
        start_nim(settings)
    smtp.drop_at_mail = {2}
    smtp.refuse = {BOB}
    worker.sender = _Snapshots(settings)
    report = worker.send_outbox()
    assert (report.sent, report.failed) == (4, 2)
    assert worker.sender.calls == 6
    assert OutboxMessage.select().where(OutboxMessage.status == MessageStatus.SENT).count() == 4
    calls = []
    session = SMTPSession(replace(settings, smtp_port=1, smtp_timeout=2))
    for _ in range(2):  # the second finds the server already known to be unreachable
        with pytest.raises(DeliveryError, match="connection failed"):
            session.begin(Outgoing("pbem@pbem.test", ALICE, b"Subject: x\r\n\r\nx\r\n"),
                          lambda: calls.append(1))
    assert calls == [1, 1]


def test_a_failed_record_stops_the_next_mail_and_is_raised_as_it_is(settings, smtp) -> None:
    """What goes wrong in the work done while the server answers MAIL (the previous mail's
    record) is not taken for an SMTP failure: the next mail's bytes never go, and the
    caller gets the error itself."""
    from pbem.mail.senders import SMTPSession
    from pbem.mail.wire import Outgoing

    class RecordFailed(Exception):
        pass

    def fail() -> None:
        raise RecordFailed

    session = SMTPSession(settings)
    session.send(Outgoing("pbem@pbem.test", ALICE, b"Subject: one\r\n\r\none\r\n"))
    with pytest.raises(RecordFailed):
        session.begin(Outgoing("pbem@pbem.test", BOB, b"Subject: two\r\n\r\ntwo\r\n"), fail)
    assert [m["Subject"] for m in smtp.messages] == ["one"]
    assert session.smtp is None, "the connection, a reply behind, is closed"
    session.send(Outgoing("pbem@pbem.test", BOB, b"Subject: three\r\n\r\nthree\r\n"))
    session.close()
    assert [m["Subject"] for m in smtp.messages] == ["one", "three"]


def test_mail_queued_after_a_short_batch_is_sent_on_the_same_tick(
        settings, worker, smtp, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch short of full does not end the tick: the mails queued meanwhile go too, so
    under a steady inflow the worker does not sit out an interval each time it catches up."""
    import pbem.worker

    worker.settings = replace(settings, outbox_batch_size=5)  # each batch here is short

    real = pbem.worker.deliver_due
    calls = []

    def delivering(*args, **kwargs):
        report = real(*args, **kwargs)
        calls.append(report.claimed)
        if len(calls) == 1:
            create_match("nim", ["carol@example.org", "dan@example.org"], {},
                         settings.secret_key, START, seed=2)  # three more mails, meanwhile
        return report

    monkeypatch.setattr(pbem.worker, "deliver_due", delivering)
    start_nim(settings)
    assert worker.send_outbox().sent == 6
    assert calls == [3, 3, 0]  # until a claim finds nothing due
    assert not OutboxMessage.select().where(OutboxMessage.status != MessageStatus.SENT).exists()
