"""Submitting a move: one transaction, guarded by a conditional update on the match's ply.

A stale or duplicate submission gets a clear ConflictError and is never applied twice, even
when two requests race: the UPDATE … WHERE ply = <ply read> lets exactly one of them through.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pbem.core import deadlines, notify
from pbem.core.db import write_transaction
from pbem.core.models import Match, MatchStatus, Move
from pbem.core.text import check_text
from pbem.errors import (
    ConflictError,
    InvalidRequestError,
    MatchNotLiveError,
    NotFoundError,
    NotYourTurnError,
)
from pbem.games import get_rules

ATTEMPTS = 3
MAX_MOVE_TEXT = 200


@dataclass(frozen=True)
class MoveResult:
    match: Match
    text: str
    events: tuple[str, ...]  # the mover's own view of what the move caused


class _LostRace(Exception):
    """Another submission changed the match between our read and our write."""


def submit_move(match_id: int, seat: int, text: str, expected_ply: int | None,
                now: datetime, autoplayed: str | None = None) -> MoveResult:
    """Apply `seat`'s move given as notation; raise a RulesError or PbemError saying why not.

    `expected_ply` is the ply the player saw. A submission made on an older ply is refused,
    unless only other seats' parts of the same simultaneous decision came in between (those
    change nothing the player could see). None skips the check.
    """
    if len(text) > MAX_MOVE_TEXT:
        raise InvalidRequestError(f"That move is {len(text)} characters long; a move is at "
                                  f"most {MAX_MOVE_TEXT}.")
    check_text(text, "move")
    for _ in range(ATTEMPTS):
        try:
            with write_transaction():
                return _submit_once(match_id, seat, text, expected_ply, now, autoplayed)
        except _LostRace:
            continue
    raise ConflictError("The match changed while your move was being saved. "
                        "Look at the position again and resubmit.")


def _submit_once(match_id: int, seat: int, text: str, expected_ply: int | None,
                 now: datetime, autoplayed: str | None) -> MoveResult:
    match = Match.get_or_none(Match.id == match_id)
    if match is None:
        raise NotFoundError(f"There is no match {match_id}.")
    if not match.is_live:
        raise MatchNotLiveError(f"Match {match.id} is over: no more moves are accepted.")
    _check_fresh(match, seat, expected_ply)
    rules = get_rules(match.game)
    state = rules.load(match.state)
    before = rules.to_move(state)
    if seat not in before:
        raise NotYourTurnError("It is not your turn: you owe no move in this position.")
    move = rules.parse_move(state, seat, text)
    canonical = rules.format_move(state, move)
    transition = rules.apply_move(state, seat, move)
    readers = rules.move_visibility(state, seat, move)
    after = rules.to_move(transition.state)
    outcome = rules.outcome(transition.state)
    # One decision may take several plies (a simultaneous choice): it lasts while the others
    # still owe the same decision.
    same_decision = bool(after) and after == before - {seat}
    turn = match.turn if same_decision else match.turn + 1
    changes = {
        Match.ply: match.ply + 1, Match.turn: turn, Match.state: rules.dump(transition.state),
        Match.to_move: sorted(after), Match.updated_at: now,
    }
    if outcome is not None:
        changes[Match.status] = MatchStatus.FINISHED
        changes[Match.finished_at] = now
        changes[Match.result] = {"winners": sorted(outcome.winners),
                                 "scores": list(outcome.scores), "reason": outcome.reason}
    updated = Match.update(changes).where(Match.id == match.id, Match.ply == match.ply).execute()
    if updated != 1:
        raise _LostRace
    Move.create(match=match, ply=match.ply + 1, turn=match.turn, seat=seat, text=canonical,
                visible_to=None if readers is None else sorted(readers),
                events=[{"kind": e.kind, "data": e.data,
                         "visible_to": None if e.visible_to is None else sorted(e.visible_to)}
                        for e in transition.events],
                note=autoplayed, created_at=now)
    match = Match.get_by_id(match.id)
    _update_clocks(match, seat, before, after, outcome is not None, now)
    newly_to_move = after if not same_decision else frozenset()
    notify.queue_after_move(match, rules, transition.state, newly_to_move, transition.events, now)
    mine = tuple(rules.describe_event(e) for e in transition.events if e.is_visible_to(seat))
    return MoveResult(match, canonical, mine)


def _update_clocks(match: Match, mover: int, before: frozenset[int], after: frozenset[int],
                   finished: bool, now: datetime) -> None:
    seats = {row.seat: row for row in match.seat_rows()}
    if finished:
        deadlines.stop_all_clocks(match)
        deadlines.close_moot_entries(match, None, now, "the match ended before a ruling")
        return
    for number in (before | {mover}) - (after - {mover}):
        deadlines.stop_clock(match, seats[number], now)
    for number in after:
        if seats[number].owes_since is None:
            deadlines.start_clock(match, seats[number], now)
    deadlines.close_moot_entries(match, mover, now, "the seat moved before a ruling")


def _check_fresh(match: Match, seat: int, expected_ply: int | None) -> None:
    if expected_ply is None or expected_ply == match.ply:
        return
    if expected_ply > match.ply:
        raise ConflictError(f"This match is at move {match.ply}, not {expected_ply}. Reload it.")
    since = list(Move.select(Move.seat, Move.turn).where(Move.match == match,
                                                          Move.ply > expected_ply))
    if any(move.seat == seat for move in since):
        raise ConflictError("You have already moved since this page was loaded; your move "
                            "was not applied twice. Reload to see the position.")
    if any(move.turn != match.turn for move in since):
        raise ConflictError(f"The position changed since you looked at it (move {expected_ply}"
                            f" → {match.ply}). Look at it again and resubmit your move.")
