"""Races between a move and a change to the waiting seat's conditional moves, with real
threads on every test database: the move meets either the old tree or the new one, never half
of each, and the answer is played once or not at all, never twice.

Before the tree change took the match's lock (the door's first lock), a change validated on
the position before the move could land after it and the door could read a tree mid-change;
this repeats enough to have caught that on PostgreSQL and MariaDB."""

from __future__ import annotations

import random
import time

import pytest

from pbem.core.matches import conditional
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import ConditionalTree, Match, Move
from pbem.core.matches.play import submit_move
from pbem.errors import ConflictError
from tests.conftest import START
from tests.core.matches.test_races import race

SECRET = "test-secret-key"
ANN, BEN = "ann@example.org", "ben@example.org"
OLD = [["b2-b3", "c9-c8", "d2-d3", "e9-e8"]]
NEW = [["b2-b3", "i9-i8", "h2-h3", "h8-h7"]]
ROUNDS = 30


def _round(change) -> tuple[str | None, list[list[str]], object]:
    """One race on a fresh Mimic match: Blue's b2-b3 against `change` of Red's tree (OLD
    stored before). Returns the answer played, the lines left, and what the change raised."""
    match = create_match("mimic", [ANN, BEN], {}, SECRET, START).match
    conditional.store(match.id, 1, OLD, START, expected_ply=0)
    # The tree change starts a little later each round, so the rounds sweep the whole of
    # the move's transaction (the narrow case: read before the move commits, written after).
    delay = random.uniform(0, 0.02)
    moved, changed = race(lambda: submit_move(match.id, 0, "b2-b3", 0, START),
                          lambda: (time.sleep(delay), change(match.id))[1])
    assert not isinstance(moved, Exception), moved
    answers = list(Move.select().where((Move.match == match) & (Move.note == "conditional")))
    assert len(answers) <= 1, "never two answers"
    after = Match.get_by_id(match.id)
    assert after.ply == 1 + len(answers)
    return (answers[0].text if answers else None, conditional.stored(after, 1).lines, changed)


@pytest.mark.parametrize("rounds", [ROUNDS])
def test_a_move_racing_a_new_tree_uses_the_old_or_the_new_whole(db_url, rounds) -> None:
    seen = {"old": 0, "new": 0}
    for _ in range(rounds):
        answer, left, changed = _round(
            lambda match_id: conditional.store(match_id, 1, NEW, START, expected_ply=0))
        if answer == "c9-c8":
            # The move came first: the old tree answered; the new one, made for the position
            # before the move, was refused rather than stored against the wrong position.
            assert isinstance(changed, ConflictError), changed
            assert left == [["d2-d3", "e9-e8"]]
            seen["old"] += 1
        else:
            assert answer == "i9-i8" and not isinstance(changed, Exception), (answer, changed)
            assert left == [["h2-h3", "h8-h7"]]
            seen["new"] += 1
        assert ConditionalTree.select().count() == 1
        ConditionalTree.delete().execute()
    assert sum(seen.values()) == rounds


def test_a_move_racing_a_clear_answers_once_or_not_at_all(db_url) -> None:
    for _ in range(ROUNDS):
        answer, left, changed = _round(
            lambda match_id: conditional.store(match_id, 1, [], START, expected_ply=0))
        if answer is None:
            assert not isinstance(changed, Exception) and left == []
            assert not ConditionalTree.select().exists()
        else:
            assert answer == "c9-c8" and isinstance(changed, ConflictError)
            assert left == [["d2-d3", "e9-e8"]]
        ConditionalTree.delete().execute()
