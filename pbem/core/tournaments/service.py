"""A tournament's life before and around its rounds: create, join, leave, start, withdraw, and
the organiser's and admins' actions (pause, resume, remove a player, adjudicate).

Every change to a tournament takes its row first (`SELECT … FOR UPDATE`; SQLite's IMMEDIATE
transaction lets one writer in) and bumps its `version`, so two racing joins for the last
place, or a start racing a leave, have one outcome. Lock order is always the tournament, then
its matches (through the door): the door never takes a tournament, so the two cannot
deadlock. The rounds themselves are paired by `running.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from pbem.addresses import check_address
from pbem.core.accounts.models import Player
from pbem.core.admin import actions as admin_actions
from pbem.core.admin import audit
from pbem.core.admin.players import check_may_challenge
from pbem.core.db.connection import locking, write_transaction
from pbem.core.db.retry import retrying
from pbem.core.db.text import check_text
from pbem.core.matches.changes import Change, Channel, Locked, apply_within
from pbem.core.matches.clocks import TimeControl
from pbem.core.matches.deadlines import TimeoutPolicy
from pbem.core.matches.lifecycle import finish
from pbem.core.matches.models import Match, MatchStatus
from pbem.core.matches.rulings import Forfeit
from pbem.core.tournaments.models import (
    EntryStatus,
    Pairing,
    Tournament,
    TournamentEntry,
    TournamentStatus,
)
from pbem.errors import (
    ConflictError,
    InvalidRequestError,
    NotFoundError,
    PbemError,
    UnprocessableError,
)
from pbem.games import get_rules
from pbem.games.base import GameRules
from pbem.i18n import _

FORMATS = ("round-robin", "double-round-robin", "swiss", "knockout", "tables")
MAX_PLAYERS = 500
MAX_ROUNDS = 30
# Open tournaments one player may organise at once: enough for a club's calendar, not a flood.
MAX_OPEN_PER_ORGANISER = 10


class NotOrganiserError(PbemError):
    status = 403


@dataclass(frozen=True)
class Organising:
    """Who acts on a tournament beside its players: its organiser, or an admin (by address)."""

    player: Player | None = None
    admin: str | None = None

    @property
    def name(self) -> str:
        if self.admin:
            return self.admin
        return self.player.email if self.player is not None else audit.SYSTEM_ACTOR


def create_tournament(organiser: Player, spec: Mapping[str, Any], now: datetime) -> Tournament:
    """Check every field of `spec` (the API's body or the form's fields) and create an open
    tournament. A bad field is an InvalidRequestError naming it; nothing is written."""
    check_may_challenge(organiser)
    for key in ("name", "game", "format", "clock", "on_timeout"):
        if spec.get(key) is not None and not isinstance(spec.get(key), str):
            raise InvalidRequestError(_('"%(field)s" is a string.', field=key))
    name = check_text(str(spec.get("name") or "").strip(), "name")
    if not name or len(name) > 80:
        raise InvalidRequestError(_('"name" is required, at most 80 characters.'))
    fmt = spec.get("format")
    if fmt not in FORMATS:
        raise InvalidRequestError(_('"format" is one of: %(known)s.', known=", ".join(FORMATS)))
    rules, resolved = _checked_game(spec, fmt)
    control = TimeControl.parse(str(spec.get("clock", "3d")))
    on_timeout = _checked_timeout_policy(spec)
    min_players, max_players, rounds = _checked_size(spec, fmt)
    round_days = _whole(spec.get("round_days", 14), "round_days", 1, 365)
    max_replays = _whole(spec.get("max_replays", 2), "max_replays", 0, 10)
    starts_at = _start(spec.get("starts_at"), now)
    invited = _invited([] if spec.get("invited") is None else spec.get("invited"))
    invitation_only = spec.get("invitation_only", False)
    if not isinstance(invitation_only, bool):
        raise InvalidRequestError(_('"invitation_only" is true or false.'))
    # Rated unless asked otherwise, as the form and a challenge are.
    rated = spec.get("rated", True)
    if not isinstance(rated, bool):
        raise InvalidRequestError(_('"rated" is true or false.'))
    with write_transaction():
        mine = Tournament.select().where(Tournament.organiser == organiser,
                                         Tournament.status == TournamentStatus.OPEN).count()
        if mine >= MAX_OPEN_PER_ORGANISER:
            raise ConflictError(_("You organise %(count)s tournaments that have not started, "
                                  "the most allowed; start or wait for one first.", count=mine))
        return Tournament.create(
            name=name, organiser=organiser, game=rules.slug, options=resolved,
            time_control=str(control), on_timeout=on_timeout, format=fmt, rounds=rounds,
            min_players=min_players, max_players=max_players, rated=rated,
            invitation_only=invitation_only, invited=invited, starts_at=starts_at,
            round_days=round_days, max_replays=max_replays, created_at=now)


def _checked_game(spec: Mapping[str, Any], fmt: str) -> tuple[GameRules, dict[str, Any]]:
    """The game's rules and its resolved options, if the game is played in the format."""
    rules = get_rules(str(spec.get("game") or ""))
    counts = rules.player_counts
    if fmt == "tables" and not {3, 4} <= counts:
        raise UnprocessableError(_("%(game)s is not played at tables of three and four; "
                                   "choose another format.", game=rules.title))
    if fmt != "tables" and 2 not in counts:
        raise UnprocessableError(_("%(game)s is not a two-player game: its tournaments use "
                                   "the tables format.", game=rules.title))
    options = spec.get("options", {})
    if not isinstance(options, Mapping):
        raise InvalidRequestError(_('"options" is an object of the game\'s options.'))
    return rules, rules.resolve_options(options)


