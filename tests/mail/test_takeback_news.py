"""Takeback news by mail, over real SMTP (aiosmtpd on loopback): a request tells the seats
whose answer it needs, an answer tells the asker; both in the match's mail thread, and the
request mail says how to answer by reply."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.config import Settings
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match
from pbem.core.matches.play import submit_move
from pbem.core.takebacks import changes as takebacks
from pbem.games import get_rules
from pbem.mail.inbound import handle
from tests.conftest import START, Clock, SMTPRecorder, make_settings
from tests.mail.conftest import INBOUND_SECRET, REPLY_BASE
from tests.mail.inbound_support import reply

ANN, BEN = "ann@example.org", "ben@example.org"


@pytest.fixture
def settings(db_url: str, tmp_path: Path, smtp: SMTPRecorder) -> Settings:
    # The suite's settings with a reply address, so a sent mail can be answered by reply.
    return make_settings(db_url, tmp_path, smtp_host=smtp.host, smtp_port=smtp.port,
                         reply_address=REPLY_BASE, inbound_secret=INBOUND_SECRET)


def _text(mail) -> str:  # type: ignore[no-untyped-def]
    return str(mail.get_body(("plain",)).get_content())


def _asked(settings, client, worker, smtp):  # type: ignore[no-untyped-def]
    created = create_match("nim", [ANN, BEN], {"pile": "9"}, settings.secret_key, START)
    ann = created.tokens[0]
    assert client.post(f"/api/play/{ann}", json={"move": "take 2", "ply": 0}).status_code == 200
    worker.send_outbox()
    before = len(smtp.messages)
    assert client.post(f"/api/play/{ann}/takeback").status_code == 200
    worker.send_outbox()
    return created.match.id, created.tokens, smtp.messages[before:]


def test_a_request_mails_the_opponent_and_an_accept_by_reply_mails_the_asker(
        settings, client, worker, smtp: SMTPRecorder, clock: Clock) -> None:
    match_id, _tokens, news = _asked(settings, client, worker, smtp)
    assert [m["To"] for m in news] == [BEN], "one mail, to the opponent only"
    asked = news[0]
    text = _text(asked)
    assert "First asks to take back their last move in Nim" in text
    assert 'reply "accept takeback"' in text and '"decline takeback"' in text
    assert "/play/" in text
    html = str(asked.get_body(("html",)).get_content())
    assert "<code>accept takeback</code>" in html
    # In the match's thread, like every mail of the match to Ben.
    earlier = [m for m in smtp.to(BEN) if m is not asked]
    assert asked["Subject"] == earlier[-1]["Subject"]
    assert earlier[0]["Message-ID"] in asked["References"]

    before = len(smtp.messages)
    clock.advance(minutes=5)
    handled = handle(reply(asked, "accept takeback"), settings, "pipe", clock.now)
    assert (handled.action, handled.answer, handled.changed) == ("command", "done", True)
    assert Match.get_by_id(match_id).ply == 0
    worker.send_outbox()
    to_ann = [m for m in smtp.messages[before:] if m["To"] == ANN]
    assert len(to_ann) == 1, "one mail to the asker"
    assert ("Second accepted: your last move in Nim (test game), match #1 was taken back. "
            "It is your turn again.") in _text(to_ann[0])
    assert to_ann[0]["Subject"] == smtp.to(ANN)[0]["Subject"]


def test_a_decline_on_the_page_mails_the_asker(settings, client, worker, smtp) -> None:
    match_id, (_ann, ben), _news = _asked(settings, client, worker, smtp)
    before = len(smtp.messages)
    assert client.post(f"/play/{ben}/takeback/decline").status_code == 303
    assert Match.get_by_id(match_id).ply == 1
    worker.send_outbox()
    sent = smtp.messages[before:]
    assert [m["To"] for m in sent] == [ANN]
    assert "Second declined your takeback in Nim" in _text(sent[0])
    assert "The match goes on." in _text(sent[0])


def test_at_three_seats_both_others_are_asked_and_told_once_the_last_accepts(
        settings, clock: Clock) -> None:
    cy = "cy@example.org"
    match = create_match("mimic-taking", [ANN, BEN, cy], {}, settings.secret_key, START,
                         seed=7).match
    rules = get_rules("mimic-taking")
    state = rules.load(match.state)
    mover = min(rules.to_move(state))
    move = rules.format_move(state, next(iter(rules.legal_moves(state, mover))))
    submit_move(match.id, mover, move, None, START)
    others = sorted({0, 1, 2} - {mover})

    def told(template: str) -> list[int]:
        return sorted(row.seat for row in OutboxMessage.select()
                      .where(OutboxMessage.template == template))

    takebacks.request(match.id, mover, START)
    assert told("takeback_asked") == others
    takebacks.accept(match.id, others[0], START)
    assert told("takeback_answered") == [], "an acceptance still waiting tells nobody"
    takebacks.accept(match.id, others[1], START)
    assert told("takeback_answered") == sorted([mover, others[0]])
    assert Match.get_by_id(match.id).ply == 0
