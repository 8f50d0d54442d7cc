"""A match's life outside its moves: resign, draw offers and answers, abort, claiming a win.

Each is one change through the door (changes.py), so it races safely with moves, timeouts and
rulings: exactly one of two racing changes wins and nothing is half-applied. These are the
functions the web page, the API, the CLI and reply-by-email call; each returns a sentence for
the player or raises a PbemError (a ConflictError, 409, when the change is not allowed now,
with the reason).

- **Resign** at any time in a live match. Two players: the other seat wins. Three or four: the
  resigning seat comes last and the others are ranked by the game's scores so far.
- **Draw**: `draw_yes` offers a draw, or accepts the standing offer; with three or four
  players every other seat must accept. `draw_no` declines it. See offers.py.
- **Abort** before every seat has made its first move: no result. Afterwards it is refused.
- **Claim victory** under the `claim` timeout policy, once another seat's time has run out
  and it still has not moved: that seat loses as it would by forfeit.

Every end of a match has its home here too (lila's `Finisher`): `finish` (a result: a
resignation, a forfeit, a claim on time, an agreed draw, a ruling, an organiser's decision),
`lose` (the losers last, the others ranked), `abort` (no result) and `result_columns` (the
rules' own result after a move, written with the move). A change that ends a match only
decides *that* it ends and with what result; the columns an ending writes and the news it
tells are written here. What follows an end (standings, ratings, thinning the positions, clocks
stopped, the result mail) is the door's and its settlers' work: they see `Settled.ended`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from pbem import i18n
from pbem.core.db.prepared import Prepared
from pbem.core.matches import offers
from pbem.core.matches.changes import PLAYER, Change, Channel, Locked, apply_change
from pbem.core.matches.deadlines import TimeoutPolicy
from pbem.core.matches.models import Match, MatchStatus, Move, Seat
from pbem.errors import ConflictError
from pbem.games.base import GameRules, KeepsScore, Outcome
from pbem.i18n import N_, _

ACTIONS = ("move", "resign", "offer-draw", "accept-draw", "decline-draw", "abort",
           "claim-victory")


@dataclass(frozen=True, kw_only=True)
class Resign(Change):
    kind: ClassVar[str] = "resign"

    def apply(self, door: Locked) -> str:
        seat = _seat(self)
        _check_live(door.match)
        door.seat(seat)
        # The reason is stored with the result, so it is written in English (the pages word
        # it again for their reader: see records.match_record).
        with i18n.language("en"):
            name = door.rules.seat_label(door.state, seat)
        lose(door, {seat}, f"{name} resigned")
        return _("You resigned. Every player has been told the result.")


@dataclass(frozen=True, kw_only=True)
class OfferDraw(Change):
    """Offer a draw, or accept the standing offer of another seat."""

    kind: ClassVar[str] = "draw-offer"

    def apply(self, door: Locked) -> str:
        seat = _seat(self)
        _check_live(door.match)
        door.seat(seat)
        found = offers.standing(door.match)
        if found is None or found.seat == seat:
            offers.offer(door, seat)
            door.note(did="offered")
            return _("You offered a draw. It stands until the others answer or move.")
        if not offers.accept(door, seat):
            door.note(did="accepted")
            return _("You accepted the draw offer; waiting for the other players to answer.")
        count = len(door.seats)
        finish(door, frozenset(range(count)), [1 / count] * count, N_("drawn by agreement"))
        door.note(did="accepted", result="drawn by agreement")
        return _("The match is drawn by agreement.")


@dataclass(frozen=True, kw_only=True)
class DeclineDraw(Change):
    kind: ClassVar[str] = "draw-decline"

    def apply(self, door: Locked) -> str:
        door.seat(_seat(self))
        offers.decline(door, _seat(self))
        return _("You declined the draw offer; the match goes on.")


@dataclass(frozen=True, kw_only=True)
class Abort(Change):
    kind: ClassVar[str] = "abort"

    def apply(self, door: Locked) -> str:
        seat = _seat(self)
        door.seat(seat)
        check_abortable(door.match)
        abort_match(door, seat)
        return _("The match is aborted: it has no result.")


@dataclass(frozen=True, kw_only=True)
class ClaimVictory(Change):
    kind: ClassVar[str] = "claim"

    def apply(self, door: Locked) -> str:
        seat = _seat(self)
        late = claimable_from(door.match, door.seats, seat)
        with i18n.language("en"):  # stored with the result, as in Resign
            names = " and ".join(door.rules.seat_label(door.state, s) for s in sorted(late))
            claimer = door.rules.seat_label(door.state, seat)
        lose(door, late, f"{names} ran out of time; {claimer} claimed the win")
        door.note(late=sorted(late))
        return _("You claimed the win. Every player has been told the result.")

    def timed_out(self, logged: dict[str, Any]) -> frozenset[int]:
        late = logged.get("late")
        return frozenset(late) if isinstance(late, list) else frozenset()


def resign(match_id: int, seat: int, now: datetime, via: Channel = Channel.WEB) -> str:
    return _apply(match_id, Resign(seat=seat, by=PLAYER, via=via), now)


def draw_yes(match_id: int, seat: int, now: datetime, via: Channel = Channel.WEB) -> str:
    """Offer a draw, or accept the standing offer of another seat."""
    return _apply(match_id, OfferDraw(seat=seat, by=PLAYER, via=via), now)


def draw_no(match_id: int, seat: int, now: datetime, via: Channel = Channel.WEB) -> str:
    return _apply(match_id, DeclineDraw(seat=seat, by=PLAYER, via=via), now)


def abort(match_id: int, seat: int, now: datetime, via: Channel = Channel.WEB) -> str:
    return _apply(match_id, Abort(seat=seat, by=PLAYER, via=via), now)


def claim_victory(match_id: int, seat: int, now: datetime, via: Channel = Channel.WEB) -> str:
    return _apply(match_id, ClaimVictory(seat=seat, by=PLAYER, via=via), now)


def _apply(match_id: int, change: Change, now: datetime) -> str:
    said: str = apply_change(match_id, change, now)
    return said


def _seat(change: Change) -> int:
    if change.seat is None:
        raise ConflictError("This change needs the seat that makes it.")
    return change.seat


def allowed(match: Match, seat: int, seats: list[Seat] | None = None,
            read: offers.Known | None = None, movers: set[int] | None = None) -> list[str]:
    """What `seat` may do now, in the API's words (`"can"`). `seats`, the match's draw
    offers and the seats that have moved may be passed in when the caller knows them."""
    seats = match.seat_rows() if seats is None else seats
    to_move = set(match.to_move)
    if read is None:
        read = offers.known(match)
    offer = read.standing
    checks: dict[str, Callable[[], object]] = {
        "move": lambda: _require(match.is_live and seat in to_move, "not your turn"),
        "resign": lambda: _check_live(match),
        "offer-draw": lambda: offers.check_can_offer(match, seat, read),
        "accept-draw": lambda: _require(offer is not None and offer.seat != seat
                                        and seat not in offer.accepted_by, "no offer"),
        "decline-draw": lambda: _require(offer is not None and offer.seat != seat
                                         and seat not in offer.accepted_by, "no offer"),
        "abort": lambda: check_abortable(match, seats, movers),
        "claim-victory": lambda: claimable_from(match, seats, seat),
    }
    can = []
    for action in ACTIONS:
        try:
            checks[action]()
        except ConflictError:
            continue
        can.append(action)
    return can


def check_abortable(match: Match, seats: list[Seat] | None = None,
                    movers: set[int] | None = None) -> None:
    """A match may be aborted until every seat has moved. `movers`, if given, are the seats
    known to have moved (all of them, or enough to tell that every seat has)."""
    _check_live(match)
    if movers is None:
        movers = {row.seat for row in _MOVERS.rows(match.id)}
    if len(movers) >= len(match.seat_rows() if seats is None else seats):
        raise ConflictError(_("Every player has made a move, so the match can no longer be "
                              "aborted. You may resign or offer a draw instead."))


def claimable_from(match: Match, seats: list[Seat], seat: int) -> set[int]:
    """The seats whose time ran out and who still owe their move, if `seat` may claim."""
    _check_live(match)
    if match.on_timeout != TimeoutPolicy.CLAIM:
        raise ConflictError(_("This match does not settle timeouts by a claim (its policy is "
                              "%(policy)s): there is no win to claim.", policy=match.on_timeout))
    mine = next((row for row in seats if row.seat == seat), None)
    if mine is None or mine.out_of_time_at is not None:
        raise ConflictError(_("Your own time has run out: you cannot claim the win."))
    late = {row.seat for row in seats if row.seat != seat and row.out_of_time_at is not None
            and row.seat in set(match.to_move)}
    if not late:
        raise ConflictError(_("Nobody's time has run out: there is no win to claim."))
    return late


def _check_live(match: Match) -> None:
    if not match.is_live:
        raise ConflictError(_("Match %(id)s is over.", id=match.id))


def _require(condition: bool, reason: str) -> None:
    if not condition:
        raise ConflictError(reason)


_MOVERS = Prepared(lambda match_id: Move.select(Move.seat).distinct()
                   .where(Move.match == match_id))


# --- endings: every end of a match ----------------------------------------------------------

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
    winners, final = losing_result(door.rules, door.state, len(door.seats), losers)
    finish(door, winners, final, reason)


def losing_result(rules: GameRules, state: Any, count: int,
                  losers: set[int]) -> tuple[frozenset[int], list[float]]:
    """The winners and scores when `losers` lose off the board (see `lose`); an import checks
    a record's result against it."""
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
    return winners, final


def abort_match(door: Locked, by: int | None, *, tell: bool = True, **columns: Any) -> None:
    """End a live match with no result (`by`: the seat that aborted it, None for an admin).
    `tell`: every player is mailed the abort (a ruling says so in its own mail instead)."""
    if not door.match.is_live:
        raise ConflictError(_("The match is no longer in play."))
    door.write(status=MatchStatus.ABORTED, finished_at=door.now, to_move=[], **columns)
    if tell:
        # Only a seat's abort names it (from the position): an admin may abort a match whose
        # stored position cannot be read.
        door.tell("aborted", by=by, **({"state": door.state} if by is not None else {}))