def _checked_timeout_policy(spec: Mapping[str, Any]) -> str:
    on_timeout = spec.get("on_timeout", TimeoutPolicy.FORFEIT)
    if on_timeout == "":  # a form's empty choice
        on_timeout = TimeoutPolicy.FORFEIT
    if on_timeout not in TimeoutPolicy.ALL:
        raise InvalidRequestError(_('"on_timeout" is one of: %(known)s.',
                                    known=", ".join(TimeoutPolicy.ALL)))
    return str(on_timeout)


def _checked_size(spec: Mapping[str, Any], fmt: str) -> tuple[int, int, int | None]:
    """The least and most players, and the rounds (a format that sets its own: None)."""
    smallest = 3 if fmt == "tables" else 2
    min_players = _whole(spec.get("min_players", smallest), "min_players", smallest, MAX_PLAYERS)
    max_players = _whole(spec.get("max_players", max(min_players, 8)), "max_players",
                         min_players, MAX_PLAYERS)
    rounds = None
    if fmt in ("swiss", "tables"):
        given = spec.get("rounds")
        rounds = _whole(5 if given is None else given, "rounds", 1, MAX_ROUNDS)
    elif spec.get("rounds") not in (None, 0):
        raise UnprocessableError(_('A %(format)s tournament sets its own rounds from the '
                                   'number of players: leave "rounds" out.', format=fmt))
    return min_players, max_players, rounds


def get_tournament(tournament_id: int) -> Tournament:
    found = Tournament.get_or_none(Tournament.id == tournament_id)
    if found is None:
        raise NotFoundError(f"There is no tournament {tournament_id}.")
    return found


def lock_tournament(tournament_id: int) -> Tournament:
    """The tournament row, locked until the transaction ends (call inside write_transaction)."""
    found = locking(Tournament.select().where(Tournament.id == tournament_id)).first()
    if found is None:
        raise NotFoundError(f"There is no tournament {tournament_id}.")
    return found


def bump(tournament: Tournament, **changes: Any) -> None:
    """Write the locked tournament, bumping its version."""
    changes["version"] = tournament.version + 1
    Tournament.update(**changes).where(Tournament.id == tournament.id).execute()
    for name, value in changes.items():
        setattr(tournament, name, value)


def entries(tournament: Tournament, active_only: bool = False) -> list[TournamentEntry]:
    query = (TournamentEntry.select(TournamentEntry, Player).join(Player)
             .where(TournamentEntry.tournament == tournament))
    if active_only:
        query = query.where(TournamentEntry.status == EntryStatus.ACTIVE)
    return list(query.order_by(TournamentEntry.joined_at, TournamentEntry.id))


def join(tournament_id: int, player: Player, now: datetime) -> Tournament:
    def once() -> Tournament:
        with write_transaction():
            tournament = lock_tournament(tournament_id)
            if tournament.status != TournamentStatus.OPEN:
                raise ConflictError(_("This tournament has started: entries are closed."))
            if tournament.invitation_only and player.email not in tournament.invited and (
                    player.id != tournament.organiser_id):
                raise NotOrganiserError(_("This tournament is by invitation only, and you "
                                          "are not invited."))
            joined = entries(tournament)
            if any(entry.player_id == player.id for entry in joined):
                raise ConflictError(_("You are in this tournament already."))
            if len(joined) >= tournament.max_players:
                raise ConflictError(_("This tournament is full (%(most)s players).",
                                      most=tournament.max_players))
            TournamentEntry.create(tournament=tournament, player=player, joined_at=now)
            bump(tournament)
            return tournament
    return retrying(once, _("Many players are joining this tournament at once; try again."))


