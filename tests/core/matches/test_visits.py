"""A seat's last visit is kept to within a few minutes: at most one write per seat per
RESOLUTION, so a polling page stays a read."""

from __future__ import annotations

from datetime import timedelta

from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Seat
from pbem.core.matches.visits import RESOLUTION, note_visit
from tests.conftest import START


def test_visits_are_written_at_most_once_per_resolution(db_url: str) -> None:
    match = create_match("nim", ["ann@example.org", "ben@example.org"], {}, "k", START).match
    seat = Seat.get(Seat.match == match, Seat.seat == 0)
    version = seat.version
    note_visit(seat, START)
    assert Seat.get_by_id(seat.id).last_seen_at == START
    stale = Seat.get_by_id(seat.id)
    note_visit(stale, START + RESOLUTION - timedelta(seconds=1))
    assert Seat.get_by_id(seat.id).last_seen_at == START
    # A page read before the first visit was written still does not write twice.
    seat.last_seen_at = None
    note_visit(seat, START + timedelta(minutes=1))
    assert Seat.get_by_id(seat.id).last_seen_at == START
    note_visit(stale, START + RESOLUTION)
    row = Seat.get_by_id(seat.id)
    assert row.last_seen_at == START + RESOLUTION and row.version == version
