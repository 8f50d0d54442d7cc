"""The archive: every match, newest first, filtered by game, player, status and result.

Pages are keyset pages: each asks for matches older than the last one shown (`id < cursor`)
through an index that starts with the filter's columns and ends with the id, so the millionth
match costs what the first does (no OFFSET scan). Only the columns a row shows are read.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import peewee

from pbem.core.accounts.models import Player
from pbem.core.accounts.players import find_player
from pbem.core.matches.models import Match, MatchStatus, Seat
from pbem.core.records.standings import DRAW, LOSS, WIN
from pbem.errors import InvalidRequestError, UnprocessableError
from pbem.games import REGISTRY
from pbem.i18n import _

PAGE_SIZE = 50
MAX_PAGE_SIZE = 100
# The archive's words for statuses, and what each means in the table.
STATUSES = {"live": MatchStatus.ACTIVE, "finished": MatchStatus.FINISHED,
            "aborted": MatchStatus.ABORTED}
STATUS_WORDS: dict[str, str] = {stored: word for word, stored in STATUSES.items()}
RESULTS = (WIN, LOSS, DRAW)
# The API's records call a match in play "active" (its stored status).
STATUS_ALIASES = {"active": "live"}
_CURSOR_PREFIX = "before:"


@dataclass(frozen=True)
class Filters:
    game: str | None = None
    player: str | None = None
    status: str | None = None  # an archive word: live, finished, aborted
    # With a player: that player's win, loss or draw. Without: win (someone won) or draw.
    result: str | None = None

    @classmethod
    def parse(cls, args: Mapping[str, str]) -> Filters:
        """From query arguments; an unknown game, status or result is a 400 saying which are
        known. An unknown player is not an error: that filter simply finds nothing."""
        game = (args.get("game") or "").strip() or None
        player = (args.get("player") or "").strip() or None
        status = (args.get("status") or "").strip().lower() or None
        status = STATUS_ALIASES.get(status, status) if status else None
        result = (args.get("result") or "").strip().lower() or None
        if game is not None and game not in REGISTRY:
            raise InvalidRequestError(_("There is no game called %(game)r; the games are: "
                                        "%(games)s.", game=game,
                                        games=", ".join(sorted(REGISTRY))))
        if status is not None and status not in STATUSES:
            raise InvalidRequestError(_("status must be one of %(known)s, not %(given)r.",
                                        known=", ".join(STATUSES), given=status))
        if result is not None and result not in RESULTS:
            raise InvalidRequestError(_("result must be one of %(known)s, not %(given)r.",
                                        known=", ".join(RESULTS), given=result))
        # Each filter is well-formed from here on; what is left is a combination that means
        # nothing (422, not 400).
        if result == LOSS and player is None:
            raise UnprocessableError(_("result=loss needs a player: whose losses? Without a "
                                       "player, result=win lists decided matches and "
                                       "result=draw drawn ones."))
        if status in ("live", "aborted") and result is not None:
            raise UnprocessableError(_("%(status)s matches have no result: drop the result "
                                       "filter or ask for finished matches.", status=status))
        return cls(game, player, status, result)

    def as_args(self) -> dict[str, str]:
        return {name: value for name, value in vars(self).items() if value is not None}


@dataclass(frozen=True)
class ArchivePage:
    filters: Filters
    rows: list[dict[str, Any]]
    next_cursor: str | None
    player_found: bool  # False when a player filter names nobody public


def list_matches(filters: Filters, cursor: str | None = None,
                 limit: int = PAGE_SIZE) -> ArchivePage:
    """One page of the archive: up to `limit` matches older than `cursor`, newest first."""
    before = decode_cursor(cursor) if cursor else None
    if not 1 <= limit <= MAX_PAGE_SIZE:
        raise InvalidRequestError(_("limit must be from 1 to %(max)s, not %(given)s.",
                                    max=MAX_PAGE_SIZE, given=limit))
    columns = (Match.id, Match.game, Match.status, Match.ply, Match.result, Match.created_at,
               Match.updated_at, Match.finished_at)
    if filters.player is not None:
        player = find_player(filters.player)
        if player is None or player.hidden_from_archive:
            return ArchivePage(filters, [], None, player_found=False)
        # Walk the player's seats by (player, match) index, newest match first.
        query = (Match.select(*columns).join(Seat, on=(Seat.match == Match.id))
                 .where(Seat.player == player).order_by(Seat.match.desc()))
        key: peewee.Field = Seat.match
        if filters.result is not None:
            query = query.where(Seat.outcome == filters.result)
    else:
        query = Match.select(*columns).order_by(Match.id.desc())
        key = Match.id
        if filters.result is not None:
            query = query.where(Match.outcome == filters.result)
    if filters.game is not None:
        query = query.where(Match.game == filters.game)
    if filters.status is not None:
        query = query.where(Match.status == STATUSES[filters.status])
    if before is not None:
        query = query.where(key < before)
    matches = list(query.limit(limit + 1))
    more = len(matches) > limit
    matches = matches[:limit]
    rows = _rows(matches)
    return ArchivePage(filters, rows, encode_cursor(matches[-1].id) if more else None,
                       player_found=True)


def encode_cursor(match_id: int) -> str:
    return base64.urlsafe_b64encode(f"{_CURSOR_PREFIX}{match_id}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    """The match id a cursor stands for; anything else is a 422 with a way forward."""
    problem = UnprocessableError(_("%(cursor)r is not a cursor this archive gave out: "
                                   "follow the links to the next page, or start again without "
                                   "a cursor.", cursor=cursor[:40]))
    if len(cursor) > 40:
        raise problem
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise problem from None
    number = text.removeprefix(_CURSOR_PREFIX)
    if not text.startswith(_CURSOR_PREFIX) or not number.isdigit() or len(number) > 18:
        raise problem
    return int(number)


def summarize(match: Match, seats: list[dict[str, Any]]) -> dict[str, Any]:
    """A match as one archive row (also the player page's lists)."""
    names = [seat["name"] for seat in seats]
    return {
        "id": match.id,
        "game": match.game,
        "title": REGISTRY[match.game].title if match.game in REGISTRY else match.game,
        "status": STATUS_WORDS.get(match.status, match.status),
        "players": seats,
        "result": _result(match, names),
        "moves": match.ply,
        "created_at": _iso(match.created_at),
        "last_activity": _iso(match.updated_at),
    }


def seats_of(match_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    """Each match's players by public name, in seat order, in one query."""
    found: dict[int, list[dict[str, Any]]] = {match_id: [] for match_id in match_ids}
    if not match_ids:
        return found
    rows = (Seat.select(Seat.match, Seat.seat, Seat.outcome, Player.name, Player.email,
                        Player.hidden_from_archive)
            .join(Player).where(Seat.match.in_(match_ids)).order_by(Seat.match, Seat.seat))
    for row in rows:
        found[row.match_id].append({
            "seat": row.seat, "name": row.player.public_name,
            # Hidden players are still named on matches they played; only their page is gone.
            "public_page": not row.player.hidden_from_archive,
            "outcome": row.outcome,
        })
    return found


def _rows(matches: list[Match]) -> list[dict[str, Any]]:
    seats = seats_of([match.id for match in matches])
    return [summarize(match, seats[match.id]) for match in matches]


def _result(match: Match, names: list[str]) -> dict[str, Any] | None:
    if match.status == MatchStatus.ABORTED:
        return {"text": "aborted", "winners": [], "draw": False, "reason": None}
    if not match.result:
        return None
    winners = [names[i] for i in match.result["winners"] if i < len(names)]
    draw = not winners or len(winners) == len(names)
    if draw:
        text = "draw" if winners or len(names) == 2 else "no winner"
    elif len(winners) == 1:
        text = f"{winners[0]} won"
    else:
        text = " and ".join(winners) + " shared the win"
    return {"text": text, "winners": winners, "draw": draw,
            "reason": match.result.get("reason")}


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat() + "Z"
