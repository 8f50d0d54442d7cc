"""Running tournaments: start them, pair each round when the last is over, end them.

`advance` is the worker's job (and what `start` calls): for each tournament that may need it,
it takes the tournament's row lock, reads the results of its matches, and then, only if the
state still calls for it, starts the tournament, brings a round's deadline down on its
running matches, pairs the next round (or a knockout replay) or ends it. Several workers may
run it at once: the second to take the lock finds the work done, and the unique index on
(tournament, round number) stands behind that. Every match is created by
`matches.create_match`, the one way any match is born; a new round's matches and their mail
are written in the same transaction as the round.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any, ClassVar

from pbem.core.accounts.models import Player
from pbem.core.db.connection import write_transaction
from pbem.core.db.retry import retrying
from pbem.core.matches.changes import Change, Locked, apply_within, deadline_now
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import ChangeLog, Match, MatchStatus
from pbem.core.ratings.queries import displayed
from pbem.core.tournaments import mail as tournament_mail
from pbem.core.tournaments import pairing as pair
from pbem.core.tournaments.models import (
    EntryStatus,
    Pairing,
    RoundStatus,
    Tournament,
    TournamentEntry,
    TournamentRound,
    TournamentStatus,
)
from pbem.core.tournaments.service import Organising, bump, check_organiser, lock_tournament
from pbem.core.tournaments.table import knockout_ties, result_into, standings_of
from pbem.errors import ConflictError
from pbem.i18n import _

log = logging.getLogger(__name__)


@dataclass
class Batch:
    """What a round's new games leave to write at its end, in one statement each: the pairing
    rows, and each player's new seats (match id, seat) for their one mail."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    links: dict[int, list[tuple[int, int]]] = field(default_factory=dict)

    def flush(self) -> None:
        for start in range(0, len(self.rows), 500):
            Pairing.insert_many(self.rows[start:start + 500]).execute()
        self.rows.clear()


@dataclass
class AdvanceReport:
    started: int = 0
    rounds: int = 0
    replays: int = 0
    finished: int = 0
    cancelled: int = 0
    deadlines: int = 0


def start(tournament_id: int, by: Organising, secret_key: str, now: datetime) -> Tournament:
    """The organiser (or an admin) starts an open tournament now, with the players it has."""
    def once() -> Tournament:
        with write_transaction():
            tournament = lock_tournament(tournament_id)
            check_organiser(tournament, by)
            if tournament.status != TournamentStatus.OPEN:
                raise ConflictError(_("This tournament has already started."))
            count = len(_active(tournament))
            if count < tournament.min_players:
                raise ConflictError(_("This tournament needs at least %(least)s players to "
                                      "start; it has %(count)s.",
                                      least=tournament.min_players, count=count))
            _start(tournament, secret_key, now)
            return tournament
    return retrying(once, _("This tournament is very busy right now; try again."))


def advance(secret_key: str, now: datetime) -> AdvanceReport:
    """The worker's job: everything due in every tournament, each in its own transaction."""
    report = AdvanceReport()
    due = (Tournament.select(Tournament.id)
           .where(Tournament.status.in_([TournamentStatus.OPEN, TournamentStatus.RUNNING]))
           .order_by(Tournament.id))
    for row in due:
        try:
            retrying(partial(_advance_one, row.id, secret_key, now, report),
                     "busy tournament")
        except Exception:
            # One tournament's trouble (a game that refuses its options now) must not stop
            # the others; it is retried on the next tick and the log says why.
            log.exception("tournament %s: could not advance", row.id)
    return report


def _advance_one(tournament_id: int, secret_key: str, now: datetime,
                 report: AdvanceReport) -> None:
    with write_transaction():
        tournament = lock_tournament(tournament_id)
        if tournament.status == TournamentStatus.OPEN:
            _maybe_start(tournament, secret_key, now, report)
            return
        if tournament.status != TournamentStatus.RUNNING:
            return
        _collect_results(tournament)
        report.deadlines += _apply_deadlines(tournament, now)
        # A round can be over as soon as it is paired (a knockout round of walkovers): then
        # the next is paired at once, not a tick later. Each pass pairs a round, so a bound
        # of the rounds a tournament can have is a bound on the passes.
        for _pass in range(MAX_PASSES):
            if not _step(tournament, secret_key, now, report):
                return


