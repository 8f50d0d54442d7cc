"""Note that a seat is looking at its match, and ask whether it still is.

A waiting page polls every `page_poll_seconds` (10 by default): a write each time would be a
write per open page every few seconds. Each process writes a seat's presence at most once
every `RESOLUTION`, so the time stored may be that much older than the latest look; the away
window (minutes) is measured from it, which errs towards mailing a little early, never late.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import peewee

from pbem.core.db import generation
from pbem.core.db.connection import database, on_rebind
from pbem.core.presence.models import Presence

RESOLUTION = timedelta(seconds=15)
DEFAULT_AWAY = timedelta(seconds=300)

_away = DEFAULT_AWAY
# (match, seat) -> when this process last wrote it. Bounded: cleared when it grows large (a
# cleared entry costs one more write, nothing else).
_written: dict[tuple[int, int], datetime] = {}
_MAX_REMEMBERED = 10_000


def set_away(seconds: int) -> None:
    """The away window in force (`notify_away_seconds`), set by the adapters at start-up;
    0: nobody counts as present, every turn mail goes at once."""
    global _away
    _away = timedelta(seconds=seconds)


def away() -> timedelta:
    return _away


def mark_seen(match_id: int, seat: int, now: datetime) -> None:
    """The seat looks at its match now. Written at most once every RESOLUTION per process."""
    key = (match_id, seat)
    last = _written.get(key)
    if last is not None and timedelta(0) <= now - last < RESOLUTION:
        return
    updated = (Presence.update(seen_at=now)
               .where(Presence.match == match_id, Presence.seat == seat,
                      Presence.seen_at < now).execute())
    if not updated and not _exists(match_id, seat):
        try:
            with database.atomic():  # a savepoint: a racing first look is not an error
                Presence.insert(match=match_id, seat=seat, seen_at=now).execute()
        except peewee.IntegrityError:
            pass  # another request wrote the first look at the same moment
    if len(_written) >= _MAX_REMEMBERED:
        _written.clear()
    _written[key] = now


def last_seen(match_id: int, seat: int) -> datetime | None:
    row = (Presence.select(Presence.seen_at)
           .where(Presence.match == match_id, Presence.seat == seat).tuples().first())
    return row[0] if row else None


def present_until(match_id: int, seat: int, now: datetime) -> datetime | None:
    """When the seat will count as away, if it is present now (seen within the away window);
    None when it is away already."""
    if not _away:
        return None
    seen = last_seen(match_id, seat)
    if seen is None or seen + _away <= now:
        return None
    return seen + _away


def forget_written() -> None:
    """Forget which seats this process wrote lately (tests, a database bound anew)."""
    _written.clear()


def _exists(match_id: int, seat: int) -> bool:
    return (Presence.select(Presence.id)
            .where(Presence.match == match_id, Presence.seat == seat).exists())


on_rebind(forget_written)
generation.on_new_generation(forget_written)
