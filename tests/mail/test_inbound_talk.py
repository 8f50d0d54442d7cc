"""Talking by email: the text under a reply's move is posted to the match's chat, a reply with
no move posts its text alone, and the next turn mail quotes what was said, rendered from the
message rows when it is sent."""

from __future__ import annotations

from datetime import timedelta

from pbem.core.conversation.models import ChatMessage, PlayerBlock
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.models import Match
from pbem.mail.inbound import handle
from tests.conftest import START
from tests.mail.inbound_support import ALICE, BOB, as_sent, last_inbound, latest, reply, start

LATER = START + timedelta(minutes=5)
XSS = '<b onmouseover="alert(1)">bold</b> & <script>alert(2)</script>'


def _text(mail) -> str:
    return mail.get_body(("plain",)).get_content()


def _html(mail) -> str:
    return mail.get_body(("html",)).get_content()


def test_a_reply_with_a_move_and_a_message_plays_the_move_and_posts_the_rest(
        mail_settings) -> None:
    match = start()
    turn = as_sent(mail_settings, latest(ALICE))
    body = "take 2\nNice opening, Bob.\nGood luck!\n\n-- \nAlice, from the garden"
    receipt = handle(reply(turn, body), mail_settings, "pipe", LATER)
    assert receipt.action == "moved"
    assert Match.get_by_id(match.id).ply == 1
    message = ChatMessage.get()
    assert (message.text, message.seat, message.ply, message.channel) == (
        "Nice opening, Bob.\nGood luck!", 0, 1, "mail")
    # The confirmation says what was posted.
    answer = as_sent(mail_settings, latest(ALICE, "inbound_answer"))
    assert "Your move take 2 is played." in _text(answer)
    assert "Posted to the match's chat:\n  > Nice opening, Bob.\n  > Good luck!" in _text(answer)
    assert "from the garden" not in _text(answer)
    assert "Nice opening" not in str(latest(ALICE, "inbound_answer").params)
    # Bob's turn mail quotes it, read from the row (the outbox row holds only its id-less
    # params: nothing of the message is copied into it).
    bob_row = latest(BOB)
    assert "Nice opening" not in str(bob_row.params)
    bob_turn = as_sent(mail_settings, bob_row)
    assert "alice wrote:\n  > Nice opening, Bob.\n  > Good luck!" in _text(bob_turn)
    assert "Nice opening, Bob." in _html(bob_turn)
    # A message sent with a move is not also mailed on its own.
    assert OutboxMessage.select().where(OutboxMessage.template == "chat").count() == 0


def test_a_reply_without_a_move_when_it_is_not_your_turn_posts_the_message(
        mail_settings) -> None:
    match = start()
    bob_welcome = as_sent(mail_settings, latest(BOB, "welcome"))
    receipt = handle(reply(bob_welcome, "Hello Alice! Looking forward to it."),
                     mail_settings, "pipe", LATER)
    assert receipt.action == "posted"
    assert Match.get_by_id(match.id).ply == 0
    assert ChatMessage.get().text == "Hello Alice! Looking forward to it."
    answer = as_sent(mail_settings, latest(BOB, "inbound_answer"))
    assert "No move was made: your reply was posted to the match's chat." in _text(answer)
    assert "  > Hello Alice! Looking forward to it." in _text(answer)
    assert last_inbound().action == "posted"
    # Alice (chat mail "now", the default) is mailed it at once.
    chat_mail = as_sent(mail_settings, latest(ALICE, "chat"))
    assert "bob wrote:\n  > Hello Alice! Looking forward to it." in _text(chat_mail)


def test_a_move_when_it_is_not_your_turn_is_still_refused_and_nothing_is_posted(
        mail_settings) -> None:
    start()
    bob_welcome = as_sent(mail_settings, latest(BOB, "welcome"))
    receipt = handle(reply(bob_welcome, "take 1\nhurry up"), mail_settings, "pipe", LATER)
    assert receipt.action == "refused"
    assert ChatMessage.select().count() == 0


def test_a_refused_move_takes_its_message_back(mail_settings) -> None:
    start()
    turn = as_sent(mail_settings, latest(ALICE))
    receipt = handle(reply(turn, "take 7\nthis one wins"), mail_settings, "pipe", LATER)
    assert receipt.action == "refused"
    assert ChatMessage.select().count() == 0


def test_a_blocked_writer_is_not_quoted_and_not_mailed(mail_settings) -> None:
    from pbem.core.accounts.models import Player

    start()
    PlayerBlock.create(player=Player.get(Player.email == BOB),
                       blocked=Player.get(Player.email == ALICE), created_at=START)
    turn = as_sent(mail_settings, latest(ALICE))
    handle(reply(turn, "take 2\nyou will lose"), mail_settings, "pipe", LATER)
    assert ChatMessage.get().text == "you will lose"  # posted: Alice does not know
    bob_turn = as_sent(mail_settings, latest(BOB))
    assert "you will lose" not in _text(bob_turn) and "you will lose" not in _html(bob_turn)


def test_html_mail_escapes_a_message_and_a_name(mail_settings) -> None:
    from pbem.core.accounts.models import Player

    start()
    Player.update(name="Al <i>ce</i>").where(Player.email == ALICE).execute()
    turn = as_sent(mail_settings, latest(ALICE))
    handle(reply(turn, f"take 2\n{XSS}"), mail_settings, "pipe", LATER)
    html = _html(as_sent(mail_settings, latest(BOB)))
    assert "<script>" not in html and "<b onmouseover" not in html and "<i>ce" not in html
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in html and "Al &lt;i&gt;ce" in html
    assert XSS in _text(as_sent(mail_settings, latest(BOB)))


def test_a_move_and_words_on_one_line_are_told_apart(mail_settings) -> None:
    match = start()
    turn = as_sent(mail_settings, latest(ALICE))
    receipt = handle(reply(turn, "take 2 — nice trap, I didn't see it coming\nRematch?"),
                     mail_settings, "pipe", LATER)
    assert receipt.action == "moved"
    assert Match.get_by_id(match.id).ply == 1
    assert ChatMessage.get().text == "nice trap, I didn't see it coming\nRematch?"


def test_words_alone_on_your_turn_are_not_a_move_and_nothing_is_posted(mail_settings) -> None:
    match = start()
    turn = as_sent(mail_settings, latest(ALICE))
    receipt = handle(reply(turn, "nice board - what a game\nmore words"), mail_settings,
                     "pipe", LATER)
    assert receipt.action == "unreadable"  # the help answer, as before
    assert Match.get_by_id(match.id).ply == 0 and ChatMessage.select().count() == 0
