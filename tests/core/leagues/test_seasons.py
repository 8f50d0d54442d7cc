"""Leagues on every database: a whole season of three divisions played out, the worker
closing it and starting the next after the break, promotion and relegation, a player on hold
after timeouts, a newcomer in the lowest division, the rebuild, and an admin's void."""

from __future__ import annotations

from pbem.core.accounts.models import Player
from pbem.core.admin import actions as admin_actions
from pbem.core.leagues import seasons
from pbem.core.leagues.models import League, LeagueDivision, LeagueGame, LeagueSeason
from pbem.core.leagues.rebuild import rebuild
from pbem.core.matches import lifecycle
from pbem.core.matches.models import Match, MatchStatus, Seat
from pbem.core.matches.play import submit_move
from tests.conftest import START

KEY = "k" * 43


def _players(count: int, start: int = 0) -> list[Player]:
    return [Player.for_email(f"p{n}@example.org", START) for n in range(start, start + count)]


def _league(organiser: Player, **body: object) -> League:
    spec = {"name": "Spring league", "game": "nim", "clock": "2d", "on_timeout": "forfeit",
            "division_size": 4, "promote": 1, "relegate": 1, "break_days": 7,
            "start_days": 0, "rated": True, **body}
    return seasons.create_league(organiser, spec, START)


def _play_out(division_games: list[LeagueGame], better: dict[int, int], now, absent=()) -> None:
    """End each live game: the lower player id wins (resigning the other seat); a game with
    an absent player is left to its clock."""
    for game in division_games:
        match = Match.get_by_id(game.match_id)
        if match.status != MatchStatus.ACTIVE:
            continue
        if set(game.players) & set(absent):
            present = [s for s, p in enumerate(game.players) if p not in absent]
            if present and present[0] == 0:
                submit_move(match.id, 0, "take 1", None, now)  # puts the absent on the clock
            continue
        loser = max(range(2), key=lambda seat: better[game.players[seat]])
        lifecycle.resign(match.id, loser, now)


def _games(season: LeagueSeason) -> list[LeagueGame]:
    return list(LeagueGame.select().join(LeagueDivision)
                .where(LeagueDivision.season == season).order_by(LeagueGame.id))


def test_a_season_of_three_divisions_runs_and_the_next_starts_by_itself(settings, worker,
                                                                         clock) -> None:
    players = _players(12)
    league = _league(players[0])
    for player in players:
        seasons.join(league.id, player, START)
    worker.run_leagues()
    season = LeagueSeason.get(LeagueSeason.league == league.id)
    divisions = seasons.divisions_of(season)
    assert [len(d.players) for d in divisions] == [4, 4, 4]
    assert len(_games(season)) == 3 * 12  # every pair twice
    assert {m.competition for m in Match.select()} == {"league"}
    rank = {p.id: i for i, p in enumerate(players)}
    _play_out(_games(season), rank, clock())
    late = _players(1, start=50)[0]  # joins during the season: the lowest division next
    seasons.join(league.id, late, clock())
    before = [d.players for d in divisions]
    worker.run_leagues()
    assert League.get_by_id(league.id).status == "break"
    tables = [[row["player"] for row in d.standings] for d in seasons.divisions_of(season)]
    assert all(table == sorted(table, key=rank.get) for table in tables)
    clock.advance(days=6)
    worker.run_leagues()
    assert LeagueSeason.select().where(LeagueSeason.league == league.id).count() == 1
    clock.advance(days=1)
    worker.run_leagues()
    second = LeagueSeason.get(LeagueSeason.league == league.id, LeagueSeason.number == 2)
    after = [d.players for d in seasons.divisions_of(second)]
    # The top of divisions 2 and 3 went up, the bottom of 1 and 2 down; the newcomer last.
    assert after[0] == [*before[0][:3], before[1][0]]
    assert after[1] == [before[0][3], *before[1][1:3], before[2][0]]
    assert after[2][-1] == late.id and before[1][3] in after[2]
    assert rebuild().changed == 0


