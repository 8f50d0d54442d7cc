"""What a seat or a spectator may see of a match, as JSON-safe dicts for pages and the API.

Everything here goes through the rules' `view` and the stored visibility of moves and events,
so a page or API answer cannot show a hidden hand or a secret choice.
"""

from __future__ import annotations

from datetime import datetime
from itertools import starmap
from typing import Any, NamedTuple

from pbem.core.accounts.models import Player
from pbem.core.db.memo import VersionMemo
from pbem.core.db.prepared import Prepared
from pbem.core.mailout.notify import describe_outcome
from pbem.core.matches import lifecycle, offers, vacations
from pbem.core.matches.clocks import deadline_info, describe_allowance, describe_match_clock
from pbem.core.matches.creation import deal_of, rules_for, state_after
from pbem.core.matches.models import (
    CONDITIONAL_NOTE,
    Adjudication,
    AdjudicationStatus,
    DrawOffer,
    Match,
    Move,
    Seat,
    Vacation,
    autoplay_reason,
    event_parts,
)
from pbem.core.matches.play import stored_event
from pbem.errors import UnprocessableError
from pbem.games.base import Event, GameRules, Outcome
from pbem.i18n import _, format_days
from pbem.i18n import current as current_language

MOVES_PER_PAGE = 50
# A seat's own page lists fewer, about as many as a match's first minutes make: it is about
# the next move, the public page has the rest, and the page then costs the same from the
# first moves on to the five-hundredth.
SEAT_MOVES_PER_PAGE = 10


def seat_record(seat: Seat, now: datetime, vacation_days: int = 14,
                moves_upto: int | None = None, shown: int | None = None,
                seats: list[Seat] | None = None) -> dict[str, Any]:
    """Everything `/play/<token>` and `GET /api/play/<token>` show the seat. The move list is
    one page: the latest moves, those up to `moves_upto`, or the page holding ply `shown`.
    `seats`: the match's seat rows (`match.seat_rows()`) when the caller has read them."""
    match: Match = seat.match
    rules = rules_for(match)
    state = position_of(match)
    sight = _sight(match, rules, state, seat.seat)
    mine = sight.mine
    # Each row once per request: the seats and the draw offers feed several parts below.
    seats = match.seat_rows() if seats is None else seats
    read = offers.known(match) if match.is_live else None
    # The seat's own clock as just read with the others (the caller's row may predate a change).
    own = next((row for row in seats if row.seat == seat.seat), seat)
    listed = moves_for(match, rules, state, seat.seat,
                       move_window(match.ply, shown, moves_upto, SEAT_MOVES_PER_PAGE))
    return {
        # The seat sees its own address (to sign in with), never another player's.
        **_common(match, rules, state, seats, now, own_email_of=seat.seat),
        "seat": seat.seat,
        "seat_number": seat.seat + 1,
        "seat_label": rules.seat_label(state, seat.seat),
        "your_turn": mine,
        "legal_moves": list(sight.legal),
        "view": sight.view,
        "board_text": sight.board_text,
        **listed,
        "deadline": deadline_info(own.deadline, match.time_control, seat.player.timezone, now)
        if mine else None,
        "clocks": _clocks(match, rules, state, seats, now, seat.player.timezone),
        "timezone": seat.player.timezone,
        # The player's own choice for the board (read from the row the seat came with).
        "submit_without_confirm": seat.player.submit_without_confirm,
        "text_mode": seat.player.text_mode,
        "vacation": _vacation(seat.player, now, vacation_days),
        "draw_offer": _draw_offer(rules, state, read.standing if read else None),
        "out_of_time": [{"seat": row.seat, "seat_number": row.seat + 1,
                         "label": rules.seat_label(state, row.seat)}
                        for row in seats if row.out_of_time_at is not None and match.is_live],
        "can": _allowed(match, seat.seat, seats, read or offers.Known(()),
                        _movers(listed, len(seats))),
    }


def _allowed(match: Match, seat: int, seats: list[Seat], read: offers.Known,
             movers: set[int] | None) -> list[str]:
    """`lifecycle.allowed`, worked out once per match version, seat and what of the seat rows
    it reads (whose clock ran out): its checks raise and translate a refusal for each action
    a seat may not take, a page's worth of work that a version fixes. The offers read follow
    from the version (`offers.known` is kept per version); the seats known to have moved do
    too, but are in the key all the same."""
    def work_out() -> list[str]:
        return lifecycle.allowed(match, seat, seats, read, movers)
    late = tuple((row.seat, row.out_of_time_at is not None) for row in seats)
    made = _ALLOWED.remember(match, work_out, seat, late,
                             None if movers is None else frozenset(movers))
    return list(made)


