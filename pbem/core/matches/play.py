"""Submitting a move: one change through the door (changes.py).

The match row is locked before anything is read, so racing submissions queue: a stale or
duplicate one gets a clear ConflictError and is never applied twice, and the parts of a
simultaneous decision made at once all go through, one after the other.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

from pbem.core.db.prepared import add_row, update_columns
from pbem.core.db.text import check_text
from pbem.core.matches import conditional, deadlines, offers
from pbem.core.matches.changes import (
    PLAYER,
    SERVER,
    UNLOGGED,
    Change,
    Channel,
    Locked,
    apply_change,
)
from pbem.core.matches.creation import state_after
from pbem.core.matches.lifecycle import result_columns
from pbem.core.matches.models import (
    ComputerJob,
    ConditionalTree,
    Match,
    Move,
    Position,
    event_parts,
)
from pbem.errors import (
    ConflictError,
    InvalidRequestError,
    MatchNotLiveError,
    NotYourTurnError,
)
from pbem.games.base import Event
from pbem.i18n import _

MAX_MOVE_TEXT = 200


def stored_events(events: Iterable[Event]) -> list[list[Any]]:
    """A move's events as its row keeps them, read back by `stored_event`:
    `[kind, data]`, with the seats that may read the event third only when not everyone may.
    Events are most of a move row, and a match has a row a move: no key names."""
    return [[e.kind, e.data] if e.visible_to is None else [e.kind, e.data, sorted(e.visible_to)]
            for e in events]


def stored_event(stored: Any) -> Event:
    """One event of a move row as the rules describe it (the reverse of `stored_events`)."""
    kind, data, readers = event_parts(stored)
    return Event(kind, data, None if readers is None else frozenset(readers))


@dataclass(frozen=True)
class MoveResult:
    match: Match
    text: str
    events: tuple[str, ...]  # the mover's own view of what the move caused
    # The opponent's conditional answer, played at once in the same transaction (`match` is
    # then the match after it).
    answered_with: str | None = None


@dataclass(frozen=True, kw_only=True)
class MakeMove(Change):
    """A seat's move, given as notation (a player's, or the server's for a late seat)."""

    kind: ClassVar[str] = "move"
    text: str
    expected_ply: int | None = None
    # How many takebacks the mover's page saw (None: not known, as from a mail reply); the
    # log keeps no copy (a move's row is the log's most frequent).
    expected_takebacks: int | None = field(default=None, metadata=UNLOGGED)
    offer_draw: bool = False
    autoplayed: str | None = None

    def apply(self, door: Locked) -> MoveResult:
        seat = self.seat if self.seat is not None else -1
        if self.offer_draw and door.match.is_live:
            offers.check_can_offer(door.match, seat)
        if door.match.is_live:
            check_no_takeback_since(door.match, self.expected_takebacks)
        result = move_in(door, seat, self.text, self.expected_ply, self.autoplayed)
        if self.offer_draw and door.match.is_live:
            offers.offer(door, seat)
        return result

    def logged_payload(self, logged: dict[str, Any]) -> dict[str, Any]:
        """A move is the most frequent row of a match's log, so it keeps only what the move
        table does not: the ply it made (the move row at that ply has the canonical move),
        the text as typed when it differs from that, the ply the mover expected when it was
        not the one before, a draw offered with it."""
        payload = super().logged_payload(logged)
        if "ply" in payload and payload.get("text") == payload.pop("move", None):
            payload.pop("text", None)
        if "ply" in payload and payload.get("expected_ply") == payload["ply"] - 1:
            payload.pop("expected_ply", None)
        if not payload.get("offer_draw"):
            payload.pop("offer_draw", None)
        return payload

    def follow_up(self, door: Locked, result: Any) -> Change | None:
        """The other seat's stored answer to this move, if its conditional moves expected it
        (conditional.py); the door plays it at once as a `ConditionalAnswer`."""
        if not isinstance(result, MoveResult) or self.seat is None:
            return None
        return answer_to(door, self.seat, result.text, self.via)

    def followed(self, result: Any, after: Any) -> Any:
        if isinstance(result, MoveResult) and isinstance(after, MoveResult):
            return dataclasses.replace(result, match=after.match, answered_with=after.text)
        return result


@dataclass(frozen=True, kw_only=True)
class ComputerMove(MakeMove):
    """A move the computer chose for its seat, made by the worker job that claimed it
    (core/computer/jobs.py). It was thought out on the position at `expected_ply`, outside any
    transaction; here, under the door's locks, it is made only if the match is still there
    (live, same position, the seat still the computer's) and the job is still this worker's:
    the job row is deleted with the move, so a job is moved for exactly once, and a
    resignation or an abort that came first wins (the move is refused and the job dropped)."""

    kind: ClassVar[str] = "computer-move"
    level: int
    job_id: int | None = field(default=None, metadata=UNLOGGED)
    lease_token: str | None = field(default=None, metadata=UNLOGGED)

    def apply(self, door: Locked) -> MoveResult:
        seat = self.seat if self.seat is not None else -1
        row = door.seat(seat)
        if row.computer_level is None:
            raise ConflictError(f"Seat {seat} of match {door.match.id} is not the computer's.")
        if self.job_id is not None:
            taken = (ComputerJob.delete().where(ComputerJob.id == self.job_id,
                                                ComputerJob.lease_token == self.lease_token)
                     .execute())
            if taken != 1:
                raise ConflictError("Another worker holds this computer move now.")
        # A person's seat handed to the computer says so in the move list; the computer's own
        # seat is named "Computer (level N)" already.
        note = (None if row.player.computer_level is not None
                else f"played by the computer for {row.player.public_name}")
        return move_in(door, seat, self.text, self.expected_ply, note)


