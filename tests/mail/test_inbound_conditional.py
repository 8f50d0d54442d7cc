"""Conditional moves in a reply: the grammar (`if c2-c3 then d4-d5, if b1-b2 then a3-a2
e5-e6`), read from real clients' replies (tests/mail/corpus/conditional), stored for the
writer alone, answered with what was stored, and played when the opponent's move comes."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from pbem.core.mailin.models import InboundMessage
from pbem.core.mailout.models import OutboxMessage
from pbem.core.mailout.notify import thread_root_key
from pbem.core.matches import conditional
from pbem.core.matches.models import Match, Move
from pbem.games import get_rules
from pbem.games.lines import (
    Clause,
    LineError,
    build_tree,
    is_conditional_text,
    parse_conditional_text,
    read_clauses,
)
from pbem.mail.inbound import handle
from pbem.mail.inbound.text import conditional_lines, first_line
from tests.conftest import START
from tests.mail.inbound_support import ALICE, BOB, as_sent, latest, reply, start

CORPUS = Path(__file__).parent / "corpus" / "conditional"


# -- the grammar ------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "clauses"), [
    ("if c2-c3 then d4-d5, if b1-b2 then a3-a2 e5-e6",
     [Clause("c2-c3", ("d4-d5",)), Clause("b1-b2", ("a3-a2", "e5-e6"))]),
    ("IF c2c3 THEN d4d5; When b1-b2 play a3-a2 and e5-e6.",
     [Clause("c2c3", ("d4d5",)), Clause("b1-b2", ("a3-a2", "e5-e6"))]),
    ("if c2-c3 -> d4-d5, on b1-b2 => a3-a2", [Clause("c2-c3", ("d4-d5",)),
                                             Clause("b1-b2", ("a3-a2",))]),
    ("if synch then NW", [Clause("synch", ("NW",))]),
    ("if opposition: S, if e4 then d9", [Clause("opposition", ("S",)), Clause("e4", ("d9",))]),
    ("if d6xd8 drop c1 d1 then a7-a6", [Clause("d6xd8 drop c1 d1", ("a7-a6",))]),
])
def test_the_grammar_reads_forgiving_clauses(text, clauses) -> None:
    assert is_conditional_text(text)
    assert parse_conditional_text(text) == clauses


@pytest.mark.parametrize(("text", "words"), [
    ("if c2-c3", "write 'if <their move> then <your answer>'"),
    ("if c2-c3 then", "say your answer"),
    ("if then d4-d5", "name your opponent's move"),
    ("hello", "no 'if <their move> then <your answer>' found"),
])
def test_what_the_grammar_cannot_read_is_said(text, words) -> None:
    with pytest.raises(LineError, match=words.replace("(", r"\(")):
        parse_conditional_text(text)


def test_words_become_moves_with_the_rules() -> None:
    rules = get_rules("mimic")
    state = rules.new_game(2, rules.resolve_options({}), 1)
    state = rules.apply_move(state, 0, rules.parse_move(state, 0, "b2-b3")).state
    lines = read_clauses(rules, state, parse_conditional_text(
        "if c9-c8 then d2 d3, if i9-i8 then h2-h3 h8h7 e2-e3"))
    assert lines == [["c9-c8", "d2 d3"], ["i9-i8", "h2-h3", "h8h7", "e2-e3"]]
    with pytest.raises(LineError, match="clause 1"):
        read_clauses(rules, state, parse_conditional_text("if c9-c8 then z9-z8"))


def test_a_move_of_several_words_is_grouped_by_the_rules() -> None:
    # EXIMO: Black's capture chain reaching the far row drops two checkers, in one move.
    rules = get_rules("eximo")
    state = rules.from_position("1wwwwww1/1wwww1w1/1ww1www1/8/7b/bbb2bb1/1bbbb1b1/1b1bbbb1 w")
    clauses = parse_conditional_text("if f6-g5 then h4xf6xh8 drop f2 c1")
    assert read_clauses(rules, state, clauses) == [["f6-g5", "h4xf6xh8 drop f2 c1"]]
    tree = build_tree(rules, state, 0, read_clauses(rules, state, clauses))
    assert tree == {"f6-g5": {"h4xf6xh8 drop c1 f2": {}}}, "stored canonical"


def test_lines_in_a_body_are_read_below_the_move_and_never_from_the_quote() -> None:
    body = ("e2-e3\n\nif c2-c3 then d4-d5\nthanks, see you\n-- \nAlice\n\n"
            "On Mon, 5 Jan 2026 at 12:00, pbem <pbem@pbem.test> wrote:\n"
            "> if a1-a2 then b1-b2\n")
    assert first_line(body) == "e2-e3"
    assert conditional_lines(body) == "if c2-c3 then d4-d5"
    assert conditional_lines("e2-e3\nsee you\n") is None


# -- replies ----------------------------------------------------------------------------------

def _mimic() -> Match:
    return start("mimic", (ALICE, BOB))


def test_a_reply_moves_and_stores_its_lines_for_the_writer_alone(mail_settings) -> None:
    match = _mimic()
    mail = as_sent(mail_settings, latest(ALICE))
    receipt = handle(reply(mail, "b2-b3\nif c9-c8 then d2-d3, if i9-i8 then h2-h3 h8-h7 e2-e3"),
                     mail_settings, "pipe", START)
    assert receipt.action == "moved", receipt
    stored = conditional.stored(Match.get_by_id(match.id), 0)
    assert stored.lines == [["c9-c8", "d2-d3"], ["i9-i8", "h2-h3", "h8-h7", "e2-e3"]]
    answer = latest(ALICE, "inbound_answer")
    assert "are stored" in answer.params["conditional"] and "if c9-c8 then d2-d3" in \
        answer.params["conditional"]
    # Bob hears nothing of them: no mail to him mentions them, ever.
    for row in OutboxMessage.select().where(OutboxMessage.to_address == BOB):
        assert "d2-d3" not in str(row.params), row.template
    # Bob's move meets the line: Alice's answer is played at once, both are told.
    bob_mail = as_sent(mail_settings, latest(BOB))
    assert handle(reply(bob_mail, "c9-c8"), mail_settings, "pipe", START).action == "moved"
    after = Match.get_by_id(match.id)
    assert after.ply == 3
    last = Move.get((Move.match == match) & (Move.ply == 3))
    assert (last.text, last.note) == ("d2-d3", "conditional")
    assert "conditional move" in " ".join(latest(BOB).params["cond"])
    rendered = as_sent(mail_settings, latest(BOB)).get_body(("plain",)).get_content()
    assert "answered c9-c8 at once with d2-d3: a conditional move" in rendered
    # The answer to Bob's reply shows the board after Alice's answer, and says why.
    said = as_sent(mail_settings, latest(BOB, "inbound_answer"))
    for part in ("plain", "html"):
        assert "Your opponent answered at once with d2-d3, a conditional move." in \
            said.get_body((part,)).get_content(), part


def test_a_waiting_player_may_reply_with_lines_alone(mail_settings) -> None:
    match = _mimic()
    alice_mail = as_sent(mail_settings, latest(ALICE))
    handle(reply(alice_mail, "b2-b3"), mail_settings, "pipe", START)
    # Bob owes a move now: conditional moves are refused, and nothing is played.
    bob_first = as_sent(mail_settings, latest(BOB, "welcome"))
    receipt = handle(reply(bob_first, "if d2-d3 then c9-c8"), mail_settings, "pipe", START)
    assert receipt.action == "command" and "your turn" in receipt.detail, receipt
    assert Match.get_by_id(match.id).ply == 1, "a conditional reply never moves"
    bob_mail = as_sent(mail_settings, latest(BOB))
    handle(reply(bob_mail, "c9-c8"), mail_settings, "pipe", START)
    bob_again = as_sent(mail_settings, latest(BOB, "inbound_answer"))
    # Waiting for Alice now, Bob replies with a line alone.
    receipt = handle(reply(bob_again, "if d2-d3 then e9-e8"), mail_settings, "pipe", START)
    assert receipt.action == "command" and "are stored" in receipt.detail, receipt
    assert conditional.stored(Match.get_by_id(match.id), 1).lines == [["d2-d3", "e9-e8"]]
    answer = latest(BOB, "inbound_answer")
    assert answer.params["answer"] == "conditional"
    assert "if d2-d3 then e9-e8" in as_sent(mail_settings, answer).get_body(
        ("plain",)).get_content()


def test_a_line_that_cannot_arise_is_answered_and_the_move_still_played(mail_settings) -> None:
    match = _mimic()
    mail = as_sent(mail_settings, latest(ALICE))
    receipt = handle(reply(mail, "b2-b3\nif c9-c8 then d2-d5"), mail_settings, "pipe", START)
    assert receipt.action == "moved"
    said = latest(ALICE, "inbound_answer").params["conditional"]
    assert said.startswith("Your conditional moves were not stored:") and "d2-d5" in said
    assert conditional.stored(Match.get_by_id(match.id), 0).lines == []


def test_a_refused_move_stores_no_lines(mail_settings) -> None:
    match = _mimic()
    mail = as_sent(mail_settings, latest(ALICE))
    receipt = handle(reply(mail, "b2-b5\nif c9-c8 then d2-d3"), mail_settings, "pipe", START)
    assert receipt.action == "refused" and "not stored either" in receipt.detail
    assert conditional.stored(Match.get_by_id(match.id), 0).lines == []


# -- the corpus: real clients' replies with conditional lines ---------------------------------

CORPUS_LINES = {
    "gmail_web_top_posted.eml": [["c9-c8", "d2-d3"], ["i9-i8", "h2-h3", "h8-h7", "e2-e3"]],
    "thunderbird_bottom_posted.eml": [["c9-c8", "d2-d3"], ["i9-i8", "h2-h3"]],
}


def test_the_conditional_corpus_is_all_here() -> None:
    assert sorted(path.name for path in CORPUS.glob("*.eml")) == sorted(CORPUS_LINES)


@pytest.mark.parametrize("name", sorted(CORPUS_LINES))
def test_each_client_reply_moves_and_stores_its_lines(name, mail_settings, pipe) -> None:
    match = _mimic()
    mail = as_sent(mail_settings, latest(ALICE))
    values = {"FROM": ALICE, "TO": mail["Reply-To"],
              "MESSAGE_ID": f"<corpus.{secrets.token_hex(6)}@mail.example.org>",
              "PARENT": mail["Message-ID"],
              "ROOT": f"<{thread_root_key(match, 0)}@{mail_settings.mail_domain}>"}
    raw = (CORPUS / name).read_bytes()
    for key, value in values.items():
        raw = raw.replace(f"{{{{{key}}}}}".encode(), value.encode())
    assert pipe(raw) == 0
    assert InboundMessage.get().action == "moved"
    after = Match.get_by_id(match.id)
    assert after.ply == 1
    assert conditional.stored(after, 0).lines == CORPUS_LINES[name]
