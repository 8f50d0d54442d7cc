"""The one door for every change to a match.

A move, an autoplay, a forfeit, a ruling, a resignation, a draw offer or answer, an abort, a
claim, a reminder or a deadline pushed back: each is a *change* applied by `apply_change`,
which

1. takes the match row first and the seat rows after, always in that order (`SELECT … FOR
   UPDATE` on PostgreSQL and MariaDB; on SQLite the IMMEDIATE transaction already lets one
   writer in at a time), so two changes to one match queue instead of racing and can never
   deadlock each other by taking the rows in opposite orders; with the seated players it
   reads what the match has pending beside them (`Pending`: a standing draw offer, stored
   conditional moves, an open ruling), so a move that meets none skips reading each;
2. hands the locked match to the change, which checks itself against the match *as it is now*
   and writes through `Locked.write`, a conditional update on `Match.version` that every change
   bumps (a forfeit changes no ply, so the ply cannot be the guard);
3. settles the seats' clocks from what changed (who moved, who owes a move now, whether the
   match ended), and hands what happened (`Settled`) to the settlers the packages above
   installed (standings, ratings, snapshots, mail, computer turns), in the same transaction.
   The door imports none of them (see "Settlers" below).

On PostgreSQL the door's statements travel together (`pbem.core.db.pipeline`): its three
reads in one round trip, and the rows a change writes (the match, the move, clocks, mail, the
change log) in one more, their guard checked once they have all been answered.

A change is a **value**: a frozen dataclass naming its kind, the seat it concerns, who made it
(`by`: "player", an admin's address, or "server") and through which channel (`via`: web, api,
mail, worker, admin, cli), with its own parameters; its `apply` makes it on the locked match,
and what people should hear of it is said as data (`Locked.tell`), which the mail settler turns
into outbox rows. A change from a one-time form carries its key (`action_key`): the key is kept
on the change's log row (unique per match), so the same form posted twice acts once.
Every change that writes is stored as one row of the match's **change log** (`ChangeLog`),
in the same transaction: its kind, seat, who, channel, what it did (`payload`) and when. The
log is the match's history: the record export, the admin's view and the public page's list
of events read it, and nothing can change a match without leaving a row there.

**Settlers.** After a change is written (and its clocks settled), the door builds one small
value, `Settled`: the match and its seats as they now are, the change, whether it ended the
match, who moved, whose turn it was before and is now, who lost by running out of time, and
what the change asked to be told to people (`Told`: a kind of news and its parameters, never a
rendered mail). It hands that value, in the same transaction and in a fixed order, to every
**settler** installed here (`install_settlers`): standings, ratings, snapshots, mail, computer
turns (the list is `pbem.core.settlers`, written once above every package, as the games'
registry is). A settler that raises rolls the whole change back, so a change and its
consequences commit together.

`matches` imports none of the settlers: the adapters (the web app, the worker, the command
line, the tests) install the list when they start. A change made before that raises
`SettlersMissing` instead of silently skipping ratings or mail.

The door also asks the packages above one question it cannot answer from its own tables:
whether a seat's latest turn mail failed (`turn_mail_failed`; the sweep holds a timeout for an
admin then). It is installed with the settlers.

A lost race, a deadlock or a serialization failure is retried here (`pbem.core.db.retry`, the
one retry the project has), a bounded number of times with jittered back-off; callers never
see one as a 500.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, ClassVar

import peewee

from pbem.core.accounts.models import Player
from pbem.core.db.connection import database, locking
from pbem.core.db.pipeline import pipelined_transaction, pipelining
from pbem.core.db.prepared import Answer, Prepared, Shapes, add_row
from pbem.core.db.retry import LostRace, is_transient, retrying
from pbem.core.matches import deadlines
from pbem.core.matches.models import (
    Adjudication,
    AdjudicationStatus,
    ChangeLog,
    ConditionalTree,
    DrawOffer,
    DrawOfferStatus,
    Match,
    MatchStatus,
    Seat,
)
from pbem.errors import ConflictError, NotFoundError
from pbem.games import get_rules
from pbem.games.base import GameRules
from pbem.i18n import _

log = logging.getLogger(__name__)

__all__ = ["LostRace", "is_transient", "retrying"]  # the one retry, also re-exported here


class Channel(StrEnum):
    """Through which way a change came in."""

    WEB = "web"
    API = "api"
    MAIL = "mail"
    WORKER = "worker"
    ADMIN = "admin"
    CLI = "cli"


PLAYER = "player"  # `by` for a change a seat's own player made (the seat says which)
SERVER = "server"  # `by` for what the server does by itself (timeouts, reminders, outages)


@dataclass(frozen=True, kw_only=True)
class Change:
    """One thing done to a match, as a value. Subclasses set `kind`, add their parameters as
    fields and make the change in `apply`, on a match the door has locked."""

    kind: ClassVar[str] = "change"
    seat: int | None = None
    by: str = SERVER
    via: Channel = Channel.WORKER
    # A one-time form's key (an admin's ruling or action): kept on the log row, so the same
    # form posted twice acts once (`AlreadyDoneError`). Never in the payload.
    action_key: str | None = field(default=None, metadata={"unlogged": True})

    def apply(self, door: Locked) -> Any:
        raise NotImplementedError

    def timed_out(self, logged: dict[str, Any]) -> frozenset[int]:
        """The seats this change took away for running out of time, when it ended the match
        (`logged`: what applying it noted). None for most; the ratings read them."""
        return frozenset()

    def follow_up(self, door: Locked, result: Any) -> Change | None:
        """A change that must follow this one in the same transaction (a conditional answer
        to a move), decided before this change's mail is queued; None for most."""
        return None

    def followed(self, result: Any, after: Any) -> Any:
        """What the caller gets when `follow_up` was applied too (its result is `after`)."""
        return result

    def logged_payload(self, logged: dict[str, Any]) -> dict[str, Any]:
        """The change log row's payload: the change's parameters and what applying it
        logged (`door.logged`: the canonical move, the ply reached, …)."""
        return {**self.payload(), **logged}

    def payload(self) -> dict[str, Any]:
        """The change's own parameters, JSON-safe, for its row in the change log."""
        own = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
               if f.name not in ("seat", "by", "via", "action_key")
               and not f.metadata.get("unlogged")}
        return {name: _json_safe(value) for name, value in own.items() if value is not None}


