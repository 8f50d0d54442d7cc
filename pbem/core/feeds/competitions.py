"""The feeds of the standing competitions: a league's seasons and the results of its games,
a ladder's challenges and their outcomes (`/feeds/leagues/<id>.atom`,
`/feeds/ladders/<id>.atom`). Each names only public things: players' public names and the
matches' public pages."""

from __future__ import annotations

from collections.abc import Callable

from pbem.core.accounts.models import Player
from pbem.core.feeds.entries import Entry, Feed, make_feed, tournament_feed
from pbem.core.leagues.models import (
    Ladder,
    LadderEvent,
    League,
    LeagueDivision,
    LeagueGame,
    LeagueSeason,
)
from pbem.core.matches.models import Match, MatchStatus
from pbem.errors import NotFoundError
from pbem.i18n import _


def _names(ids: set[int]) -> dict[int, str]:
    return {row.id: row.public_name for row in Player.select().where(Player.id.in_(ids))}


def league_feed(league_id: int) -> Feed | None:
    """A league's seasons begun and finished, and each game of theirs that has ended."""
    league = League.get_or_none(League.id == league_id)
    if league is None:
        return None
    page, key = f"/leagues/{league.id}", f"league/{league.id}"
    seasons = {row.id: row for row in LeagueSeason.select()
               .where(LeagueSeason.league == league.id)}
    entries = []
    for season in seasons.values():
        entries.append(Entry(f"{key}/season/{season.number}/started",
                             _("Season %(n)s has begun", n=season.number),
                             season.started_at, page))
        if season.finished_at is not None:
            entries.append(Entry(f"{key}/season/{season.number}/finished",
                                 _("Season %(n)s has finished", n=season.number),
                                 season.finished_at, page))
    games = list(LeagueGame.select(LeagueGame, LeagueDivision, Match)
                 .join(LeagueDivision).switch(LeagueGame).join(Match)
                 .where(LeagueDivision.season.in_(list(seasons)),
                        Match.status == MatchStatus.FINISHED))
    names = _names({player for game in games for player in game.players})
    for game in games:
        season = seasons[game.division.season_id]
        entries.append(Entry(
            f"{key}/game/{game.match_id}",
            _("Season %(n)s, division %(division)s: %(players)s have finished",
              n=season.number, division=game.division.number,
              players=_(" vs ").join(names.get(player, "?") for player in game.players)),
            game.match.finished_at or game.match.updated_at, f"/matches/{game.match_id}"))
    return make_feed(key, _("League: %(name)s", name=league.name), page, entries,
                     league.created_at)


def ladder_feed(ladder_id: int) -> Feed | None:
    """A ladder's results in the order they moved places, with who joined and left."""
    ladder = Ladder.get_or_none(Ladder.id == ladder_id)
    if ladder is None:
        return None
    page, key = f"/ladders/{ladder.id}", f"ladder/{ladder.id}"
    events = list(LadderEvent.select().where(LadderEvent.ladder == ladder.id))
    names = _names({event.player_id for event in events}
                   | {event.other_id for event in events if event.other_id})
    entries = []
    for event in events:
        title = _event_title(event.kind, names.get(event.player_id, "?"),
                             names.get(event.other_id or 0, "?"))
        if title:
            entries.append(Entry(f"{key}/event/{event.id}", title, event.at, page))
    return make_feed(key, _("Ladder: %(name)s", name=ladder.name), page, entries,
                     ladder.created_at)


def _event_title(kind: str, player: str, other: str) -> str | None:
    if kind == "result":
        return _("%(winner)s beat %(loser)s", winner=player, loser=other)
    if kind == "join":
        return _("%(player)s joined the ladder", player=player)
    if kind == "leave":
        return _("%(player)s left the ladder", player=player)
    if kind == "timeout":
        return _("%(player)s ran out of time", player=player)
    return None


# A competition's feed by the name in its address (/feeds/<kind>/<id>.atom): one function
# each, returning None when there is no such competition.
COMPETITIONS: dict[str, Callable[[int], Feed | None]] = {
    "tournaments": tournament_feed,
    "leagues": league_feed,
    "ladders": ladder_feed,
}


def competition_feed(kind: str, item_id: int) -> Feed:
    make = COMPETITIONS.get(kind)
    feed = make(item_id) if make else None
    if feed is None:
        raise NotFoundError(_("There is no such feed."))
    return feed
