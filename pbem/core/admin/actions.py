"""An admin's actions: on a match (through the door, changes.py) hold and release the clocks,
extend a seat, abort, void for ratings, each kept in the match's change log (the audit view
reads it there); on the outbox, retry an email now, with its audit entry.

Each takes the form's one-time `action_key`: a form posted twice acts once (the door keeps a
match change's key on its log row; audit.py keeps the others').
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, ClassVar

from pbem.core.admin import audit
from pbem.core.db.text import check_text
from pbem.core.mailout.models import MessageStatus, OutboxMessage
from pbem.core.matches import deadlines
from pbem.core.matches.changes import Change, Channel, Locked, apply_change
from pbem.core.matches.lifecycle import abort_match
from pbem.core.matches.models import MatchStatus
from pbem.core.matches.rulings import MAX_EXTENSION
from pbem.core.ratings.rebuild import remove_from_ratings
from pbem.errors import ConflictError, InvalidRequestError, NotFoundError
from pbem.i18n import _


def pause(match_id: int, actor: str, reason: str, now: datetime,
          action_key: str | None = None) -> None:
    """Hold every clock of the match: no deadline or reminder falls until `resume`."""
    _by_admin(match_id, Pause, actor, _reason(reason), now, action_key)


def resume(match_id: int, actor: str, reason: str, now: datetime,
           action_key: str | None = None) -> None:
    """Start the clocks again; the time they were held is not charged to anyone."""
    _by_admin(match_id, Resume, actor, _reason(reason), now, action_key)


def extend_seat(match_id: int, seat: int, extension: timedelta, actor: str, reason: str,
                now: datetime, max_extension: timedelta = MAX_EXTENSION,
                action_key: str | None = None) -> None:
    """Give a seat that owes a move more time, bounded as an "extend" ruling is."""
    reason = _reason(reason)
    if extension <= timedelta(0):
        raise InvalidRequestError(_("Say how long to extend by, e.g. 2d or 12h."))
    if extension > max_extension:
        raise InvalidRequestError(_("An extension is at most %(days)s days "
                                    "(setting max_extension_days).", days=max_extension.days))
    _by_admin(match_id, Extension, actor, reason, now, action_key, seat=seat,
              extension=extension)


def abort(match_id: int, actor: str, reason: str, now: datetime,
          action_key: str | None = None) -> None:
    """End a live match with no result; every player is told."""
    _by_admin(match_id, AdminAbort, actor, _reason(reason), now, action_key)


@dataclass(frozen=True, kw_only=True)
class Pause(Change):
    kind: ClassVar[str] = "pause"
    reason: str

    def apply(self, door: Locked) -> None:
        _check_live(door)
        if door.match.paused_at is not None:
            raise ConflictError(_("Match %(match)s's clocks are already paused.",
                                  match=door.match.id))
        door.write(paused_at=door.now)
        for seat in door.seats:
            if seat.deadline is not None or seat.remind_at is not None:
                seat.deadline = seat.remind_at = None
                seat.version += 1
                seat.save()


@dataclass(frozen=True, kw_only=True)
class Resume(Change):
    kind: ClassVar[str] = "resume"
    reason: str

    def apply(self, door: Locked) -> None:
        _check_live(door)
        paused_at, now = door.match.paused_at, door.now
        if paused_at is None:
            raise ConflictError(_("Match %(match)s's clocks are not paused.", match=door.match.id))
        door.write(paused_at=None)
        for seat in door.seats:
            if seat.owes_since is not None:
                # Move the start of the owed time on by the part of the pause it spent owing.
                seat.owes_since += now - max(seat.owes_since, paused_at)
                deadlines.refresh_deadline(seat, now)
        paused = int((now - paused_at).total_seconds())
        door.note(paused_seconds=paused)


@dataclass(frozen=True, kw_only=True)
class Extension(Change):
    """An admin gives a seat that owes a move more time."""

    kind: ClassVar[str] = "extension"
    reason: str
    extension: timedelta

    def apply(self, door: Locked) -> None:
        _check_live(door)
        seat = self.seat if self.seat is not None else -1
        row = door.seat(seat)
        if row.owes_since is None:
            raise ConflictError(_("Seat %(seat)s owes no move now: there is no clock to extend.",
                                  seat=seat))
        row.allowance_seconds += int(self.extension.total_seconds())
        if door.match.paused_at is None:
            deadlines.refresh_deadline(row, door.now)
        else:
            row.version += 1
            row.save()
        door.touch()


@dataclass(frozen=True, kw_only=True)
class AdminAbort(Change):
    """An admin ends a live match with no result."""

    kind: ClassVar[str] = "abort"
    reason: str

    def apply(self, door: Locked) -> None:
        _check_live(door)
        abort_match(door, None, paused_at=None)


def void(match_id: int, actor: str, reason: str, now: datetime,
         action_key: str | None = None) -> None:
    """Void a finished rated match for ratings (collusion, a stolen account): its result
    stays on record, the match becomes unrated, and every rating is recomputed from the
    history without it, so the values are what they would have been had it never counted."""
    _by_admin(match_id, VoidForRatings, actor, _reason(reason), now, action_key)


@dataclass(frozen=True, kw_only=True)
class VoidForRatings(Change):
    """An admin takes a finished match out of the ratings (see `void`)."""

    kind: ClassVar[str] = "void"
    reason: str

    def apply(self, door: Locked) -> None:
        match = door.match
        if match.status != MatchStatus.FINISHED:
            raise ConflictError(_("Match %(match)s has not finished: only a result can be "
                                  "voided (abort a match in play instead).", match=match.id))
        if match.voided_at is not None:
            raise ConflictError(_("Match %(match)s was voided already.", match=match.id))
        if not match.rated:
            raise ConflictError(_("Match %(match)s is casual: it never counted for ratings.",
                                  match=match.id))
        door.write(rated=False, voided_at=door.now, void_reason=self.reason)
        # Ratings are recomputed whole: a later result of any of these players was computed
        # from the ratings this match had given them (a few seconds per 10,000 rated matches).
        remove_from_ratings(match.id)


def _by_admin(match_id: int, kind: type[Change], actor: str, reason: str, now: datetime,
              action_key: str | None, **params: Any) -> None:
    """Make one of an admin's changes through the door (`reason`: checked by `_reason`)."""
    apply_change(match_id, kind(by=actor, via=Channel.ADMIN, reason=reason,  # type: ignore[call-arg]
                                action_key=action_key, **params), now)