MAX_PASSES = 64


def _step(tournament: Tournament, secret_key: str, now: datetime,
          report: AdvanceReport) -> bool:
    """Close what is over, then end the tournament or pair its next round. True when a round
    was paired (it may be over already)."""
    current = _rounds(tournament)
    if any(r.status == RoundStatus.RUNNING for r in current):
        if tournament.format == "knockout":
            report.replays += _replays(tournament, current[-1], secret_key, now)
        _close_rounds(tournament, current, now)
        current = _rounds(tournament)
        if any(r.status == RoundStatus.RUNNING for r in current):
            return False
    if _is_over(tournament, current):
        _finish(tournament, now)
        report.finished += 1
        return False
    _pair_next(tournament, len(current) + 1, secret_key, now)
    report.rounds += 1
    return True


def _maybe_start(tournament: Tournament, secret_key: str, now: datetime,
                 report: AdvanceReport) -> None:
    count = len(_active(tournament))
    due = (tournament.starts_at is not None and tournament.starts_at <= now) or (
        tournament.starts_at is None and count >= tournament.max_players)
    if not due:
        return
    if count < tournament.min_players or (tournament.format == "tables" and count == 5):
        bump(tournament, status=TournamentStatus.CANCELLED, finished_at=now)
        tournament_mail.queue_cancelled(tournament, [e.player for e in _active(tournament)],
                                        count, now)
        report.cancelled += 1
        return
    _start(tournament, secret_key, now)
    report.started += 1


def _start(tournament: Tournament, secret_key: str, now: datetime) -> None:
    active = _active(tournament)
    if tournament.format == "tables" and len(active) == 5:
        raise ConflictError(_("Five players cannot sit at tables of three and four: wait for "
                              "a sixth, or start with four."))
    # Seeds: by each player's rating in the game at the start (a player new to the game
    # has the starting rating), ties by the order they joined.
    for entry in active:
        entry.rating = float(displayed(entry.player_id, tournament.game))
        TournamentEntry.update(rating=entry.rating).where(
            TournamentEntry.id == entry.id).execute()
    if all(e.rating is not None for e in active):
        active.sort(key=lambda e: (-(e.rating or 0.0), e.joined_at, e.id))
    for number, entry in enumerate(active, start=1):
        TournamentEntry.update(seed=number).where(TournamentEntry.id == entry.id).execute()
        entry.seed = number
    rounds = tournament.rounds
    if tournament.format in ("round-robin", "double-round-robin"):
        rounds = (len(active) - 1 + len(active) % 2) * (
            2 if tournament.format == "double-round-robin" else 1)
    elif tournament.format == "knockout":
        rounds = pair.knockout_rounds(len(active))
    bump(tournament, status=TournamentStatus.RUNNING, started_at=now, rounds=rounds)
    tournament_mail.queue_started(tournament, [e.player for e in active], now)
    if tournament.format in ("round-robin", "double-round-robin"):
        _start_round_robin(tournament, active, secret_key, now)
    else:
        _pair_next(tournament, 1, secret_key, now)


def _start_round_robin(tournament: Tournament, active: list[TournamentEntry], secret_key: str,
                       now: datetime) -> None:
    """Every round of a round robin at once, all its matches started together."""
    schedule = pair.round_robin([e.id for e in active],
                                double=tournament.format == "double-round-robin")
    deadline = now + timedelta(days=tournament.round_days)
    by_id = {e.id: e for e in active}
    batch = Batch()
    for number, pairs in enumerate(schedule, start=1):
        round_row = TournamentRound.create(tournament=tournament, number=number,
                                           started_at=now, deadline=deadline)
        for board, seats in enumerate(pairs, start=1):
            _create_game(tournament, round_row, board, 1, seats, by_id, secret_key, now, batch)
    bump(tournament, current_round=len(schedule))
    batch.flush()
    tournament_mail.queue_round(tournament, None, batch.links, now)


