"""Reading ratings for pages and the API: a player's ratings, rank, history, head-to-head, and
the leaderboard. Every read is an index range (the leaderboard keyset-paged on
(game, display, player)), so pages stay as fast with a million rated matches as with a
thousand."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import peewee

from pbem.core.accounts.models import Player
from pbem.core.db.prepared import Prepared, ReadAhead, Shapes
from pbem.core.matches.models import Match, MatchStatus, Seat
from pbem.core.ratings import model
from pbem.core.ratings.models import Rating, RatingEvent
from pbem.errors import UnprocessableError
from pbem.i18n import _, ngettext

LEADERBOARD_ACTIVE_WITHIN = timedelta(days=365)
PAGE_SIZE = 50
HISTORY_POINTS = 200  # the chart draws at most the last this many results


def as_dict(row: Rating) -> dict[str, Any]:
    return {"rating": row.display, "mu": row.mu, "sigma": row.sigma, "games": row.games,
            "provisional": model.provisional(row.games)}


def ratings_of(player_id: int) -> dict[str, Rating]:
    """The player's rating rows by game."""
    return {row.game: row for row in Rating.select().where(Rating.player == player_id)}


def displayed(player_id: int, game: str) -> int:
    """The player's display rating in `game` (a new player's when they have none)."""
    value = (Rating.select(Rating.display)
             .where(Rating.player == player_id, Rating.game == game).scalar())
    return int(value) if value is not None else model.display(model.MU, model.SIGMA)


def shown_for(player_ids: Iterable[int], game: str) -> dict[int, str]:
    """Each player's rating as shown (`1234` or `1000?`), for a page listing seats."""
    ids = sorted(set(player_ids))
    rows = {row.player_id: row for row in shown_for_ahead(ids, game).rows()} if ids else {}
    start = model.display(model.MU, model.SIGMA)
    return {pid: (model.shown(rows[pid].display, rows[pid].games) if pid in rows
                  else model.shown(start, 0)) for pid in ids}


def shown_for_ahead(player_ids: Iterable[int], game: str) -> ReadAhead:
    """`shown_for`'s read, to send ahead (`pipeline.read_ahead`)."""
    ids = sorted(set(player_ids))
    return _RATINGS_OF(len(ids)).ahead(game, *ids)


def _eligible(game: str, now: datetime) -> peewee.Expression:
    """On the leaderboard: enough rated games, one within a year, and a public page (a
    player who keeps out of the archive is not listed, nor counted in others' ranks)."""
    return ((Rating.game == game) & (Rating.games >= model.PROVISIONAL_BELOW)
            & (Rating.last_played_at >= now - LEADERBOARD_ACTIVE_WITHIN)
            & (Player.hidden_from_archive == False))  # noqa: E712


def rank_of(row: Rating, now: datetime) -> int | None:
    """The player's place on the leaderboard, or None when they are not on it."""
    if model.provisional(row.games) or row.last_played_at is None \
            or row.last_played_at < now - LEADERBOARD_ACTIVE_WITHIN:
        return None
    ahead = (Rating.select().join(Player).where(_eligible(row.game, now),
                                   (Rating.display > row.display)
                                   | ((Rating.display == row.display)
                                      & (Rating.player < row.player_id))).count())
    return int(ahead) + 1


@dataclass(frozen=True)
class Board:
    rows: list[dict[str, Any]]
    next_cursor: str | None


def leaderboard(game: str, now: datetime, cursor: str | None = None,
                size: int = PAGE_SIZE) -> Board:
    """Players with at least 10 rated games who played within a year, best first, keyset-paged:
    the cursor is the last row's (display, player id)."""
    query = (Rating.select(Rating, Player).join(Player).where(_eligible(game, now))
             .order_by(Rating.display.desc(), Rating.player))
    start_rank = 1
    if cursor:
        display, player_id, start_rank = _parse_cursor(cursor)
        query = query.where((Rating.display < display)
                            | ((Rating.display == display) & (Rating.player > player_id)))
    rows = list(query.limit(size + 1))
    more = len(rows) > size
    rows = rows[:size]
    out = [{"rank": start_rank + index, "name": row.player.public_name, **as_dict(row),
            "wins": row.wins, "draws": row.draws, "losses": row.losses}
           for index, row in enumerate(rows)]
    next_cursor = (f"{rows[-1].display}.{rows[-1].player_id}.{start_rank + len(rows)}"
                   if more and rows else None)
    return Board(out, next_cursor)


