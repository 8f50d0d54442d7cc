"""Creating and starting matches, and reading them back for pages."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, NamedTuple

from pbem.addresses import check_address
from pbem.core.accounts.computers import COMPUTER_DOMAIN, computer_player
from pbem.core.accounts.models import Player
from pbem.core.db.connection import write_transaction
from pbem.core.db.prepared import Prepared
from pbem.core.matches import deadlines
from pbem.core.matches.changes import Change, Channel, Settled, Told, hand_on
from pbem.core.matches.clocks import TimeControl
from pbem.core.matches.deadlines import TimeoutPolicy
from pbem.core.matches.models import ChangeLog, Match, MatchStatus, Move, Position, Seat
from pbem.core.matches.seat_links import seat_token, token_hash
from pbem.errors import InvalidRequestError, NotFoundError
from pbem.games import get_rules
from pbem.games.base import CommitsDeals, GameRules
from pbem.games.dealing import DEAL_SCHEME, commitment
from pbem.i18n import _

MAX_SEED = 2**62
# A finished match keeps the position after every fiftieth move (see `state_after`): at most
# 49 moves are replayed to show any position of it, a few milliseconds at most.
SNAPSHOT_EVERY = 50


@dataclass(frozen=True, kw_only=True)
class StartMatch(Change):
    """A match's creation as its settlers see it (`Settled.started`): the first row of its
    change log. It is not applied through the door: there is no match to lock before it."""

    kind: ClassVar[str] = "create"


@dataclass(frozen=True)
class CreatedMatch:
    match: Match
    tokens: tuple[str, ...]  # each seat's link token, in seat order


def create_match(
    game: str,
    emails: Sequence[str],
    options: Mapping[str, Any],
    secret_key: str,
    now: datetime,
    seed: int | None = None,
    time_control: str = "3d",
    on_timeout: str = TimeoutPolicy.ADJUDICATE,
    computers: Mapping[int, int] | None = None,
    rated: bool = False,
    announce: bool = True,
    competition: str | None = None,  # "league" or "ladder": a standing competition's game
) -> CreatedMatch:
    """Create a match, deal or set up the game, and queue the welcome and first-turn emails.
    With `announce` false (a tournament round sends each player one mail with all their new
    seats instead) there is no welcome, but the seats to move still get their turn mail: it
    carries the seat's reply address, so the first move can be made by email too.

    `computers` maps seat numbers to computer levels: those seats are the computer's (its
    player "Computer (level N)"), the people in `emails` take the other seats in order, and
    the match is marked `has_computer` (never rated, whatever `rated` says). A computer seat
    that moves first has its job queued here, with the match.

    Every argument is checked before anything is written, and the writes are one transaction:
    a refused or failed creation leaves nothing behind, so trying again cannot duplicate it.
    """
    rules = get_rules(game)
    game = rules.slug
    control = TimeControl.parse(time_control)
    if on_timeout not in TimeoutPolicy.ALL:
        raise InvalidRequestError(_("%(policy)r is not a timeout policy (one of: %(known)s)",
                                    policy=on_timeout, known=", ".join(TimeoutPolicy.ALL)))
    addresses, computers = _checked_players(rules, emails, computers)
    count = len(addresses) + len(computers)
    resolved = rules.resolve_options(options)
    seed = _checked_seed(seed)
    deal_seed, state = _first_state(rules, count, resolved, seed)
    with write_transaction():
        players = _players(addresses, computers, now)
        match = Match.create(
            game=game, rules_version=rules.rules_version, options=resolved, seed=seed,
            deal_seed=deal_seed, status=MatchStatus.ACTIVE, ply=0, turn=0,
            to_move=sorted(rules.to_move(state)), state=rules.dump(state),
            thread_key=secrets.token_hex(8), time_control=str(control), on_timeout=on_timeout,
            created_at=now, updated_at=now, competition=competition,
            has_computer=bool(computers), rated=rated and not computers,
        )
        if deal_seed is not None:  # the commitment names the match: known only now
            match.deal_commitment = commitment(deal_seed, match.id)
            match.save(only=[Match.deal_commitment])
        tokens, seats = _seat(match, players, computers, control, rules.to_move(state),
                              secret_key, now)
        _log_creation(match, count, computers, now)
        # Its settlers as for any change: tallies, the welcome or first turn mail, the computer.
        told = Told("match-started" if announce else "turn-notices", {"state": state})
        hand_on(Settled(
            match=match, seats=tuple(seats), change=StartMatch(via=Channel.WEB), rules=rules,
            now=now, started=True, to_move_after=tuple(match.to_move), told=(told,)))
    return CreatedMatch(match, tuple(tokens))


def _first_state(rules: GameRules, count: int, options: Mapping[str, Any],
                 seed: int) -> tuple[str | None, Any]:
    """The deal seed (for a game that commits its deals: 256 random bits, see
    `games/dealing.py`) and the state the match starts from."""
    if isinstance(rules, CommitsDeals):
        deal_seed = secrets.token_hex(32)
        return deal_seed, rules.new_committed_game(count, options, deal_seed)
    return None, rules.new_game(count, options, seed)


def _players(addresses: Sequence[str], computers: Mapping[int, int],
             now: datetime) -> list[Player]:
    """The match's players in seat order: the computer's at its seats, the people in the
    order given at the others."""
    people = iter(addresses)
    return [computer_player(computers[number], now) if number in computers
            else Player.for_email(next(people), now)
            for number in range(len(addresses) + len(computers))]


def _log_creation(match: Match, count: int, computers: Mapping[int, int],
                  now: datetime) -> None:
    """A match's history begins with its creation (the door logs every later change)."""
    ChangeLog.create(match=match, version=match.version, kind="create", seat=None,
                     actor="server", channel="web",
                     payload={"game": match.game, "players": count,
                              "options": match.options, "clock": match.time_control,
                              "on_timeout": match.on_timeout,
                              **({"computers": {str(n): level for n, level
                                                in sorted(computers.items())}}
                                 if computers else {})}, at=now)