def test_timing_out_of_most_games_sits_one_season_out(settings, worker, clock) -> None:
    players = _players(4)
    league = _league(players[0], division_size=4)
    for player in players:
        seasons.join(league.id, player, START)
    worker.run_leagues()
    season = LeagueSeason.get(LeagueSeason.league == league.id)
    absent = players[3].id
    rank = {p.id: i for i, p in enumerate(players)}
    _play_out(_games(season), rank, clock(), absent=[absent])
    clock.advance(days=3)
    worker.sweep_deadlines()  # the absent player's clocks run out: forfeits
    assert all(Match.get_by_id(g.match_id).status != MatchStatus.ACTIVE for g in _games(season))
    worker.run_leagues()
    clock.advance(days=7)
    worker.run_leagues()
    second = LeagueSeason.get(LeagueSeason.league == league.id, LeagueSeason.number == 2)
    assert second.on_hold == [absent]
    assert absent not in [p for d in seasons.divisions_of(second) for p in d.players]


def test_an_admins_void_moves_the_standings_and_the_rebuild_agrees(settings, worker,
                                                                   clock) -> None:
    players = _players(3)
    league = _league(players[0], division_size=3)
    for player in players:
        seasons.join(league.id, player, START)
    worker.run_leagues()
    season = LeagueSeason.get(LeagueSeason.league == league.id)
    rank = {p.id: i for i, p in enumerate(players)}
    _play_out(_games(season), rank, clock())
    division = seasons.divisions_of(season)[0]
    top = division.standings[0]
    assert (top["player"], top["points"]) == (players[0].id, 4.0)
    won = next(g for g in _games(season) if g.players[0] == players[0].id)
    admin_actions.void(won.match_id, "admin@example.org", "collusion", clock())
    top = seasons.divisions_of(season)[0].standings[0]
    assert (top["player"], top["points"]) == (players[0].id, 3.0)
    LeagueDivision.update(standings=[]).where(LeagueDivision.id == division.id).execute()
    assert rebuild().changed == 1
    assert seasons.divisions_of(season)[0].standings[0]["points"] == 3.0
    assert Seat.select().count() == 12


def test_a_tables_league_seats_its_division_at_tables_of_three_and_four(settings, worker,
                                                                        clock) -> None:
    players = _players(7)
    league = seasons.create_league(players[0], {
        "name": "Card league", "game": "bids", "clock": "2d", "table_size": 4,
        "tables_per_division": 2, "start_days": 0}, START)
    assert league.division_size == 8
    for player in players:
        seasons.join(league.id, player, START)
    worker.run_leagues()
    season = LeagueSeason.get(LeagueSeason.league == league.id)
    games = _games(season)
    assert sorted(len(g.players) for g in games[:2]) == [3, 4]
    plays = {p.id: sum(p.id in g.players for g in games) for p in players}
    assert set(plays.values()) == {6}  # everyone at a table every round
    assert {Match.get_by_id(g.match_id).game for g in games} == {"bids"}


def test_the_seasons_end_makes_late_seats_due_and_the_sweep_settles_them(settings, worker,
                                                                       clock) -> None:
    players = _players(3)
    league = _league(players[0], division_size=3, season_days=7, on_timeout="forfeit",
                     clock="30d")
    for player in players:
        seasons.join(league.id, player, START)
    worker.run_leagues()
    season = LeagueSeason.get(LeagueSeason.league == league.id)
    clock.advance(days=6)
    assert worker.run_leagues().deadlines == 0
    clock.advance(days=1)
    assert worker.run_leagues().deadlines == 6
    assert worker.run_leagues().deadlines == 0  # once
    # (One sweep only: a sweep after a day's jump of the test clock counts as an outage.)
    worker.sweep_deadlines()
    assert all(Match.get_by_id(g.match_id).status != MatchStatus.ACTIVE for g in _games(season))
    worker.run_leagues()
    assert League.get_by_id(league.id).status == "break"
