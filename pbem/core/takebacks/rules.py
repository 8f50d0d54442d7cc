"""Whether a takeback may be asked for, and why not: pure reads of a match, no writes.

The standing request is read from the change log (`takeback-request` / `-accept` /
`-decline` / `takeback` rows), so a takeback needs no table of its own: a request stands while
it is the newest of those rows and the match is still at the ply it was made at (any move
since lapses it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pbem.core.accounts.models import Player
from pbem.core.db.memo import VersionMemo
from pbem.core.db.prepared import Prepared
from pbem.core.matches.creation import state_after
from pbem.core.matches.models import ChangeLog, Match, Move, Seat
from pbem.core.tournaments.models import Pairing
from pbem.errors import ConflictError
from pbem.games import get_rules
from pbem.games.base import RulesError
from pbem.games.takebacks import sees_nothing_new
from pbem.i18n import _, ngettext

KINDS = ("takeback-request", "takeback-accept", "takeback-decline", "takeback")


def takebacks_allowed(match: Match) -> str | None:
    """None when this match allows takebacks at all, else why not (a sentence for the player).
    Rated, tournament, league and ladder matches never do: a takeback there would change a
    result others count on."""
    if not match.is_live:
        return _("Match %(id)s is over: there is nothing to take back.", id=match.id)
    if match.rated:
        return _("This match is rated: rated matches allow no takebacks.")
    if Pairing.select().where(Pairing.match == match.id).exists():
        return _("This is a tournament match: tournament matches allow no takebacks.")
    # League and ladder games (core/leagues marks them with `competition`).
    if match.competition == "league":
        return _("This is a league game: league games allow no takebacks.")
    if match.competition is not None:
        return _("This is a ladder game: ladder games allow no takebacks.")
    return None


def preference_refusal(match: Match) -> str | None:
    """Each player's preference: "casual" and "always" allow every match `takebacks_allowed`
    lets through (the kinds it refuses stay refused whatever anyone chose); "never" refuses
    the whole match. Checked when a request is made, not for showing the button: the play
    page reads its players in one statement with the seats (see
    tests/web/matches/test_submit_without_confirm.py), and this would be one more."""
    if (Player.select().join(Seat, on=(Seat.player == Player.id))
            .where(Seat.match == match.id, Player.takebacks == "never").exists()):
        return _("A player in this match has chosen never to take back moves.")
    return None


@dataclass(frozen=True)
class Standing:
    """The open request: who asked, the ply it would take back, who has accepted so far."""

    seat: int
    ply: int
    accepted_by: frozenset[int]


def _rows(match: Match) -> list[ChangeLog]:
    return _TAKEBACK_ROWS.rows(match.id)


# Read on every first read of a play page (what the seat may do about takebacks): compiled
# once, not built again each time.
_TAKEBACK_ROWS = Prepared(lambda match_id: ChangeLog.select(
    ChangeLog.kind, ChangeLog.seat, ChangeLog.payload)
    .where(ChangeLog.match == match_id, ChangeLog.kind.in_(KINDS))
    .order_by(ChangeLog.version.desc()))
_LAST_MOVE = Prepared(lambda match_id, ply: Move.select()
                      .where(Move.match == match_id, Move.ply == ply).limit(1))


def standing(match: Match, rows: list[ChangeLog] | None = None) -> Standing | None:
    """The request that stands now, if one does (`rows`: the takeback rows, if read)."""
    accepted: set[int] = set()
    for row in _rows(match) if rows is None else rows:
        if row.seat is None:
            continue  # every takeback change names its seat; an admin's never comes here
        if "took_back" in row.payload:
            return None  # the newest answer took the move back: nothing stands
        if row.kind == "takeback-accept":
            accepted.add(row.seat)
            continue
        if row.kind == "takeback-request" and row.payload.get("ply") == match.ply:
            return Standing(row.seat, match.ply, frozenset(accepted))
        return None
    return None


def declined(match: Match, seat: int, rows: list[ChangeLog] | None = None) -> list[int]:
    """The plies at which `seat`'s requests were declined, oldest first."""
    rows = _rows(match) if rows is None else rows
    plies = [row.payload.get("ply", 0) for row in rows
             if row.kind == "takeback-decline" and row.payload.get("requester") == seat]
    return sorted(plies)


