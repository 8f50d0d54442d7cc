"""The mail settler: what a change told becomes outbox rows; news it cannot tell is an error,
never a mail silently not sent."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pbem
from pbem.core.mailout import settler as mail_settler
from pbem.core.mailout.models import MessageStatus, OutboxMessage
from pbem.core.matches.changes import Settled, Told
from pbem.core.matches.creation import create_match
from pbem.core.matches.lifecycle import Resign
from pbem.games import get_rules
from tests.conftest import START

ROOT = Path(pbem.__file__).resolve().parent
PAIR = ["ann@example.org", "ben@example.org"]


def test_the_mail_settler_refuses_news_it_cannot_tell(db_url: str) -> None:
    match = create_match("nim", PAIR, {}, "k", START).match
    settled = Settled(match=match, seats=tuple(match.seat_rows()), change=Resign(seat=0),
                      rules=get_rules("nim"), now=START, told=(Told("gossip"),))
    with pytest.raises(ValueError, match="gossip"):
        mail_settler.settle_mail(settled)


def test_every_news_a_change_tells_is_one_the_mail_settler_knows() -> None:
    told = set()
    for path in (ROOT / "core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            named = (node.func.attr if isinstance(node.func, ast.Attribute)
                     else node.func.id if isinstance(node.func, ast.Name) else "")
            if named in ("tell", "Told"):  # a kind, or a choice of kinds ("a" if … else "b")
                told |= {part.value for part in ast.walk(node.args[0])
                         if isinstance(part, ast.Constant) and isinstance(part.value, str)}
    assert {"after-move", "match-started", "ruling"} <= told <= set(mail_settler.NEWS_KINDS)


def test_a_turn_mail_failed_once_it_failed_or_is_being_retried(db_url: str) -> None:
    match = create_match("nim", PAIR, {}, "k", START).match  # ann's turn mail is queued
    assert not mail_settler.turn_mail_failed(match.id, 0)  # queued, never tried: no failure
    assert not mail_settler.turn_mail_failed(match.id, 1)  # none sent to ben at all
    turn = OutboxMessage.get(OutboxMessage.match == match, OutboxMessage.seat == 0,
                             OutboxMessage.template == "your_turn")
    for status, attempts, failed in ((MessageStatus.PENDING, 1, True),
                                     (MessageStatus.FAILED, 3, True),
                                     (MessageStatus.SENT, 1, False)):
        OutboxMessage.update(status=status, attempts=attempts).where(
            OutboxMessage.id == turn.id).execute()
        assert mail_settler.turn_mail_failed(match.id, 0) is failed
