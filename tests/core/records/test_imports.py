"""Imports that must be refused or must not disturb this server: a record cut short, the same
record twice, records naming this server's own players, and input too deep to be a record.
(The export → import round trip of every game is in test_exports.py.)"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from pbem.core.accounts.models import Player
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match, Move
from pbem.core.records.exports import match_record
from pbem.core.records.imports import import_record
from pbem.errors import InvalidRequestError
from pbem.games import GAMES, REGISTRY
from tests.conftest import START
from tests.support.playing import play_randomly
from tests.support.records import every_finished_match_replays

pytestmark = pytest.mark.usefixtures(every_finished_match_replays.__name__)

SECRET = "test-secret-key"
NAMES = ["ann", "ben", "cy", "di"]
# A short random game of each real game, ended on the board (the seeds of test_exports.py).
SHORT = {game.slug: game.fixtures.short_seed for game in GAMES}


def _record(match: Match) -> dict[str, Any]:
    return json.loads(json.dumps(match_record(Match.get_by_id(match.id))))


def _played(game: str) -> Match:
    rules = REGISTRY[game]
    seats = min(rules.player_counts)
    emails = [f"{name}@example.org" for name in NAMES[:seats]]
    match = create_match(game, emails, {}, SECRET, START, seed=SHORT[game]).match
    for email, name in zip(emails, NAMES, strict=False):
        Player.update(name=name.title()).where(Player.email == email).execute()
    match = play_randomly(match.id, SHORT[game], START)
    assert not match.is_live and match.result, f"{game} did not finish"
    return match


def _counts() -> tuple[int, int, int]:
    return Match.select().count(), Move.select().count(), Player.select().count()


@pytest.mark.parametrize("game", sorted(SHORT))
def test_a_record_cut_short_does_not_import_the_result_the_full_moves_made(
        db_url: str, game: str) -> None:
    record = _record(_played(game))
    assert len(record["moves"]) > 2
    kept = len(record["moves"]) // 2
    del record["moves"][kept:]  # the result (a win or draw on the board) left as it was
    before = _counts()
    with pytest.raises(InvalidRequestError,
                       match=rf"stops after move {kept}\b.*not what the moves produce"):
        import_record(record, SECRET, START)
    assert _counts() == before


def test_an_ending_off_the_board_must_give_the_winners_it_names(db_url: str) -> None:
    from pbem.core.matches import lifecycle

    match = create_match("nim", ["ann@example.org", "ben@example.org"], {}, SECRET, START).match
    play_randomly(match.id, 1, START, max_plies=2)
    lifecycle.resign(match.id, 0, START)
    record = _record(match)
    assert record["result"]["reason"] == "First resigned"
    record["result"].update(winners=[0, 1], scores=[0.5, 0.5])
    with pytest.raises(InvalidRequestError, match=re.escape(
            "names winners [0, 1], which 'First resigned' does not give")):
        import_record(record, SECRET, START)
    record["result"].update(winners=[1], scores=[0, 1], reason="drawn by agreement")
    with pytest.raises(InvalidRequestError, match="which 'drawn by agreement' does not give"):
        import_record(record, SECRET, START)


def test_the_same_record_imported_twice_is_refused_naming_the_match(db_url: str) -> None:
    record = _record(_played("eximo"))
    first = import_record(record, SECRET, START)
    before = _counts()
    with pytest.raises(InvalidRequestError,
                       match=rf"already here as match {first.id}\b.*Nothing was imported"):
        import_record(json.loads(json.dumps(record)), SECRET, START)
    # Another install's export of the imported match is the same record too.
    again = {**_record(first), "match": 77}
    with pytest.raises(InvalidRequestError, match=rf"already here as match {first.id}\b"):
        import_record(again, SECRET, START)
    assert _counts() == before
