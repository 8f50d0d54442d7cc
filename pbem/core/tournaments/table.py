"""Reading a tournament back: its standings from its pairings, its description for the API and
the pages, its crosstable and its knockout bracket."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import peewee

from pbem.core.accounts.models import Player
from pbem.core.db.prepared import Prepared, ReadAhead
from pbem.core.mailout.calendar import Deadline
from pbem.core.matches.models import Match, MatchStatus
from pbem.core.tournaments import standings as table
from pbem.core.tournaments.models import (
    EntryStatus,
    Pairing,
    RoundStatus,
    Tournament,
    TournamentEntry,
    TournamentRound,
    TournamentStatus,
)
from pbem.core.tournaments.pairing import knockout_tie, rank_points
from pbem.core.tournaments.standings import Game, Standing
from pbem.games import get_rules
from pbem.i18n import _, current, format_time

# The API's three states (and cancelled): a paused tournament is still running.
PUBLIC_STATUS: dict[str, str] = {TournamentStatus.PAUSED: "running"}


def pairings_of(tournament: Tournament) -> list[Pairing]:
    """The tournament's pairings as they stand now, by board and game. A game whose match has
    ended counts at once: its result is read from the match here (`result_into`), before the
    worker's next pass writes the same into the pairing and closes the round, so standings
    never lag a finished match."""
    rows = list(Pairing.select(Pairing, Match)
                .join(Match, peewee.JOIN.LEFT_OUTER, on=(Pairing.match == Match.id))
                .where(Pairing.tournament == tournament).order_by(Pairing.board, Pairing.game))
    for row in rows:
        match = row.match if row.match_id is not None else None
        if match is not None and not row.finished and match.status != MatchStatus.ACTIVE:
            result_into(row, match)
    return rows


def result_into(row: Pairing, match: Match) -> None:
    """Set a pairing's result (in memory) from its match, which has ended: the tournament
    points by finishing place (`pairing.rank_points`) and, for a knockout, the game's winner;
    an aborted match scores nobody and counts as not played."""
    if match.status == MatchStatus.FINISHED and match.result:
        winners = match.result.get("winners", [])
        row.points = rank_points(winners, match.result.get("scores") or [0.0] * len(
            row.players))
        row.winner = row.players[winners[0]] if len(winners) == 1 else None
    else:
        row.points, row.winner, row.played = [0.0] * len(row.players), None, False
    row.finished = True


def games_of(tournament: Tournament, pairings: list[Pairing] | None = None,
             numbers: dict[int, int] | None = None) -> list[Game]:
    """The finished games as standings see them. A knockout counts ties: a tie won is a
    point (a bye or a walkover too), so players knocked out in the same round are level."""
    if pairings is None:
        pairings = pairings_of(tournament)
    if numbers is None:
        numbers = {r.id: r.number for r in TournamentRound.select()
                   .where(TournamentRound.tournament == tournament)}
    if tournament.format != "knockout":
        return [Game(numbers[p.round_id], tuple(p.players), tuple(p.points), p.played)
                for p in pairings if p.finished and p.points is not None]
    found = []
    for (number, _board), (rows, winner) in sorted(
            knockout_ties(tournament, pairings, numbers).items()):
        if len(rows[0].players) == 1:
            found.append(Game(number, (rows[0].players[0],), (1.0,), played=False))
        elif winner is not None:
            loser = next(p for p in rows[0].players if p != winner)
            found.append(Game(number, (winner, loser), (1.0, 0.0), rows[-1].played))
    return found


def knockout_ties(tournament: Tournament, pairings: list[Pairing] | None = None,
                  numbers: dict[int, int] | None = None
                  ) -> dict[tuple[int, int], tuple[list[Pairing], int | None]]:
    """Each knockout tie by (round, board): its games in order and who went through (None
    while it is undecided)."""
    if pairings is None:
        pairings = pairings_of(tournament)
    if numbers is None:
        numbers = {r.id: r.number for r in TournamentRound.select()
                   .where(TournamentRound.tournament == tournament)}
    active = {e.id for e in TournamentEntry.select(TournamentEntry.id)
              .where(TournamentEntry.tournament == tournament,
                     TournamentEntry.status == EntryStatus.ACTIVE)}
    ties: dict[tuple[int, int], list[Pairing]] = {}
    for row in sorted(pairings, key=lambda p: p.game):
        ties.setdefault((numbers[row.round_id], row.board), []).append(row)
    return {key: (rows, tie_winner(rows, tournament.max_replays, active))
            for key, rows in ties.items()}


def tie_winner(rows: list[Pairing], max_replays: int, active: set[int]) -> int | None:
    """Who went through a knockout tie: a bye or walkover's player; the last game's winner;
    the one still in the tournament if the other left during a drawn tie; after the last
    replay allowed was drawn too, the higher seed (`pairing.knockout_tie`). None while a game
    is in play or a replay is due."""
    first = rows[0].players
    if len(first) == 1:
        return int(first[0])
    last = rows[-1]
    if not last.finished:
        return None
    if last.winner is not None:
        return int(last.winner)
    high, low = first
    staying = [p for p in (high, low) if p in active]
    if len(staying) < 2:
        return int(staying[0]) if staying else int(high)
    state = knockout_tie(high, low, [(tuple(g.players), g.winner) for g in rows], max_replays)
    return state.winner


def standings_of(tournament: Tournament) -> list[Standing]:
    entries = list(TournamentEntry.select().where(TournamentEntry.tournament == tournament)
                   .order_by(TournamentEntry.seed, TournamentEntry.joined_at,
                             TournamentEntry.id))
    ids = [e.id for e in entries]
    games = games_of(tournament)
    rounds = max((g.round for g in games), default=0)
    return table.standings(tournament.format, ids, games, rounds, seed_order=ids)


def describe(tournament: Tournament, detail: bool = True) -> dict[str, Any]:
    """The API's shape (`GET /api/tournaments/<id>`); the pages add to it."""
    entries = list(TournamentEntry.select(TournamentEntry, Player).join(Player)
                   .where(TournamentEntry.tournament == tournament)
                   .order_by(TournamentEntry.joined_at, TournamentEntry.id))
    names = {e.id: e.player.public_name for e in entries}
    status = PUBLIC_STATUS.get(str(tournament.status), str(tournament.status))
    found: dict[str, Any] = {
        "id": tournament.id, "name": tournament.name, "game": tournament.game,
        "title": get_rules(tournament.game).title, "format": tournament.format,
        "status": status, "paused": tournament.status == TournamentStatus.PAUSED,
        "organiser": tournament.organiser.public_name, "clock": tournament.time_control,
        "on_timeout": tournament.on_timeout, "options": tournament.options,
        "round_days": tournament.round_days,
        "rounds_planned": tournament.rounds, "min_players": tournament.min_players,
        "max_players": tournament.max_players, "rated": tournament.rated,
        "invitation_only": tournament.invitation_only,
        "starts_at": _iso(tournament.starts_at), "started_at": _iso(tournament.started_at),
        "finished_at": _iso(tournament.finished_at),
        "players": [{"name": names[e.id], "status": e.status, "seed": e.seed}
                    for e in entries],
    }
    if not detail:
        return found
    round_rows = list(TournamentRound.select().where(TournamentRound.tournament == tournament)
                      .order_by(TournamentRound.number))
    numbers = {r.id: r.number for r in round_rows}
    pairings = pairings_of(tournament)
    by_round: dict[int, list[Pairing]] = {}
    for row in pairings:
        by_round.setdefault(row.round_id, []).append(row)
    found["rounds"] = [{
        "number": r.number, "status": r.status, "deadline": _iso(r.deadline),
        "pairings": [_pairing(p, names) for p in by_round.get(r.id, [])],
    } for r in round_rows]
    games = games_of(tournament, pairings, numbers)
    rounds = max((g.round for g in games), default=0)
    seeded = sorted(entries, key=lambda e: (e.seed or 0, e.joined_at, e.id))
    ids = [e.id for e in seeded]
    found["standings"] = [{
        "rank": s.rank, "player": names[s.player], "points": s.points,
        "tiebreaks": s.tiebreaks,
    } for s in table.standings(tournament.format, ids, games, rounds, seed_order=ids)]
    return found


