"""Queueing the computer's moves: whenever a change leaves a computer seat owing a move, the
door writes one `computer_job` row in the same transaction (core/computer runs them).

A job is one row per (match, seat, turn), inserted with "ignore if there": a change that
leaves the same computer seat owing the same decision (a reminder to another seat, a draw
offer) queues nothing new, and a job is never lost, because the change that made the turn
committed with it or not at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from pbem.core.matches.models import ComputerJob, Match, Seat


def queue_computer_turns(match: Match, seats: Iterable[Seat], now: datetime) -> int:
    """Queue a job for every computer seat that owes a move in `match` as it is now (inside
    the transaction that made it so). Returns how many seats are waiting for the computer."""
    if not match.is_live:
        return 0
    owing = set(match.to_move or [])
    waiting = 0
    for seat in seats:
        if seat.computer_level is None or seat.seat not in owing:
            continue
        (ComputerJob.insert(match=match.id, seat=seat.seat, turn=match.turn,
                            level=seat.computer_level, due_at=now, created_at=now)
         .on_conflict_ignore().execute())
        waiting += 1
    return waiting