# The parts of a seat's record made from the match version, the seat and the language alone
# (its sight, and its page of moves for the window `moves_page` names), each once per version
# by the VersionMemos below. A key may hash them once per version, seat, language and window
# rather than on each read (kept pages and kept answers: `web/matches/seat.record_key`): they
# are two thirds of a record's pickled bytes.
VERSION_PARTS = frozenset({"legal_moves", "view", "board_text", "moves"})


def beyond_version(record: dict[str, Any]) -> dict[str, Any]:
    """A seat's record less its VERSION_PARTS: what a key hashes on every read, beside those
    parts' digest (made once per version, seat, language and page of moves)."""
    return {name: value for name, value in record.items() if name not in VERSION_PARTS}


class _Sight(NamedTuple):
    """What one seat sees of one match version, as the rules derive it."""

    mine: bool  # the seat is to move in a live match
    legal: tuple[str, ...]  # its legal moves as text when it is to move, else none
    view: Any
    board_text: str


def position_of(match: Match) -> Any:
    """The match's current position, loaded once per version."""
    return _POSITIONS.remember(match, lambda: rules_for(match).load(match.state))


def _sight(match: Match, rules: GameRules, state: Any, seat: int | None) -> _Sight:
    def derive() -> _Sight:
        legal: tuple[str, ...] = ()
        mine = seat is not None and match.is_live and seat in rules.to_move(state)
        if seat is not None and mine:
            legal = tuple(rules.format_move(state, move) for move in rules.legal_moves(state, seat))
        view = rules.view(state, seat)
        # The text board's words are in the reader's language, hence the language in the key.
        return _Sight(mine, legal, view, rules.render_text(view, over=not match.is_live))
    return _SIGHTS.remember(match, derive, seat, current_language())


# The matches most read between two of their moves (a reload, a poll, a second tab): a
# position or a seat's sight is a few KiB, a page of moves up to about 10 KiB, so these hold
# about a MiB at most in a worker, however many matches it serves (bench/memory.py).
_POSITIONS: VersionMemo[Any] = VersionMemo(32)
_SIGHTS: VersionMemo[_Sight] = VersionMemo(32)
_MOVE_PAGES: VersionMemo[dict[str, Any]] = VersionMemo(32)
_RULINGS_READ: VersionMemo[list[dict[str, Any]]] = VersionMemo(64)
_ALLOWED: VersionMemo[list[str]] = VersionMemo(64)


def _movers(listed: dict[str, Any], seat_count: int) -> set[int] | None:
    """The seats that have moved, when the listed page of moves tells (it holds every move,
    or a move by every seat); None when only the whole move table could."""
    movers = {move["seat"] for move in listed["moves"]}
    # Every move: a page from the first to the latest (`?moves=` may end one earlier).
    window = listed["moves_page"]
    complete = window["first"] <= 1 and window["last"] >= window["total"]
    return movers if complete or len(movers) >= seat_count else None


def public_record(match: Match, now: datetime, ply: int | None = None,
                  moves_upto: int | None = None) -> dict[str, Any]:
    """What anyone may see: the spectator view, after `ply` moves (default: now), and one page
    of the move list (the one holding `ply`, unless `moves_upto` picks another)."""
    rules = rules_for(match)
    shown_ply = match.ply if ply is None else ply
    current = position_of(match)
    state = current if shown_ply == match.ply else state_after(match, shown_ply)
    if state is current:
        sight = _sight(match, rules, state, None)
        view, board_text = sight.view, sight.board_text
    else:
        view = rules.view(state, None)
        board_text = rules.render_text(view, over=False)
    seats = match.seat_rows()
    common = _common(match, rules, current, seats, now, own_email_of=None)
    # Seats are named as they were in the position shown (Frozen Forest swaps roles between
    # games, so a replay of game 1 names game 1's roles).
    for player in common["players"]:
        player["label"] = rules.seat_label(state, player["seat"])
    return {
        **common,
        "shown_ply": shown_ply,
        # Who was to move in the position shown (link previews say it).
        "shown_to_move": [rules.seat_label(state, seat) for seat in sorted(rules.to_move(state))]
        if match.is_live or shown_ply < match.ply else [],
        "view": view,
        "board_text": board_text,
        **moves_for(match, rules, current, None, move_window(match.ply, ply, moves_upto)),
        "clocks": _clocks(match, rules, current, seats, now, None),
    }


