"""A player's home page (/me and its API): every match they sit in, their turn first, with
who the match waits for and how it ended for them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pbem.core.accounts.models import Player
from pbem.core.db.prepared import Prepared, ReadAhead
from pbem.core.mailout.notify import reason_words
from pbem.core.matches.clocks import deadline_info
from pbem.core.matches.creation import rules_for
from pbem.core.matches.models import Match, MatchStatus, Seat
from pbem.i18n import N_, _


def seats_of(player: Player) -> list[Seat]:
    return _SEATS_OF.rows(player.id)


def my_matches_ahead(player: Player) -> list[ReadAhead]:
    """`my_matches`'s two reads, to send ahead (`pipeline.read_ahead`) with a page's others."""
    return [_SEATS_OF.ahead(player.id), _TABLES_OF.ahead(player.id)]


def tables_of(player: Player) -> dict[int, list[Seat]]:
    """The seats (with their players) of every match the player sits in, by match, in seat
    order, in one read for all of them."""
    tables: dict[int, list[Seat]] = {}
    for seat in _TABLES_OF.rows(player.id):
        tables.setdefault(seat.match_id, []).append(seat)
    return tables


# The player's home page (/me) reads both on every visit, so their SQL is compiled once.
_SEATS_OF = Prepared(lambda player_id: Seat.select(Seat, Match).join(Match)
                     .where(Seat.player == player_id).order_by(Match.updated_at.desc()))
_TABLES_OF = Prepared(lambda player_id: Seat.select(Seat, Player).join(Player)
                      .where(Seat.match.in_(Seat.select(Seat.match)
                                            .where(Seat.player == player_id)))
                      .order_by(Seat.match, Seat.seat))


def my_matches(player: Player, now: datetime) -> list[dict[str, Any]]:
    """Every match of the player: their turn first (soonest deadline first), then those
    waiting for others, then finished ones. `seat` is the row, for deriving the link."""
    rows: list[tuple[tuple[int, str, float], dict[str, Any]]] = []
    tables = tables_of(player)
    for seat in seats_of(player):
        match: Match = seat.match
        rules = rules_for(match)
        your_turn = match.is_live and seat.seat in (match.to_move or [])
        seats = tables.get(match.id, [])
        others = [other.player.public_name for other in seats if other.seat != seat.seat]
        # Who the match waits for, named as the opponents are ("waiting for Ben").
        waiting = [other.player.public_name for other in seats
                   if match.is_live and other.seat != seat.seat
                   and other.seat in (match.to_move or [])]
        order = (0 if your_turn else 1 if match.is_live else 2,
                 seat.deadline.isoformat() if your_turn and seat.deadline else "",
                 -(match.finished_at or match.updated_at).timestamp())
        rows.append((order, {
            "id": match.id, "game": match.game, "title": rules.title, "status": match.status,
            "your_turn": your_turn, "seat": seat, "opponents": others, "waiting_for": waiting,
            "deadline": deadline_info(seat.deadline, match.time_control, player.timezone, now)
            if your_turn else None,
            "result": _result_for(match, seat.seat),
            "finished": match.status != MatchStatus.ACTIVE,
        }))
    rows.sort(key=lambda row: row[0])
    return [row for _, row in rows]


def _result_for(match: Match, seat: int) -> str | None:
    """The home page's words for how the match ended for `seat`, in the reader's language (the
    stored reason said again the reader's way: `notify.reason_words`)."""
    if not match.result:
        return _("aborted") if match.status == MatchStatus.ABORTED else None
    winners = match.result.get("winners", [])
    reason = match.result.get("reason", "")
    if seat in winners:
        kind = "won" if len(winners) == 1 else "shared"
    else:
        kind = "lost" if winners else "none"
    if reason:
        rules = rules_for(match)
        said = reason_words(rules, rules.load(match.state), reason,
                            len(match.result.get("scores", ())))
        return _(_VERDICTS_WHY[kind], reason=said)
    return _(_VERDICTS[kind])


_VERDICTS = {"won": N_("You won"), "shared": N_("Shared result"), "lost": N_("You lost"),
             "none": N_("No winner")}
_VERDICTS_WHY = {"won": N_("You won: %(reason)s"), "shared": N_("Shared result: %(reason)s"),
                 "lost": N_("You lost: %(reason)s"), "none": N_("No winner: %(reason)s")}
