"""Settling timeouts: the automatic policies and an admin's rulings.

Each is a change through the door (changes.py), so a ruling acts once: the match row is locked
before the open entry is read, and a repeated ruling finds the entry already ruled.

Every ruling needs a reason, emails every player, shows on the public match page (through the
adjudication entry) and is kept in the match's change log with who made it and when (the
admin's audit view reads it there).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, ClassVar

from pbem import i18n
from pbem.core.db.text import check_text
from pbem.core.matches import deadlines
from pbem.core.matches.changes import UNLOGGED, Change, Channel, Locked, apply_change
from pbem.core.matches.computer_turns import StandIn
from pbem.core.matches.lifecycle import abort_match, finish, lose
from pbem.core.matches.models import Adjudication, AdjudicationStatus, Match
from pbem.core.matches.play import answer_to, move_in
from pbem.errors import ConflictError, InvalidRequestError, NotFoundError
from pbem.i18n import N_, _

__all__ = ["finish", "lose"]  # the endings rulings make, where callers long found them

MAX_EXTENSION = timedelta(days=30)
# What each ruling does, in words (marked here, translated where shown: `_(RULINGS[r])`).
RULINGS = {
    "award": N_("award the match to the other player(s)"),
    "draw": N_("declare the match drawn"),
    "extend": N_("extend the late seat's deadline by a chosen time"),
    "autoplay": N_("have the computer make one move for the late seat"),
    "computer": N_("hand the late seat to the computer for the rest of the match"),
    "abort": N_("abort the match with no result"),
}


def open_entries() -> list[Adjudication]:
    return list(Adjudication.select(Adjudication, Match).join(Match)
                .where(Adjudication.status == AdjudicationStatus.OPEN)
                .order_by(Adjudication.opened_at, Adjudication.id))


def open_entry_for(match_id: int) -> Adjudication:
    entry = (Adjudication.select().where(Adjudication.match == match_id,
                                         Adjudication.status == AdjudicationStatus.OPEN)
             .order_by(Adjudication.id).first())
    if entry is None:
        raise NotFoundError(_("Match %(id)s has no open adjudication.", id=match_id))
    return entry


class AlreadyRuledError(ConflictError):
    """The entry was ruled on (or closed) before this ruling arrived."""


def make_ruling(match_id: int, ruling: str, reason: str, actor: str, now: datetime,
                extension: timedelta | None = None, entry_id: int | None = None,
                max_extension: timedelta = MAX_EXTENSION,
                action_key: str | None = None, via: Channel = Channel.ADMIN,
                stand_in: StandIn | None = None) -> Adjudication:
    """Rule on a match's open entry (or on entry `entry_id`). Raise a PbemError with a clear
    message if it cannot be; a repeat of a ruling already made is AlreadyRuledError.
    `stand_in`: the computer that moves for the late seat ("autoplay") or takes it over
    ("computer"), at the setting `autoplay_level`."""
    if ruling not in RULINGS:
        raise InvalidRequestError(_("%(ruling)r is not a ruling (one of: %(known)s)",
                                    ruling=ruling, known=", ".join(RULINGS)))
    reason = check_text((reason or "").strip(), "reason")
    check_text(actor, "name of who rules")
    if not reason:
        raise InvalidRequestError(_("A ruling needs a reason: the players will read it."))
    if ruling == "extend" and (extension is None or extension <= timedelta(0)):
        raise InvalidRequestError(_("Say how long to extend by, e.g. 2d or 12h."))
    if ruling == "extend" and extension is not None and extension > max_extension:
        raise InvalidRequestError(_("An extension is at most %(most)s days (setting "
                                    "max_extension_days); %(days)s is too long.",
                                    most=max_extension.days, days=extension.days))

    change = Ruling(by=actor, via=via, ruling=ruling, reason=reason, extension=extension,
                    entry_id=entry_id, action_key=action_key, stand_in=stand_in or StandIn())
    ruled = apply_change(match_id, change, now)
    return Adjudication.get_by_id(ruled)


@dataclass(frozen=True, kw_only=True)
class Ruling(Change):
    """An admin's ruling on a queue entry: award, draw, extend, autoplay or abort."""

    kind: ClassVar[str] = "ruling"
    ruling: str
    reason: str
    extension: timedelta | None = None
    entry_id: int | None = None
    stand_in: StandIn = field(default_factory=StandIn, metadata=UNLOGGED)

    def apply(self, door: Locked) -> int:
        entry = _entry_to_rule(door.match, self.entry_id)
        apply_ruling(door, entry, self.ruling, self.reason, door.now, self.extension,
                     self.stand_in)
        if self.ruling == "computer":
            door.note(level=self.stand_in.level)
        _record(door, entry, self.ruling, self.reason, self.by, door.now)
        door.note(entry=entry.id, late=entry.seat)
        return entry.id

    def timed_out(self, logged: dict[str, Any]) -> frozenset[int]:
        # An award against the late seat is a loss on time; a draw or an abort is not.
        late = logged.get("late")
        return frozenset({late}) if self.ruling == "award" and isinstance(late, int) else (
            frozenset())

    def follow_up(self, door: Locked, result: Any) -> Change | None:
        # A move the adjudicator had made for the late seat is its opponent's to answer, with
        # a stored conditional move, like any other move.
        played = door.logged.get("played")
        if self.ruling != "autoplay" or not isinstance(played, str):
            return None
        return answer_to(door, door.logged["late"], played, self.via)


