"""Matches' tables: the match, its seats, its moves, draw offers, timeouts awaiting
an admin, and players' vacations. Times are naive UTC datetimes; JSON columns hold rules
dumps and views.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import peewee

from pbem.core.accounts.models import Player
from pbem.core.db.base import BaseModel, JSONField, SecondsField
from pbem.core.db.prepared import Prepared


class MatchStatus(StrEnum):
    ACTIVE = "active"
    FINISHED = "finished"
    ABORTED = "aborted"


class Match(BaseModel):
    game = peewee.CharField(max_length=40)
    rules_version = peewee.IntegerField()
    options = JSONField(default=dict)
    seed = peewee.BigIntegerField()
    # A game that commits its deals (games/dealing.py): the seed every hidden deal is drawn
    # from, secret until the match ends, and SHA-256(seed ‖ id), public from its creation.
    # Both None on a match made before, which is dealt from `seed` as it always was.
    deal_seed = peewee.CharField(max_length=64, null=True)
    deal_commitment = peewee.CharField(max_length=64, null=True)
    # The match id the commitment names when it is not this one's (an imported record's).
    deal_match = peewee.IntegerField(null=True)
    status = peewee.CharField(max_length=16, default=MatchStatus.ACTIVE)
    # `ply` counts moves made; `turn` counts decisions (a simultaneous decision by several
    # seats is one turn of several plies). Both guard conditional updates in `play.py`.
    ply = peewee.IntegerField(default=0)
    turn = peewee.IntegerField(default=0)
    # Moves taken back so far (core/takebacks): with `ply`, what a play page's form saw.
    takebacks = peewee.IntegerField(default=0)
    to_move = JSONField(default=list)
    state = JSONField()
    result = JSONField(null=True)
    thread_key = peewee.CharField(max_length=32)
    time_control = peewee.CharField(max_length=40, default="3d")
    on_timeout = peewee.CharField(max_length=16, default="adjudicate")
    created_at = peewee.DateTimeField()
    updated_at = peewee.DateTimeField()
    finished_at = peewee.DateTimeField(null=True)
    # Bumped by every change (changes.py): the guard of the door's conditional update.
    version = peewee.IntegerField(default=0)
    # "win" (someone won) or "draw" (nobody won alone), set with the result by
    # `standings.settle`; the archive filters on it without reading `result`.
    outcome = peewee.CharField(max_length=8, null=True)
    # Set while an admin holds the clocks (`admin_actions.pause`): no deadline runs.
    paused_at = peewee.DateTimeField(null=True)
    # Set on a match imported from a record (records/imports.py): the record's fingerprint,
    # so importing the same record again names this match instead of making a copy.
    record_fingerprint = peewee.CharField(max_length=64, null=True, unique=True)
    # Whether the result changes ratings (core/ratings): chosen on the challenge or seek;
    # matches made by address (the CLI, an admin) are casual.
    rated = peewee.BooleanField(default=False)
    # Set when any seat is or was played by the computer (a computer opponent, or a seat an
    # admin handed to it): such a match is unrated, and the ratings skip it.
    has_computer = peewee.BooleanField(default=False)
    # A finished rated match an admin voided for ratings (core/admin/actions.py `void`): it
    # stays on record with its result, unrated, and the ratings were recomputed without it.
    voided_at = peewee.DateTimeField(null=True)
    void_reason = peewee.TextField(null=True)
    # "league" or "ladder" for a game of a standing competition (core/leagues), else None:
    # the one place to ask whether a match counts for one (takebacks are refused there).
    competition = peewee.CharField(max_length=16, null=True)

    class Meta:
        # The archive pages newest first by id (keyset, never OFFSET) within each filter.
        indexes = (
            (("game", "id"), False),
            (("status", "id"), False),
            (("game", "status", "id"), False),
            (("outcome", "id"), False),
            (("game", "outcome", "id"), False),
        )

    @property
    def is_live(self) -> bool:
        return self.status == MatchStatus.ACTIVE

    def seat_rows(self) -> list[Seat]:
        return _SEAT_ROWS.rows(self.id)


class Seat(BaseModel):
    match = peewee.ForeignKeyField(Match, backref="seats", on_delete="CASCADE", index=False)
    match_id: int  # peewee's accessor for the raw foreign key, declared for the type checker
    seat = peewee.IntegerField()
    player = peewee.ForeignKeyField(Player, backref="seats", index=False)
    player_id: int
    # SHA-256 of the seat's link token; the token itself is derived (see tokens.py).
    token_hash = peewee.CharField(max_length=64, unique=True)
    token_generation = peewee.IntegerField(default=1)
    # The clock (see deadlines.py). `allowance_seconds` is the running time the seat has for
    # its current or next move; while it owes a move, `owes_since` is set and `deadline` is
    # when that allowance runs out (vacations and outages push it back). The indexed
    # `deadline` and `remind_at` let the sweep read only what is due.
    allowance_seconds = peewee.IntegerField(default=0)
    owes_since = peewee.DateTimeField(null=True)
    deadline = peewee.DateTimeField(null=True, index=True)
    remind_at = peewee.DateTimeField(null=True, index=True)
    version = peewee.IntegerField(default=0)
    # Under the `claim` timeout policy: when this seat's time ran out. The others may claim
    # the win from then on; the seat may still move until someone does (moving clears it).
    out_of_time_at = peewee.DateTimeField(null=True)
    # "win", "loss" or "draw" once the match has a result (`standings.settle`): player records
    # and the archive's result filter count these.
    outcome = peewee.CharField(max_length=8, null=True)
    # The seat's last visit to its page (GET /play/<token>), kept to within a few minutes:
    # evidence for an admin ruling on a timeout.
    last_seen_at = peewee.DateTimeField(null=True)
    # Set while the computer plays this seat, at that level (core/computer): a computer
    # opponent's seat from the start, or a person's seat an admin handed to it for the rest
    # of the match. Its clock never runs; the worker's computer job moves for it.
    computer_level = peewee.SmallIntegerField(null=True)

    class Meta:
        indexes = ((("match", "seat"), True), (("player", "match"), False))


# A move's `note` when it was a seat's conditional answer, played at once by the door (any
# other note is the reason the server autoplayed it).
CONDITIONAL_NOTE = "conditional"


def autoplay_reason(note: str | None) -> str | None:
    """The reason the server played a move (None: its player did, maybe conditionally)."""
    return None if note == CONDITIONAL_NOTE else note


class Move(BaseModel):
    match = peewee.ForeignKeyField(Match, backref="moves", on_delete="CASCADE", index=False)
    match_id: int
    ply = peewee.IntegerField()
    turn = peewee.IntegerField()
    seat = peewee.IntegerField()
    text = peewee.CharField(max_length=200)
    # Seats that may read `text` while the match runs; null means everyone.
    visible_to = JSONField(null=True)
    events = JSONField(default=list)
    # Set when the server moved for the seat (autoplay policy or ruling): why.
    note = peewee.TextField(null=True)
    # To the second, as the move list shows it to the minute: there is a row a move.
    created_at = SecondsField()

    class Meta:
        indexes = ((("match", "ply"), True),)

    def how_made(self) -> dict[str, Any]:
        """How the move was made, as its note tells (the admin's view and the export list
        it): `autoplayed`, the server's reason for playing it, and `conditional`, whether it
        was its player's stored answer."""
        return {"autoplayed": autoplay_reason(self.note),
                "conditional": self.note == CONDITIONAL_NOTE}


