"""Every move stores the position after it: replay pages read one row, never the whole match."""

from __future__ import annotations

import json

import pytest

from pbem.core.db.connection import database
from pbem.core.db.migrations import migrate, runner
from pbem.core.matches.creation import SNAPSHOT_EVERY, create_match, replay, rules_for, state_after
from pbem.core.matches.lifecycle import resign
from pbem.core.matches.models import Match, Move, Position
from pbem.errors import NotFoundError
from tests.conftest import START
from tests.support.playing import play_randomly

SECRET = "test-secret-key"
FOUR = ["ann@example.org", "ben@example.org", "cy@example.org", "di@example.org"]


def _match(game: str = "mimic-taking", seats: int = 4, plies: int = 30) -> Match:
    match = create_match(game, FOUR[:seats], {}, SECRET, START, seed=7).match
    return play_randomly(match.id, seed=3, start=START, max_plies=plies)


@pytest.mark.parametrize("game", ["mimic-taking", "eximo"])
def test_each_move_stores_the_position_that_replaying_reaches(db_url: str, game: str) -> None:
    match = _match(game, seats=4 if game == "mimic-taking" else 2)
    rules = rules_for(match)
    stored = {row.ply: row.state for row in Position.select().where(Position.match == match)}
    assert len(stored) == match.ply == 30
    for ply in range(1, match.ply + 1):
        assert stored[ply] == rules.dump(replay(match, ply)), ply
        assert rules.dump(state_after(match, ply)) == stored[ply]
    assert rules.dump(state_after(match, match.ply)) == match.state
    assert rules.dump(state_after(match, 0)) == rules.dump(replay(match, 0))


def test_showing_an_old_ply_reads_its_snapshot_without_replaying(db_url: str) -> None:
    match = _match()
    rules = rules_for(match)
    wanted = Position.get(Position.match == match, Position.ply == 12).state
    # Spoil an early move's text: replaying through it would now fail.
    Move.update(text="no such move").where(Move.match == match, Move.ply == 2).execute()
    assert rules.dump(state_after(match, 12)) == wanted
    with pytest.raises(NotFoundError, match="has moves 0 to 30, not 31"):
        state_after(match, 31)


def test_the_migration_moves_the_positions_out_of_the_move_table(db_url: str) -> None:
    """0220 as it met a database of before: positions in a `move.state` column."""
    match = _match()
    before = {row.ply: row.state for row in Position.select().where(Position.match == match)}
    database.execute_sql("ALTER TABLE move ADD COLUMN state TEXT")
    for ply, state in before.items():
        database.execute_sql("UPDATE move SET state = %s WHERE match_id = %s AND ply = %s"
                             .replace("%s", database.param), (json.dumps(state), match.id, ply))
    Position.delete().execute()
    history = runner().History
    history.delete().where(history.name == "0220_positions_table").execute()

    assert "0220_positions_table" in migrate()

    after = {row.ply: row.state for row in Position.select().where(Position.match == match)}
    assert after == before
    assert "state" not in {column.name for column in database.get_columns("move")}


def test_a_finished_match_keeps_every_fiftieth_position_and_still_shows_every_ply(
        db_url: str) -> None:
    match = _match("mimic", seats=2, plies=120)
    if match.is_live:  # the door thins the snapshots of a match however it ends
        resign(match.id, 0, START)
    match = Match.get_by_id(match.id)
    assert match.ply > SNAPSHOT_EVERY
    rules = rules_for(match)
    kept = [row.ply for row in Position.select(Position.ply).where(
        Position.match == match).order_by(Position.ply)]
    assert kept == list(range(SNAPSHOT_EVERY, match.ply + 1, SNAPSHOT_EVERY))
    for ply in range(1, match.ply + 1):
        assert rules.dump(state_after(match, ply)) == rules.dump(replay(match, ply)), ply
