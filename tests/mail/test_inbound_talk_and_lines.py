"""A reply may carry a move, words for the opponent and conditional moves at once: the words
go to the match's chat, the conditional lines to the writer's own tree, and never the one
where the other belongs (a conditional line in the chat would show the opponent the plan)."""

from __future__ import annotations

from pbem.core.conversation.models import ChatMessage
from pbem.core.matches import conditional
from pbem.core.matches.models import Match
from pbem.mail.inbound import handle
from tests.conftest import START
from tests.mail.inbound_support import ALICE, BOB, as_sent, latest, reply, start


def test_words_go_to_the_chat_and_conditional_lines_to_the_writer_alone(mail_settings) -> None:
    match = start("mimic", (ALICE, BOB))
    mail = as_sent(mail_settings, latest(ALICE))
    body = ("b2-b3\nYour move, Bob: good luck.\nif c9-c8 then d2-d3\nSee you soon.\n\n-- \n"
            "Alice")
    receipt = handle(reply(mail, body), mail_settings, "pipe", START)
    assert receipt.action == "moved", receipt
    assert conditional.stored(Match.get_by_id(match.id), 0).lines == [["c9-c8", "d2-d3"]]
    [message] = ChatMessage.select()
    assert message.text == "Your move, Bob: good luck.\nSee you soon."
    bob_turn = as_sent(mail_settings, latest(BOB)).get_body(("plain",)).get_content()
    # (c9-c8 is among his legal moves; the plan is "if c9-c8 then d2-d3".)
    assert "good luck" in bob_turn and "if c9-c8" not in bob_turn and "d2-d3" not in bob_turn
