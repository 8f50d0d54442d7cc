"""Chat mails and the player's "chat" mail choice: now (one mail per message), digest (counted
in the daily digest, whatever the player chose for their turns) or off."""

from __future__ import annotations

from datetime import datetime

from pbem.core.accounts.models import Player
from pbem.core.conversation import chat
from pbem.core.mailout.models import OutboxMessage
from pbem.core.mailout.preferences import update_preferences
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Seat
from tests.conftest import START

ANN, BEN = "ann@example.org", "ben@example.org"


def _chat_mails(address: str) -> int:
    return OutboxMessage.select().where(OutboxMessage.template == "chat",
                                        OutboxMessage.to_address == address).count()


def _seat(match_id: int, number: int) -> Seat:
    return Seat.get(Seat.match == match_id, Seat.seat == number)


def test_now_mails_each_message_off_mails_none(settings) -> None:
    match = create_match("nim", [ANN, BEN], {}, settings.secret_key, START).match
    chat.post_as_seat(_seat(match.id, 0), "hello", START)
    assert _chat_mails(BEN) == 1 and _chat_mails(ANN) == 0
    ben = Player.get(Player.email == BEN)
    update_preferences(ben.id, ben.mail_pref, 8, None, START, chat_mail="off")
    chat.post_as_seat(_seat(match.id, 0), "still there?", START)
    assert _chat_mails(BEN) == 1


def test_a_bad_chat_choice_is_refused_and_nothing_changes(settings) -> None:
    import pytest

    from pbem.errors import InvalidRequestError

    ben = Player.for_email(BEN, START)
    with pytest.raises(InvalidRequestError, match="not a chat mail choice"):
        update_preferences(ben.id, "turns", 8, None, START, chat_mail="sometimes")
    assert Player.get_by_id(ben.id).chat_mail == "now"


def test_digest_counts_the_messages_of_the_day(settings, worker, smtp, clock) -> None:
    ben = Player.for_email(BEN, START)
    update_preferences(ben.id, "turns", 9, None, START, chat_mail="digest")
    match = create_match("nim", [ANN, BEN], {}, settings.secret_key, START).match
    chat.post_as_seat(_seat(match.id, 0), "hello Ben", START)
    chat.post_as_seat(_seat(match.id, 0), "are you there?", START)
    assert _chat_mails(BEN) == 0
    worker.send_outbox()
    clock.now = datetime(2026, 1, 6, 9, 0)
    worker.run_once()
    (digest,) = [m for m in smtp.to(BEN) if m["X-Pbem-Kind"] == "digest"]
    text = digest.get_body(("plain",)).get_content()
    assert "Nim (test game), match #1: 2 new messages from ann." in text
    assert "/play/" in text
    # Turns came at once (Ben chose "turns"): the digest does not list them again.
    assert "It is your move" not in text and "You owe no move" not in text
    assert digest["Subject"] == "Your pbem digest: chat in 1 match"
    assert "hello Ben" not in text  # counted, not copied