def apply_ruling(door: Locked, entry: Adjudication, ruling: str, reason: str, now: datetime,
                 extension: timedelta | None, stand_in: StandIn | None = None) -> None:
    stand_in = stand_in or StandIn()
    match, late = door.match, entry.seat
    count = len(door.seats)
    if ruling == "award":
        others = [s.seat for s in door.seats if s.seat != late]
        finish(door, frozenset(others), [1.0 if s in others else 0.0 for s in range(count)],
               f"awarded by the adjudicator: {reason}")
    elif ruling == "draw":
        finish(door, frozenset(range(count)), [1 / count] * count,
               f"drawn by the adjudicator: {reason}")
    elif ruling == "abort":
        abort_match(door, None, tell=False)  # the ruling's own mail says so
    elif ruling == "extend":
        if extension is None:
            raise InvalidRequestError(_("An extension needs a length: how long the late seat "
                                        "gets from now."))
        seat = door.seat(late)
        seat.allowance_seconds = int(extension.total_seconds())
        seat.owes_since = None
        deadlines.start_clock(match, seat, now)
        door.touch()
    elif ruling == "autoplay":
        played = _autoplay_for_ruling(door, late, reason, stand_in)
        if played is None:
            raise ConflictError(_("The late seat owes no move now: there is nothing to "
                                  "autoplay."))
        door.note(played=played)
    elif ruling == "computer":
        hand_to_computer(door, late, stand_in.level)


def hand_to_computer(door: Locked, number: int, level: int) -> None:
    """The computer plays `number` for the rest of the match, at `level`: its clock stops for
    good, the worker's computer job moves for it (queued by the door if it owes a move now),
    each of its moves says "played by the computer for <name>", and the match is unrated."""
    if not door.match.is_live:
        raise ConflictError(_("The match is no longer in play."))
    seat = door.seat(number)
    if seat.computer_level is not None:
        raise ConflictError(_("The computer already plays seat %(seat)s of this match.",
                              seat=number))
    seat.computer_level = level
    seat.owes_since = seat.deadline = seat.remind_at = None
    seat.out_of_time_at = None
    seat.version += 1
    seat.save()
    door.write(has_computer=True)


def forfeit(door: Locked, seat: int, reason: str | None = None) -> None:
    """The forfeit policy: the late seat loses. With 3 or 4 players it is last, and the others'
    standing is settled by the game's scores so far (a shared win on equal scores)."""
    with i18n.language("en"):  # stored with the result, as a resignation's reason is
        late_name = door.rules.seat_label(door.state, seat)
    lose(door, {seat}, reason or f"{late_name} ran out of time and forfeits")


@dataclass(frozen=True, kw_only=True)
class Forfeit(Change):
    """The seat loses by forfeit (a timeout under the forfeit policy, or an operator's say)."""

    kind: ClassVar[str] = "forfeit"
    reason: str | None = None

    def apply(self, door: Locked) -> None:
        if self.seat is None:
            raise ConflictError(_("A forfeit needs the seat that forfeits."))
        forfeit(door, self.seat, self.reason)

    def timed_out(self, logged: dict[str, Any]) -> frozenset[int]:
        return frozenset({self.seat} if self.seat is not None else ())


