"""Chat mails and the player's "chat" mail choice: now (one mail per message), digest (counted
in the daily digest, whatever the player chose for their turns) or off."""

from __future__ import annotations

from datetime import datetime

from pbem.core.accounts.models import Player
from pbem.core.mailout import chat as chat_mail
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
    chat_mail.post_and_mail(_seat(match.id, 0), "hello", START)
    assert _chat_mails(BEN) == 1 and _chat_mails(ANN) == 0
    ben = Player.get(Player.email == BEN)
    update_preferences(ben.id, ben.mail_pref, 8, None, START, chat_mail="off")
    chat_mail.post_and_mail(_seat(match.id, 0), "still there?", START)
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
    chat_mail.post_and_mail(_seat(match.id, 0), "hello Ben", START)
    chat_mail.post_and_mail(_seat(match.id, 0), "are you there?", START)
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


def test_the_preferences_page_sets_the_chat_choice(settings, app) -> None:
    from pbem.core.mailout.links import preferences_token

    ann = Player.for_email(ANN, START)
    url = f"/mail/preferences/{preferences_token(settings.secret_key, ann.id)}"
    client = app.test_client()
    page = client.get(url).data.decode()
    assert "Chat: when an opponent writes to you" in page
    assert 'name="chat_mail" value="now" checked' in page
    saved = client.post(url, data={"mail_pref": "turns", "digest_hour": "8",
                                   "chat_mail": "digest"})
    assert saved.status_code == 303
    ann = Player.get_by_id(ann.id)
    assert ann.chat_mail == "digest" and ann.mail_pref == "turns"
    assert ann.digest_due_at is not None  # a digest is due for the chat alone
    bad = client.post(url, data={"mail_pref": "turns", "chat_mail": "loud"})
    assert bad.status_code == 400 and "not a chat mail choice" in bad.data.decode()
    assert Player.get_by_id(ann.id).chat_mail == "digest"