def moves_to_wait(match: Match, seat: int, rows: list[ChangeLog] | None = None) -> int:
    """Lichess's rule, in moves: after each declined request the seat waits longer before it
    may ask again (one move of its own after the first refusal, two after the second, …)."""
    plies = declined(match, seat, rows)
    if not plies:
        return 0
    since = Move.select().where(Move.match == match.id, Move.seat == seat,
                                Move.ply > plies[-1]).count()
    return max(0, len(plies) - since)


def last_move(match: Match, seat: int) -> Move:
    """The seat's move a takeback would undo: the match's last move, which must be its own."""
    move = _LAST_MOVE.first(match.id, match.ply)
    if move is None or move.seat != seat:
        raise ConflictError(_("Only your own last move can be taken back, and only before "
                              "anyone else has moved."))
    return move


def reveals(match: Match, move: Move) -> bool:
    """Whether the move showed its mover something new (a card dealt, a hand shown): such a
    move cannot be taken back without a leak (`pbem.games.takebacks`)."""
    rules = get_rules(match.game)
    if not rules.hidden_information:
        return False  # nothing is hidden, so nothing can be revealed: no position to read
    before = state_after(match, match.ply - 1)
    try:
        parsed = rules.parse_move(before, move.seat, move.text)
    except RulesError:
        return True  # cannot be checked: refuse rather than risk a leak
    return not sees_nothing_new(rules, before, move.seat, parsed)


def check_can_request(match: Match, seat: int, preferences: bool = True,
                      rows: list[ChangeLog] | None = None) -> Move:
    """Raise ConflictError saying why `seat` may not ask now; return the move it would undo.
    `preferences`: also the players' (see `preference_refusal`); `rows`: the takeback rows,
    if read already."""
    why = takebacks_allowed(match) or (preference_refusal(match) if preferences else None)
    if why is not None:
        raise ConflictError(why)
    rows = _rows(match) if rows is None else rows
    found = standing(match, rows)
    if found is not None:
        raise ConflictError(_("A takeback request already stands: it must be answered first."))
    to_go = moves_to_wait(match, seat, rows)
    if to_go:
        raise ConflictError(ngettext(
            "Your last takeback request was declined. You may ask again after %(num)s more "
            "move of your own.", "Your last takeback request was declined. You may ask again "
            "after %(num)s more moves of your own.", to_go))
    return check_undoable(match, seat)


def check_undoable(match: Match, seat: int) -> Move:
    """The seat's last move, if it can be taken back without a leak."""
    move = last_move(match, seat)
    if reveals(match, move):
        raise ConflictError(_("That move showed you something new (a card or a hand), so "
                              "it cannot be taken back."))
    return move


def check_can_answer(match: Match, seat: int) -> Standing:
    found = standing(match) if match.is_live else None
    if found is None:
        raise ConflictError(_("There is no takeback request to answer."))
    if found.seat == seat:
        raise ConflictError(_("That is your own request: the others answer it."))
    if seat in found.accepted_by:
        raise ConflictError(_("You have already accepted; the others have not all answered."))
    return found


def answerers(seats: list[Seat], requester: int) -> set[int]:
    """The seats whose yes a takeback needs: every other seat a person plays (the computer
    never minds)."""
    return {row.seat for row in seats if row.seat != requester and row.computer_level is None}


def can(match: Match, seat: int) -> dict[str, Any]:
    """What `seat` may do about takebacks now, for pages and the API: made once per match
    version and seat (a page is read many times between two changes)."""
    return _CAN.remember(match, lambda: _can(match, seat), seat)


_CAN: VersionMemo[dict[str, Any]] = VersionMemo(64)


def _can(match: Match, seat: int) -> dict[str, Any]:
    rows = _rows(match)  # once: the standing request and the refusal both read them
    found = standing(match, rows) if match.is_live else None
    refused = _refused(match, seat, rows)
    return {"request": refused is None, "refused": refused,
            "answer": found is not None and found.seat != seat
            and seat not in found.accepted_by,
            "standing": None if found is None else
            {"seat": found.seat, "ply": found.ply, "accepted_by": sorted(found.accepted_by)}}


def _refused(match: Match, seat: int, rows: list[ChangeLog]) -> str | None:
    try:
        check_can_request(match, seat, preferences=False, rows=rows)
    except ConflictError as error:
        return str(error)
    return None