def autoplay_in(door: Locked, seat: int, reason: str,
                stand_in: StandIn | None = None) -> str | None:
    """Have the computer (`stand_in`, level 2 unless told) move for `seat` in a locked
    match; return the move's notation, or None if the seat owes no move (it moved meanwhile,
    or the match ended). The move list says "played by the computer for <name> (<reason>)"."""
    rules, state = door.rules, door.state
    if not door.match.is_live or seat not in rules.to_move(state):
        return None
    stand_in = stand_in or StandIn()
    move = stand_in.choose(rules, state, seat, door.match.id, door.match.ply)
    text = rules.format_move(state, move)
    name = door.seat(seat).player.public_name
    move_in(door, seat, text, None, autoplayed=f"played by the computer for {name} ({reason})")
    door.note(level=stand_in.level)
    return text


def _autoplay_for_ruling(door: Locked, seat: int, reason: str,
                         stand_in: StandIn) -> str | None:
    try:
        door.rules.load(door.match.state)
    except Exception:
        raise ConflictError(_("The stored position of this match cannot be read, so no move "
                              "can be made for the late seat: award, draw, extend or abort "
                              "instead.")) from None
    return autoplay_in(door, seat, reason, stand_in)


@dataclass(frozen=True, kw_only=True)
class Autoplay(Change):
    """The server moves for a late seat (the autoplay policy), or an admin has it do so."""

    kind: ClassVar[str] = "autoplay"
    reason: str
    stand_in: StandIn = field(default_factory=StandIn, metadata=UNLOGGED)

    def apply(self, door: Locked) -> str | None:
        if self.seat is None:
            return None
        return autoplay_in(door, self.seat, self.reason, self.stand_in)

    def follow_up(self, door: Locked, result: Any) -> Change | None:
        # A move made for a late seat is its opponent's to answer like any other.
        if not isinstance(result, str) or self.seat is None:
            return None
        return answer_to(door, self.seat, result, self.via)


def autoplay(match_id: int, seat: int, now: datetime, reason: str,
             stand_in: StandIn | None = None) -> str | None:
    played: str | None = apply_change(
        match_id, Autoplay(seat=seat, reason=reason, stand_in=stand_in or StandIn()), now)
    return played


def _entry_to_rule(match: Match, entry_id: int | None) -> Adjudication:
    query = Adjudication.select().where(Adjudication.match == match)
    if entry_id is not None:
        entry = query.where(Adjudication.id == entry_id).first()
        if entry is None:
            raise NotFoundError(_("Match %(id)s has no adjudication %(entry)s.", id=match.id,
                                  entry=entry_id))
    else:
        entry = (query.where(Adjudication.status == AdjudicationStatus.OPEN)
                 .order_by(Adjudication.id).first())
        if entry is None:
            entry = query.order_by(Adjudication.id.desc()).first()
            if entry is None:
                raise NotFoundError(_("Match %(id)s has no open adjudication.", id=match.id))
    if entry.status == AdjudicationStatus.RULED:
        raise AlreadyRuledError(
            _("Already ruled: match %(id)s was ruled on (%(ruling)s, by %(who)s at %(at)s UTC). "
              "Nothing more was done.", id=match.id,
              ruling=_(RULINGS[entry.ruling]) if entry.ruling in RULINGS else entry.ruling,
              who=entry.ruled_by, at=f"{entry.ruled_at:%Y-%m-%d %H:%M}"))
    if entry.status != AdjudicationStatus.OPEN:
        raise AlreadyRuledError(_("Nothing to rule on: match %(id)s's entry was closed "
                                  "(%(reason)s).", id=match.id, reason=entry.reason))
    return entry


def _record(door: Locked, entry: Adjudication, ruling: str, reason: str, actor: str,
            now: datetime) -> None:
    entry.status = AdjudicationStatus.RULED
    entry.ruling, entry.reason, entry.ruled_by, entry.ruled_at = ruling, reason, actor, now
    entry.save()
    if ruling in ("award", "draw"):
        return  # the result email already gives the ruling and its reason
    state = door.readable_state()
    if state is not None:
        door.tell("ruling", state=state, late=entry.seat, ruling=ruling,
                  ruling_text=RULINGS[ruling], reason=reason,
                  extended=entry.seat if ruling == "extend" else None)