def move_window(latest: int, shown: int | None, upto: int | None,
                per_page: int | None = None) -> tuple[int, int]:
    """The plies (first, last) one page of the move list covers: up to `upto` if given, else
    the latest `per_page` moves, or the page ending at `shown` when that is older."""
    per_page = per_page or MOVES_PER_PAGE
    if upto is not None:
        if not (1 if latest else 0) <= upto <= latest:
            raise UnprocessableError(_("moves must be a move number from 1 to %(latest)s, "
                                       "not %(given)s", latest=latest, given=upto))
        last = upto
    elif shown is not None and shown <= latest - per_page:
        last = max(min(per_page, latest), shown)
    else:
        last = latest
    return max(1, last - per_page + 1), last


def moves_for(match: Match, rules: GameRules, state: Any, reader: int | None,
              window: tuple[int, int]) -> dict[str, Any]:
    """One page of the move list as `reader` (a seat, or None for a spectator) may read it:
    `moves`, and `moves_page` saying which plies it covers and where the neighbours end.
    `state`: the match's current position (which names the movers)."""
    # Listed moves are never rewritten, and which are readable follows from the version.
    page = _MOVE_PAGES.remember(match, lambda: _moves_page(match, rules, state, reader, window),
                                reader, window, current_language())
    return dict(page)


def _moves_page(match: Match, rules: GameRules, state: Any, reader: int | None,
                window: tuple[int, int]) -> dict[str, Any]:
    first, last = window
    finished = not match.is_live
    # Only the listed plies, and never the snapshots: the page costs the same at any length.
    rows = starmap(_ListedMove, _LISTED_MOVES.rows(match.id, first, last))
    revealed = 0 if finished else revealed_through(match, rules, first)
    listed = []
    for move in rows:
        shown = finished or move.ply <= revealed
        readable = shown or move.visible_to is None or (
            reader is not None and reader in move.visible_to)
        events = [stored_event(item) for item in move.events]
        listed.append({
            "ply": move.ply,
            "seat": move.seat,
            "by": _move_label(rules, state, move.seat, events),
            "text": move.text if readable else None,
            "events": [rules.describe_event(event) for event in events
                       if finished or event.is_visible_to(reader)],
            "at": move.created_at.isoformat() + "Z",
            "autoplayed": autoplay_reason(move.note),
            "conditional": move.note == CONDITIONAL_NOTE,
        })
    per_page = last - first + 1
    return {"moves": listed, "moves_page": {
        "first": first if last else 0, "last": last, "total": match.ply,
        "earlier": first - 1 if first > 1 else None,
        "later": min(match.ply, last + per_page) if last < match.ply else None,
    }}


def revealed_through(match: Match, rules: GameRules, first: int) -> int:
    """A public summary (a round's scoring) reveals every hidden move made before it: their
    notation becomes readable (their private events keep their own wording and readers). The
    last such summary from `first` on says how far the listed moves are revealed."""
    revealing: frozenset[str] = getattr(rules, "reveal_events", frozenset())
    if not revealing:
        return 0
    for ply, events in _LATER_MOVES.rows(match.id, first, match.ply):
        if any(kind in revealing and readers is None
               for kind, _data, readers in map(event_parts, events)):
            return ply
    return 0


def _move_label(rules: GameRules, state: Any, seat: int, events: list[Event]) -> str:
    label = getattr(rules, "move_label", None)
    return label(state, seat, events) if label else rules.seat_label(state, seat)


def _common(match: Match, rules: GameRules, state: Any, seats: list[Seat], now: datetime,
            own_email_of: int | None) -> dict[str, Any]:
    return {
        "match": match.id,
        "game": match.game,
        "title": rules.title,
        "status": match.status,
        "ply": match.ply,
        "to_move": sorted(rules.to_move(state)) if match.is_live else [],
        # `seat` counts from 0 (the index every list here and every request uses);
        # `seat_number` from 1, as pages and mails name the players ("Player 2").
        "players": [{"seat": seat.seat, "seat_number": seat.seat + 1,
                     "label": rules.seat_label(state, seat.seat),
                     "name": seat.player.public_name,
                     "undeliverable": seat.player.undeliverable_at is not None,
                     # The computer's level while it plays the seat (its own seat, or one an
                     # admin handed to it), else null.
                     "computer": seat.computer_level,
                     **({"email": seat.player.email} if seat.seat == own_email_of else {})}
                    for seat in seats],
        # A match with a computer seat (now or once) counts for no rating.
        "unrated": match.has_computer,
        "result": _result(match, rules, state, seats),
        "created_at": match.created_at.isoformat() + "Z",
        "time_control": describe_match_clock(match.time_control),
        "on_timeout": match.on_timeout,
        "rulings": _rulings(match, rules, state),
        "away": _away(match, seats, now),
        "deal": deal_of(match, rules, state),
    }


