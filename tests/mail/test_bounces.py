"""Bounces that come back later: every mail leaves with its own signed envelope sender (VERP),
and real delivery reports (Postfix, Exim, Gmail) and a real complaint (a Yahoo feedback loop
report, RFC 5965) arriving by the pipe, over HTTP and by IMAP from a real Dovecot are tied to
the mail they are about and do what they say, once, and are never answered.

The reports are real ones (`tests/mail/bounces/`, see its README): only the addresses and the
returned mail's Message-ID are put in for those of this test's match.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from pbem.core.accounts.models import Player
from pbem.core.mailin.bounces import complaints
from pbem.core.mailin.models import InboundMessage
from pbem.core.mailout import verp
from pbem.core.mailout.models import OutboxMessage
from pbem.core.mailout.notify import message_key
from pbem.core.mailout.preferences import update_preferences
from pbem.core.matches.models import Match
from pbem.mail.inbound.imap import poll
from tests.conftest import START, STRONG_KEY, Clock
from tests.mail.inbound_support import ALICE, BOB, latest, start
from tests.mail.test_inbound_ways import _deliver, _imap_settings

REPORTS = Path(__file__).parent / "bounces"
BOUNCES = "bounces@pbem.test"


@dataclass(frozen=True)
class Sample:
    """A real report: the file, who sent the returned mail (its envelope sender), the
    addresses that failed or complained, the returned mail's Message-ID, what it says."""

    file: str
    sender: tuple[str, ...]
    failed: tuple[str, ...]
    original_id: str
    action: str


SAMPLES = {
    "postfix": Sample("lhost-postfix-04.eml", ("shironeko@example.ne.jp",),
                      ("kijitora@example.co.jp",),
                      "A8F82EDD-E518-4F5C-8C70-BC4EFF24AB9F@example.ne.jp", "bounced"),
    "exim": Sample("lhost-exim-03.eml", ("shironeko@example.jp",),
                   ("kijitora@example.or.jp", "kijitora@example.jp"),
                   "hogeuoiuadogalhg.dg9i09@example.jp", "bounced"),
    "gmail": Sample("lhost-gmail-01.eml", ("the-local-part-of-google-mail-address@gmail.com",),
                    ("userunknown@example.jp",),
                    "D992C2C3-F175-4C4D-97E2-53A90E4E5BF5@gmail.com", "bounced"),
    "gmail-delay": Sample("lhost-gmail-08.eml", ("shironeko@gmail.example.com",),
                          ("kijitora@example.com",),
                          "AA6C0062-22D4-4D7E-8766-4494D07205C1@gmail.example.com", "delayed"),
    "arf": Sample("arf-14.eml",
                  ("2222222222222222-22222222-0000-eeee-ffff-222222222222-222222@amazonses.com",
                   "222222222222eeee-00000000-2222-ffff-1111-333333332222-ffffff@amazonses.com"),
                  ("kijitora@y.example.com", "kijitora@yahoo.com"),
                  "2222222222222222-00000000-eeee-eeee-ffff-222222222222-111111"
                  "@email.amazonses.com", "complaint"),
}


def report(name: str, mail: OutboxMessage, found_by: str) -> bytes:
    """The sample as it would come back for `mail`: to its envelope sender (`verp`), to the
    bare bounce address quoting its Message-ID (`message-id`: the tag was lost), or naming only
    the failed address (`address`)."""
    sample = SAMPLES[name]
    text = (REPORTS / sample.file).read_bytes().decode("latin-1")
    sender = {"verp": verp.address_for(STRONG_KEY, BOUNCES, mail),
              "message-id": BOUNCES, "address": "someone@elsewhere.example"}[found_by]
    for address in sample.sender:
        text = text.replace(address, sender)
    for address in sample.failed:
        text = text.replace(address, mail.to_address)
    if found_by == "message-id":
        ours = f"{message_key(mail, Match.get_by_id(mail.match_id))}@pbem.test"
        text = text.replace(sample.original_id, ours)
    return text.encode("latin-1")


def _mail_to_alice() -> OutboxMessage:
    start()
    return latest(ALICE)


def _through(way: str, raw: bytes, request: pytest.FixtureRequest) -> None:
    if way == "pipe":
        assert request.getfixturevalue("pipe")(raw) == 0
    elif way == "http":
        client = request.getfixturevalue("inbound_client")
        response = client.post("/inbound/mime", data=raw, headers={
            "Authorization": "Bearer tY7_inbound-secret-for-tests-only-Qm3",
            "Content-Type": "message/rfc822"})
        assert response.status_code == 200, response.get_data(as_text=True)
    else:
        dovecot = request.getfixturevalue("dovecot")
        settings = _imap_settings(request.getfixturevalue("db_url"),
                                  request.getfixturevalue("tmp_path"), dovecot)
        _deliver(dovecot, raw)
        assert poll(settings, Clock()).handled == 1