# A field's metadata for what a change needs but the log does not keep (a form's one-time key,
# a policy object): `field(default=None, metadata=UNLOGGED)`.
UNLOGGED = {"unlogged": True}
MAX_KEY = 64  # a one-time form key's length, as the change log keeps it


class AlreadyDoneError(ConflictError):
    """This form was already posted: its action was done once and is not done again."""

    def __init__(self) -> None:
        super().__init__(_("That was already done (the form was sent twice); nothing more "
                           "was changed."))


@dataclass
class Pending:
    """Whether a match has rows beside its own that a change may have to look at: a draw
    offer that stands, stored conditional moves (any seat's), an open entry in the admin's
    queue. A move seldom finds any, and knowing there are none spares it three statements.

    Read by the door with the seated players, once the match row is locked. Every writer of
    these rows takes the match lock first, so what was read stays true for the change, except
    for what the change writes itself: a writer inside the door says so here (`offers.offer`,
    `sweep.open_entry`). True means "may have": it only costs the read.

    Trusted only in a transaction the door opened itself (`apply_change`). In a caller's
    longer one (vacations, tournaments) an earlier plain read may have fixed the
    transaction's snapshot before the lock (MariaDB's REPEATABLE READ), and rows committed
    since would read as absent: there every answer is "may have"."""

    draw_offer: bool = True
    conditional_moves: bool = True
    rulings: bool = True


