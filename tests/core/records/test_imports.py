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
from tests.conftest import ON_SQLITE, START
from tests.support.playing import play_randomly
from tests.support.records import every_finished_match_replays, from_elsewhere

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


# Refused before anything is written: what is checked is the record, on any database.
@ON_SQLITE
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


def test_a_record_of_a_match_played_here_is_refused_naming_it(db_url: str) -> None:
    played = _played("mimic")
    before = _counts()
    with pytest.raises(InvalidRequestError, match=rf"already here as match {played.id}\b "
                       r"\(it was played on this server\)\. Nothing was imported"):
        import_record(_record(played), SECRET, START)
    assert _counts() == before


def test_the_same_record_imported_twice_is_refused_naming_the_match(db_url: str) -> None:
    record = from_elsewhere(_record(_played("eximo")))
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


def _nim(emails: list[str]) -> Match:
    match = create_match("nim", emails, {}, SECRET, START).match
    return play_randomly(match.id, 1, START)


def _archive(client, name: str) -> list[int]:
    answer = client.get(f"/api/matches?player={name}")
    assert answer.status_code == 200, answer.get_json()
    return [row["id"] for row in answer.get_json()["matches"]]


def test_importing_a_record_of_our_own_players_leaves_them_who_they_are(client) -> None:
    """Ann has a display name; Cy has none and goes by his address's local part."""
    own = _nim(["ann@example.org", "cy@example.org"])
    Player.update(name="Ann").where(Player.email == "ann@example.org").execute()
    ann, cy = (Player.get(Player.email == e) for e in ("ann@example.org", "cy@example.org"))
    record = _record(own)
    assert [p["name"] for p in record["players"]] == ["Ann", "cy"]

    imported = import_record(from_elsewhere(record), SECRET, START)

    assert [s.player_id for s in imported.seat_rows()] == [ann.id, cy.id]
    for name in ("Ann", "cy"):
        page = client.get(f"/players/{name}")
        assert page.status_code == 200, name
        assert f"<h1>{name}</h1>" in page.data.decode()
        assert own.id in _archive(client, name) and imported.id in _archive(client, name)
    assert [Player.get_by_id(p.id).name for p in (ann, cy)] == ["Ann", None]


def test_an_imported_name_never_takes_over_a_name_someone_here_answers_to(client) -> None:
    """Ann was "Ann" and is now "Annie": links to /players/ann still lead to her, and a record
    naming "ann" is hers. A name nobody answers to gets a player of its own, with a page."""
    from pbem.core.accounts.players import update_settings

    own = _nim(["ann@example.org", "ben@example.org"])
    ann = Player.get(Player.email == "ann@example.org")
    update_settings(ann, "Ann", "", submit_without_confirm=False, now=START)
    update_settings(ann, "Annie", "", submit_without_confirm=False, now=START)
    record = _record(own)
    record["players"][0]["name"] = "ann"
    record["players"][1]["name"] = "Zed"
    assert client.get("/players/ann").headers["Location"].endswith("/players/Annie")

    imported = import_record(from_elsewhere(record), SECRET, START)

    seats = imported.seat_rows()
    assert seats[0].player_id == ann.id
    assert client.get("/players/ann").headers["Location"].endswith("/players/Annie")
    assert imported.id in _archive(client, "Annie")
    zed = Player.get_by_id(seats[1].player_id)
    assert zed.public_name == "Zed" and zed.email.endswith("@imported.invalid")
    assert client.get("/players/Zed").status_code == 200
    assert _archive(client, "Zed") == [imported.id]


def test_a_file_that_is_not_json_is_refused_naming_the_file_an_import_reads() -> None:
    """A record.txt given to an import (the other download) is told which file it wants."""
    from pbem.core.records.imports import load_record
    from pbem.errors import InvalidRequestError

    with pytest.raises(InvalidRequestError, match=r"reads a match's record\.json, not its "
                                                  r"record\.txt"):
        load_record('[Game "Mimic"]\n1. b2-b3')