def _pair_next(tournament: Tournament, number: int, secret_key: str, now: datetime) -> None:
    active = _active(tournament)
    by_id = {e.id: e for e in active}
    round_row = TournamentRound.create(tournament=tournament, number=number, started_at=now,
                                       deadline=now + timedelta(days=tournament.round_days))
    batch = Batch()
    if tournament.format == "swiss":
        found = pair.swiss_round(_swiss_players(tournament, active))
        for board, pair_seats in enumerate(found.pairs, start=1):
            _create_game(tournament, round_row, board, 1, pair_seats, by_id, secret_key, now,
                         batch)
        if found.bye is not None:
            Pairing.create(tournament=tournament, round=round_row, board=len(found.pairs) + 1,
                           players=[found.bye], points=[1.0], played=False, finished=True)
    elif tournament.format == "tables":
        players = _swiss_players(tournament, active, count_firsts=True)
        bye = None
        if len(players) == 5:  # a withdrawal left five: the lowest sits out, for half a point
            bye = players.pop().player
        for board, seats in enumerate(pair.tables_round(players, _met(tournament)), start=1):
            _create_game(tournament, round_row, board, 1, seats, by_id, secret_key, now, batch)
        if bye is not None:
            Pairing.create(tournament=tournament, round=round_row, board=len(players) // 3 + 2,
                           players=[bye], points=[0.5], played=False, finished=True)
    else:
        _pair_knockout(tournament, round_row, by_id, secret_key, now, batch)
    bump(tournament, current_round=number)
    batch.flush()
    tournament_mail.queue_round(tournament, number, batch.links, now)


def _pair_knockout(tournament: Tournament, round_row: TournamentRound,
                   by_id: dict[int, TournamentEntry], secret_key: str, now: datetime,
                   batch: Batch) -> None:
    seeds = {e.id: e.seed or 0 for e in TournamentEntry.select()
             .where(TournamentEntry.tournament == tournament)}
    if round_row.number == 1:
        ties: list[tuple[int, int | None]] = list(pair.knockout_first_round(
            sorted(by_id, key=lambda entry_id: seeds[entry_id])))
    else:
        ties = list(pair.next_knockout_round(_tie_winners(tournament, round_row.number - 1),
                                             seeds))
    for board, (high, low) in enumerate(ties, start=1):
        # A bye, or a tie against a player who has withdrawn since: a walkover.
        alive = [p for p in (high, low) if p is not None and p in by_id]
        if len(alive) < 2:
            through = alive[0] if alive else high
            Pairing.create(tournament=tournament, round=round_row, board=board, game=1,
                           players=[through], points=[1.0], winner=through, played=False,
                           finished=True)
        else:
            _create_game(tournament, round_row, board, 1, alive, by_id, secret_key, now, batch)


def _replays(tournament: Tournament, round_row: TournamentRound, secret_key: str,
             now: datetime) -> int:
    """A knockout game drawn: the tie is replayed with seats swapped, up to `max_replays`
    times; then the higher seed goes through (`_close_rounds` reads it from the games)."""
    by_board: dict[int, list[Pairing]] = {}
    for row in Pairing.select().where(Pairing.round == round_row).order_by(Pairing.game):
        by_board.setdefault(row.board, []).append(row)
    by_id = {e.id: e for e in _active(tournament)}
    made = 0
    batch = Batch()
    for board, games in sorted(by_board.items()):
        if not all(g.finished for g in games) or games[-1].winner is not None:
            continue
        first = games[0].players
        state = pair.knockout_tie(first[0], first[1],
                                  [(tuple(g.players), g.winner) for g in games],
                                  tournament.max_replays)
        if state.next_game is None or any(p not in by_id for p in state.next_game):
            continue
        _create_game(tournament, round_row, board, len(games) + 1, state.next_game, by_id,
                     secret_key, now, batch)
        made += 1
    batch.flush()
    if made:
        tournament_mail.queue_round(tournament, round_row.number, batch.links, now)
    return made


