"""Leagues: creating one, joining and leaving, and the worker's seasons.

A season draws its divisions (the first by rating, later ones from the last season's
standings: `plan.next_divisions`), creates every game of every division at once through
`matches.creation.create_match` (marked `competition="league"`), and closes when its last
game has ended; the next starts `break_days` later, by the worker (`advance`). Locks: the
league row first (`FOR UPDATE`), then matches through the door; the door never takes a
league, so the two cannot deadlock.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any, ClassVar

from pbem.core.accounts.models import Player
from pbem.core.admin.players import check_may_challenge
from pbem.core.db.connection import locking, write_transaction
from pbem.core.db.retry import retrying
from pbem.core.leagues import mail, plan, spec
from pbem.core.leagues.models import (
    League,
    LeagueDivision,
    LeagueGame,
    LeagueMember,
    LeagueSeason,
    LeagueStatus,
)
from pbem.core.leagues.results import division_results, refresh_division
from pbem.core.matches.changes import Change, Locked, apply_within, deadline_now
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match, MatchStatus
from pbem.core.ratings.models import Rating
from pbem.errors import ConflictError, NotFoundError, UnprocessableError
from pbem.i18n import _

log = logging.getLogger(__name__)


def create_league(organiser: Player, body: Mapping[str, Any], now: datetime) -> League:
    check_may_challenge(organiser)
    common = spec.common(body)
    # Every size given is held to its documented range, used or not (a two-player league has
    # no tables), so a request the API description refuses is refused here as well.
    for name, low, high in (("division_size", 3, 12), ("table_size", 3, 4),
                            ("tables_per_division", 1, 4)):
        if name in body:
            spec.whole(body[name], name, low, high)
    if common.table_size:
        tables = spec.whole(body.get("tables_per_division", 3), "tables_per_division", 1, 4)
        size = common.table_size * tables
    else:
        size = spec.whole(body.get("division_size", 8), "division_size", 3, 12)
    promote = spec.whole(body.get("promote", 2), "promote", 0, size // 2)
    relegate = spec.whole(body.get("relegate", 2), "relegate", 0, size // 2)
    season_days = spec.whole(body.get("season_days", 60), "season_days", 7, 365)
    break_days = spec.whole(body.get("break_days", 7), "break_days", 0, 90)
    start_days = spec.whole(body.get("start_days", break_days), "start_days", 0, 90)
    with write_transaction():
        return League.create(
            name=common.name, organiser=organiser, game=common.game, options=common.options,
            time_control=common.time_control, on_timeout=common.on_timeout,
            rated=common.rated, division_size=size, table_size=common.table_size,
            promote=promote, relegate=relegate, season_days=season_days,
            break_days=break_days, next_season_at=now + timedelta(days=start_days),
            created_at=now)


def get_league(league_id: int) -> League:
    found = League.get_or_none(League.id == league_id)
    if found is None:
        raise NotFoundError(_("There is no league %(league)s.", league=league_id))
    return found


def lock_league(league_id: int) -> League:
    found = locking(League.select().where(League.id == league_id)).first()
    if found is None:
        raise NotFoundError(_("There is no league %(league)s.", league=league_id))
    return found


def join(league_id: int, player: Player, now: datetime) -> LeagueMember:
    """Join (or come back to) a league: the next season seats the player, in the lowest
    division (the first season: by rating)."""
    with write_transaction():
        league = lock_league(league_id)
        member = LeagueMember.get_or_none(LeagueMember.league == league,
                                          LeagueMember.player == player)
        if member is not None and member.left_at is None:
            raise ConflictError(_("You are in this league already."))
        if member is None:
            member = LeagueMember.create(league=league, player=player, joined_at=now)
        else:
            LeagueMember.update(left_at=None, joined_at=now).where(
                LeagueMember.id == member.id).execute()
        _bump(league)
        return member


def leave(league_id: int, player: Player, now: datetime) -> None:
    """Leave a league: the season in play is played out; the next one goes on without you."""
    with write_transaction():
        league = lock_league(league_id)
        updated = (LeagueMember.update(left_at=now)
                   .where(LeagueMember.league == league, LeagueMember.player == player,
                          LeagueMember.left_at.is_null()).execute())
        if not updated:
            raise ConflictError(_("You are not in this league."))
        _bump(league)


@dataclass
class SeasonReport:
    started: int = 0
    closed: int = 0
    games: int = 0
    expired: int = 0  # ladder challenges decided for not being accepted in time
    deadlines: int = 0  # games whose late seats were made due at their season's end


def advance(secret_key: str, now: datetime) -> SeasonReport:
    """The worker's job: close each season whose games are all over, and start each season
    that is due; each league in its own transaction."""
    report = SeasonReport()
    for row in League.select(League.id).order_by(League.id):
        try:
            retrying(partial(_advance_one, row.id, secret_key, now, report), "busy league")
        except Exception:
            # One league's trouble must not stop the others; the next tick tries again.
            log.exception("league %s: could not advance", row.id)
    return report


def _advance_one(league_id: int, secret_key: str, now: datetime, report: SeasonReport) -> None:
    with write_transaction():
        league = lock_league(league_id)
        if league.status == LeagueStatus.RUNNING:
            report.deadlines += _season_deadline(league, now)
        if league.status == LeagueStatus.RUNNING and _season_over(league):
            close_season(league, now)
            report.closed += 1
        if (league.status in (LeagueStatus.OPEN, LeagueStatus.BREAK)
                and league.next_season_at is not None and league.next_season_at <= now):
            report.games += start_season(league, secret_key, now)
            report.started += 1


def current_season(league: League) -> LeagueSeason | None:
    return (LeagueSeason.select().where(LeagueSeason.league == league)
            .order_by(LeagueSeason.number.desc()).first())


def divisions_of(season: LeagueSeason) -> list[LeagueDivision]:
    return list(LeagueDivision.select().where(LeagueDivision.season == season)
                .order_by(LeagueDivision.number))


def _season_over(league: League) -> bool:
    season = current_season(league)
    if season is None:
        return False
    live = (LeagueGame.select().join(Match).join_from(LeagueGame, LeagueDivision)
            .where(LeagueDivision.season == season, Match.status == MatchStatus.ACTIVE))
    return not live.exists()


@dataclass(frozen=True, kw_only=True)
class SeasonDeadline(Change):
    """The league season's last day has come: every seat of the game that owes a move is due
    now, and the match's own timeout policy settles it at the next sweep (as for any late
    seat), so a season ends within a sweep of `season_days`."""

    kind: ClassVar[str] = "season-deadline"
    season: int = 0

    def apply(self, door: Locked) -> bool:
        """True once applied (or the match is over); False while an admin has the match
        paused: the season waits for it."""
        return deadline_now(door)


def _season_deadline(league: League, now: datetime) -> int:
    """At the season's end (`ends_at`), bring every live game's late seats due, once."""
    season = current_season(league)
    if season is None or season.deadline_applied or season.ends_at > now:
        return 0
    live = (LeagueGame.select(LeagueGame.match).join(Match).join_from(LeagueGame, LeagueDivision)
            .where(LeagueDivision.season == season, Match.status == MatchStatus.ACTIVE)
            .order_by(LeagueGame.match))
    touched, waiting = 0, False
    for row in live:
        if apply_within(row.match_id, SeasonDeadline(season=season.number), now):
            touched += 1
        else:
            waiting = True
    if not waiting:
        LeagueSeason.update(deadline_applied=True).where(LeagueSeason.id == season.id).execute()
    return touched


def start_season(league: League, secret_key: str, now: datetime) -> int:
    """Draw the season's divisions and create every game (the league locked by the caller).
    Returns how many games were made; a league with too few players waits another break."""
    number = league.season + 1
    drawn, hold = seating(league)
    if league.table_size:
        drawn = plan.fit_tables(drawn)
    if not drawn or any(not plan.playable(len(d), league.table_size) for d in drawn):
        _bump(league, next_season_at=now + timedelta(days=max(league.break_days, 1)))
        return 0
    season = LeagueSeason.create(league=league, number=number, started_at=now,
                                 ends_at=now + timedelta(days=league.season_days),
                                 on_hold=sorted(hold))
    people = {p.id: p for p in Player.select()
              .where(Player.id.in_([p for d in drawn for p in d]))}
    made = 0
    for place, players in enumerate(drawn, start=1):
        division = LeagueDivision.create(season=season, number=place, players=players)
        games = plan.schedule(players, league.table_size, season.id * 1000 + place)
        for seats in games:
            created = create_match(league.game, [people[p].email for p in seats],
                                   league.options, secret_key, now,
                                   time_control=league.time_control,
                                   on_timeout=league.on_timeout, rated=bool(league.rated),
                                   competition="league")
            LeagueGame.create(division=division, players=list(seats), match=created.match.id)
            made += 1
        refresh_division(division)
        mail.queue_season_started(league, number, place, [people[p] for p in players],
                                  len(games) * (league.table_size or 2) // len(players), now)
    _bump(league, season=number, status=LeagueStatus.RUNNING, next_season_at=None)
    return made


def seating(league: League) -> tuple[list[list[int]], set[int]]:
    """The next season's divisions and who sits it out (on hold), from what happened."""
    members = list(LeagueMember.select().where(LeagueMember.league == league)
                   .order_by(LeagueMember.joined_at, LeagueMember.id))
    staying = [m.player_id for m in members if m.left_at is None]
    leaving = {m.player_id for m in members if m.left_at is not None}
    last = current_season(league)
    if last is None:
        return plan.seed_divisions(_by_rating(league.game, staying), league.division_size), set()
    tables, hold = season_outcome(league, last)
    seated = {p for table in tables for p in table}
    arriving = [p for p in staying if p not in seated]  # new, or back from a season on hold
    drawn = plan.next_divisions(tables, league.promote, league.relegate, league.division_size,
                                leaving, hold, arriving)
    return drawn, hold