def _checked_players(rules: GameRules, emails: Sequence[str],
                     computers: Mapping[int, int] | None) -> tuple[list[str], dict[int, int]]:
    """The people's addresses and the computer seats, refused clearly if they cannot play."""
    addresses = [check_address(email) for email in emails]
    if any(address.lower().endswith("@" + COMPUTER_DOMAIN) for address in addresses):
        raise InvalidRequestError(_("That address is the computer's own: give the computer a "
                                    "seat by its level instead (a computer seat)."))
    seated = dict(computers or {})
    count = len(addresses) + len(seated)
    if any(not 0 <= number < count for number in seated):
        raise InvalidRequestError(_("A computer seat must be one of seats 0 to %(last)s.",
                                    last=count - 1))
    rules.check_player_count(count)
    return addresses, seated


def _checked_seed(seed: int | None) -> int:
    if seed is None:
        return secrets.randbelow(MAX_SEED)
    if not 0 <= seed < MAX_SEED:
        raise InvalidRequestError(_("the seed must be a whole number from 0 to %(last)s",
                                    last=MAX_SEED - 1))
    return seed


def _seat(match: Match, players: list[Player], computers: Mapping[int, int],
          control: TimeControl, to_move: frozenset[int], secret_key: str, now: datetime
          ) -> tuple[list[str], list[Seat]]:
    """Each player's seat, its link token, and the clocks of the seats to move."""
    tokens, seats = [], []
    for number, player in enumerate(players):
        token = seat_token(secret_key, match.id, number, 1)
        seat = Seat.create(match=match, seat=number, player=player,
                           token_hash=token_hash(token), token_generation=1,
                           allowance_seconds=int(control.bank.total_seconds()),
                           computer_level=computers.get(number))
        if number in to_move:
            deadlines.start_clock(match, seat, now)
        tokens.append(token)
        seats.append(seat)
    return tokens, seats


def get_match(match_id: int) -> Match:
    match = _MATCH.first(match_id)
    if match is None:
        raise NotFoundError(_("There is no match %(id)s.", id=match_id))
    return match


class Progress(NamedTuple):
    """How far a match has got: what a waiting page asks for (`/matches/<id>/ply`)."""

    ply: int
    version: int  # bumped by every change: a move, a draw offer, a ruling (changes.py)
    status: str


