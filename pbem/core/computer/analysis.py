"""Analysis after the game: a finished match's every ply appraised by the computer at
`ANALYSIS_LEVEL`, on request (the match page's button, `POST /api/matches/<id>/analysis`).

Asking queues one `match_analysis` row (asking again returns the same one); never for a live
match, whose players could otherwise ask the computer for help. The worker's `analysis` job
claims a queued row under a lease (a conditional update: one worker gets it), replays the
match and appraises each ply outside any transaction (`pbem.bots.analysis`, pure: in Mimic
Taking each ply is searched from its seat's own view), then stores the plies.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from dataclasses import asdict
from datetime import datetime, timedelta
from typing import Any

import peewee

from pbem.bots.analysis import analyse
from pbem.core.computer.models import MatchAnalysis
from pbem.core.db.connection import UNAVAILABLE
from pbem.core.matches.creation import get_match, initial_state, rules_for
from pbem.core.matches.models import Match, Move
from pbem.errors import ConflictError
from pbem.i18n import _

log = logging.getLogger(__name__)

ANALYSIS_LEVEL = 4
MAX_ATTEMPTS = 3
# A long match at level 4 takes minutes of one core; a worker that dies mid-analysis leaves
# its claim to lapse after this, and another takes it over.
ANALYSIS_LEASE = timedelta(hours=1)
ANALYSIS_INTERVAL_SECONDS = 30


def request_analysis(match_id: int, now: datetime) -> MatchAnalysis:
    """Queue the match's analysis, or return the one already asked for. A live match is
    refused (ConflictError), an unknown one is a NotFoundError."""
    match = get_match(match_id)
    if match.is_live:
        raise ConflictError(_("Match %(id)s is still being played: the computer analyses a "
                              "match only once it is over.", id=match_id))
    found = MatchAnalysis.get_or_none(MatchAnalysis.match == match_id)
    if found is not None:
        return found
    try:
        return MatchAnalysis.create(match=match_id, level=ANALYSIS_LEVEL, requested_at=now)
    except peewee.IntegrityError:
        # Asked twice at once: the other request made the row.
        return MatchAnalysis.get(MatchAnalysis.match == match_id)


def analysis_of(match_id: int) -> MatchAnalysis | None:
    return MatchAnalysis.get_or_none(MatchAnalysis.match == match_id)


def describe(analysis: MatchAnalysis | None, match_id: int) -> dict[str, Any]:
    """The API's answer: status ("none" before anyone asked), level, and the plies once done."""
    if analysis is None:
        return {"match": match_id, "status": "none", "level": ANALYSIS_LEVEL, "plies": []}
    return {"match": match_id, "status": analysis.status, "level": analysis.level,
            "requested_at": analysis.requested_at.isoformat() + "Z",
            "plies": analysis.plies or []}


def run_due_analyses(now: Callable[[], datetime], lease: timedelta, limit: int = 1,
                     iterations: int | None = None) -> int:
    """Analyse up to `limit` queued matches (one per worker tick by default: each takes a
    while); how many were done. `iterations` overrides the level's budget (tests)."""
    done = 0
    for _attempt in range(limit):
        claimed = _claim(now(), lease)
        if claimed is None:
            break
        done += _run(claimed, now, iterations)
    return done


def _claim(now: datetime, lease: timedelta) -> MatchAnalysis | None:
    free = MatchAnalysis.leased_until.is_null() | (MatchAnalysis.leased_until < now)
    for row in (MatchAnalysis.select(MatchAnalysis.id)
                .where(MatchAnalysis.status == "queued", free)
                .order_by(MatchAnalysis.requested_at, MatchAnalysis.id).limit(5)):
        token = secrets.token_hex(16)
        won = (MatchAnalysis.update(leased_until=now + lease, lease_token=token,
                                    attempts=MatchAnalysis.attempts + 1)
               .where(MatchAnalysis.id == row.id, MatchAnalysis.status == "queued", free)
               .execute())
        if won == 1:
            claimed: MatchAnalysis | None = MatchAnalysis.get_or_none(
                MatchAnalysis.id == row.id, MatchAnalysis.lease_token == token)
            if claimed is not None:
                return claimed
    return None


def _run(analysis: MatchAnalysis, now: Callable[[], datetime], iterations: int | None) -> int:
    try:
        plies = appraise_match(get_match(analysis.match_id), analysis.level, iterations)
    except UNAVAILABLE:
        raise
    except Exception:
        log.exception("the analysis of match %s failed (attempt %s)", analysis.match_id,
                      analysis.attempts)
        status = "failed" if analysis.attempts >= MAX_ATTEMPTS else "queued"
        (MatchAnalysis.update(status=status, leased_until=None, lease_token=None)
         .where(MatchAnalysis.id == analysis.id,
                MatchAnalysis.lease_token == analysis.lease_token).execute())
        return 0
    (MatchAnalysis.update(status="done", plies=plies, finished_at=now(), leased_until=None,
                          lease_token=None)
     .where(MatchAnalysis.id == analysis.id,
            MatchAnalysis.lease_token == analysis.lease_token).execute())
    return 1


def appraise_match(match: Match, level: int, iterations: int | None = None
                   ) -> list[dict[str, Any]]:
    """Replay the match from its seed and appraise every ply (no transaction is held)."""
    rules = rules_for(match)
    state = initial_state(match)
    plies = []
    for move in Move.select(Move.seat, Move.text).where(Move.match == match).order_by(Move.ply):
        parsed = rules.parse_move(state, move.seat, move.text)
        plies.append((move.seat, parsed))
        state = rules.apply_move(state, move.seat, parsed).state
    return [asdict(ply) for ply in analyse(rules, initial_state(match), plies, level,
                                           seed=match.id, iterations=iterations)]