def season_outcome(league: League, season: LeagueSeason) -> tuple[list[list[int]], set[int]]:
    """Each division's players best first (derived from its games now), and who timed out of
    more than half of their games."""
    tables: list[list[int]] = []
    hold: set[int] = set()
    for division in divisions_of(season):
        results, scheduled = division_results(division)
        standings = plan.division_standings(division.players, results, bool(league.table_size))
        tables.append([s.player for s in standings])
        hold |= plan.timed_out_of_most(division.players, results, Counter(scheduled))
    return tables, hold


def close_season(league: League, now: datetime) -> None:
    season = current_season(league)
    if season is None:
        raise UnprocessableError(_("This league has no season to close."))
    hold = season_outcome(league, season)[1]
    divisions = divisions_of(season)
    for division in divisions:
        rows = refresh_division(division)
        moves = plan.moves([row["player"] for row in rows], division.number, len(divisions),
                           league.promote, league.relegate)
        moves.update({p: "hold" for p in hold if p in division.players})
        people = {p.id: p for p in Player.select().where(Player.id.in_(division.players))}
        mail.queue_season_ended(league, season.number, division.number,
                                [(row["rank"], people[row["player"]], row["points"])
                                 for row in rows], moves, now)
    LeagueSeason.update(finished_at=now).where(LeagueSeason.id == season.id).execute()
    _bump(league, status=LeagueStatus.BREAK,
          next_season_at=now + timedelta(days=league.break_days))


def _by_rating(game: str, players: list[int]) -> list[int]:
    rating = {row.player_id: row.mu for row in Rating.select(Rating.player, Rating.mu)
              .where(Rating.game == game, Rating.player.in_(players))}
    # A player new to the game has no rating: after those who have one, in order of joining.
    return sorted(players, key=lambda p: (p not in rating, -rating.get(p, 0.0)))


def _bump(league: League, **changes: Any) -> None:
    changes["version"] = league.version + 1
    League.update(**changes).where(League.id == league.id).execute()
    for name, value in changes.items():
        setattr(league, name, value)