def _create_game(tournament: Tournament, round_row: TournamentRound, board: int, game: int,
                 seats: Sequence[int], by_id: dict[int, TournamentEntry], secret_key: str,
                 now: datetime, batch: Batch) -> None:
    emails = [by_id[entry_id].player.email for entry_id in seats]
    created = create_match(tournament.game, emails, tournament.options, secret_key, now,
                           time_control=tournament.time_control,
                           on_timeout=tournament.on_timeout, announce=False,
                           rated=bool(tournament.rated))
    batch.rows.append({"tournament": tournament.id, "round": round_row.id, "board": board,
                       "game": game, "players": list(seats), "match": created.match.id,
                       "played": True, "finished": False})
    for number, entry_id in enumerate(seats):
        batch.links.setdefault(by_id[entry_id].player_id, []).append((created.match.id,
                                                                      number))


def _collect_results(tournament: Tournament) -> None:
    """Read each finished match of the tournament into its pairing: the tournament points by
    finishing place (`pairing.rank_points`), and for a knockout the game's winner."""
    rows = (Pairing.select(Pairing, Match).join(Match, on=(Pairing.match == Match.id))
            .where(Pairing.tournament == tournament, Pairing.finished == False,  # noqa: E712
                   Match.status != MatchStatus.ACTIVE))
    for row in rows:
        match = row.match
        if match is None:  # joined on the match: cannot happen, but the type allows it
            continue
        result_into(row, match)  # as the pages read it meanwhile (`table.pairings_of`)
        Pairing.update(points=row.points, winner=row.winner, finished=True,
                       played=row.played).where(Pairing.id == row.id).execute()


def _close_rounds(tournament: Tournament, rounds: list[TournamentRound], now: datetime) -> None:
    for round_row in rounds:
        if round_row.status != RoundStatus.RUNNING:
            continue
        games = list(Pairing.select().where(Pairing.round == round_row))
        if not all(g.finished for g in games):
            continue
        if tournament.format == "knockout" and not _knockout_round_decided(tournament, games):
            continue
        TournamentRound.update(status=RoundStatus.FINISHED, finished_at=now).where(
            TournamentRound.id == round_row.id).execute()


def _knockout_round_decided(tournament: Tournament, games: list[Pairing]) -> bool:
    numbers = {games[0].round_id: 0} if games else {}
    return all(winner is not None
               for _rows, winner in knockout_ties(tournament, games, numbers).values())


def _tie_winners(tournament: Tournament, number: int) -> list[int]:
    """Who went through from round `number`, in bracket order."""
    round_row = TournamentRound.get(TournamentRound.tournament == tournament,
                                    TournamentRound.number == number)
    games = list(Pairing.select().where(Pairing.round == round_row))
    ties = knockout_ties(tournament, games, {round_row.id: number})
    return [winner for _key, (_rows, winner) in sorted(ties.items()) if winner is not None]


def _is_over(tournament: Tournament, rounds: list[TournamentRound]) -> bool:
    if tournament.format in ("round-robin", "double-round-robin"):
        return True  # every round was started at once, and all are finished
    if tournament.format == "knockout":
        return len(_tie_winners(tournament, len(rounds))) == 1 if rounds else False
    active = _active(tournament)
    needed = 2 if tournament.format == "swiss" else 3
    return len(rounds) >= (tournament.rounds or 0) or len(active) < needed


def _finish(tournament: Tournament, now: datetime) -> None:
    bump(tournament, status=TournamentStatus.FINISHED, finished_at=now)
    table = standings_of(tournament)
    everyone = {e.id: e.player for e in TournamentEntry.select(TournamentEntry, Player)
                .join(Player).where(TournamentEntry.tournament == tournament)}
    tournament_mail.queue_final(tournament, list(everyone.values()), table, now)


