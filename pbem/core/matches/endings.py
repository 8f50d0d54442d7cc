"""Every end of a match, in one place (lila's `Finisher`): a result (a resignation, a forfeit,
a claim on time, an agreed draw, a ruling, an organiser's decision, the rules' own result after
a move) or an abort with none.

Each change that ends a match only decides *that* it ends and with what result; the columns an
ending writes and the news it tells are written here. What follows an end (standings, ratings,
thinning the positions, clocks stopped, the result mail) is the door's and its settlers' work:
they see `Settled.ended`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pbem.core.matches.changes import Locked
from pbem.core.matches.models import MatchStatus
from pbem.errors import ConflictError
from pbem.games.base import KeepsScore, Outcome
from pbem.i18n import _


def result_columns(now: datetime, outcome: Outcome) -> dict[str, Any]:
    """The match row's columns for an end with `outcome` (to write with the change's own)."""
    return {"status": MatchStatus.FINISHED, "finished_at": now, "to_move": [],
            "result": {"winners": sorted(outcome.winners), "scores": list(outcome.scores),
                       "reason": outcome.reason}}


def finish(door: Locked, winners: frozenset[int], scores: list[float], reason: str) -> None:
    """End a live match with this result; every player is told it."""
    if not door.match.is_live:
        raise ConflictError(_("The match is no longer in play."))
    outcome = Outcome(winners, tuple(scores), reason)
    door.write(**result_columns(door.now, outcome))
    state = door.readable_state()
    if state is not None:
        door.tell("result", state=state, outcome=outcome)


def lose(door: Locked, losers: set[int], reason: str) -> None:
    """End the match with `losers` last: with two seats the other wins; with three or four the
    others are ranked by the game's scores so far, a shared win on equal scores."""
    rules, state = door.rules, door.state
    count = len(door.seats)
    scores = list(rules.current_scores(state) if isinstance(rules, KeepsScore)
                  else (0.0,) * count)
    others = [s for s in range(count) if s not in losers]
    best = max(scores[s] for s in others)
    winners = frozenset(s for s in others if scores[s] == best)
    if count == 2:
        final = [1.0 if s in winners else 0.0 for s in range(count)]
    else:
        # The losing seats are last whatever they had: below everyone else's score.
        floor = min(scores[s] for s in others) - 1
        final = [float(floor) if s in losers else float(scores[s]) for s in range(count)]
    finish(door, winners, final, reason)


def abort(door: Locked, by: int | None, *, tell: bool = True, **columns: Any) -> None:
    """End a live match with no result (`by`: the seat that aborted it, None for an admin).
    `tell`: every player is mailed the abort (a ruling says so in its own mail instead)."""
    if not door.match.is_live:
        raise ConflictError(_("The match is no longer in play."))
    door.write(status=MatchStatus.ABORTED, finished_at=door.now, to_move=[], **columns)
    if tell:
        # Only a seat's abort names it (from the position): an admin may abort a match whose
        # stored position cannot be read.
        door.tell("aborted", by=by, **({"state": door.state} if by is not None else {}))