def _pairing(row: Pairing, names: dict[int, str]) -> dict[str, Any]:
    return {
        "board": row.board, "game": row.game, "match": row.match_id,
        "players": [names.get(p, "?") for p in row.players],
        "result": row.points if row.finished else None,
        "bye": len(row.players) == 1, "forfeit": row.finished and not row.played
        and len(row.players) > 1,
    }


def crosstable(tournament: Tournament) -> dict[str, Any]:
    """A round robin's crosstable: for each pair of players, the points each scored against
    the other (a double round robin's two games summed), None where they have not played."""
    entries = list(TournamentEntry.select(TournamentEntry, Player).join(Player)
                   .where(TournamentEntry.tournament == tournament)
                   .order_by(TournamentEntry.seed, TournamentEntry.id))
    ids = [e.id for e in entries]
    cells: dict[tuple[int, int], float] = {}
    for game in games_of(tournament):
        if len(game.players) != 2:
            continue
        (a, b), (pa, pb) = game.players, game.points
        cells[(a, b)] = cells.get((a, b), 0.0) + pa
        cells[(b, a)] = cells.get((b, a), 0.0) + pb
    return {"players": [e.player.public_name for e in entries],
            "rows": [[cells.get((a, b)) if a != b else "x" for b in ids] for a in ids]}


def bracket(tournament: Tournament) -> list[list[dict[str, Any]]]:
    """A knockout's ties, round by round in bracket order: each with its two players (None
    for a bye), its winner, and its games' match ids."""
    names = {e.id: e.player.public_name for e in TournamentEntry.select(TournamentEntry, Player)
             .join(Player).where(TournamentEntry.tournament == tournament)}
    ties = knockout_ties(tournament)
    rounds: list[list[dict[str, Any]]] = []
    for (number, _board), (rows, winner) in sorted(ties.items()):
        while len(rounds) < number:
            rounds.append([])
        rounds[number - 1].append({
            "players": [names.get(p) for p in rows[0].players] + (
                [None] if len(rows[0].players) == 1 else []),
            "winner": names.get(winner) if winner is not None else None,
            "matches": [r.match_id for r in rows if r.match_id],
        })
    return rounds


