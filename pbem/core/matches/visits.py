"""A seat's last visit to its page, for the admin weighing a timeout ("did they look?")."""

from __future__ import annotations

from datetime import datetime, timedelta

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
    (Seat.update(last_seen_at=now)
     .where(Seat.id == seat.id,
            Seat.last_seen_at.is_null() | (Seat.last_seen_at <= now - RESOLUTION))
     .execute())
