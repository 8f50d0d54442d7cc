"""One thread per match for each player, read from the mails as a real SMTP server took them:
their Subject, Message-ID, In-Reply-To and References over a whole played match in which a
player switches language, replies by email and is answered; and a long match's next thread."""

from __future__ import annotations

from email.message import EmailMessage

import pytest

from pbem.core.accounts.models import Player
from pbem.core.mailout.models import MailThread, OutboxMessage
from pbem.core.mailout.preferences import update_preferences
from pbem.core.mailout.threads import PART_LIMIT, RECENT
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match
from pbem.core.matches.play import submit_move
from pbem.mail.compose import Composer
from pbem.mail.inbound import handle
from pbem.worker import Worker
from tests.conftest import START, SUPPORT_TEMPLATES, Clock, SMTPRecorder, make_settings
from tests.mail.conftest import REPLY_BASE
from tests.mail.inbound_support import reply

ALICE, BOB = "alice@example.org", "bob@example.org"
SUBJECT = "Nim (test game), match #1"


@pytest.fixture
def threaded(db_url, tmp_path, smtp: SMTPRecorder):
    settings = make_settings(db_url, tmp_path, smtp_host=smtp.host, smtp_port=smtp.port,
                             reply_address=REPLY_BASE)
    clock = Clock()
    return settings, clock, Worker(settings, clock=clock, extra_template_dirs=(SUPPORT_TEMPLATES,))


def test_a_whole_match_keeps_one_thread_per_player_through_a_language_switch(
        threaded, smtp: SMTPRecorder) -> None:
    settings, clock, worker = threaded
    for address in (ALICE, BOB):
        update_preferences(Player.for_email(address, START).id, "each", 8, None, START)
    match = create_match("nim", [ALICE, BOB], {"pile": "30"}, settings.secret_key, START,
                         seed=1, time_control="3d").match
    worker.send_outbox()
    ply = 0
    while Match.get_by_id(match.id).is_live:
        clock.advance(hours=1)
        if ply == 10:
            # Bob reads German from now on: his mails change language, not their subject.
            Player.update(language="de").where(Player.email == BOB).execute()
        if ply == 14:
            # Alice answers her turn mail by email: the answer threads under her reply.
            receipt = handle(reply(smtp.to(ALICE)[-1], "take 1"), settings, "pipe", clock.now)
            assert receipt.action == "moved", receipt
        else:
            submit_move(match.id, ply % 2, "take 1", ply, clock.now)
        ply += 1
        worker.send_outbox()
    assert ply == 30
    to_bob = smtp.to(BOB)
    assert any("Du bist am Zug" in _text(mail) for mail in to_bob), "Bob reads German"
    replies_answered = 0
    for mails in (smtp.to(ALICE), to_bob):
        assert len(mails) > RECENT + 2
        # An answer to a reply is "Re:" the thread's subject, as a mail client writes it.
        assert {mail["Subject"].removeprefix("Re: ") for mail in mails} == {SUBJECT}
        replies_answered += _check_chain(mails)
    assert replies_answered == 1
    assert len({m["Message-ID"] for m in smtp.messages}) == len(smtp.messages)
    assert MailThread.select().count() == 2  # one thread each, no second part


def _check_chain(mails: list[EmailMessage]) -> int:
    """Each mail under the one before it (or under the player's reply it answers), naming the
    root and at most the latest `RECENT` mails before it; returns how many were answers."""
    root = mails[0]["Message-ID"]
    assert "In-Reply-To" not in mails[0] and "References" not in mails[0]
    answers = 0
    for position, mail in enumerate(mails[1:], start=1):
        chain = mail["References"].split()
        earlier = [m["Message-ID"] for m in mails[1:position]][-RECENT:]
        if mail["X-Pbem-Kind"] == "inbound_answer":
            answers += 1
            assert mail["Subject"] == f"Re: {SUBJECT}"
            assert chain[:-1] == [root, *earlier] and mail["In-Reply-To"] == chain[-1]
            assert not chain[-1].endswith("@pbem.test>"), "the player's own reply"
        else:
            assert chain == [root, *earlier]
            assert mail["In-Reply-To"] == mails[position - 1]["Message-ID"]
        assert len(chain) <= RECENT + 2
    return answers


