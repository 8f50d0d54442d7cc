"""Settling timeouts: the automatic policies and an admin's rulings.

Every ruling needs a reason, emails every player, shows on the public match page (through the
adjudication entry) and is kept in the audit log with who made it and when.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pbem.core import deadlines, notify
from pbem.core.db import write_transaction
from pbem.core.models import (
    Adjudication,
    AdjudicationStatus,
    AuditEntry,
    Match,
    MatchStatus,
)
from pbem.core.play import submit_move
from pbem.core.text import check_text
from pbem.errors import ConflictError, InvalidRequestError, NotFoundError
from pbem.games import get_rules
from pbem.games.base import Outcome

RULINGS = {
    "award": "award the match to the other player(s)",
    "draw": "declare the match drawn",
    "extend": "extend the late seat's deadline by a chosen time",
    "autoplay": "make one move for the late seat (the game's documented default)",
    "abort": "abort the match with no result",
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
        raise NotFoundError(f"Match {match_id} has no open adjudication.")
    return entry


def make_ruling(match_id: int, ruling: str, reason: str, actor: str, now: datetime,
                extension: timedelta | None = None) -> Adjudication:
    """Rule on a match's open entry. Raise a PbemError with a clear message if it cannot be."""
    if ruling not in RULINGS:
        raise InvalidRequestError(f"{ruling!r} is not a ruling (one of: {', '.join(RULINGS)})")
    reason = check_text((reason or "").strip(), "reason")
    if not reason:
        raise InvalidRequestError("A ruling needs a reason: the players will read it.")
    if ruling == "extend" and (extension is None or extension <= timedelta(0)):
        raise InvalidRequestError("Say how long to extend by, e.g. 2d or 12h.")
    with write_transaction():
        entry = open_entry_for(match_id)
        match = Match.get_by_id(match_id)
        seats = match.seat_rows()
        late = entry.seat
        if ruling == "award":
            others = [s.seat for s in seats if s.seat != late]
            _finish(match, frozenset(others),
                    [1.0 if s.seat in others else 0.0 for s in seats],
                    f"awarded by the adjudicator: {reason}", now)
        elif ruling == "draw":
            count = len(seats)
            _finish(match, frozenset(range(count)), [1 / count] * count,
                    f"drawn by the adjudicator: {reason}", now)
        elif ruling == "abort":
            _abort(match, now)
        elif ruling == "extend":
            seat = seats[late]
            seat.allowance_seconds = int(extension.total_seconds())  # type: ignore[union-attr]
            seat.owes_since = None
            deadlines.start_clock(match, seat, now)
        _record(entry, ruling, reason, actor, now, extension)
    if ruling == "autoplay":
        autoplay(match_id, late, now, reason=reason)
    return Adjudication.get_by_id(entry.id)


def forfeit(match: Match, seat: int, now: datetime) -> None:
    """The forfeit policy: the late seat loses. With 3 or 4 players it is last, and the others'
    standing is settled by the game's scores so far (a shared win on equal scores)."""
    rules = get_rules(match.game)
    state = rules.load(match.state)
    count = len(match.seat_rows())
    scores = list(getattr(rules, "current_scores", lambda _state: (0.0,) * count)(state))
    others = [s for s in range(count) if s != seat]
    best = max(scores[s] for s in others)
    winners = frozenset(s for s in others if scores[s] == best)
    late_name = rules.seat_label(state, seat)
    if count == 2:
        final = [1.0 if s in winners else 0.0 for s in range(count)]
    else:
        # The late seat is last whatever it had: below everyone else's score.
        floor = min(scores[s] for s in others) - 1
        final = [float(floor) if s == seat else float(scores[s]) for s in range(count)]
    _finish(match, winners, final, f"{late_name} ran out of time and forfeits", now)


def autoplay(match_id: int, seat: int, now: datetime, reason: str) -> str | None:
    """Make the game's documented default move for `seat`; return its notation, or None if
    the seat no longer owes a move (it moved meanwhile, or the match ended)."""
    match = Match.get_by_id(match_id)
    rules = get_rules(match.game)
    state = rules.load(match.state)
    if not match.is_live or seat not in rules.to_move(state):
        return None
    text = rules.format_move(state, rules.default_move(state, seat))
    try:
        submit_move(match_id, seat, text, match.ply, now, autoplayed=reason)
    except ConflictError:
        return None
    return text


def _finish(match: Match, winners: frozenset[int], scores: list[float], reason: str,
            now: datetime) -> None:
    updated = (Match.update(status=MatchStatus.FINISHED, finished_at=now, updated_at=now,
                            to_move=[], result={"winners": sorted(winners),
                                                "scores": scores, "reason": reason})
               .where(Match.id == match.id, Match.ply == match.ply,
                      Match.status == MatchStatus.ACTIVE).execute())
    if updated != 1:
        raise ConflictError("The match changed while the ruling was being made; look again.")
    deadlines.stop_all_clocks(match)
    match = Match.get_by_id(match.id)
    rules = get_rules(match.game)
    state = rules.load(match.state)
    notify.queue_result(match, rules, state, Outcome(winners, tuple(scores), reason), (), now)


def _abort(match: Match, now: datetime) -> None:
    updated = (Match.update(status=MatchStatus.ABORTED, finished_at=now, updated_at=now,
                            to_move=[]).where(Match.id == match.id,
                                              Match.status == MatchStatus.ACTIVE).execute())
    if updated != 1:
        raise ConflictError("The match is no longer in play.")
    deadlines.stop_all_clocks(match)


def _record(entry: Adjudication, ruling: str, reason: str, actor: str, now: datetime,
            extension: timedelta | None) -> None:
    entry.status = AdjudicationStatus.RULED
    entry.ruling, entry.reason, entry.ruled_by, entry.ruled_at = ruling, reason, actor, now
    entry.save()
    detail = {"seat": entry.seat, "cause": entry.cause, "entry": entry.id}
    if extension is not None:
        detail["extension_seconds"] = int(extension.total_seconds())
    AuditEntry.create(at=now, actor=actor, action=f"ruling:{ruling}", match=entry.match_id,
                      reason=reason, detail=detail)
    if ruling in ("award", "draw"):
        return  # the result email already gives the ruling and its reason
    match = Match.get_by_id(entry.match_id)
    rules = get_rules(match.game)
    notify.queue_ruling(match, rules, rules.load(match.state), entry.seat, ruling,
                        RULINGS[ruling], reason, now)
