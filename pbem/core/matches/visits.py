"""A seat's last visit to its page, for the admin weighing a timeout ("did they look?")."""

from __future__ import annotations

from datetime import datetime, timedelta

from pbem.core.db.prepared import Prepared
from pbem.core.matches.models import Seat

# Precise enough for a ruling measured in days; at most one write per seat this often, so a
# page reloaded by polling stays a read.
RESOLUTION = timedelta(minutes=5)


def visit_due(seat: Seat, now: datetime) -> bool:
    """Whether a visit now is worth writing (none noted within `RESOLUTION`)."""
    return seat.last_seen_at is None or now - seat.last_seen_at >= RESOLUTION


def note_visit(seat: Seat, now: datetime) -> None:
    if not visit_due(seat, now):
        return
    # Conditional: of several tabs polling at once, one writes. No version bump: the visit is
    # not part of the clock, and the door's guards must not see it as a change.
    stored = Seat.last_seen_at.db_value
    _NOTE_VISIT.run(stored(now), seat.id, stored(now - RESOLUTION))


# Compiled once: a seat's first visit after a move writes, so it is on a first read's path.
_NOTE_VISIT = Prepared(lambda now, seat_id, since: Seat.update(last_seen_at=now).where(
    Seat.id == seat_id, Seat.last_seen_at.is_null() | (Seat.last_seen_at <= since)))
