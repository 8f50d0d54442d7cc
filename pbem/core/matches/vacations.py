"""Vacations: a player declares an absence; their clocks in every match stop meanwhile.
A player may call one off: a vacation still to come is withdrawn (its days are theirs
again), one under way ends at once (the days begun stay used), and their other players are
told as they were of the vacation.

Dates are whole UTC days, the end day included. Each player has a yearly allowance (days per
calendar year, `vacation_days_per_year`). The other players of every live match are told: the
match pages show the vacation until it ends (`match_record`), and the door queues a notice mail
with the change, which their mail preferences may leave out (a vacation notice is news).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import ClassVar

from pbem.core.accounts.models import Player
from pbem.core.db.connection import write_transaction
from pbem.core.db.prepared import Prepared
from pbem.core.db.retry import retrying
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
from pbem.errors import ConflictError, NotFoundError, UnprocessableError
from pbem.i18n import _, ngettext

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
            now: datetime, via: Channel = Channel.WEB) -> Declared:
    """Record an absence from `first_day` to `last_day` (inclusive); refuse it clearly (422:
    well-formed days the rules do not allow) if it is in the past, backwards, overlapping
    another, or beyond the yearly allowance."""
    today = now.date()
    if last_day < first_day:
        raise UnprocessableError(_("The vacation ends before it starts."))
    if first_day < today:
        raise UnprocessableError(_("A vacation cannot start in the past."))
    if first_day - today > MAX_AHEAD:
        raise UnprocessableError(_("Declare a vacation at most a year ahead."))
    if last_day - today > 2 * MAX_AHEAD:
        # Also keeps the day after the last one (the end instant) within the calendar.
        raise UnprocessableError(_("A vacation must end within two years from today."))
    starts = max(datetime.combine(first_day, time()), now)
    ends = datetime.combine(last_day + timedelta(days=1), time())
    return retrying(lambda: _record(player_id, first_day, last_day, starts, ends,
                                    days_per_year, now, via))


def _record(player_id: int, first_day: date, last_day: date, starts: datetime, ends: datetime,
            days_per_year: int, now: datetime, via: Channel) -> Declared:
    with write_transaction():
        # The per-player guard: parallel declarations queue here, so each checks the overlap
        # and the allowance against the vacations already recorded.
        lock_player(player_id)
        existing = _vacations(player_id)
        if any(v.starts_at < ends and starts < v.ends_at for v in existing):
            raise UnprocessableError(_("You already have a vacation in those days."))
        proposed = [*existing, Vacation(starts_at=starts, ends_at=ends)]
        for year in range(first_day.year, last_day.year + 1):
            used = _days_in_year(proposed, year)
            if used > days_per_year:
                before = _days_in_year(existing, year)
                raise UnprocessableError(
                    ngettext("That would use %(num)s vacation day in %(year)s; the allowance "
                             "is %(days)s and you have %(left)s left.",
                             "That would use %(num)s vacation days in %(year)s; the allowance "
                             "is %(days)s and you have %(left)s left.", used, year=year,
                             days=days_per_year, left=max(days_per_year - before, 0)))
        vacation = Vacation.create(player=player_id, starts_at=starts, ends_at=ends,
                                   created_at=now)
        latest = max(v.ends_at for v in proposed)
        Player.update(away_until=latest).where(Player.id == player_id).execute()
        matches = _tell_matches(player_id, lambda name: VacationDeclared(
            by=PLAYER, via=via, player=player_id, name=name, starts_at=vacation.starts_at,
            ends_at=vacation.ends_at), now)
    return Declared(vacation, matches)


# A vacation called off this soon after it began is withdrawn as if never declared: one
# declared for today by mistake and called off at once costs no day and tells no one the
# player is "back early".
UNDO_WINDOW = timedelta(minutes=15)


@dataclass(frozen=True)
class Cancelled:
    """A vacation called off (as it was declared), whether it ended early (it had begun) or
    was withdrawn, and the live matches whose other players were told."""

    vacation: Vacation
    ended: bool
    matches: tuple[int, ...]


def cancel(player_id: int, vacation_id: int, now: datetime,
           via: Channel = Channel.WEB) -> Cancelled:
    """Call off one of the player's vacations: withdrawn if it has not begun (or began less
    than `UNDO_WINDOW` ago), ended now if it has; refused if it is over or not theirs. Their
    clocks are recomputed and their other players told."""
    return retrying(lambda: _cancel(player_id, vacation_id, now, via))


def _cancel(player_id: int, vacation_id: int, now: datetime, via: Channel) -> Cancelled:
    with write_transaction():
        lock_player(player_id)
        existing = _vacations(player_id)
        vacation = next((v for v in existing if v.id == vacation_id), None)
        if vacation is None:
            raise NotFoundError(_("You have no vacation %(id)s.", id=vacation_id))
        if vacation.ends_at <= now:
            raise ConflictError(_("That vacation is already over."))
        under_way = vacation.starts_at < now - UNDO_WINDOW
        if under_way:
            Vacation.update(ends_at=now).where(Vacation.id == vacation.id).execute()
        else:
            Vacation.delete().where(Vacation.id == vacation.id).execute()
        rest = [now if v.id == vacation.id else v.ends_at for v in existing
                if v.id != vacation.id or under_way]
        Player.update(away_until=max(rest, default=None)).where(
            Player.id == player_id).execute()
        matches = _tell_matches(player_id, lambda name: VacationCancelled(
            by=PLAYER, via=via, player=player_id, name=name, starts_at=vacation.starts_at,
            ends_at=vacation.ends_at, under_way=under_way), now)
    return Cancelled(vacation, under_way, matches)


def _tell_matches(player_id: int, change_named: Callable[[str], Change], now: datetime
                  ) -> tuple[int, ...]:
    """Each live match of the player is changed through the door's locks (match, then seats,
    in match order), its deadlines recomputed and its other players told."""
    player = Player.get_by_id(player_id)
    match_ids = sorted({seat.match_id for seat in
                        Seat.select(Seat.match).join(Match)
                        .where(Seat.player == player_id, Match.status == MatchStatus.ACTIVE)})
    for match_id in match_ids:
        apply_within(match_id, change_named(player.public_name), now)
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
        _recompute_and_tell(door, self.player, self.name, self.starts_at, self.ends_at)


@dataclass(frozen=True, kw_only=True)
class VacationCancelled(Change):
    """A player called off a vacation (withdrawn before it began, or ended early): their
    clocks in this match are recomputed without it and the other players are told."""

    kind: ClassVar[str] = "vacation-cancelled"
    player: int
    name: str = field(default="", metadata=UNLOGGED)
    starts_at: datetime
    ends_at: datetime  # as declared
    under_way: bool  # it had begun, and ends now

    def apply(self, door: Locked) -> None:
        _recompute_and_tell(door, self.player, self.name, self.starts_at, self.ends_at,
                            cancelled="ended" if self.under_way else "withdrawn")


def _recompute_and_tell(door: Locked, player: int, name: str, starts: datetime,
                        ends: datetime, cancelled: str | None = None) -> None:
    """The player's owing seats in this match get their deadlines recomputed from the
    vacations as they now stand, and the other seats are told (the vacation, or that it is
    off: `cancelled`)."""
    door.touch()
    for seat in door.seats:
        if seat.player_id == player and seat.owes_since is not None:
            deadlines.refresh_deadline(seat, door.now)
    for seat in door.seats:
        if seat.player_id == player:
            door.note(seat=seat.seat)
            door.tell("vacation", state=door.state, away_seat=seat.seat, away_name=name,
                      starts=starts, ends=ends, cancelled=cancelled)


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