@dataclass
class Locked:
    """A match and its seats, locked for one change, and what the change did to them."""

    match: Match
    seats: list[Seat]
    now: datetime
    pending: Pending = field(default_factory=Pending)
    movers: set[int] = field(default_factory=set)
    ended: bool = False
    _rules: GameRules | None = None
    _state: Any = None
    # What the change asked to be told (mail), in order, for the settlers.
    told: list[Told] = field(default_factory=list)
    # The guarded writes of the match row, each to have changed one row (`check_writes`).
    _guards: list[Answer] = field(default_factory=list)
    # What the change did, beside its parameters, for its row in the change log.
    logged: dict[str, Any] = field(default_factory=dict)
    # Seats not to mail "your turn" (a conditional answer of theirs follows at once), and
    # sentences for a seat's mails about this change (its conditional moves were cleared).
    quiet: set[int] = field(default_factory=set)
    mail_notes: dict[int, list[str]] = field(default_factory=dict)

    @property
    def rules(self) -> GameRules:
        if self._rules is None:
            self._rules = get_rules(self.match.game)
        return self._rules

    @property
    def state(self) -> Any:
        if self._state is None:
            self._state = self.rules.load(self.match.state)
        return self._state

    def readable_state(self) -> Any:
        """The state, or None when the stored state cannot be read (a damaged match that an
        admin rules on): mail that needs it is then skipped, and the server log says so."""
        try:
            return self.state
        except Exception:
            log.exception("match %s: its stored state cannot be read; no email about this "
                          "change", self.match.id)
            return None

    def seat(self, number: int) -> Seat:
        for row in self.seats:
            if row.seat == number:
                return row
        raise NotFoundError(_("Match %(id)s has no seat %(seat)s.", id=self.match.id, seat=number))

    def write(self, **changes: Any) -> None:
        """Change the match row, guarded by its version (which this bumps). Inside a
        PostgreSQL pipeline the guard's answer is not waited for here: `check_writes` reads
        it once the change is done. Elsewhere it is checked at once."""
        changes.setdefault("updated_at", self.now)
        version = self.match.version
        fields = Match._meta.fields
        self._guards.append(_MATCH_WRITES(tuple(changes)).start(
            *[fields[name].db_value(value) for name, value in changes.items()],
            self.match.id, version))
        if not pipelining():
            self.check_writes()
        for name, value in changes.items():
            setattr(self.match, name, value)
        self.match.version = version + 1
        if "state" in changes:
            self._state = None
        if changes.get("status", MatchStatus.ACTIVE) != MatchStatus.ACTIVE:
            self.ended = True

    def check_writes(self, after: BaseException | None = None) -> None:
        """Raise LostRace (the transaction is rolled back and tried again) if a guarded write
        found the match at another version than the one this change read. Under the door's
        lock that cannot happen; the guard stays so that a write outside it could not pass
        unseen.

        A database error met since the writes (`after`, or one met here: psycopg reads the
        answers in order, so a later statement's error can come while reading a guard's) is
        explained by a failed guard (a later write clashing with rows the race's winner
        made): it is then the LostRace's cause. Otherwise it is raised as it is."""
        guards, self._guards = self._guards, []
        failure = after
        for guard in guards:
            try:
                changed = guard.changed()
            except peewee.DatabaseError as error:
                failure = failure or error
                try:  # its own answer came before the error, or never will
                    changed = guard.changed()
                except peewee.DatabaseError:
                    continue
            if changed == 0:
                raise LostRace from failure
            # -1: no answer at all (the guard failed itself, or was skipped after another
            # statement's error): that error is the verdict, not a lost race. Skipped after
            # an error the change caught, the block's end says so (`AbortedBlock`).
        if failure is not None and after is None:
            raise failure

    def touch(self) -> None:
        """A change that leaves the match row as it is (a reminder, a deadline pushed back)
        still bumps the version, so every change is visible to the guard."""
        self.write()

    def tell(self, what: str, **params: Any) -> None:
        """Ask for news of this change to be mailed (`what`: a kind the mail settler knows),
        once the clocks are settled, in the same transaction."""
        self.told.append(Told(what, params))

    def note(self, **what: Any) -> None:
        """Say what the change did (a move's notation, a result), for the change log."""
        self.logged.update({name: _json_safe(value) for name, value in what.items()})


# --- what the door hands on ------------------------------------------------------------