def event_parts(stored: Any) -> tuple[str, dict[str, Any], list[int] | None]:
    """A stored event (`Move.events`): its kind, its data and the seats that may read it
    (None: everyone). Written as `[kind, data]` or `[kind, data, seats]` (see
    `play.stored_events`); rows written before that hold `{"kind", "data", "visible_to"}`."""
    if isinstance(stored, dict):
        return stored["kind"], stored.get("data", {}), stored.get("visible_to")
    return stored[0], stored[1], stored[2] if len(stored) > 2 else None


class Position(BaseModel):
    """The rules' dump of the position after a move, so showing any ply reads one row
    instead of replaying from the seed (`creation.state_after`). Its own table, not a column
    of `move`: a finished match keeps one position in fifty, and deleting the others' rows
    frees whole pages, where emptying a column left every move page half empty."""

    match = peewee.ForeignKeyField(Match, backref="positions", on_delete="CASCADE", index=False)
    match_id: int
    ply = peewee.IntegerField()
    state = JSONField()

    class Meta:
        indexes = ((("match", "ply"), True),)


class ChangeLog(BaseModel):
    """One row per change made to a match through the door (see changes.py): the match's
    history, for the record export, the admin's view and the public page's events. Written in
    the change's own transaction, so a refused or rolled-back change leaves none. Matches
    made before the log began have rows only for what happened since."""

    match = peewee.ForeignKeyField(Match, backref="changes", on_delete="CASCADE", index=False)
    match_id: int
    # The match's version after the change: the log reads in the order changes were made.
    version = peewee.IntegerField()
    kind = peewee.CharField(max_length=32)
    seat = peewee.IntegerField(null=True)
    # "player" (the seat's own player), an admin's address, or "server".
    actor = peewee.CharField(max_length=254)
    channel = peewee.CharField(max_length=8)
    payload = JSONField(default=dict)
    at = SecondsField()  # the log reads in `version` order; a row a move
    # An admin form's one-time key (changes.py `action_key`): unique per match, so a form
    # posted twice acts once. None for every other change.
    action_key = peewee.CharField(max_length=64, null=True)

    class Meta:
        table_name = "change_log"
        indexes = ((("match", "version"), False),)


# Only an admin's changes carry a key, so the key's unique index holds only those rows: a
# match's moves leave nothing in it (migration 0331; MariaDB, with no partial indexes, keeps
# a plain one). A lookup by key implies the key is not null, so SQLite and PostgreSQL use it.
ChangeLog.add_index(ChangeLog.index(ChangeLog.match, ChangeLog.action_key, unique=True,
                                    name="change_log_keyed",
                                    where=ChangeLog.action_key.is_null(False)))


