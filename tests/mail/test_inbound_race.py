"""The same message arriving at once by several ways (IMAP and the pipe, a retried webhook):
real threads on real databases, and exactly one of them acts."""

from __future__ import annotations

import threading
from datetime import timedelta

from pbem.core.db.connection import database
from pbem.core.mailin.models import InboundMessage
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.models import Match, Move
from pbem.mail.inbound import handle
from tests.conftest import START
from tests.mail.inbound_support import ALICE, as_sent, latest, reply, start

THREADS = 6
ROUNDS = 5


def test_simultaneous_deliveries_of_one_message_act_exactly_once(mail_settings) -> None:
    for round_ in range(ROUNDS):
        for model in (Move, OutboxMessage, Match):
            model.delete().execute()
        match = start()
        raw = reply(as_sent(mail_settings, latest(ALICE)), "take 2")
        actions, errors = _deliver_at_once(raw, mail_settings)
        assert not errors, (round_, errors)
        assert sorted(actions) == ["duplicate"] * (THREADS - 1) + ["moved"], round_
        assert Match.get_by_id(match.id).ply == 1
        assert Move.select().where(Move.match == match).count() == 1
        assert OutboxMessage.select().where(
            OutboxMessage.template == "inbound_answer").count() == 1
        assert InboundMessage.select().where(InboundMessage.match == match).count() == 1


def _deliver_at_once(raw: bytes, settings) -> tuple[list[str], list[BaseException]]:
    barrier = threading.Barrier(THREADS)
    actions: list[str] = []
    errors: list[BaseException] = []

    def deliver(via: str) -> None:
        try:
            database.connect(reuse_if_open=True)
            barrier.wait()
            actions.append(handle(raw, settings, via, START + timedelta(minutes=1)).action)
        except BaseException as error:  # reported by the test, with the round
            errors.append(error)
        finally:
            database.close()

    threads = [threading.Thread(target=deliver, args=(("imap", "pipe", "http")[n % 3],))
               for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return actions, errors
