"""The takeback changes, through the one door (`core/matches/changes.py`).

A takeback never rewrites history silently: the `takeback` row of the change log keeps what
was taken back (the move's notation, its events and who could read them, when it was made),
and only then are the move's row and its position's row removed, so the next move can take
its ply. The match returns to the position before the move, at its ply and turn, with the
requester owing the move again (its clock starts afresh; the others' clocks stop).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.changes import PLAYER, Change, Channel, Locked, apply_change
from pbem.core.matches.models import Move
from pbem.core.matches.play import unmove
from pbem.core.takebacks import rules as takeback_rules
from pbem.errors import ConflictError
from pbem.i18n import _


def _seat(change: Change) -> int:
    if change.seat is None:
        raise ConflictError("This change needs the seat that makes it.")
    return change.seat


@dataclass(frozen=True, kw_only=True)
class RequestTakeback(Change):
    """A seat asks to take back its last move. With no person to ask (the computer plays
    every other seat) it is taken back at once."""

    kind: ClassVar[str] = "takeback-request"

    def apply(self, door: Locked) -> str:
        seat = _seat(self)
        door.seat(seat)
        move = takeback_rules.check_can_request(door.match, seat)
        door.touch()
        door.note(ply=door.match.ply)
        asked = takeback_rules.answerers(door.seats, seat)
        if not asked:
            take_back(door, move)
            return _("Your last move was taken back: it is your turn again.")
        door.tell("takeback-asked", requester=seat, to=sorted(asked), state=door.state)
        return _("You asked to take back your last move. The others accept or decline it.")


@dataclass(frozen=True, kw_only=True)
class AcceptTakeback(Change):
    """A seat accepts the standing request; the last acceptance takes the move back."""

    kind: ClassVar[str] = "takeback-accept"

    def apply(self, door: Locked) -> str:
        seat, found = _answering(self, door)
        needed = takeback_rules.answerers(door.seats, found.seat)
        if not needed <= found.accepted_by | {seat}:
            return _("You accepted the takeback; waiting for the other players to answer.")
        # The move is checked again: nothing may have changed under the lock, but a takeback
        # that would leak is never made.
        move = takeback_rules.check_undoable(door.match, found.seat)
        door.tell("takeback-answered", requester=found.seat, by=seat, accepted=True,
                  state=door.state)
        take_back(door, move)
        return _("You accepted: the move was taken back.")


@dataclass(frozen=True, kw_only=True)
class DeclineTakeback(Change):
    kind: ClassVar[str] = "takeback-decline"

    def apply(self, door: Locked) -> str:
        seat, found = _answering(self, door)
        door.tell("takeback-answered", requester=found.seat, by=seat, accepted=False,
                  state=door.state)
        return _("You declined the takeback; the match goes on.")


def _answering(change: Change, door: Locked) -> tuple[int, takeback_rules.Standing]:
    """The answering seat and the request it answers, checked and noted in the log."""
    seat = _seat(change)
    door.seat(seat)
    found = takeback_rules.check_can_answer(door.match, seat)
    door.touch()
    door.note(ply=found.ply, requester=found.seat)
    return seat, found


def take_back(door: Locked, move: Move) -> None:
    """Undo `move` (the match's last) in the locked match, keeping what it was in the log."""
    ply = door.match.ply
    door.note(took_back=unmove(door, move))
    # A mail written at that ply or later is stale now: a reply to it must not be taken as
    # a move in the position the next move reaches at the same ply.
    (OutboxMessage.update(ply=ply - 1)
     .where(OutboxMessage.match == door.match.id, OutboxMessage.ply >= ply).execute())


def request(match_id: int, seat: int, now: datetime, via: Channel = Channel.WEB) -> str:
    result: str = apply_change(match_id, RequestTakeback(seat=seat, by=PLAYER, via=via), now)
    return result


def accept(match_id: int, seat: int, now: datetime, via: Channel = Channel.WEB) -> str:
    result: str = apply_change(match_id, AcceptTakeback(seat=seat, by=PLAYER, via=via), now)
    return result


def decline(match_id: int, seat: int, now: datetime, via: Channel = Channel.WEB) -> str:
    result: str = apply_change(match_id, DeclineTakeback(seat=seat, by=PLAYER, via=via), now)
    return result


# The email reply commands (their words are `mailout.contexts.COMMANDS`'), each a service
# taking (match_id, seat, now, via).
MAIL_COMMANDS = {"takeback": request, "accept takeback": accept, "decline takeback": decline}