def _check_live(door: Locked) -> None:
    if not door.match.is_live:
        raise ConflictError(_("Match %(match)s is no longer in play.", match=door.match.id))


def _reason(reason: str) -> str:
    text = check_text((reason or "").strip(), "reason")
    if not text:
        raise InvalidRequestError(_("Give a reason: it is kept in the audit log."))
    return text


def retry_mail(message_id: int, actor: str, now: datetime,
               action_key: str | None = None) -> None:
    """Send a failed or waiting email at the worker's next tick, with fresh attempts."""
    with audit.fresh_action(action_key):
        message = OutboxMessage.get_or_none(OutboxMessage.id == message_id)
        if message is None:
            raise NotFoundError(_("There is no email %(id)s.", id=message_id))
        if message.status == MessageStatus.SENT:
            raise ConflictError(_("Email %(id)s was already sent.", id=message_id))
        updated = (OutboxMessage.update(status=MessageStatus.PENDING, next_attempt_at=now,
                                        attempts=0, claimed_until=None,
                                        version=OutboxMessage.version + 1)
                   .where(OutboxMessage.id == message_id,
                          OutboxMessage.version == message.version).execute())
        if updated != 1:
            raise ConflictError(_("Email %(id)s is being sent right now; look again.",
                                  id=message_id))
        audit.record(actor, "mail-retry", now, f"retry email {message_id} now",
                     message.match_id, {"message": message_id, "was": message.status,
                                        "last_error": message.last_error}, action_key)