@dataclass(frozen=True, kw_only=True)
class ConditionalAnswer(MakeMove):
    """A seat's stored answer to the move just made, played in the same transaction."""

    kind: ClassVar[str] = "conditional-answer"
    answering: str = ""  # the move it answers
    answering_seat: int = 0
    # Moves of the owner's tree still stored below this answer: for the owner's mail only,
    # never logged (the change log is the admin's and, in part, everyone's).
    left: int = field(default=0, metadata=UNLOGGED)

    def apply(self, door: Locked) -> MoveResult:
        owner = self.seat if self.seat is not None else -1
        rules, state = door.rules, door.state
        label = rules.seat_label(state, owner)
        own_move = self.answering_seat == owner  # its answer's follower (the same seat moves)
        for seat in door.seats:
            if seat.seat == owner:
                said = (f"Your conditional move {self.text} followed at once." if own_move
                        else f"Your conditional move {self.text} was played in answer to "
                        f"{rules.seat_label(state, self.answering_seat)}'s {self.answering}.")
                said += f" {self.left} more of your stored moves wait." if self.left else ""
            else:
                said = (f"{label} went on at once with {self.text}, also a conditional move."
                        if own_move else f"{label} answered {self.answering} at once with "
                        f"{self.text}: a conditional move, stored in advance.")
            door.mail_notes.setdefault(seat.seat, []).append(said)
        result = move_in(door, owner, self.text, self.expected_ply, note="conditional")
        if door.match.is_live:
            # A seat whose turn it now is hears it in its "your turn" mail, and one whose own
            # next answer follows at once hears it from that change; every other is told.
            door.tell("conditional-played")
        return result


def answer_to(door: Locked, mover: int, text: str, via: Channel) -> ConditionalAnswer | None:
    """The conditional answer that follows `mover`'s move `text` (just made, by a player or
    for a late one), if a waiting seat stored one for it."""
    found = conditional.answer_after(door, mover, text, door.match.ply - 1)
    if found is None:
        return None
    return ConditionalAnswer(seat=found.owner, by=PLAYER, via=via, text=found.text,
                             expected_ply=door.match.ply, answering=found.answering,
                             answering_seat=mover, left=found.left)


def submit_move(match_id: int, seat: int, text: str, expected_ply: int | None,
                now: datetime, autoplayed: str | None = None,
                offer_draw: bool = False, via: Channel = Channel.WEB,
                idempotency_key: str | None = None,
                expected_takebacks: int | None = None) -> MoveResult:
    """Apply `seat`'s move given as notation; raise a RulesError or PbemError saying why not.

    `expected_ply` is the ply the player saw. A submission made on an older ply is refused,
    unless only other seats' parts of the same simultaneous decision came in between (those
    change nothing the player could see). None skips the check. With `offer_draw` the move
    carries a draw offer; if the offer is not allowed now, neither is made.
    `idempotency_key` (a move kept offline and sent again, `web/follow/offline.py`): a move
    sent twice with one key is made once; the second raises `AlreadyDoneError`.
    `expected_takebacks`: the match's takeback count the player saw (a play page's form): a
    move taken back since makes the page stale even when the ply is the same again.
    """
    if len(text) > MAX_MOVE_TEXT:
        raise InvalidRequestError(_("That move is %(length)s characters long; a move is at "
                                    "most %(limit)s.", length=len(text), limit=MAX_MOVE_TEXT))
    check_text(text, "move")
    change = MakeMove(seat=seat, by=PLAYER if autoplayed is None else SERVER, via=via,
                      text=text, expected_ply=expected_ply, offer_draw=offer_draw,
                      expected_takebacks=expected_takebacks,
                      autoplayed=autoplayed, action_key=idempotency_key)
    result: MoveResult = apply_change(match_id, change, now)
    return result