@pytest.mark.parametrize("way", ["pipe", "http", "imap"])
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_real_report_through_every_way_in_is_tied_to_its_mail(
        name, way, mail_settings, request) -> None:
    mail = _mail_to_alice()
    update_preferences(Player.get(Player.email == ALICE).id, "each", 8, None, START)
    mails_before = OutboxMessage.select().count()
    _through(way, report(name, mail, "verp"), request)
    record = InboundMessage.get()
    sample = SAMPLES[name]
    assert (record.action, record.via, record.match_id) == (sample.action, way, mail.match_id)
    assert f"mail {mail.id} " in record.detail and "found by verp" in record.detail
    alice = Player.get(Player.email == ALICE)
    # Only a permanent failure marks the address; a delay never does.
    assert (alice.undeliverable_at is not None) == (sample.action == "bounced")
    if sample.action == "bounced":
        assert alice.undeliverable_reason.startswith("bounced later: permanent")
    # A complaint stops every mail but the turns; the admin console lists it.
    complained = sample.action == "complaint"
    assert (alice.mail_pref, alice.chat_mail) == (
        ("turns", "off") if complained else ("each", "now"))
    assert [row.id for row in complaints()] == ([record.id] if complained else [])
    assert Player.get(Player.email == BOB).undeliverable_at is None
    assert OutboxMessage.select().count() == mails_before, "a report is never answered"


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_report_that_lost_the_tag_is_tied_by_the_returned_mails_message_id(
        name, mail_settings, pipe) -> None:
    mail = _mail_to_alice()
    assert pipe(report(name, mail, "message-id")) == 0
    record = InboundMessage.get()
    assert record.action == SAMPLES[name].action
    assert f"mail {mail.id} " in record.detail and "found by message-id" in record.detail


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_report_naming_only_the_address_is_read_by_the_detectors(name, mail_settings,
                                                                    inbound_client) -> None:
    mail = _mail_to_alice()
    raw = report(name, mail, "address")
    response = inbound_client.post("/inbound/mime", data=raw, headers={
        "Authorization": "Bearer tY7_inbound-secret-for-tests-only-Qm3"})
    assert response.json["action"] == SAMPLES[name].action
    assert "no mail found" in InboundMessage.get().detail
    marked = Player.get(Player.email == ALICE).undeliverable_at is not None
    assert marked == (SAMPLES[name].action == "bounced")


def test_a_report_delivered_twice_is_recorded_once(mail_settings, pipe, request) -> None:
    mail = _mail_to_alice()
    raw = report("postfix", mail, "verp")
    assert pipe(raw) == 0
    _through("imap", raw, request)
    assert pipe(raw) == 0
    assert InboundMessage.select().count() == 1
    assert InboundMessage.get().action == "bounced"


def test_a_report_about_no_mail_of_ours_is_recorded_and_nothing_else(mail_settings,
                                                                     pipe) -> None:
    mail = _mail_to_alice()
    mails_before = OutboxMessage.select().count()
    stranger = OutboxMessage(id=mail.id, to_address="nobody@stranger.example",
                             match=mail.match_id, created_at=mail.created_at)
    assert pipe(report("postfix", stranger, "address")) == 0
    record = InboundMessage.get()
    assert record.action == "bounce_unmatched" and record.match_id is None
    assert Player.select().where(Player.undeliverable_at.is_null(False)).count() == 0
    assert OutboxMessage.select().count() == mails_before


def test_a_forged_or_altered_tag_finds_no_mail(mail_settings, pipe) -> None:
    mail = _mail_to_alice()
    tag = verp.tag_for(STRONG_KEY, mail)
    assert verp.message_for_tag(STRONG_KEY, tag.upper()) == mail  # servers may change case
    for forged in (tag[:-1] + ("a" if tag[-1] != "a" else "b"),
                   f"o{mail.id + 1}-{tag.split('-')[1]}", "o1-short", ""):
        assert verp.message_for_tag(STRONG_KEY, forged) is None
    assert verp.message_for_tag("another-secret-key-that-is-long-enough-4e2a9c", tag) is None


def test_every_mail_leaves_with_its_own_signed_envelope_sender(settings, worker, smtp) -> None:
    start(players=(ALICE, BOB))
    assert worker.send_outbox().sent == 3
    rows = list(OutboxMessage.select().order_by(OutboxMessage.id))
    assert smtp.senders == [verp.address_for(settings.secret_key, BOUNCES, row)
                            for row in rows]
    assert len(set(smtp.senders)) == 3
    assert all(sender.startswith("bounces+o") and sender.endswith("@pbem.test")
               for sender in smtp.senders)
    # The From header stays the server's own address.
    assert {mail["From"] for mail in smtp.messages} == {"pbem <pbem@pbem.test>"}


def test_a_complaint_shows_on_the_admin_console(mail_settings, pipe, client) -> None:
    from tests.web.admin.test_queue import log_in

    mail = _mail_to_alice()
    assert pipe(report("arf", mail, "verp")) == 0
    log_in(client)
    queue = client.get("/admin").get_data(as_text=True)
    assert "Complaints" in queue and ALICE in queue and f"mail {mail.id} ({mail.template})" in queue
    assert f'href="/admin/matches/{mail.match_id}"' in queue
