"""Reading back: a league or a ladder as the API and the pages show it (names, never
addresses), and the listings."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pbem.core.accounts.models import Player
from pbem.core.leagues import ladders
from pbem.core.leagues.models import (
    ChallengeStatus,
    Ladder,
    LadderChallenge,
    LadderMember,
    League,
    LeagueDivision,
    LeagueGame,
    LeagueMember,
    LeagueSeason,
)
from pbem.core.matches.models import Match
from pbem.games import REGISTRY


def league_listing(limit: int = 100) -> list[League]:
    return list(League.select().order_by(League.id.desc()).limit(limit))


def ladder_listing(limit: int = 100) -> list[Ladder]:
    return list(Ladder.select().order_by(Ladder.id.desc()).limit(limit))


def describe_league(league: League, detail: bool = True) -> dict[str, Any]:
    members = list(LeagueMember.select(LeagueMember, Player).join(Player)
                   .where(LeagueMember.league == league).order_by(LeagueMember.joined_at))
    found: dict[str, Any] = {
        "id": league.id, "name": league.name, "game": league.game, "title": _title(league.game),
        "organiser": Player.get_by_id(league.organiser_id).public_name,
        "clock": league.time_control, "on_timeout": league.on_timeout,
        "options": league.options, "rated": bool(league.rated),
        "division_size": league.division_size, "table_size": league.table_size,
        "promote": league.promote, "relegate": league.relegate,
        "season_days": league.season_days, "break_days": league.break_days,
        "status": league.status, "season": league.season,
        "next_season_at": _iso(league.next_season_at),
        "members": [{"name": m.player.public_name,
                     "status": "left" if m.left_at is not None else "member"} for m in members],
    }
    if detail:
        found["seasons"] = [_season(s, league) for s in LeagueSeason.select()
                            .where(LeagueSeason.league == league)
                            .order_by(LeagueSeason.number.desc())]
    return found


def _season(season: LeagueSeason, league: League) -> dict[str, Any]:
    divisions = list(LeagueDivision.select().where(LeagueDivision.season == season)
                     .order_by(LeagueDivision.number))
    ids = {p for d in divisions for p in d.players} | set(season.on_hold or ())
    names = _names(ids)
    last = season.number < league.season or season.finished_at is not None
    count = len(divisions)
    return {
        "number": season.number, "started_at": _iso(season.started_at),
        "ends_at": _iso(season.ends_at), "finished_at": _iso(season.finished_at),
        "on_hold": [names.get(p, "?") for p in season.on_hold or ()],
        "divisions": [_division(d, names, league, count, last) for d in divisions],
    }


def _division(division: LeagueDivision, names: dict[int, str], league: League, count: int,
              over: bool) -> dict[str, Any]:
    games = (LeagueGame.select(LeagueGame, Match).join(Match)
             .where(LeagueGame.division == division).order_by(LeagueGame.id))
    rows = division.standings or []
    size = len(rows)
    standings = []
    for i, row in enumerate(rows):
        move = None
        if over and division.number > 1 and i < league.promote:
            move = "up"
        elif over and division.number < count and i >= size - league.relegate:
            move = "down"
        standings.append({**row, "player": names.get(row["player"], "?"), "move": move})
    return {"number": division.number,
            "players": [names.get(p, "?") for p in division.players],
            "standings": standings,
            "matches": [{"match": g.match_id, "players": [names.get(p, "?") for p in g.players],
                         "status": g.match.status,
                         "winners": (g.match.result or {}).get("winners")} for g in games]}


def describe_ladder(ladder: Ladder, detail: bool = True) -> dict[str, Any]:
    state = ladders.places(ladder)
    names = _names(set(state.places) | {ladder.organiser_id})
    found: dict[str, Any] = {
        "id": ladder.id, "name": ladder.name, "game": ladder.game, "title": _title(ladder.game),
        "organiser": names.get(ladder.organiser_id, "?"), "clock": ladder.time_control,
        "on_timeout": ladder.on_timeout, "options": ladder.options, "rated": bool(ladder.rated),
        "challenge_range": ladder.challenge_range, "incoming_limit": ladder.incoming_limit,
        "accept_days": ladder.accept_days, "players": len(state.places),
    }
    if detail:
        found["places"] = [{"place": i + 1, "player": names.get(p, "?"),
                            "on_hold": p in state.on_hold} for i, p in enumerate(state.places)]
        found["challenges"] = challenges(ladder)
    return found


def challenges(ladder: Ladder, limit: int = 50) -> list[dict[str, Any]]:
    rows = list(LadderChallenge.select().where(LadderChallenge.ladder == ladder)
                .order_by(LadderChallenge.id.desc()).limit(limit))
    names = _names({r.challenger_id for r in rows} | {r.defender_id for r in rows})
    return [{"id": r.id, "challenger": names.get(r.challenger_id, "?"),
             "defender": names.get(r.defender_id, "?"), "status": r.status,
             "match": r.match_id, "created_at": _iso(r.created_at),
             "open": r.status == ChallengeStatus.OPEN} for r in rows]


def place_of(ladder: Ladder, player: Player) -> int | None:
    member = LadderMember.get_or_none(LadderMember.ladder == ladder,
                                      LadderMember.player == player)
    return None if member is None else member.place


def _names(ids: set[int]) -> dict[int, str]:
    if not ids:
        return {}
    return {p.id: p.public_name for p in Player.select(Player.id, Player.name, Player.email)
            .where(Player.id.in_(sorted(ids)))}


def _title(game: str) -> str:
    rules = REGISTRY.get(game)
    return rules.title if rules is not None else game


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat() + "Z"