def _result(match: Match, rules: GameRules, state: Any, seats: list[Seat]
            ) -> dict[str, Any] | None:
    # The stored result is the truth: a ruling or a forfeit ends a match the rules did not.
    if not match.result:
        return None
    stored = match.result
    outcome = Outcome(frozenset(stored["winners"]), tuple(stored["scores"]), stored["reason"])
    return describe_outcome(rules, state, outcome, seats)


def _clocks(match: Match, rules: GameRules, state: Any, seats: list[Seat], now: datetime,
            timezone: str | None) -> list[dict[str, Any]]:
    return [{"seat": seat.seat, "seat_number": seat.seat + 1,
             "label": rules.seat_label(state, seat.seat),
             "deadline": deadline_info(seat.deadline, match.time_control, timezone, now),
             "allowance": describe_allowance(seat.allowance_seconds),
             # The computer's seat has no clock (pages say so instead of an allowance).
             "computer": seat.computer_level is not None}
            for seat in seats]


def _rulings(match: Match, rules: GameRules, state: Any) -> list[dict[str, Any]]:
    def read() -> list[dict[str, Any]]:
        return [{"ruling": entry.ruling, "seat": entry.seat,
                 "late": rules.seat_label(state, entry.seat), "reason": entry.reason,
                 "at": entry.ruled_at.isoformat() + "Z" if entry.ruled_at else None}
                for entry in _RULINGS.rows(match.id)]
    # A ruling is made through the door, which bumps the version (rulings.apply_ruling).
    return _RULINGS_READ.remember(match, read, current_language())


def _draw_offer(rules: GameRules, state: Any, found: DrawOffer | None
                ) -> dict[str, Any] | None:
    if found is None:
        return None
    return {"by": found.seat, "label": rules.seat_label(state, found.seat),
            "accepted_by": list(found.accepted_by), "at": found.offered_at.isoformat() + "Z"}


def _vacation(player: Player, now: datetime, days_per_year: int) -> dict[str, Any]:
    status, upcoming = vacations.summary(player, now, days_per_year)
    return {"year": status.year, "days": status.days, "used": status.used, "left": status.left,
            # Each with its id, to call it off by (a current one ends now, a later one goes).
            "upcoming": [{**_days(v), "id": v.id, "current": v.starts_at <= now}
                         for v in upcoming]}


def _away(match: Match, seats: list[Seat], now: datetime) -> list[dict[str, Any]]:
    """The players of a live match on vacation now or later (their clock stops then), by
    display name. The vacation table is read only for a player whose row says one is still
    to end, so most pages read nothing more."""
    if not match.is_live:
        return []
    away: list[dict[str, Any]] = []
    listed: set[int] = set()
    for seat in seats:
        player = seat.player
        if player.id in listed or player.away_until is None or player.away_until <= now:
            continue
        listed.add(player.id)
        away += [{"seat": seat.seat, "name": player.public_name, **_days(v),
                  "current": v.starts_at <= now} for v in vacations.upcoming(player.id, now)]
    return away


def _days(vacation: Vacation) -> dict[str, str]:
    """A vacation's instants, and its days as a player declared them (the last one included),
    in the reader's language as the pages write them."""
    return {"from": vacation.starts_at.isoformat() + "Z", "to": vacation.ends_at.isoformat() + "Z",
            "text": format_days(vacation.starts_at, vacation.ends_at)}


class _ListedMove(NamedTuple):
    """A listed move's columns, as `Move` reads them: a page lists them and writes nothing
    back, so no model row is made for each (a first read lists up to a page of moves)."""

    ply: int
    seat: int
    text: str
    visible_to: list[int] | None
    events: list[Any]
    note: str | None
    created_at: datetime


# The columns of a `_ListedMove`, in its order.
_LISTED_MOVES = Prepared(lambda match_id, first, last: Move.select(
    Move.ply, Move.seat, Move.text, Move.visible_to, Move.events, Move.note, Move.created_at)
    .where(Move.match == match_id, Move.ply >= first, Move.ply <= last).order_by(Move.ply)
    .tuples())
_LATER_MOVES = Prepared(lambda match_id, first, last: Move.select(Move.ply, Move.events)
                        .where(Move.match == match_id, Move.ply >= first, Move.ply <= last)
                        .order_by(Move.ply.desc()).tuples())
_RULINGS = Prepared(lambda match_id: Adjudication.select()
                    .where(Adjudication.match == match_id,
                           Adjudication.status == AdjudicationStatus.RULED)
                    .order_by(Adjudication.ruled_at))
