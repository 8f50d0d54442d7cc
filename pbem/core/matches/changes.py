"""The one door for every change to a match.

A move, an autoplay, a forfeit, a ruling, a resignation, a draw offer or answer, an abort, a
claim, a reminder or a deadline pushed back: each is a *change* applied by `apply_change`,
which

1. takes the match row first and the seat rows after, always in that order (`SELECT … FOR
   UPDATE` on PostgreSQL and MariaDB; on SQLite the IMMEDIATE transaction already lets one
   writer in at a time), so two changes to one match queue instead of racing and can never
   deadlock each other by taking the rows in opposite orders;
2. hands the locked match to the change, which checks itself against the match *as it is now*
   and writes through `Locked.write`, a conditional update on `Match.version` that every change
   bumps (a forfeit changes no ply, so the ply cannot be the guard);
3. settles the seats' clocks from what changed (who moved, who owes a move now, whether the
   match ended) and then runs the mail the change queued, inside the same transaction.

A lost race, a deadlock or a serialization failure is retried here, a bounded number of times
with jittered back-off; callers never see one as a 500.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

import peewee

from pbem.core.accounts.models import Player
from pbem.core.db.connection import locking, write_transaction
from pbem.core.db.prepared import Prepared, Shapes
from pbem.core.matches import deadlines
from pbem.core.matches.creation import thin_snapshots
from pbem.core.matches.models import DrawOffer, DrawOfferStatus, Match, MatchStatus, Seat
from pbem.core.records import standings
from pbem.errors import ConflictError, NotFoundError
from pbem.games import get_rules
from pbem.games.base import GameRules

log = logging.getLogger(__name__)

T = TypeVar("T")
ATTEMPTS = 8
BACKOFF_SECONDS = 0.02
# SQLSTATEs (PostgreSQL) and error numbers (MariaDB) that mean "try the transaction again".
_RETRY_SQLSTATES = {"40001", "40P01", "55P03"}
_RETRY_MYSQL_CODES = {1205, 1213}


class LostRace(Exception):
    """Another change wrote the match between our read and our write: start again."""


@dataclass
class Locked:
    """A match and its seats, locked for one change, and what the change did to them."""

    match: Match
    seats: list[Seat]
    now: datetime
    movers: set[int] = field(default_factory=set)
    ended: bool = False
    _rules: GameRules | None = None
    _state: Any = None
    _after: list[Callable[[], None]] = field(default_factory=list)

    @property
    def rules(self) -> GameRules:
        if self._rules is None:
            self._rules = get_rules(self.match.game)
        return self._rules

    @property
    def state(self) -> Any:
        if self._state is None:
            self._state = self.rules.load(self.match.state)
        return self._state

    def readable_state(self) -> Any:
        """The state, or None when the stored state cannot be read (a damaged match that an
        admin rules on): mail that needs it is then skipped, and the server log says so."""
        try:
            return self.state
        except Exception:
            log.exception("match %s: its stored state cannot be read; no email about this "
                          "change", self.match.id)
            return None

    def seat(self, number: int) -> Seat:
        for row in self.seats:
            if row.seat == number:
                return row
        raise NotFoundError(f"Match {self.match.id} has no seat {number}.")

    def write(self, **changes: Any) -> None:
        """Change the match row, guarded by its version (which this bumps)."""
        changes.setdefault("updated_at", self.now)
        version = self.match.version
        fields = Match._meta.fields
        updated = _MATCH_WRITES(tuple(changes)).run(
            *[fields[name].db_value(value) for name, value in changes.items()],
            self.match.id, version)
        if updated != 1:
            raise LostRace
        for name, value in changes.items():
            setattr(self.match, name, value)
        self.match.version = version + 1
        if "state" in changes:
            self._state = None
        if changes.get("status", MatchStatus.ACTIVE) != MatchStatus.ACTIVE:
            self.ended = True

    def touch(self) -> None:
        """A change that leaves the match row as it is (a reminder, a deadline pushed back)
        still bumps the version, so every change is visible to the guard."""
        self.write()

    def then(self, action: Callable[[], None]) -> None:
        """Run `action` (queue mail) after the clocks are settled, in the same transaction."""
        self._after.append(action)


def apply_change(match_id: int, change: Callable[[Locked], T], now: datetime) -> T:
    """Apply `change` to the match under the door's locks; retry lost races and deadlocks."""
    return retrying(lambda: _apply_once(match_id, change, now))