def leave(tournament_id: int, player: Player, now: datetime) -> Tournament:
    """Leave before the start (after it, withdraw)."""
    with write_transaction():
        tournament = lock_tournament(tournament_id)
        if tournament.status != TournamentStatus.OPEN:
            raise ConflictError(_("This tournament has started: to stop playing in it, "
                                  "withdraw (your remaining matches are forfeited)."))
        deleted = (TournamentEntry.delete()
                   .where(TournamentEntry.tournament == tournament,
                          TournamentEntry.player == player).execute())
        if not deleted:
            raise ConflictError(_("You are not in this tournament: there is nothing to "
                                  "leave."))
        bump(tournament)
        return tournament


def check_organiser(tournament: Tournament, by: Organising) -> None:
    if by.admin:
        return
    if by.player is None or by.player.id != tournament.organiser_id:
        raise NotOrganiserError(_("Only the tournament's organiser or an admin may do that."))


def withdraw(tournament_id: int, player: Player, now: datetime,
             via: Channel = Channel.API) -> int:
    """The player leaves a running tournament: every match of theirs still in play is lost by
    forfeit (through the door) and marked a forfeit here; they are paired no more. Returns
    how many matches were forfeited."""
    return _take_out(tournament_id, player.id, EntryStatus.WITHDRAWN, PLAYER_BY, via,
                     "withdrew from the tournament", now)


def remove_player(tournament_id: int, player_id: int, by: Organising, reason: str,
                  now: datetime) -> int:
    """The organiser or an admin takes a player out, as a withdrawal, audit-logged."""
    reason = _reason(reason)
    tournament = get_tournament(tournament_id)
    check_organiser(tournament, by)
    return _take_out(tournament_id, player_id, EntryStatus.REMOVED, by.name, Channel.ADMIN,
                     f"removed from the tournament: {reason}", now, audit_reason=reason)


PLAYER_BY = "player"


def _take_out(tournament_id: int, player_id: int, status: str, by: str, via: Channel,
              why: str, now: datetime, audit_reason: str | None = None) -> int:
    def once() -> int:
        with write_transaction():
            tournament = lock_tournament(tournament_id)
            if tournament.status not in (TournamentStatus.RUNNING, TournamentStatus.PAUSED):
                raise ConflictError(_("Only a running tournament can be withdrawn from; "
                                      "before the start, leave it."))
            entry = (TournamentEntry.select()
                     .where(TournamentEntry.tournament == tournament,
                            TournamentEntry.player == player_id).first())
            if entry is None:
                raise NotFoundError(_("That player is not in this tournament."))
            if entry.status != EntryStatus.ACTIVE:
                raise ConflictError(_("That player has already left this tournament."))
            entry.status, entry.left_at = status, now
            entry.save()
            forfeited = 0
            for pairing in _live_pairings_of(tournament, entry.id):
                seat = pairing.players.index(entry.id)
                forfeit = Forfeit(seat=seat, by=by, via=via, reason=why)
                apply_within(int(pairing.match_id or 0), forfeit, now)
                Pairing.update(played=False).where(Pairing.id == pairing.id).execute()
                forfeited += 1
            bump(tournament)
            if audit_reason is not None:
                audit.record(by, "tournament:remove-player", now, audit_reason, None,
                             {"tournament": tournament.id, "player": player_id,
                              "forfeited": forfeited})
            return forfeited
    return retrying(once, _("This tournament is very busy right now; try again."))


def _live_pairings_of(tournament: Tournament, entry_id: int) -> list[Pairing]:
    rows = (Pairing.select(Pairing).join(Match, on=(Pairing.match == Match.id))
            .where(Pairing.tournament == tournament, Match.status == MatchStatus.ACTIVE)
            .order_by(Pairing.match))
    return [row for row in rows if entry_id in row.players]


def pause(tournament_id: int, by: Organising, reason: str, now: datetime) -> None:
    """Hold the tournament: no new round is paired and every clock of its running matches is
    held (each match's pause is its own change through the door)."""
    _hold(tournament_id, by, reason, now, pausing=True)


def resume(tournament_id: int, by: Organising, reason: str, now: datetime) -> None:
    _hold(tournament_id, by, reason, now, pausing=False)