@dataclass(frozen=True)
class Told:
    """News a change asks the mail to carry: its kind ("after-move", "result", "ruling", …,
    one per kind of mail the mail settler knows) and what the mail needs beyond the `Settled`
    value (a seat, a reason, the position it speaks of)."""

    what: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class Settled:
    """A change as its settlers see it, once written: read-only, the same for every settler."""

    match: Match
    seats: tuple[Seat, ...]  # in seat order, their clocks settled by the door
    change: Change
    rules: GameRules
    now: datetime
    started: bool = False  # the match was created by this change
    ended: bool = False  # the change ended the match (a result, or an abort)
    movers: frozenset[int] = frozenset()
    to_move_before: tuple[int, ...] = ()
    to_move_after: tuple[int, ...] = ()
    timed_out: frozenset[int] = frozenset()  # seats that lost by running out of time
    told: tuple[Told, ...] = ()
    # Seats not to mail "your turn" (a conditional answer of theirs followed at once), and
    # sentences for a seat's mails about this change (its conditional moves played or cleared).
    quiet: frozenset[int] = frozenset()
    notes: Mapping[int, list[str]] = field(default_factory=dict)

    def seat(self, number: int) -> Seat:
        return next(row for row in self.seats if row.seat == number)


Settler = Callable[[Settled], None]
TurnMailFailed = Callable[[int, int], bool]


class SettlersMissing(RuntimeError):
    """A change reached the door before any settler was installed (a start-up forgot
    `pbem.core.settlers.install()`): nothing is written, rather than a change without its
    ratings or mail."""


@dataclass(frozen=True)
class _Installed:
    settlers: tuple[Settler, ...]
    turn_mail_failed: TurnMailFailed


_installed: _Installed | None = None


def install_settlers(settlers: Sequence[Settler], turn_mail_failed: TurnMailFailed) -> None:
    """Set the settlers the door hands every change to, in this order (replacing any set
    before: installing the same list again changes nothing)."""
    global _installed
    if not settlers:
        raise ValueError("the door needs at least one settler")
    _installed = _Installed(tuple(settlers), turn_mail_failed)


def installed_settlers() -> tuple[Settler, ...]:
    return _need().settlers


def hand_on(settled: Settled) -> None:
    """Hand `settled` to every installed settler, in order (inside the change's transaction)."""
    for settler in _need().settlers:
        settler(settled)


def turn_mail_failed(match_id: int, seat: int) -> bool:
    """Whether the seat's latest turn mail failed, or is being retried after failing."""
    return _need().turn_mail_failed(match_id, seat)


def _need() -> _Installed:
    if _installed is None:
        raise SettlersMissing("No settlers are installed: call pbem.core.settlers.install() "
                              "when the program starts (the web app, the worker and the "
                              "command line do). Nothing was changed.")
    return _installed


def apply_change(match_id: int, change: Change, now: datetime) -> Any:
    """Apply `change` to the match under the door's locks; retry lost races and deadlocks.
    Returns what the change's `apply` returns."""
    return retrying(lambda: _apply_once(match_id, change, now),
                    _("The server is very busy with this match right now; nothing was changed. "
                      "Try again in a moment."))


def apply_within(match_id: int, change: Change, now: datetime, *,
                 door_opened: bool = False) -> Any:
    """Apply `change` inside a transaction the caller already holds (a vacation changes
    several matches in one, in match id order, after locking the player): the same locks,
    checks, clocks, mail and log row as `apply_change`, without its retry (the caller's
    transaction is retried whole). `door_opened`: `apply_change` opened the transaction for
    this change alone, so what the door reads as pending can be trusted (see `Pending`)."""
    door = locked(match_id, now, trust_pending=door_opened)
    before = list(door.match.to_move)
    version = door.match.version
    try:
        if change.action_key:
            _check_fresh(match_id, change.action_key)
        result = change.apply(door)
        follow = change.follow_up(door, result)
        finish_change(door, before, change)
        _log(door, change, version)
    except peewee.DatabaseError as error:
        door.check_writes(after=error)
        raise
    door.check_writes()
    if follow is not None:
        # Same transaction, its own locks (already held), checks, clocks, mail and log row.
        # (Nothing else can have written the match's rows since: its lock is held.)
        return change.followed(result, apply_within(match_id, follow, now,
                                                    door_opened=door_opened))
    return result


