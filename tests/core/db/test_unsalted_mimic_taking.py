"""Migration 0320: Mimic Taking's `salted` option is on by default now, so a match stored
without it (created when the default was off) is pinned to `salted: false` and keeps
replaying and playing as it was dealt; a match that names the option is left alone."""

from __future__ import annotations

import importlib
from datetime import timedelta

from pbem.core.db.connection import database
from pbem.core.matches.creation import create_match, current_state, replay
from pbem.core.matches.models import Match
from pbem.core.matches.play import submit_move
from pbem.games import get_rules
from tests.conftest import START
from tests.support.playing import add_salts, play_randomly

SECRET = "test-secret-key"
EMAILS = ["ann@example.org", "ben@example.org", "cy@example.org"]
RULES = get_rules("mimic-taking")
MIGRATION = importlib.import_module("pbem.core.db.migrations.0320_unsalted_mimic_taking")


def _as_before_the_default(match_id: int) -> None:
    """The options as a match created before `salted` existed stored them."""
    Match.update(options={"face_up": False}).where(Match.id == match_id).execute()


def test_a_match_stored_without_salted_keeps_playing_unsalted(db_url: str) -> None:
    old = create_match("mimic-taking", EMAILS, {"salted": False}, SECRET, START).match
    play_randomly(old.id, seed=4, start=START, max_plies=7)
    _as_before_the_default(old.id)
    face_up = create_match("mimic-taking", EMAILS, {"salted": False, "face_up": True}, SECRET,
                           START).match
    Match.update(options={"face_up": True}).where(Match.id == face_up.id).execute()
    salted = create_match("mimic-taking", EMAILS, {}, SECRET, START).match
    nim = create_match("nim", EMAILS[:2], {}, SECRET, START).match
    nim_options = Match.get_by_id(nim.id).options
    # Read with the new default, the old match's first moves (cards) would not replay.
    assert RULES.resolve_options({"face_up": False})["salted"] is True

    for _ in range(2):  # re-runnable: a second run changes nothing
        MIGRATION.up(None, database.obj)
        assert Match.get_by_id(old.id).options == {"face_up": False, "salted": False}
        assert Match.get_by_id(face_up.id).options == {"face_up": True, "salted": False}
        assert Match.get_by_id(salted.id).options == {"face_up": False, "salted": True}
        assert Match.get_by_id(nim.id).options == nim_options

    match = Match.get_by_id(old.id)
    assert RULES.dump(replay(match, match.ply)) == match.state, "it replays as it was dealt"
    state = current_state(match)
    seat = min(RULES.to_move(state))
    move = RULES.format_move(state, RULES.legal_moves(state, seat)[0])
    assert not move.startswith("salt")
    submit_move(old.id, seat, move, match.ply, START + timedelta(hours=1))
    assert Match.get_by_id(old.id).ply == match.ply + 1
    assert RULES.load(Match.get_by_id(salted.id).state).salting, "new matches wait for salts"
    dealt = RULES.load(add_salts(salted.id, START, own={1: "ben's"}).state)
    assert not dealt.salting and dealt.salts is not None and dealt.salts[1] == "ben's"