class ConditionalTree(BaseModel):
    """A seat's conditional moves (see conditional.py): a tree of lines, the opponent's move
    then the seat's answer, to any depth, as nested JSON `{"their move": {"my answer": {…}}}`.
    One row per seat, replaced whole: a reader sees the old tree or the new one, never half of
    each. `ply` is the match's ply at the tree's root (a tree whose ply is not the match's is
    stale and counts as none); `version` counts the replacements. Only its owner reads it."""

    match = peewee.ForeignKeyField(Match, backref="conditional_trees", on_delete="CASCADE",
                                   index=False)
    match_id: int
    seat = peewee.IntegerField()
    ply = peewee.IntegerField()
    tree = JSONField(default=dict)
    version = peewee.IntegerField(default=1)
    updated_at = peewee.DateTimeField()

    class Meta:
        table_name = "conditional_tree"
        indexes = ((("match", "seat"), True),)


class ComputerJob(BaseModel):
    """A computer seat owes a move: queued by the door in the transaction that made it the
    seat's turn, one row per (match, seat, turn). A worker claims it under a lease (a
    conditional update), thinks outside any transaction, and hands the move to the door,
    which checks it against the match as it is then; the row is deleted once it is done
    with (moved, or the move became moot)."""

    match = peewee.ForeignKeyField(Match, backref="computer_jobs", on_delete="CASCADE", index=False)
    match_id: int
    seat = peewee.IntegerField()
    turn = peewee.IntegerField()  # the match's turn the job was queued for
    level = peewee.SmallIntegerField()
    due_at = peewee.DateTimeField()
    # While a worker thinks: until when the claim holds (a crashed worker's claim lapses and
    # another takes the job over), and the claim's random token, so only its holder finishes.
    leased_until = peewee.DateTimeField(null=True)
    lease_token = peewee.CharField(max_length=32, null=True)
    attempts = peewee.IntegerField(default=0)
    created_at = peewee.DateTimeField()

    class Meta:
        table_name = "computer_job"
        indexes = ((("match", "seat", "turn"), True), (("due_at",), False))


class Vacation(BaseModel):
    """A declared absence: the player's clocks stop from `starts_at` to `ends_at`."""

    player = peewee.ForeignKeyField(Player, backref="vacations", on_delete="CASCADE")
    starts_at = peewee.DateTimeField()
    ends_at = peewee.DateTimeField()
    created_at = peewee.DateTimeField()


class AdjudicationStatus(StrEnum):
    OPEN = "open"
    RULED = "ruled"
    CLOSED = "closed"  # moot: the late seat moved, or the match ended, before a ruling


class Adjudication(BaseModel):
    """An entry in the admin's queue: a seat timed out, or its turn email never arrived."""

    match = peewee.ForeignKeyField(Match, backref="adjudications", on_delete="CASCADE")
    match_id: int
    seat = peewee.IntegerField()
    cause = peewee.CharField(max_length=16)  # "timeout" or "undelivered"
    status = peewee.CharField(max_length=16, default=AdjudicationStatus.OPEN, index=True)
    opened_at = peewee.DateTimeField()
    ruling = peewee.CharField(max_length=16, null=True)
    reason = peewee.TextField(null=True)
    ruled_by = peewee.CharField(max_length=254, null=True)
    ruled_at = peewee.DateTimeField(null=True)


class DrawOfferStatus(StrEnum):
    OPEN = "open"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    LAPSED = "lapsed"  # the match ended another way while the offer stood


class DrawOffer(BaseModel):
    """A seat's offer of a draw: it stands until every other seat accepts it, one says no,
    or one of them moves instead (which declines it)."""

    match = peewee.ForeignKeyField(Match, backref="draw_offers", on_delete="CASCADE")
    match_id: int
    seat = peewee.IntegerField()
    ply = peewee.IntegerField()  # the match's ply when the offer was made
    status = peewee.CharField(max_length=16, default=DrawOfferStatus.OPEN)
    accepted_by = JSONField(default=list)
    answered_by = peewee.IntegerField(null=True)  # the seat that declined, if one did
    how = peewee.CharField(max_length=40, null=True)  # "said no", "moved instead", …
    offered_at = peewee.DateTimeField()
    answered_at = peewee.DateTimeField(null=True)


# A match's seats with their players, in seat order: read by nearly every page and mail.
_SEAT_ROWS = Prepared(lambda match_id: Seat.select(Seat, Player).join(Player)
                      .where(Seat.match == match_id).order_by(Seat.seat))


class Heartbeat(BaseModel):
    """The worker's last tick, to tell an outage from a quiet night: the deadline sweep
    (sweep.py) claims each silence once through it; the admin's status pages read it."""

    name = peewee.CharField(max_length=40, unique=True)
    seen_at = peewee.DateTimeField()
