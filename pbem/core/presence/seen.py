"""Note that a seat is looking at its match, and ask whether it still is.

A waiting page polls every `page_poll_seconds` (10 by default): a write each time would be a
write per open page every few seconds. Each process writes a seat's presence at most once
every `RESOLUTION`, so the time stored may be that much older than the latest look; the away
window (minutes) is measured from it, which errs towards mailing a little early, never late.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import peewee
from peewee import EXCLUDED, fn

from pbem.core.db import generation
from pbem.core.db.connection import database, on_rebind
from pbem.core.presence.models import Presence

RESOLUTION = timedelta(seconds=15)
DEFAULT_AWAY = timedelta(seconds=300)

_away = DEFAULT_AWAY
# (match, seat) -> when this process last wrote it. Only the last RESOLUTION's entries
# matter (an older one says "due", as no entry does), so those are dropped when it grows; if
# a thousand seats looked within RESOLUTION it is cleared (a cleared entry costs one more
# write, nothing else). A worker serving many matches so keeps a few hundred KiB at most.
_written: dict[tuple[int, int], datetime] = {}
_MAX_REMEMBERED = 1024


def set_away(seconds: int) -> None:
    """The away window in force (`notify_away_seconds`), set by the adapters at start-up;
    0: nobody counts as present, every turn mail goes at once."""
    global _away
    _away = timedelta(seconds=seconds)


def away() -> timedelta:
    return _away


def is_due(match_id: int, seat: int, now: datetime) -> bool:
    """Whether a look now is worth writing: this process wrote none for the seat within
    RESOLUTION (most polls write nothing, and open no transaction)."""
    last = _written.get((match_id, seat))
    return last is None or not timedelta(0) <= now - last < RESOLUTION


def mark_seen(match_id: int, seat: int, now: datetime) -> None:
    """The seat looks at its match now. Written at most once every RESOLUTION per process."""
    if not is_due(match_id, seat, now):
        return
    # One statement, the first look or a later one (a look older than the stored, from
    # another process's clock, changes nothing): it is on the path of every first read.
    insert = Presence.insert(match=match_id, seat=seat, seen_at=now)
    if isinstance(database.obj, peewee.MySQLDatabase):
        insert = insert.on_conflict(update={Presence.seen_at: fn.GREATEST(
            Presence.seen_at, fn.VALUES(Presence.seen_at))})
    else:
        insert = insert.on_conflict(conflict_target=[Presence.match, Presence.seat],
                                    update={Presence.seen_at: EXCLUDED.seen_at},
                                    where=Presence.seen_at < EXCLUDED.seen_at)
    insert.execute()
    if len(_written) >= _MAX_REMEMBERED:
        _forget_old(now)
    _written[(match_id, seat)] = now


def _forget_old(now: datetime) -> None:
    """Drop the entries `is_due` no longer heeds; clear all if that frees too few."""
    for key in [key for key, last in _written.items() if is_due(*key, now)]:
        del _written[key]
    if len(_written) >= _MAX_REMEMBERED // 2:
        _written.clear()


def last_seen(match_id: int, seat: int) -> datetime | None:
    row = (Presence.select(Presence.seen_at)
           .where(Presence.match == match_id, Presence.seat == seat).tuples().first())
    return row[0] if row else None


def present_until(match_id: int, seat: int, now: datetime) -> datetime | None:
    """When the seat will count as away, if it is present now (seen within the away window);
    None when it is away already."""
    return away_at(last_seen(match_id, seat) if _away else None, now)


def away_at(seen: datetime | None, now: datetime) -> datetime | None:
    """`present_until` for a seat last seen at `seen` (read by the caller)."""
    if not _away or seen is None or seen + _away <= now:
        return None
    return seen + _away


def forget_written() -> None:
    """Forget which seats this process wrote lately (tests, a database bound anew)."""
    _written.clear()


on_rebind(forget_written)
generation.on_new_generation(forget_written)
