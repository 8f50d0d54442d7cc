"""From matches to standings: a division's results read from its games' matches, the copy of
its standings written for reading, and the door's settler that keeps that copy current.

Standings are derived here every time, never counted up: a result changed by an admin's
ruling, or a match voided, moves them the next time they are derived, which the settler does
at once (`settle_leagues`) and `pbem leagues rebuild` does for every season and ladder.
"""

from __future__ import annotations

from typing import Any

from pbem.core.leagues import plan
from pbem.core.leagues.models import LeagueDivision, LeagueGame, LeagueSeason
from pbem.core.matches.changes import Settled
from pbem.core.matches.models import Match, MatchStatus


def division_results(division: LeagueDivision) -> tuple[list[plan.Result], list[int]]:
    """The division's finished games as results, and every scheduled game's players (one
    entry per player per game, for counting)."""
    rows = (LeagueGame.select(LeagueGame, Match).join(Match)
            .where(LeagueGame.division == division).order_by(LeagueGame.id))
    results: list[plan.Result] = []
    scheduled: list[int] = []
    for row in rows:
        scheduled += row.players
        result = game_result(row, row.match)
        if result is not None:
            results.append(result)
    return results, scheduled


def game_result(game: LeagueGame, match: Match) -> plan.Result | None:
    """A game's result, or None while it is in play. An aborted game, or one an admin
    voided, counts for nobody (but a timeout in it still counts against the late seat)."""
    if match.status == MatchStatus.ACTIVE:
        return None
    players = tuple(game.players)
    timed_out = tuple(game.timed_out or ())
    if match.status != MatchStatus.FINISHED or not match.result or match.voided_at is not None:
        return plan.Result(players, (), (0.0,) * len(players), timed_out, counted=False)
    winners = tuple(match.result.get("winners", []))
    scores = tuple(match.result.get("scores") or [0.0] * len(players))
    return plan.Result(players, winners, scores, timed_out)


def standings_rows(division: LeagueDivision, tables: bool) -> list[dict[str, Any]]:
    results, scheduled = division_results(division)
    played = {p: 0 for p in division.players}
    for result in results:
        for p in result.players:
            played[p] += 1 if result.counted else 0
    return [{"rank": s.rank, "player": s.player, "points": round(s.points, 3),
             "played": played[s.player], "games": scheduled.count(s.player),
             "tiebreaks": {k: round(v, 3) for k, v in s.tiebreaks.items()}}
            for s in plan.division_standings(division.players, results, tables)]


def refresh_division(division: LeagueDivision) -> list[dict[str, Any]]:
    """Derive the division's standings and write the copy the pages read."""
    tables = LeagueSeason.select().where(LeagueSeason.id == division.season_id).get(
    ).league.table_size is not None
    rows = standings_rows(division, tables)
    if rows != division.standings:
        LeagueDivision.update(standings=rows).where(LeagueDivision.id == division.id).execute()
        division.standings = rows
    return rows


def settle_leagues(settled: Settled) -> None:
    """The settler: a league game that ended (or whose result an admin changed or voided
    after the end) derives its division's standings again; a seat that timed out is kept."""
    competition = settled.match.competition
    if competition is None or (not settled.ended and settled.match.status == MatchStatus.ACTIVE):
        return
    if competition == "league":
        game = LeagueGame.get_or_none(LeagueGame.match == settled.match.id)
        if game is None:
            return
        if settled.timed_out:
            late = sorted(set(game.timed_out or ()) | set(settled.timed_out))
            LeagueGame.update(timed_out=late).where(LeagueGame.id == game.id).execute()
        refresh_division(game.division)
    elif competition == "ladder":
        from pbem.core.leagues.ladders import settle_challenge

        settle_challenge(settled)