def lock_match(match_id: int) -> Match:
    """The match row, locked until the transaction ends (call inside write_transaction)."""
    return _found(_LOCK_MATCH.first(match_id), match_id)


def _found(match: Match | None, match_id: int) -> Match:
    if match is None:
        raise NotFoundError(_("There is no match %(id)s.", id=match_id))
    return match


def lock_seats(match: Match) -> tuple[list[Seat], Pending]:
    """The match's seat rows, locked in seat order, and what it has pending. Players are read
    without a lock: the per-player guard (vacations) takes a player before matches, so the
    door never takes one."""
    return _seated(_LOCK_SEATS.rows(match.id), _SEATED_PLAYERS.rows(match.id))


def _seated(seats: list[Seat], seated_players: list[Player]) -> tuple[list[Seat], Pending]:
    players = {p.id: p for p in seated_players}
    for seat in seats:
        seat.player = players[seat.player_id]
    # Every player row carries the same three answers (a match always has seated players).
    said = vars(next(iter(players.values())))
    return seats, Pending(bool(said["pending_offer"]), bool(said["pending_trees"]),
                          bool(said["pending_rulings"]))


def _seated_players(match_id: Any) -> Any:
    # The pending answers come in this statement, after the locks, rather than with the match
    # row's: a locking read waits for the lock under the snapshot its statement began with
    # (PostgreSQL), so it would miss an offer committed by the change it waited for.
    def exists(query: Any) -> Any:
        return peewee.fn.EXISTS(query.select(peewee.SQL("1")))
    return (Player.select(
        Player,
        exists(DrawOffer.select().where(DrawOffer.match == match_id,
                                        DrawOffer.status == DrawOfferStatus.OPEN.value))
        .alias("pending_offer"),
        exists(ConditionalTree.select().where(ConditionalTree.match == match_id))
        .alias("pending_trees"),
        exists(Adjudication.select().where(Adjudication.match == match_id,
                                           Adjudication.status == AdjudicationStatus.OPEN.value))
        .alias("pending_rulings"))
        .join(Seat, on=(Seat.player == Player.id))
        .where(Seat.match == match_id))


_LOCK_MATCH = Prepared(lambda match_id: locking(Match.select().where(Match.id == match_id)
                                                 .limit(1)))
_LOCK_SEATS = Prepared(lambda match_id: locking(Seat.select().where(Seat.match == match_id)
                                                 .order_by(Seat.seat)))
_SEATED_PLAYERS = Prepared(_seated_players)


def _match_write(names: tuple[str, ...]) -> Prepared:
    fields = [Match._meta.fields[name] for name in names]
    return Prepared(lambda *slots: Match.update({Match.version: Match.version + 1,
                                                 **dict(zip(fields, slots[:-2], strict=True))})
                    .where(Match.id == slots[-2], Match.version == slots[-1]),
                    arity=len(names) + 2)


# A change writes one of a few sets of columns (a move's, an ending's, a touch): each compiled
# once, and guarded by the version it read.
_MATCH_WRITES = Shapes(_match_write)


def lock_player(player_id: int) -> Player:
    """A per-player guard (vacations): the player row, locked until the transaction ends."""
    query = Player.select().where(Player.id == player_id)
    player = locking(query).first()
    if player is None:
        raise NotFoundError(_("There is no such player."))
    return player


def locked(match_id: int, now: datetime, trust_pending: bool = False) -> Locked:
    """Lock a match and its seats inside a transaction the caller already holds (a vacation
    touches several matches in one transaction, always in match id order). What the match
    has pending is used only with `trust_pending` (see `Pending`).

    The three reads are sent before any is read: inside `pipelined()` on PostgreSQL they
    travel together. The server still runs them in order, so the seats and the pending
    answers are read after the match's lock is held, as `lock_match` then `lock_seats`
    would."""
    match_read = _LOCK_MATCH.start(match_id)
    seats_read = _LOCK_SEATS.start(match_id)
    players_read = _SEATED_PLAYERS.start(match_id)
    match = _found(match_read.first(), match_id)
    seats, pending = _seated(seats_read.rows(), players_read.rows())
    return Locked(match, seats, now, pending if trust_pending else Pending())