def retrying(attempt: Callable[[], T]) -> T:
    """Run `attempt` (one whole transaction) again after a lost race, a deadlock or a
    serialization failure, with jittered back-off; after ATTEMPTS, a clear 409."""
    for number in range(ATTEMPTS):
        try:
            return attempt()
        except LostRace:
            pass
        except peewee.OperationalError as error:
            if not is_transient(error):
                raise
            log.info("retrying a change after a transient database error: %s", error)
        time.sleep(random.uniform(0, BACKOFF_SECONDS * 2 ** min(number, 4)))
    raise ConflictError("The server is very busy with this match right now; nothing was "
                        "changed. Try again in a moment.")


def lock_match(match_id: int) -> Match:
    """The match row, locked until the transaction ends (call inside write_transaction)."""
    match = _LOCK_MATCH.first(match_id)
    if match is None:
        raise NotFoundError(f"There is no match {match_id}.")
    return match


def lock_seats(match: Match) -> list[Seat]:
    """The match's seat rows, locked in seat order. Players are read without a lock: the
    per-player guard (vacations) takes a player before matches, so the door never takes one."""
    seats = _LOCK_SEATS.rows(match.id)
    players = {p.id: p for p in _SEATED_PLAYERS.rows(match.id)}
    for seat in seats:
        seat.player = players[seat.player_id]
    return seats


_LOCK_MATCH = Prepared(lambda match_id: locking(Match.select().where(Match.id == match_id)
                                                 .limit(1)))
_LOCK_SEATS = Prepared(lambda match_id: locking(Seat.select().where(Seat.match == match_id)
                                                 .order_by(Seat.seat)))
_SEATED_PLAYERS = Prepared(lambda match_id: Player.select()
                           .join(Seat, on=(Seat.player == Player.id))
                           .where(Seat.match == match_id))


def _match_write(names: tuple[str, ...]) -> Prepared:
    fields = [Match._meta.fields[name] for name in names]
    return Prepared(lambda *slots: Match.update({Match.version: Match.version + 1,
                                                 **dict(zip(fields, slots[:-2], strict=True))})
                    .where(Match.id == slots[-2], Match.version == slots[-1]),
                    arity=len(names) + 2)


# A change writes one of a few sets of columns (a move's, an ending's, a touch): each compiled
# once, and guarded by the version it read.
_MATCH_WRITES = Shapes(_match_write)


def lock_player(player_id: int) -> Player:
    """A per-player guard (vacations): the player row, locked until the transaction ends."""
    query = Player.select().where(Player.id == player_id)
    player = locking(query).first()
    if player is None:
        raise NotFoundError("There is no such player.")
    return player


def locked(match_id: int, now: datetime) -> Locked:
    """Lock a match and its seats inside a transaction the caller already holds (a vacation
    touches several matches in one transaction, always in match id order)."""
    match = lock_match(match_id)
    return Locked(match, lock_seats(match), now)


def finish_change(door: Locked, before: Iterable[int]) -> None:
    """Settle clocks from what changed, then run the queued mail."""
    if door.ended:
        # Whatever ended the match with a result (a final move, a resignation, an agreed draw,
        # a ruling, a forfeit, a claim), each seat's win, loss or draw is written with it.
        standings.settle(door.match.id)
        thin_snapshots(door.match)
        deadlines.stop_all_clocks(door.match)
        (DrawOffer.update(status=DrawOfferStatus.LAPSED, answered_at=door.now,
                          how="the match ended")
         .where(DrawOffer.match == door.match, DrawOffer.status == DrawOfferStatus.OPEN)
         .execute())
        deadlines.close_moot_entries(door.match, None, door.now,
                                     "the match ended before a ruling")
    elif door.movers:
        after = set(door.match.to_move)
        by_number = {row.seat: row for row in door.seats}
        for number in (set(before) | door.movers) - (after - door.movers):
            deadlines.stop_clock(door.match, by_number[number], door.now)
        for number in sorted(after):
            if by_number[number].owes_since is None:
                deadlines.start_clock(door.match, by_number[number], door.now)
        for number in door.movers:
            deadlines.close_moot_entries(door.match, number, door.now,
                                         "the seat moved before a ruling")
    for action in door._after:
        action()


def is_transient(error: peewee.OperationalError) -> bool:
    original = error.args[0] if error.args else None
    if getattr(original, "sqlstate", None) in _RETRY_SQLSTATES:
        return True
    codes = getattr(original, "args", ())
    if codes and codes[0] in _RETRY_MYSQL_CODES:
        return True
    text = str(error).lower()
    return "database is locked" in text or "deadlock" in text


def _apply_once(match_id: int, change: Callable[[Locked], T], now: datetime) -> T:
    with write_transaction():
        door = locked(match_id, now)
        before = list(door.match.to_move)
        result = change(door)
        finish_change(door, before)
        return result