def live_matches(tournament: Tournament) -> list[dict[str, Any]]:
    """The tournament's matches in play, for the organiser's forms: each with its round and
    its players in seat order."""
    names = {e.id: e.player.public_name for e in TournamentEntry.select(TournamentEntry, Player)
             .join(Player).where(TournamentEntry.tournament == tournament)}
    rows = (Pairing.select(Pairing, TournamentRound).join(TournamentRound)
            .switch(Pairing).join(Match, on=(Pairing.match == Match.id))
            .where(Pairing.tournament == tournament, Match.status == MatchStatus.ACTIVE)
            .order_by(TournamentRound.number, Pairing.board, Pairing.game))
    found = []
    for row in rows:
        players = [names.get(p, "?") for p in row.players]
        found.append({"match": row.match_id, "round": row.round.number,
                      "players": players})
    return found


def tournament_of_match(match_id: int) -> dict[str, Any] | None:
    """The tournament a match belongs to, for its pages: `{"id", "name", "round"}` (the round's
    number), or None. One compiled statement: every play page asks."""
    found = _TOURNAMENT_OF.first(match_id)
    if found is None:
        return None
    tournament_id, name, number = found
    return {"id": tournament_id, "name": name, "round": number}


def tournament_of_match_ahead(match_id: int) -> ReadAhead:
    """`tournament_of_match`'s read, to send ahead (`pipeline.read_ahead`)."""
    return _TOURNAMENT_OF.ahead(match_id)


_TOURNAMENT_OF = Prepared(lambda match_id: Pairing.select(
    Tournament.id, Tournament.name, TournamentRound.number)
    .join(Tournament).switch(Pairing).join(TournamentRound)
    .where(Pairing.match == match_id).limit(1).tuples())


def round_deadlines(player: Player, now: datetime) -> list[Deadline]:
    """The deadlines of the running rounds of the player's tournaments still ahead, for their
    calendar feed (the matches' own deadlines are in it already)."""
    rows = (TournamentRound.select(TournamentRound, Tournament).join(Tournament)
            .join(TournamentEntry, on=(TournamentEntry.tournament == Tournament.id))
            .where(TournamentEntry.player == player.id,
                   TournamentEntry.status == EntryStatus.ACTIVE,
                   TournamentRound.status == RoundStatus.RUNNING,
                   TournamentRound.deadline > now)
            .order_by(TournamentRound.deadline))
    found = []
    for row in rows:
        if row.deadline is None:
            continue
        name = row.tournament.name
        # English keeps the feed's own form of the time; other languages their locale's.
        when = (f"{row.deadline:%a %d %b %Y, %H:%M} UTC" if current() == "en"
                else format_time(row.deadline))
        found.append(Deadline(
            uid=f"round.t{row.tournament_id}.r{row.number}", due=row.deadline,
            summary=_("Round %(number)s ends: %(name)s", number=row.number, name=name),
            description=_("Round %(number)s of the tournament %(name)s ends at %(when)s; "
                          "matches still running then go to their timeout rule.",
                          number=row.number, name=name, when=when),
            path=f"/tournaments/{row.tournament_id}#round-{row.number}"))
    return found


def of_player(player: Player) -> list[dict[str, Any]]:
    """The latest 20 tournaments a player is in or organises that are not over, newest first,
    for their home page: each with its name, game, status and whether they organise it."""
    return [{"id": t.id, "name": t.name, "title": get_rules(t.game).title,
             "status": str(t.status), "organiser": t.organiser_id == player.id}
            for t in _OF_PLAYER.rows(player.id)]


def of_player_ahead(player: Player) -> ReadAhead:
    """`of_player`'s read, to send ahead (`pipeline.read_ahead`)."""
    return _OF_PLAYER.ahead(player.id)


def _of_player(player_id: Any) -> Any:
    live = (TournamentStatus.OPEN, TournamentStatus.RUNNING, TournamentStatus.PAUSED)
    entered = TournamentEntry.select(TournamentEntry.tournament).where(
        TournamentEntry.player == player_id)
    return (Tournament.select().where(Tournament.status.in_(live),
                                      (Tournament.id.in_(entered))
                                      | (Tournament.organiser == player_id))
            .order_by(Tournament.id.desc()).limit(20))


# Read on every visit to a player's home page (/me): compiled once.
_OF_PLAYER = Prepared(_of_player)


def listing(status: str | None = None, limit: int = 100) -> list[Tournament]:
    query = Tournament.select().order_by(Tournament.id.desc()).limit(limit)
    if status == "running":
        query = query.where(Tournament.status.in_([TournamentStatus.RUNNING,
                                                   TournamentStatus.PAUSED]))
    elif status:
        query = query.where(Tournament.status == status)
    return list(query)


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat() + "Z"