def move_in(door: Locked, seat: int, text: str, expected_ply: int | None,
            autoplayed: str | None = None, note: str | None = None) -> MoveResult:
    """Make `seat`'s move in a match the door has locked (moves, autoplays, rulings).
    `note` is kept with the move for the move list ("conditional"); an autoplay's reason is
    its note."""
    match, now = door.match, door.now
    if not match.is_live:
        raise MatchNotLiveError(_("Match %(id)s is over: no more moves are accepted.",
                                  id=match.id))
    _check_fresh(match, seat, expected_ply)
    rules, state = door.rules, door.state
    before = rules.to_move(state)
    if seat not in before:
        raise NotYourTurnError(_("It is not your turn: you owe no move in this position."))
    move = rules.parse_move(state, seat, text)
    canonical = rules.format_move(state, move)
    transition = rules.apply_move(state, seat, move)
    readers = rules.move_visibility(state, seat, move)
    after = rules.to_move(transition.state)
    outcome = rules.outcome(transition.state)
    # One decision may take several plies (a simultaneous choice): it lasts while the others
    # still owe the same decision.
    same_decision = bool(after) and after == before - {seat}
    ply, turn = match.ply, match.turn
    changes = {"ply": ply + 1, "turn": turn if same_decision else turn + 1,
               "state": rules.dump(transition.state), "to_move": sorted(after)}
    if outcome is not None:
        changes.update(result_columns(now, outcome))  # the rules' own result
    door.write(**changes)
    door.note(move=canonical, ply=ply + 1, **({"result": outcome.reason} if outcome else {}))
    door.movers.add(seat)
    if door.match.is_live:
        offers.on_move(door, seat)
    mover = door.seat(seat)
    if mover.out_of_time_at is not None:
        mover.out_of_time_at = None  # moved before anyone claimed the win: play goes on
        update_columns(mover, ("out_of_time_at",))
    add_row(Move, match=match, ply=ply + 1, turn=turn, seat=seat, text=canonical,
            visible_to=None if readers is None else sorted(readers),
            events=stored_events(transition.events), note=autoplayed or note, created_at=now)
    add_row(Position, match=match, ply=ply + 1, state=changes["state"])
    # The mail leaves out a seat whose conditional answer follows at once (`Settled.quiet`:
    # known once the door has asked for one).
    door.tell("after-move", state=transition.state, events=transition.events,
              newly_to_move=after if not same_decision else frozenset())
    mine = tuple(rules.describe_event(e) for e in transition.events if e.is_visible_to(seat))
    return MoveResult(match, canonical, mine)


def unmove(door: Locked, move: Move) -> dict[str, Any]:
    """Undo `move`, the match's last, in a match the door has locked (a takeback,
    core/takebacks): back to the position, ply, turn and to-move before it, the mover owing
    the move again (its clock starts afresh, the others' stop). Returns what was undone, for
    the change log: moves are never silently rewritten, so the log keeps the move's row."""
    match, ply = door.match, door.match.ply
    state = state_after(match, ply - 1)
    rules = door.rules
    before, after = set(match.to_move or ()), rules.to_move(state)
    undone = {"seat": move.seat, "ply": ply, "turn": move.turn, "move": move.text,
              "visible_to": move.visible_to, "events": move.events, "note": move.note,
              "made_at": move.created_at.isoformat()}
    door.write(ply=ply - 1, turn=move.turn, state=rules.dump(state), to_move=sorted(after),
               takebacks=(match.takebacks or 0) + 1)
    Move.delete().where(Move.match == match.id, Move.ply == ply).execute()
    Position.delete().where(Position.match == match.id, Position.ply == ply).execute()
    # A computer's move thought out for the position after the move, and conditional moves
    # stored against it, would be played into a position they were not meant for.
    ComputerJob.delete().where(ComputerJob.match == match.id).execute()
    ConditionalTree.delete().where(ConditionalTree.match == match.id).execute()
    by_number = {row.seat: row for row in door.seats}
    for number in sorted(before - after):
        deadlines.stop_clock(match, by_number[number], door.now)
    for number in sorted(after):
        if by_number[number].owes_since is None:
            deadlines.start_clock(match, by_number[number], door.now)
    return undone


def check_no_takeback_since(match: Match, expected_takebacks: int | None) -> None:
    """Refuse a submission from a page loaded before a move was taken back: the ply it
    carries may be the match's again (the move made anew), in another position."""
    if expected_takebacks is None or expected_takebacks == (match.takebacks or 0):
        return
    raise ConflictError(_("The position changed since you looked at it: a move was taken "
                          "back. Look at it again and resubmit your move."))


def _check_fresh(match: Match, seat: int, expected_ply: int | None) -> None:
    if expected_ply is None or expected_ply == match.ply:
        return
    if expected_ply > match.ply:
        raise ConflictError(_("This match is at move %(ply)s, not %(expected)s. Reload it.",
                              ply=match.ply, expected=expected_ply))
    since = list(Move.select(Move.seat, Move.turn).where(Move.match == match,
                                                          Move.ply > expected_ply))
    if any(move.seat == seat for move in since):
        raise ConflictError(_("You have already moved since this page was loaded; your move "
                              "was not applied twice. Reload to see the position."))
    if any(move.turn != match.turn for move in since):
        raise ConflictError(_("The position changed since you looked at it (move "
                              "%(expected)s → %(ply)s). Look at it again and resubmit your "
                              "move.", expected=expected_ply, ply=match.ply))
