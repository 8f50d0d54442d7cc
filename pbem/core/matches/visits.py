"""A seat's last visit to its page, for the admin weighing a timeout ("did they look?")."""

from __future__ import annotations

from datetime import datetime, timedelta

from pbem.core.matches.models import Seat

# Precise enough for a ruling measured in days; at most one write per seat this often, so a
# page reloaded by polling stays a read.
RESOLUTION = timedelta(minutes=5)


def note_visit(seat: Seat, now: datetime) -> None:
    if seat.last_seen_at is not None and now - seat.last_seen_at < RESOLUTION:
        return
    # Conditional: of several tabs polling at once, one writes. No version bump: the visit is
    # not part of the clock, and the door's guards must not see it as a change.
    (Seat.update(last_seen_at=now)
     .where(Seat.id == seat.id,
            Seat.last_seen_at.is_null() | (Seat.last_seen_at <= now - RESOLUTION))
     .execute())
