"""Seat clocks: when each seat's deadline and reminder fall.

A seat's clock runs only while it owes a move, and stops while its player is on vacation or the
server is down. `start_clock` and `stop_clock` are called by the move and match services; the
worker's `sweep` (sweep.py) acts on the deadlines and reminder times set here.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pbem.core.db.peewee_reach import joined_row
from pbem.core.db.prepared import Prepared, update_columns
from pbem.core.matches.clocks import TimeControl, deadline, reminder_lead, running_time
from pbem.core.matches.models import Adjudication, AdjudicationStatus, Match, Seat, Vacation
from pbem.i18n import N_

# What starting, stopping or refreshing a clock changes: only these are written, so a change
# never puts back a column it did not touch (and its UPDATE is compiled once).
CLOCK_COLUMNS = ("allowance_seconds", "owes_since", "deadline", "remind_at", "version")


class TimeoutPolicy:
    ADJUDICATE = "adjudicate"
    FORFEIT = "forfeit"
    AUTOPLAY = "autoplay"
    CLAIM = "claim"  # the others are told they may claim the win; the late seat may still move
    ALL = ("adjudicate", "forfeit", "autoplay", "claim")
    # What each means, as pages and mails tell players (the ids stay for forms and the API).
    # English, marked for the catalog: shown through `timeout_words` in the reader's language.
    WORDS = {
        "adjudicate": N_("an admin rules on it"),
        "forfeit": N_("the late player loses"),
        "autoplay": N_("the server moves for the late player"),
        "claim": N_("the others may claim the win"),
    }


# --- clocks ---------------------------------------------------------------------------------

def start_clock(match: Match, seat: Seat, now: datetime) -> None:
    """The seat now owes a move: its deadline is its allowance of running time from now.
    The computer's clock never runs: its seat gets no deadline and no reminder."""
    if seat.computer_level is not None:
        return
    if seat.allowance_seconds <= 0:
        seat.allowance_seconds = int(TimeControl.of_match(match.time_control).bank.total_seconds())
    seat.owes_since = now
    if match.paused_at is None:
        _set_deadline(seat, now)
    update_columns(seat, CLOCK_COLUMNS)


def stop_clock(match: Match, seat: Seat, now: datetime) -> None:
    """The seat moved: charge the running time it used and set its next allowance."""
    if seat.owes_since is None:
        return
    control = TimeControl.of_match(match.time_control)
    # While an admin holds the clocks, time stopped running at the pause.
    until = max(seat.owes_since, match.paused_at) if match.paused_at is not None else now
    used = running_time(seat.owes_since, until, pauses_for(seat, seat.owes_since))
    allowance = timedelta(seconds=seat.allowance_seconds)
    seat.allowance_seconds = int(control.allowance_after_move(allowance, used).total_seconds())
    seat.owes_since = seat.deadline = seat.remind_at = None
    seat.version += 1
    update_columns(seat, CLOCK_COLUMNS)


def stop_all_clocks(match: Match) -> None:
    Seat.update(owes_since=None, deadline=None, remind_at=None,
                version=Seat.version + 1).where(Seat.match == match).execute()


def refresh_deadline(seat: Seat, now: datetime) -> None:
    """Recompute an owing seat's deadline (after its player declared a vacation, or an
    admin resumed the clocks or extended the seat). None while the match is paused."""
    if seat.match.paused_at is not None:
        seat.deadline = seat.remind_at = None
    else:
        _set_deadline(seat, now)
    seat.version += 1
    update_columns(seat, CLOCK_COLUMNS)


def pauses_for(seat: Seat, since: datetime) -> list[tuple[datetime, datetime]]:
    """The seat's player's vacations that end after `since`: its clock stops in them."""
    # The door reads each seat's player with it; that row tells when the player's last
    # vacation ends, so most clocks never read the vacation table.
    player = joined_row(seat, "player")
    if player is not None and (player.away_until is None or player.away_until <= since):
        return []
    return [(row.starts_at, row.ends_at) for row in _VACATIONS.rows(seat.player_id)
            if row.ends_at > since]


# A player's vacations are few: read them all (one compiled query) and filter here.
_VACATIONS = Prepared(lambda player_id: Vacation.select().where(Vacation.player == player_id)
                      .order_by(Vacation.starts_at))


def _set_deadline(seat: Seat, now: datetime) -> None:
    allowance = timedelta(seconds=seat.allowance_seconds)
    since = seat.owes_since
    if since is None:
        raise ValueError(f"seat {seat.seat} of match {seat.match_id} owes no move, so it has "
                         "no deadline")
    pauses = pauses_for(seat, since)
    seat.deadline = deadline(since, allowance, pauses)
    remind = deadline(since, allowance - reminder_lead(allowance), pauses)
    seat.remind_at = remind if remind > now else None


def close_moot_entries(match: Match, seat: int | None, now: datetime, why: str) -> None:
    """A seat moved (or the match ended) before the admin ruled: the entry is moot."""
    if seat is None:
        _CLOSE_ENTRIES.run(why, now, match.id)
    else:
        _CLOSE_SEAT_ENTRIES.run(why, now, match.id, seat)


def _closing(why: Any, now: Any, match_id: Any) -> Any:
    return (Adjudication.update(status=AdjudicationStatus.CLOSED, reason=why, ruled_at=now,
                                ruled_by="pbem")
            .where(Adjudication.match == match_id, Adjudication.status == AdjudicationStatus.OPEN))


# Every move closes its seat's open entries (there are seldom any): compiled once.
_CLOSE_ENTRIES = Prepared(_closing)
_CLOSE_SEAT_ENTRIES = Prepared(lambda why, now, match_id, seat: _closing(why, now, match_id)
                               .where(Adjudication.seat == seat))