def _moved_start(record: dict[str, Any], **by: float) -> dict[str, Any]:
    from datetime import datetime, timedelta

    copy = json.loads(json.dumps(record))
    start = datetime.fromisoformat(copy["created_at"].removesuffix("Z"))
    copy["created_at"] = (start - timedelta(**by)).isoformat() + "Z"
    return copy


def test_a_record_imported_before_is_refused_with_its_start_time_moved(db_url: str) -> None:
    record = from_elsewhere(_record(_played("eximo")))
    first = import_record(record, SECRET, START)
    before = _counts()
    for by in ({"hours": 1}, {"seconds": 1}, {"days": 30}):
        with pytest.raises(InvalidRequestError, match=rf"already here as match {first.id}\b "
                           r"\(imported from a record of the same match, its start time "
                           r"moved\)\. Nothing was imported"):
            import_record(_moved_start(record, **by), SECRET, START)
    assert _counts() == before


def test_a_match_played_here_is_refused_with_its_start_time_moved(db_url: str) -> None:
    played = _played("mimic")
    before = _counts()
    with pytest.raises(InvalidRequestError, match=rf"already here as match {played.id}\b "
                       r"\(it was played on this server\)"):
        import_record(_moved_start(_record(played), minutes=5), SECRET, START)
    assert _counts() == before


def _resigned_nim() -> dict[str, Any]:
    from pbem.core.matches import lifecycle

    match = create_match("nim", ["ann@example.org", "ben@example.org"], {}, SECRET, START).match
    play_randomly(match.id, 1, START, max_plies=2)
    lifecycle.resign(match.id, 0, START)
    record = from_elsewhere(_record(match))
    assert record["result"] == {"winners": [1], "scores": [0.0, 1.0],
                                "reason": "First resigned"}
    return record


@pytest.mark.parametrize(("reason", "says"), [
    ("Second resigned", r"names winners \[1\], which 'Second resigned' does not give"),
    ("Nobody resigned", r"no player of this match is called Nobody \(its players are "
                        r"First, Second\)"),
    ("First and Second ran out of time; First claimed the win",
     r"First cannot both run out of time and claim the win"),
    ("Third ran out of time and forfeits", "no player of this match is called Third"),
])
def test_a_resignation_or_forfeit_must_name_the_loser_among_the_players(db_url: str, reason,
                                                                        says) -> None:
    record = _resigned_nim()
    record["result"]["reason"] = reason
    before = _counts()
    with pytest.raises(InvalidRequestError, match=says):
        import_record(record, SECRET, START)
    assert _counts() == before


@pytest.mark.parametrize("scores", [[0.0, 0.5], [1.0, 0.0], [0.0, 2.0]])
def test_an_ending_off_the_board_must_give_the_scores_it_gives(db_url: str, scores) -> None:
    record = _resigned_nim()
    record["result"]["scores"] = scores
    with pytest.raises(InvalidRequestError, match=r"gives the scores \[.*\], but its moves "
                       r"and 'First resigned' give \[0, 1\]\. Nothing was imported"):
        import_record(record, SECRET, START)
    record["result"]["scores"] = [0, 1]  # whole numbers are the same scores
    assert import_record(record, SECRET, START).result["scores"] == [0.0, 1.0]


@ON_SQLITE  # as above: the record is checked before anything is written
@pytest.mark.parametrize("game", sorted(SHORT))
def test_a_result_on_the_board_must_have_the_scores_the_moves_give(db_url: str,
                                                                   game: str) -> None:
    record = from_elsewhere(_record(_played(game)))
    true = record["result"]["scores"]
    record["result"]["scores"] = [score + 1 for score in true]
    before = _counts()
    with pytest.raises(InvalidRequestError, match=r"gives the scores .* but its moves and "):
        import_record(record, SECRET, START)
    assert _counts() == before