def _apply_deadlines(tournament: Tournament, now: datetime) -> int:
    """A round whose deadline has passed: every seat still owing a move in its running matches
    has its own deadline brought down to now, so the normal timeout policy (the sweep) settles
    it. Once per round."""
    due = list(TournamentRound.select()
               .where(TournamentRound.tournament == tournament,
                      TournamentRound.status == RoundStatus.RUNNING,
                      TournamentRound.deadline_applied == False,  # noqa: E712
                      TournamentRound.deadline <= now))
    touched = 0
    for round_row in due:
        live = (Pairing.select(Pairing.match).join(Match, on=(Pairing.match == Match.id))
                .where(Pairing.round == round_row, Match.status == MatchStatus.ACTIVE)
                .order_by(Pairing.match))
        waiting = False  # a match paused by an admin gets the deadline when it resumes
        for row in live:
            if row.match_id is None or _deadline_reached(row.match_id, round_row.number):
                continue
            if apply_within(row.match_id, RoundDeadline(round=round_row.number), now):
                touched += 1
            else:
                waiting = True
        if not waiting:
            TournamentRound.update(deadline_applied=True).where(
                TournamentRound.id == round_row.id).execute()
    return touched


def _deadline_reached(match_id: int, number: int) -> bool:
    """Whether this round's deadline was applied to the match already (its change-log row)."""
    return any(row.payload.get("round") == number for row in
               ChangeLog.select(ChangeLog.payload).where(ChangeLog.match == match_id,
                                                         ChangeLog.kind == "round-deadline"))


@dataclass(frozen=True, kw_only=True)
class RoundDeadline(Change):
    """The tournament round's deadline has come: every seat that owes a move is due now, and
    the match's own timeout policy settles it at the next sweep (as for any late seat)."""

    kind: ClassVar[str] = "round-deadline"
    round: int = 0

    def apply(self, door: Locked) -> bool:
        """True once the deadline is applied (or the match is over); False while an admin
        has the match paused: the round waits for it, and applies it when it resumes."""
        return deadline_now(door)


def _active(tournament: Tournament) -> list[TournamentEntry]:
    return list(TournamentEntry.select(TournamentEntry, Player).join(Player)
                .where(TournamentEntry.tournament == tournament,
                       TournamentEntry.status == EntryStatus.ACTIVE)
                .order_by(TournamentEntry.joined_at, TournamentEntry.id))


def _rounds(tournament: Tournament) -> list[TournamentRound]:
    return list(TournamentRound.select().where(TournamentRound.tournament == tournament)
                .order_by(TournamentRound.number))


def _swiss_players(tournament: Tournament, active: list[TournamentEntry],
                   count_firsts: bool = False) -> list[pair.SwissPlayer]:
    """The standing as the pairing sees it: best first (points, tie-breaks, seed)."""
    rows = list(Pairing.select().where(Pairing.tournament == tournament)
                .order_by(Pairing.round, Pairing.board))
    opponents: dict[int, set[int]] = {e.id: set() for e in active}
    balance = {e.id: 0 for e in active}
    last: dict[int, int | None] = {e.id: None for e in active}
    byes: set[int] = set()
    for row in rows:
        if len(row.players) == 1:
            byes.add(row.players[0])
            continue
        for seat, entry_id in enumerate(row.players):
            if entry_id not in opponents:
                continue
            opponents[entry_id].update(p for p in row.players if p != entry_id)
            if count_firsts:
                balance[entry_id] += 1 if seat == 0 else 0
            else:
                balance[entry_id] += 1 if seat == 0 else -1
            last[entry_id] = min(seat, 1)
    table = standings_of(tournament)
    order = [s.player for s in table if s.player in opponents]
    points = {s.player: s.points for s in table}
    return [pair.SwissPlayer(entry_id, points.get(entry_id, 0.0),
                             frozenset(opponents[entry_id]), balance[entry_id],
                             last[entry_id], entry_id in byes) for entry_id in order]


def _met(tournament: Tournament) -> Counter[tuple[int, int]]:
    met: Counter[tuple[int, int]] = Counter()
    for row in Pairing.select(Pairing.players).where(Pairing.tournament == tournament):
        players = row.players
        for i, a in enumerate(players):
            for b in players[i + 1:]:
                met[(a, b) if a < b else (b, a)] += 1
    return met