def progress_of(match_id: int) -> Progress:
    """Every page whose reader waits for a move asks this every `page_poll_seconds`, so on a
    server with many live matches it is the commonest request of all: three columns of one
    row, not the whole row with its state (which `get_match` reads)."""
    row = _PROGRESS.first(match_id)
    if row is None:
        raise NotFoundError(_("There is no match %(id)s.", id=match_id))
    return Progress(*row)


# The public page, its record, its board, the API's match: each reads its match by id, and
# peewee building that SELECT of every column was a fifth of the public page's CPU.
_MATCH = Prepared(lambda match_id: Match.select().where(Match.id == match_id))
_PROGRESS = Prepared(lambda match_id: Match.select(Match.ply, Match.version, Match.status)
                     .where(Match.id == match_id).tuples())


def rules_for(match: Match) -> GameRules:
    return get_rules(match.game)


def current_state(match: Match) -> Any:
    return rules_for(match).load(match.state)


def state_after(match: Match, ply: int) -> Any:
    """The position after `ply` moves: the snapshot stored with that move (one row read,
    however long the match), the match's own state for the latest, the deal for ply 0. A
    finished match keeps one snapshot every SNAPSHOT_EVERY moves (`thin_snapshots`): the
    position is then the nearest snapshot before it and at most that many moves replayed."""
    rules = rules_for(match)
    if not 0 <= ply <= match.ply:
        raise NotFoundError(_("Match %(id)s has moves 0 to %(last)s, not %(ply)s.", id=match.id,
                              last=match.ply, ply=ply))
    if ply == match.ply:
        return rules.load(match.state)
    if ply == 0:
        return initial_state(match)
    nearest = (Position.select(Position.ply, Position.state)
               .where(Position.match == match, Position.ply <= ply)
               .order_by(Position.ply.desc()).first())
    if nearest is None:
        return replay(match, ply)
    state = rules.load(nearest.state)
    if nearest.ply == ply:
        return state
    later = (Move.select(Move.seat, Move.text)
             .where(Move.match == match, Move.ply > nearest.ply, Move.ply <= ply)
             .order_by(Move.ply))
    for move in later:
        state = rules.apply_move(state, move.seat, rules.parse_move(state, move.seat,
                                                                    move.text)).state
    return state


def thin_snapshots(match: Match) -> None:
    """A match that has ended is read far less than a live one: keep every SNAPSHOT_EVERY-th
    position only (a fiftieth of the space its positions took while it was played)."""
    kept = list(range(0, match.ply + 1, SNAPSHOT_EVERY))
    Position.delete().where(Position.match == match, Position.ply.not_in(kept)).execute()


def thin_when_ended(settled: Settled) -> None:
    """The settler (see `core/settlers.py`): an ended match keeps one position in SNAPSHOT_EVERY."""
    if settled.ended:
        thin_snapshots(settled.match)


def initial_state(match: Match) -> Any:
    seats = Seat.select().where(Seat.match == match).count()
    rules = rules_for(match)
    if match.deal_seed is not None and isinstance(rules, CommitsDeals):
        return rules.new_committed_game(seats, match.options, match.deal_seed)
    return rules.new_game(seats, match.options, match.seed)


def replay(match: Match, ply: int) -> Any:
    """The position after `ply` moves, replayed from the seed (for moves stored without a
    snapshot, and to check the snapshots)."""
    rules = rules_for(match)
    state = initial_state(match)
    moves = (Move.select(Move.seat, Move.text).where(Move.match == match, Move.ply <= ply)
             .order_by(Move.ply))
    for move in moves:
        parsed = rules.parse_move(state, move.seat, move.text)
        state = rules.apply_move(state, move.seat, parsed).state
    return state


def deal_of(match: Match, rules: GameRules, state: Any) -> dict[str, Any] | None:
    """The scheme, the commitment and the salts always; the seed only once the match has
    ended (before, it would tell every hidden card still to come). None for a match dealt
    before deals were committed, or a game without hidden deals."""
    if match.deal_commitment is None or not isinstance(rules, CommitsDeals):
        return None
    return {"deal_scheme": DEAL_SCHEME, "deal_commitment": match.deal_commitment,
            "deal_match": match.deal_match or match.id,
            "deal_salts": list(rules.deal_salts(state)),
            "deal_seed": None if match.is_live else match.deal_seed}
