"""Vacations: a player declares an absence; their clocks in every match stop meanwhile.

Dates are whole UTC days, the end day included. Each player has a yearly allowance (days per
calendar year, `vacation_days_per_year`). The other players of every live match are told: the
match pages show the vacation until it ends (`match_record`), and the door queues a notice mail
with the change, which their mail preferences may leave out (a vacation notice is news).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import ClassVar

from pbem.core.accounts.models import Player
from pbem.core.db.connection import write_transaction
from pbem.core.db.prepared import Prepared
from pbem.core.db.retry import retrying
from pbem.core.mailout import notify
from pbem.core.matches import deadlines
from pbem.core.matches.changes import (
    PLAYER,
    UNLOGGED,
    Change,
    Channel,
    Locked,
    apply_within,
    lock_player,
)
from pbem.core.matches.models import Match, MatchStatus, Seat, Vacation
from pbem.errors import InvalidRequestError
from pbem.i18n import _

MAX_AHEAD = timedelta(days=366)


@dataclass(frozen=True)
class Allowance:
    year: int
    days: int
    used: int

    @property
    def left(self) -> int:
        return max(self.days - self.used, 0)


def allowance(player_id: int, year: int, days_per_year: int) -> Allowance:
    return Allowance(year, days_per_year, _days_in_year(_vacations(player_id), year))


def upcoming(player_id: int, now: datetime) -> list[Vacation]:
    return [v for v in _vacations(player_id) if v.ends_at > now]


def summary(player: Player, now: datetime, days_per_year: int
            ) -> tuple[Allowance, list[Vacation]]:
    """This year's allowance and the vacations still to come, from one read (none when the
    player row says no vacation reaches into this year)."""
    if player.away_until is None or player.away_until <= datetime(now.year, 1, 1):
        return Allowance(now.year, days_per_year, 0), []
    every = _vacations(player.id)
    return (Allowance(now.year, days_per_year, _days_in_year(every, now.year)),
            [v for v in every if v.ends_at > now])


@dataclass(frozen=True)
class Declared:
    """A recorded vacation and the live matches it changed, whose other players were told
    (on the match page, and by mail as their preferences say); none: nobody was told."""

    vacation: Vacation
    matches: tuple[int, ...]


def declare(player_id: int, first_day: date, last_day: date, days_per_year: int,
            now: datetime) -> Declared:
    """Record an absence from `first_day` to `last_day` (inclusive); refuse it clearly if it
    is in the past, backwards, overlapping another, or beyond the yearly allowance."""
    today = now.date()
    if last_day < first_day:
        raise InvalidRequestError(_("The vacation ends before it starts."))
    if first_day < today:
        raise InvalidRequestError(_("A vacation cannot start in the past."))
    if first_day - today > MAX_AHEAD:
        raise InvalidRequestError(_("Declare a vacation at most a year ahead."))
    if last_day - today > 2 * MAX_AHEAD:
        # Also keeps the day after the last one (the end instant) within the calendar.
        raise InvalidRequestError(_("A vacation must end within two years from today."))
    starts = max(datetime.combine(first_day, time()), now)
    ends = datetime.combine(last_day + timedelta(days=1), time())
    return retrying(lambda: _record(player_id, first_day, last_day, starts, ends,
                                    days_per_year, now))


def _record(player_id: int, first_day: date, last_day: date, starts: datetime, ends: datetime,
            days_per_year: int, now: datetime) -> Declared:
    with write_transaction():
        # The per-player guard: parallel declarations queue here, so each checks the overlap
        # and the allowance against the vacations already recorded.
        lock_player(player_id)
        existing = _vacations(player_id)
        if any(v.starts_at < ends and starts < v.ends_at for v in existing):
            raise InvalidRequestError(_("You already have a vacation in those days."))
        proposed = [*existing, Vacation(starts_at=starts, ends_at=ends)]
        for year in range(first_day.year, last_day.year + 1):
            used = _days_in_year(proposed, year)
            if used > days_per_year:
                before = _days_in_year(existing, year)
                raise InvalidRequestError(
                    _("That would use %(used)s vacation days in %(year)s; the allowance is "
                      "%(days)s and you have %(left)s left.", used=used, year=year,
                      days=days_per_year, left=max(days_per_year - before, 0)))
        vacation = Vacation.create(player=player_id, starts_at=starts, ends_at=ends,
                                   created_at=now)
        latest = max(v.ends_at for v in proposed)
        Player.update(away_until=latest).where(Player.id == player_id).execute()
        matches = _push_back_deadlines(player_id, vacation, now)
    return Declared(vacation, matches)


def _push_back_deadlines(player_id: int, vacation: Vacation, now: datetime
                         ) -> tuple[int, ...]:
    """Each live match of the player is changed through the door's locks (match, then seats,
    in match order), its deadlines recomputed and its other players told."""
    player = Player.get_by_id(player_id)
    match_ids = sorted({seat.match_id for seat in
                        Seat.select(Seat.match).join(Match)
                        .where(Seat.player == player_id, Match.status == MatchStatus.ACTIVE)})
    for match_id in match_ids:
        apply_within(match_id, VacationDeclared(by=PLAYER, via=Channel.WEB, player=player_id,
                                                name=player.public_name,
                                                starts_at=vacation.starts_at,
                                                ends_at=vacation.ends_at), now)
    return tuple(match_ids)


@dataclass(frozen=True, kw_only=True)
class VacationDeclared(Change):
    """A player's declared absence, in one of their live matches: their clocks there are
    recomputed (the vacation does not run) and the match's mail says so."""

    kind: ClassVar[str] = "vacation"
    player: int
    name: str = field(default="", metadata=UNLOGGED)
    starts_at: datetime
    ends_at: datetime

    def apply(self, door: Locked) -> None:
        door.touch()
        for seat in door.seats:
            if seat.player_id == self.player and seat.owes_since is not None:
                deadlines.refresh_deadline(seat, door.now)
        for seat in door.seats:
            if seat.player_id == self.player:
                door.note(seat=seat.seat)
                door.then(functools.partial(
                    notify.queue_vacation, door.match, door.rules, door.state, seat.seat,
                    self.name, self.starts_at, self.ends_at, door.now))


def _vacations(player_id: int) -> list[Vacation]:
    return _VACATIONS.rows(player_id)


_VACATIONS = Prepared(lambda player_id: Vacation.select().where(Vacation.player == player_id)
                      .order_by(Vacation.starts_at))


def _days_in_year(vacations: list[Vacation], year: int) -> int:
    """Days (started days count whole) of these vacations that fall in `year`."""
    year_start = datetime(year, 1, 1)
    year_end = datetime(year + 1, 1, 1)
    total = 0
    for vacation in vacations:
        start = max(vacation.starts_at, year_start)
        end = min(vacation.ends_at, year_end)
        if end > start:
            first = start.date()
            last = (end - timedelta(microseconds=1)).date()
            total += (last - first).days + 1
    return total