def _parse_cursor(cursor: str) -> tuple[int, int, int]:
    parts = cursor.split(".")
    try:
        display, player_id, rank = (int(part) for part in parts)
    except ValueError:
        raise UnprocessableError(_("That leaderboard cursor is not one this server gave out; "
                                   "start again from the first page.")) from None
    if player_id < 0 or rank < 1:
        raise UnprocessableError(_("That leaderboard cursor is not one this server gave "
                                   "out."))
    return display, player_id, rank


def history(player_id: int, game: str, points: int = HISTORY_POINTS) -> list[RatingEvent]:
    """The player's last `points` rating events in `game`, oldest first."""
    rows = list(RatingEvent.select().where(RatingEvent.player == player_id,
                                           RatingEvent.game == game)
                .order_by(RatingEvent.id.desc()).limit(points))
    rows.reverse()
    return rows


def head_to_head(player_id: int, other_id: int) -> dict[str, dict[str, int]]:
    """Per game, the player's wins, draws and losses in finished matches against `other`."""
    mine, theirs = Seat.alias(), Seat.alias()
    rows = (mine.select(Match.game, mine.outcome, peewee.fn.COUNT(mine.id).alias("n"))
            .join(Match, on=(mine.match == Match.id))
            .join(theirs, on=(theirs.match == Match.id))
            .where(mine.player == player_id, theirs.player == other_id,
                   Match.status == MatchStatus.FINISHED)
            .group_by(Match.game, mine.outcome).tuples())
    out: dict[str, dict[str, int]] = {}
    counted: list[tuple[str, str | None, int]] = list(rows)  # type: ignore[arg-type]
    for game, outcome, count in counted:
        tally = out.setdefault(game, {"win": 0, "draw": 0, "loss": 0})
        if outcome in tally:
            tally[outcome] += count
    return out


def match_changes(match_id: int) -> dict[int, RatingEvent]:
    """A rated match's events by seat (empty for an unrated one)."""
    return {row.seat: row for row in RatingEvent.select().where(RatingEvent.match == match_id)}


def seat_ratings(match: Match, seats: list[Seat] | None = None) -> dict[int, dict[str, Any]]:
    """Per seat: the player's rating in the match's game as shown now, and for a finished
    rated match the change it made (`+14`; None where it did not count). `seats`: the
    match's seat rows when the caller has just read them."""
    seats = match.seat_rows() if seats is None else seats
    shown = shown_for([seat.player_id for seat in seats], match.game)
    changes = match_changes(match.id) if match.rated and not match.is_live else {}
    out = {}
    for seat in seats:
        event = changes.get(seat.seat)
        change = event.display_after - event.display_before if event is not None else None
        out[seat.seat] = {"rating": shown[seat.player_id], "change": change,
                          "change_text": f"{change:+d}" if change is not None else None}
    return out


def chart_svg(events: list[RatingEvent], width: int = 600, height: int = 160) -> str:
    """The rating history as a small SVG line (drawn by the server: no script)."""
    if not events:
        return ""
    values = [events[0].display_before] + [event.display_after for event in events]
    low, high = min(values), max(values)
    span = max(high - low, 20)
    pad = 24
    step = (width - 2 * pad) / max(len(values) - 1, 1)
    points = " ".join(
        f"{pad + i * step:.1f},{height - pad - (v - low) / span * (height - 2 * pad):.1f}"
        for i, v in enumerate(values))
    # Numbers only, so the label needs no escaping.
    label = ngettext("Rating from %(first)s to %(last)s over %(num)s rated game",
                     "Rating from %(first)s to %(last)s over %(num)s rated games", len(events),
                     first=values[0], last=values[-1])
    return (
        f'<svg class="rating-chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{label}" '
        'xmlns="http://www.w3.org/2000/svg">'
        f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" '
        'stroke="currentColor" stroke-opacity="0.3"/>'
        f'<text x="2" y="{pad - 6}" font-size="11" fill="currentColor">{high}</text>'
        f'<text x="2" y="{height - 6}" font-size="11" fill="currentColor">{low}</text>'
        f'<polyline points="{points}" fill="none" stroke="currentColor" stroke-width="2" '
        'vector-effect="non-scaling-stroke"/></svg>')


# The seats' ratings, read for every match and play page: compiled once per number of players.
_RATINGS_OF = Shapes(lambda count: Prepared(
    lambda game, *ids: Rating.select().where(Rating.game == game, Rating.player.in_(list(ids))),
    arity=count + 1))
