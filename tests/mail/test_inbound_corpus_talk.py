"""Replies that talk, as real mail clients write them (tests/mail/corpus/talk/*.eml): the move
on the first line is played and the rest of what the player wrote is posted to the match's
chat, without the quoted mail and without the signature; a reply with no move (written while
it is the other player's turn) posts its text alone. Fed through `pbem inbound` (the pipe)."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from pbem.core.conversation.models import ChatMessage
from pbem.core.mailin.models import InboundMessage
from pbem.core.mailout.notify import thread_root_key
from pbem.core.matches.models import Match
from tests.mail.inbound_support import ALICE, BOB, as_sent, latest, start

CORPUS = Path(__file__).parent / "corpus" / "talk"
# Who wrote each reply, the move it plays (None: a message alone) and the message posted.
EXPECTED = {
    "apple_mail_message_only.eml":
        (BOB, None, "Sorry if I'm slow this week, I'm travelling.\nHave fun!"),
    "gmail_move_and_message.eml":
        (ALICE, "take 2", "Nice trap — I didn't see it coming.\nRematch after this one?"),
    "outlook_move_and_message.eml":
        (ALICE, "take 2", "I'm away from Friday to Sunday, so my next move may take a while."),
    "outlook_web_html_only_message_only.eml":
        (BOB, None, "Good luck, Alice!\n\nBest of three?"),
    "thunderbird_bottom_posted_move_and_message.eml":
        (ALICE, "take 2", "Well played so far.\nYour <b>turn</b> & good luck."),
}


def test_the_talk_corpus_is_all_here() -> None:
    assert sorted(path.name for path in CORPUS.glob("*.eml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_client_reply_posts_what_the_player_wrote(name: str, mail_settings, pipe) -> None:
    sender, move, message = EXPECTED[name]
    match = start()
    # Alice answers her turn mail; Bob, who owes no move, answers his welcome.
    mail = as_sent(mail_settings, latest(sender, "your_turn" if sender == ALICE else "welcome"))
    values = {"FROM": sender, "TO": mail["Reply-To"],
              "MESSAGE_ID": f"<talk.{secrets.token_hex(6)}@mail.example.org>",
              "PARENT": mail["Message-ID"],
              "ROOT": f"<{thread_root_key(match, 0 if sender == ALICE else 1)}"
                      f"@{mail_settings.mail_domain}>"}
    raw = (CORPUS / name).read_bytes()
    for key, value in values.items():
        raw = raw.replace(f"{{{{{key}}}}}".encode(), value.encode())
    assert pipe(raw) == 0
    posted = ChatMessage.get()
    assert posted.text == message and posted.channel == "mail"
    record = InboundMessage.get(InboundMessage.match == match)
    match = Match.get_by_id(match.id)
    if move is None:
        assert record.action == "posted" and match.ply == 0 and posted.seat == 1
        assert latest(sender, "inbound_answer").params["answer"] == "posted"
    else:
        assert record.action == "moved" and match.ply == 1 and posted.seat == 0
        assert posted.ply == 1  # attached to the move it came with
        answer = latest(sender, "inbound_answer").params
        assert answer["move"] == move and answer["posted_id"] == posted.id
        assert message not in str(answer)  # the row names the message, never copies it
