"""A seat's record's VERSION_PARTS follow from the match version, the seat and the language
alone: kept pages and kept answers key them by those three instead of by their value
(`match_record.beyond_version`). So in every game, read at another time, with every memo
forgotten, they are the same; and what else they vary with (the page of moves shown) is in
the rest of the record, which is hashed."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pbem.core.db.memo import forget_all
from pbem.core.matches.creation import create_match, rules_for
from pbem.core.matches.models import Match, Seat
from pbem.core.matches.play import submit_move
from pbem.core.records.match_record import VERSION_PARTS, beyond_version, seat_record
from pbem.games import REGISTRY
from pbem.i18n import language
from tests.conftest import START

EMAILS = ["ann@example.org", "ben@example.org", "cat@example.org", "dan@example.org"]


def _seats(match_id: int) -> list[Seat]:
    return list(Seat.select().where(Seat.match == match_id).order_by(Seat.seat))


def _played(game: str, secret_key: str, plies: int) -> int:
    """A match of `game` with `plies` moves made, each the first legal move that does not end
    the game: the match is still being played, its clock running. A short game (tic-tac-toe
    has nine squares) stops where every move would end it."""
    rules = REGISTRY[game]
    players = min(rules.player_counts)
    match = create_match(game, EMAILS[:players], {}, secret_key, START, seed=7,
                         time_control="3d").match
    for ply in range(plies):
        match = Match.get_by_id(match.id)
        state = rules_for(match).load(match.state)
        seat = min(rules.to_move(state))
        going_on = [move for move in rules.legal_moves(state, seat)
                    if rules.outcome(rules.apply_move(state, seat, move).state) is None]
        if not going_on:
            break
        submit_move(match.id, seat, rules.format_move(state, going_on[0]), ply,
                    START + timedelta(hours=ply))
    return match.id


def _parts(record: dict) -> dict:
    return {name: record[name] for name in VERSION_PARTS}


@pytest.mark.parametrize("game", sorted(REGISTRY))
def test_the_version_parts_are_the_same_at_any_time(db_url: str, settings, game: str) -> None:
    match_id = _played(game, settings.secret_key, plies=12)
    for seat in _seats(match_id):
        for code in ("en", "de"):
            with language(code):
                forget_all()
                now = seat_record(seat, START + timedelta(days=1))
                forget_all()
                later = seat_record(seat, START + timedelta(days=2, hours=5))
            assert _parts(now) == _parts(later)
            # The time did change the record: only its other parts, which are hashed.
            assert beyond_version(now) != beyond_version(later)


def test_another_page_of_moves_is_another_key(db_url: str, settings) -> None:
    match_id = _played("mimic", settings.secret_key, plies=14)
    seat = _seats(match_id)[0]
    latest = seat_record(seat, START)
    earlier = seat_record(seat, START, moves_upto=3)
    assert latest["moves"] != earlier["moves"]
    assert beyond_version(latest) != beyond_version(earlier)
    assert set(beyond_version(latest)) == set(latest) - VERSION_PARTS


def test_a_page_of_moves_ending_early_does_not_hide_a_mover(db_url: str, settings) -> None:
    """Whether the match may still be aborted asks who has moved: a page of moves from the
    first that ends before the latest (`?moves=1`) does not tell, so the moves are read."""
    match_id = _played("mimic", settings.secret_key, plies=2)
    seat = _seats(match_id)[0]
    assert "abort" not in seat_record(seat, START)["can"]
    assert "abort" not in seat_record(seat, START, moves_upto=1)["can"]