def finish_change(door: Locked, before: Iterable[int], change: Change) -> None:
    """Settle clocks, offers and open rulings from what changed, then hand the change on to
    the settlers."""
    if door.ended:
        deadlines.stop_all_clocks(door.match)
        if door.pending.draw_offer:
            (DrawOffer.update(status=DrawOfferStatus.LAPSED, answered_at=door.now,
                              how="the match ended")
             .where(DrawOffer.match == door.match, DrawOffer.status == DrawOfferStatus.OPEN)
             .execute())
        if door.pending.rulings:
            deadlines.close_moot_entries(door.match, None, door.now,
                                         "the match ended before a ruling")
    elif door.movers:
        after = set(door.match.to_move)
        by_number = {row.seat: row for row in door.seats}
        for number in (set(before) | door.movers) - (after - door.movers):
            deadlines.stop_clock(door.match, by_number[number], door.now)
        for number in sorted(after):
            if by_number[number].owes_since is None:
                deadlines.start_clock(door.match, by_number[number], door.now)
        if door.pending.rulings:
            for number in door.movers:
                deadlines.close_moot_entries(door.match, number, door.now,
                                             "the seat moved before a ruling")
    hand_on(Settled(
        match=door.match, seats=tuple(door.seats), change=change, rules=door.rules,
        now=door.now, ended=door.ended, movers=frozenset(door.movers),
        to_move_before=tuple(before), to_move_after=tuple(door.match.to_move or ()),
        timed_out=change.timed_out(door.logged) if door.ended else frozenset(),
        told=tuple(door.told), quiet=frozenset(door.quiet), notes=door.mail_notes))


def _apply_once(match_id: int, change: Change, now: datetime) -> Any:
    # Called inside a caller's transaction, this is only a savepoint in it: not the door's own.
    opened = not database.in_transaction()
    with pipelined_transaction():
        return apply_within(match_id, change, now, door_opened=opened)


def _log(door: Locked, change: Change, version: int) -> None:
    """One row of the change log for a change that wrote (one that found nothing to do, a
    reminder already sent, leaves none)."""
    if door.match.version == version:
        return
    row = dict(match=door.match.id, version=door.match.version, kind=change.kind,
               seat=change.seat, actor=change.by, channel=str(change.via),
               payload=change.logged_payload(door.logged), at=door.now)
    if not change.action_key:
        add_row(ChangeLog, **row)
        return
    # A keyed change (an admin's form) waits for its row's answer: the key's unique index
    # settles two posts of one form that raced past `_check_fresh`.
    try:
        with database.atomic():
            ChangeLog.create(**row, action_key=change.action_key[:MAX_KEY])
    except peewee.IntegrityError as error:
        raise AlreadyDoneError from error


def _check_fresh(match_id: int, action_key: str) -> None:
    """Refuse a form whose change was already made (its key is on the match's change log)."""
    if _KEY_USED.first(match_id, action_key[:MAX_KEY]) is not None:
        raise AlreadyDoneError


_KEY_USED = Prepared(lambda match_id, key: ChangeLog.select(ChangeLog.id)
                     .where(ChangeLog.match == match_id, ChangeLog.action_key == key).limit(1))


def _json_safe(value: Any) -> Any:
    if isinstance(value, timedelta):
        return int(value.total_seconds())
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, frozenset | set | tuple):
        return sorted(value) if isinstance(value, frozenset | set) else list(value)
    return value


def deadline_now(door: Locked) -> bool:
    """A competition's deadline reaches a live match (a tournament round's, a league
    season's): every seat that owes a move is due now, so the sweep settles it as a timeout.
    Logged even with no seat late, so each match gets the deadline once. False while an admin
    has the match paused: the competition waits for it, and applies it when it resumes."""
    if not door.match.is_live:
        return True
    if door.match.paused_at is not None:
        return False
    late = []
    for seat in door.seats:
        if seat.owes_since is not None and (seat.deadline is None or seat.deadline > door.now):
            seat.deadline = door.now
            seat.version += 1
            seat.save()
            late.append(seat.seat)
    door.touch()
    door.note(late=late)
    return True
