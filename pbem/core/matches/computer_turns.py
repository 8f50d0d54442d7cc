"""Queueing the computer's moves: whenever a change leaves a computer seat owing a move, its
settler (`settle_computer_turns`, the last the door hands a change to) writes one
`computer_job` row in the same transaction (core/computer runs them).

A job is one row per (match, seat, turn), inserted with "ignore if there": a change that
leaves the same computer seat owing the same decision (a reminder to another seat, a draw
offer) queues nothing new, and a job is never lost, because the change that made the turn
committed with it or not at all.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pbem.bots import choose_move
from pbem.core.matches.changes import Settled
from pbem.core.matches.models import ComputerJob, Match, Seat
from pbem.games.base import GameRules

log = logging.getLogger(__name__)


def queue_computer_turns(match: Match, seats: Iterable[Seat], now: datetime) -> int:
    """Queue a job for every computer seat that owes a move in `match` as it is now (inside
    the transaction that made it so), and drop the match's jobs the change made moot (an
    earlier turn, or the match ended). Returns how many seats are waiting for the computer."""
    if not match.is_live:
        ComputerJob.delete().where(ComputerJob.match == match.id).execute()
        return 0
    (ComputerJob.delete().where(ComputerJob.match == match.id, ComputerJob.turn != match.turn)
     .execute())
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


def move_seed(match_id: int, ply: int, seat: int) -> int:
    """The search's seed for the computer's move at this position: derived from the match and
    the ply, so thinking again (another worker, after a crash) gives the same move."""
    digest = hashlib.sha256(f"pbem-computer/{match_id}/{ply}/{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 2


@dataclass(frozen=True)
class StandIn:
    """The computer standing in for a late seat (the autoplay policy, an admin's autoplay
    ruling): the level it plays at (setting `autoplay_level`) and, from the adapter that runs
    it, the clock that caps its thinking at the level's time budget (core reads no clock)."""

    level: int = 2
    clock: Callable[[], float] | None = None

    def choose(self, rules: GameRules, state: Any, seat: int, match_id: int, ply: int) -> Any:
        """The computer's move; should the search fail (a bug), the game's documented default
        move, so a timeout is always settled (the log keeps the failure)."""
        try:
            return choose_move(rules, state, seat, self.level, move_seed(match_id, ply, seat),
                               clock=self.clock)
        except Exception:
            log.exception("match %s: the computer could not choose a move for seat %s; "
                          "the game's default move is made instead", match_id, seat)
            return rules.default_move(state, seat)


def settle_computer_turns(settled: Settled) -> None:
    """The settler (see `core/settlers.py`): a change may have made it a computer seat's turn
    (its job commits with it), or made a queued job moot (the match moved on or ended: the job
    goes). A match without a computer seat has no jobs to queue or drop."""
    if any(row.computer_level is not None for row in settled.seats):
        queue_computer_turns(settled.match, settled.seats, settled.now)
