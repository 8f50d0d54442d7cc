"""Conditional moves through the one door, per game on hand-built positions: a branch played
at once in the opponent's transaction, a move no branch expected clearing the tree (and its
owner told), an answer that wins ending the match, an illegal line refused with the reason;
and what nobody but the owner may see."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches import conditional
from pbem.core.matches.creation import create_match
from pbem.core.matches.deadlines import start_clock, stop_all_clocks
from pbem.core.matches.models import ChangeLog, ConditionalTree, Match, MatchStatus, Move, Seat
from pbem.core.matches.play import submit_move
from pbem.errors import ConflictError
from pbem.games import get_rules
from pbem.games.lines import LineError
from tests.conftest import START

SECRET = "test-secret-key"
ANN, BEN = "ann@example.org", "ben@example.org"


def start_at(game: str, position: str, options: dict | None = None) -> Match:
    """A match of `game` whose position is the hand-built `position`, its clocks running for
    the seat to move."""
    rules = get_rules(game)
    match = create_match(game, [ANN, BEN], options or {}, SECRET, START).match
    state = rules.from_position(position)
    Match.update(state=rules.dump(state), to_move=sorted(rules.to_move(state))).where(
        Match.id == match.id).execute()
    match = Match.get_by_id(match.id)
    stop_all_clocks(match)
    for number in rules.to_move(state):
        start_clock(match, Seat.get((Seat.match == match) & (Seat.seat == number)), START)
    OutboxMessage.delete().execute()
    return Match.get_by_id(match.id)


@dataclass(frozen=True)
class Case:
    """A hand-built position with the seat to move (`mover`), the waiting owner's line that
    will be played, a move of the mover no line expects, a line the rules refuse (and a word of
    the reason), and a line whose answer wins."""

    game: str
    position: str
    mover: int
    line: list[str]
    miss: str
    illegal: list[str]
    reason: str
    winning: list[str]
    options: dict | None = None


CASES = [
    Case("mimic", "10/10/10/10/10/3r6/10/10/1b8/10 b - goal:any -", 0,
         ["b2-b3", "d5-d4"], "b2-c3", ["b2-b3", "d5-d9"], "d5-d9",
         ["b2-b3", "d5-d4"]),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.game)
def test_a_stored_branch_is_played_in_the_opponents_own_transaction(db_url, case) -> None:
    match = start_at(case.game, case.position, case.options)
    owner = 1 - case.mover
    stored = conditional.store(match.id, owner, [case.line], START, expected_ply=0)
    assert stored.lines == [case.line] and stored.version == 1
    result = submit_move(match.id, case.mover, case.line[0], 0, START)
    assert result.answered_with == case.line[1]
    after = Match.get_by_id(match.id)
    assert after.ply == 2, "the answer was played in the same request"
    moves = list(Move.select().where(Move.match == match).order_by(Move.ply))
    assert [(m.text, m.note) for m in moves] == [(case.line[0], None), (case.line[1],
                                                                         "conditional")]
    kinds = [row.kind for row in ChangeLog.select().where(ChangeLog.match == match)
             .order_by(ChangeLog.version)]
    assert kinds[-2:] == ["move", "conditional-answer"]
    mails = {(m.seat, m.template): m.params for m in OutboxMessage.select()}
    assert (owner, "your_turn") not in mails, "the owner's answer followed: no 'your turn'"
    assert "conditional move" in " ".join(mails[(case.mover, "your_turn")]["cond"])
    assert "conditional move" in " ".join(mails[(owner, "conditional_played")]["cond"])
    assert conditional.stored(after, owner).lines == []