def _hold(tournament_id: int, by: Organising, reason: str, now: datetime,
          pausing: bool) -> None:
    reason = _reason(reason)
    with write_transaction():
        tournament = lock_tournament(tournament_id)
        check_organiser(tournament, by)
        want = TournamentStatus.RUNNING if pausing else TournamentStatus.PAUSED
        if tournament.status != want:
            raise ConflictError(_("Only a running tournament can be paused.") if pausing
                                else _("This tournament is not paused."))
        bump(tournament, status=TournamentStatus.PAUSED if pausing else TournamentStatus.RUNNING)
        audit.record(by.name, "tournament:pause" if pausing else "tournament:resume", now,
                     reason, None, {"tournament": tournament.id})
        live = (Pairing.select(Pairing.match).join(Match, on=(Pairing.match == Match.id))
                .where(Pairing.tournament == tournament, Match.status == MatchStatus.ACTIVE,
                       Match.paused_at.is_null(pausing)).order_by(Pairing.match))
        change = admin_actions.Pause if pausing else admin_actions.Resume
        for row in live:
            apply_within(int(row.match_id or 0), change(by=by.name, via=Channel.ADMIN,
                                              reason=f"tournament: {reason}"), now)


def adjudicate(tournament_id: int, match_id: int, winners: list[int], by: Organising,
               reason: str, now: datetime) -> None:
    """Decide a tournament match still in play: `winners` are its winning seats (none, or
    every seat, for a draw). Through the door, audit-logged."""
    reason = _reason(reason)
    with write_transaction():
        tournament = lock_tournament(tournament_id)
        check_organiser(tournament, by)
        pairing = Pairing.get_or_none(Pairing.tournament == tournament,
                                      Pairing.match == match_id)
        if pairing is None:
            raise NotFoundError(_("Match %(match)s is not one of this tournament's.",
                                  match=match_id))
        apply_within(match_id, TournamentAdjudication(by=by.name, via=Channel.ADMIN,
                                                      winners=tuple(winners), reason=reason),
                     now)


@dataclass(frozen=True, kw_only=True)
class TournamentAdjudication(Change):
    """The tournament's organiser (or an admin) decides a match in play."""

    kind: ClassVar[str] = "tournament-adjudication"
    winners: tuple[int, ...] = field(default=())
    reason: str = ""

    def apply(self, door: Locked) -> None:
        count = len(door.seats)
        if any(not 0 <= s < count for s in self.winners) or (
                len(set(self.winners)) != len(self.winners)):
            raise InvalidRequestError(_("Name the winning seats, from 0 to %(last)s (none or "
                                        "every seat for a draw).", last=count - 1))
        if not door.match.is_live:
            raise ConflictError(_("The match is no longer in play."))
        winners = frozenset(self.winners or range(count))
        share = 1 / len(winners)
        finish(door, winners, [share if s in winners else 0.0 for s in range(count)],
               f"adjudicated by the tournament's organiser: {self.reason}")
        door.note(winners=sorted(winners))


def _whole(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JSON's 8.0 is the whole number 8
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = int(str(value).strip())
        except ValueError:
            raise InvalidRequestError(_('"%(field)s" is a whole number.', field=name)) from None
    if not low <= value <= high:
        raise UnprocessableError(_('"%(field)s" is from %(low)s to %(high)s, not %(given)s.',
                                   field=name, low=low, high=high, given=value))
    return int(value)


def _start(value: Any, now: datetime) -> datetime | None:
    if value in (None, "", "full"):
        return None
    if not isinstance(value, str):
        raise InvalidRequestError(_('"starts_at" is a string: a time, or null.'))
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise UnprocessableError(_('"starts_at" is a time such as 2026-06-01T18:00:00Z, or '
                                   'null to start when full.')) from None
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    if when < now:
        raise InvalidRequestError(_('"starts_at" is in the past.'))
    if when > now + timedelta(days=366):
        raise InvalidRequestError(_('"starts_at" is more than a year away.'))
    return when


def _invited(value: Any) -> list[str]:
    if isinstance(value, str):
        value = [part for part in value.replace(",", " ").split() if part]
    if not isinstance(value, list) or len(value) > MAX_PLAYERS:
        raise InvalidRequestError(_('"invited" is a list of email addresses.'))
    if not all(isinstance(address, str) for address in value):
        raise InvalidRequestError(_('"invited" is a list of email addresses.'))
    try:
        return sorted({check_address(address) for address in value})
    except InvalidRequestError as error:  # a string, but no address we can write to
        raise UnprocessableError(str(error)) from None


def _reason(reason: str) -> str:
    reason = check_text((reason or "").strip(), "reason")
    if not reason:
        raise InvalidRequestError(_("Give a reason: the players will read it."))
    return reason[:500]


def is_in(tournament: Tournament, player: Player | None) -> bool:
    if player is None:
        return False
    return (TournamentEntry.select()
            .where(TournamentEntry.tournament == tournament,
                   TournamentEntry.player == player).exists())

