"""Takebacks by email reply: `takeback`, `accept takeback`, `decline takeback` (commands stay
English), each answered by mail; a refusal is answered with its reason."""

from __future__ import annotations

from datetime import timedelta

from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.models import Match
from pbem.core.matches.play import submit_move
from pbem.mail.inbound import handle
from tests.conftest import START
from tests.mail.inbound_support import ALICE, BOB, as_sent, latest, reply, start

LATER = START + timedelta(minutes=5)


def _answer(settings, address: str) -> str:  # type: ignore[no-untyped-def]
    row = (OutboxMessage.select().where(OutboxMessage.to_address == address,
                                        OutboxMessage.template == "inbound_answer")
           .order_by(OutboxMessage.id.desc()).first())
    return str(as_sent(settings, row).get_body(("plain",)).get_content())


def test_takeback_asked_and_accepted_by_reply(mail_settings) -> None:
    start()
    submit_move(1, 0, "take 2", 0, START)
    asked = handle(reply(as_sent(mail_settings, latest(ALICE)), "Takeback"), mail_settings,
                   "pipe", LATER)
    assert (asked.action, asked.answer, asked.changed) == ("command", "done", True)
    assert "asked to take back your last move" in _answer(mail_settings, ALICE)
    accepted = handle(reply(as_sent(mail_settings, latest(BOB)), "accept  takeback."),
                      mail_settings, "pipe", LATER)
    assert (accepted.action, accepted.answer) == ("command", "done")
    assert "the move was taken back" in _answer(mail_settings, BOB)
    assert Match.get_by_id(1).ply == 0


def test_a_refused_takeback_is_answered_with_its_reason(mail_settings) -> None:
    start()
    submit_move(1, 0, "take 2", 0, START)
    refused = handle(reply(as_sent(mail_settings, latest(BOB)), "decline takeback"),
                     mail_settings, "pipe", LATER)
    assert (refused.action, refused.answer) == ("refused", "refused")
    assert "There is no takeback request to answer." in _answer(mail_settings, BOB)
    assert Match.get_by_id(1).ply == 1