def test_a_long_match_starts_a_new_thread_before_a_mail_client_would_split_it(
        threaded, smtp: SMTPRecorder) -> None:
    settings, clock, worker = threaded
    match = create_match("nim", [ALICE, BOB], {}, settings.secret_key, START, seed=1).match
    worker.send_outbox()
    # A long match's worth of mails to Alice (a turn mail at each of many reminders).
    for _ in range(PART_LIMIT + 5):
        OutboxMessage.create(match=match.id, seat=0, ply=0, to_address=ALICE,
                             template="your_turn", next_attempt_at=clock.now,
                             created_at=clock.now)
    Player.update(language="de").where(Player.email == ALICE).execute()
    while worker.send_outbox().sent:
        pass
    mails = smtp.to(ALICE)
    first, second = mails[:PART_LIMIT], mails[PART_LIMIT:]
    assert {m["Subject"] for m in first} == {SUBJECT}
    # The new part's subject is the thread's, with the part in the player's language now.
    assert {m["Subject"] for m in second} == {f"{SUBJECT} (Teil 2)"}
    opening = second[0]
    assert "neuen Betreff (Teil 2)" in _text(opening) and "90" in _text(opening)
    assert "neuen Betreff" not in _text(second[1])
    old_ids = {m["Message-ID"] for m in first}
    new_root = opening["References"].split()[0]
    assert opening["References"] == new_root == opening["In-Reply-To"]
    assert new_root not in old_ids and new_root not in {m["Message-ID"] for m in smtp.messages}
    for position, mail in enumerate(second[1:], start=1):
        chain = mail["References"].split()
        assert chain[0] == new_root and not old_ids & set(chain)
        assert mail["In-Reply-To"] == second[position - 1]["Message-ID"]
    # Shown again (the admin's page, the dev mailbox), the first mail still says so.
    first_row = OutboxMessage.select().where(OutboxMessage.seat == 0).order_by(
        OutboxMessage.id).offset(PART_LIMIT).first()
    again = Composer(settings, (SUPPORT_TEMPLATES,)).to_email(first_row, clock.now)
    assert again["Subject"] == opening["Subject"] and again["References"] == new_root
    assert "neuen Betreff (Teil 2)" in again.get_payload()[0].get_payload(decode=True).decode()
    parts = list(MailThread.select().where(MailThread.seat == 0).order_by(MailThread.part))
    assert [(p.part, p.subject) for p in parts] == [(0, SUBJECT), (1, f"{SUBJECT} (Teil 2)")]


def _text(mail: EmailMessage) -> str:
    return mail.get_body(("plain",)).get_content()


def test_two_workers_starting_one_thread_at_once_agree_on_its_subject(threaded) -> None:
    """Two workers sending a player's first mails of a match at the same moment both store
    the thread; the one that loses finds the winner's row (the unique index) and uses it."""
    from pbem.core.mailout import threads
    from tests.support.threads import race

    settings, _clock, _worker = threaded
    for _round in range(5):
        match = create_match("nim", [ALICE, BOB], {}, settings.secret_key, START).match
        mail = OutboxMessage.select().where(OutboxMessage.match == match.id,
                                            OutboxMessage.seat == 0).first()
        made = race(*(lambda subject=subject, mail=mail, match=match: threads.place_of(
            mail, match, lambda: subject, True) for subject in ("one", "another")))
        assert not any(isinstance(result, Exception) for result in made), made
        assert len({place.subject for place in made}) == 1
        assert MailThread.select().where(MailThread.match == match.id).count() == 1

    def the_winner_stores_first() -> str:
        # Another worker stores the thread after this one read none, before it stores its own.
        MailThread.create(match=match.id, seat=1, part=0, subject="the winner's",
                          first_message=0, created_at=START)
        return "the loser's"

    bob_mail = OutboxMessage.select().where(OutboxMessage.match == match.id,
                                            OutboxMessage.seat == 1).first()
    assert threads.place_of(bob_mail, match, the_winner_stores_first, True).subject == \
        "the winner's"
