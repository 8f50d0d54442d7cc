"""The tables. Times are naive UTC datetimes; JSON columns hold rules dumps and views.

Query helpers live on the models; the services in this package decide what to change.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import peewee

from pbem.core.db.connection import database
from pbem.core.db.prepared import Prepared


class JSONField(peewee.TextField):
    """JSON kept as text. Portable to SQLite, PostgreSQL and MariaDB alike (MariaDB has no
    `CAST(… AS JSON)`, which peewee's own JSONField emits); we never query inside it."""

    def db_value(self, value: Any) -> str | None:
        return None if value is None else json.dumps(value, separators=(",", ":"))

    def python_value(self, value: str | None) -> Any:
        return None if value is None else json.loads(value)


class BaseModel(peewee.Model):
    # peewee adds this primary key to every model anyway; declared so the type checker knows it.
    id = peewee.AutoField()

    class Meta:
        database = database
        legacy_table_names = False


class Player(BaseModel):
    email = peewee.CharField(max_length=254, unique=True)
    # The display name others see; the address is never shown to anyone but its owner.
    name = peewee.CharField(max_length=40, null=True, unique=True)
    # An IANA zone name ("Europe/Paris") the player chose, for showing deadlines; null: UTC.
    timezone = peewee.CharField(max_length=64, null=True)
    created_at = peewee.DateTimeField()
    # The player asked to keep their page out of the archive: no `/players/<name>`, and the
    # archive's player filter does not find them (their matches stay listed).
    hidden_from_archive = peewee.BooleanField(default=False)
    # Which events mail the player now (see preferences.py): each, turns, digest or off.
    mail_pref = peewee.CharField(max_length=8, default="turns")
    # The daily digest's hour in the player's zone; `digest_due_at` (UTC, indexed) is when
    # the next one is due, so the worker's job reads only due players.
    digest_hour = peewee.SmallIntegerField(default=8)
    digest_due_at = peewee.DateTimeField(null=True, index=True)
    last_digest_at = peewee.DateTimeField(null=True)
    # Bumped to revoke the secret calendar feed link (derived from it; see links.py).
    calendar_generation = peewee.IntegerField(default=1)
    # Set when the mail server refused the address for good; cleared by signing in again.
    undeliverable_at = peewee.DateTimeField(null=True)
    undeliverable_reason = peewee.CharField(max_length=200, null=True)
    # Set by an admin: the player may not start new challenges or seeks (answering and
    # playing go on).
    challenges_blocked_at = peewee.DateTimeField(null=True)
    # The player's choice for the board on the play page: a move is sent as soon as the clicks
    # spell it, without the "Submit move" step (off by default: a slip of the finger on a
    # phone should not cost a move).
    submit_without_confirm = peewee.BooleanField(default=False)
    # When the player's last vacation ends (null: never had one), kept with each vacation
    # declared: a clock or page reads the vacation table only when one may matter.
    away_until = peewee.DateTimeField(null=True)

    @classmethod
    def for_email(cls, email: str, now: datetime) -> Player:
        player, _ = cls.get_or_create(email=email, defaults={"created_at": now})
        return player

    @property
    def public_name(self) -> str:
        """How other players and public pages name this player: the display name, else the
        address's local part (never the whole address)."""
        return self.name or self.email.split("@", 1)[0]


class MatchStatus:
    ACTIVE = "active"
    FINISHED = "finished"
    ABORTED = "aborted"


class Match(BaseModel):
    game = peewee.CharField(max_length=40, index=True)
    rules_version = peewee.IntegerField()
    options = JSONField(default=dict)
    seed = peewee.BigIntegerField()
    status = peewee.CharField(max_length=16, default=MatchStatus.ACTIVE, index=True)
    # `ply` counts moves made; `turn` counts decisions (a simultaneous decision by several
    # seats is one turn of several plies). Both guard conditional updates in `play.py`.
    ply = peewee.IntegerField(default=0)
    turn = peewee.IntegerField(default=0)
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
    match = peewee.ForeignKeyField(Match, backref="seats", on_delete="CASCADE")
    match_id: int  # peewee's accessor for the raw foreign key, declared for the type checker
    seat = peewee.IntegerField()
    player = peewee.ForeignKeyField(Player, backref="seats")
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

    class Meta:
        indexes = ((("match", "seat"), True), (("player", "match"), False))


class Move(BaseModel):
    match = peewee.ForeignKeyField(Match, backref="moves", on_delete="CASCADE")
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
    created_at = peewee.DateTimeField()
    # The rules' dump of the position after this move, so showing any ply reads one row
    # instead of replaying from the seed. Null only for a game no longer installed when the
    # column was backfilled; `matches.state_after` then replays.
    state = JSONField(null=True)

    class Meta:
        indexes = ((("match", "ply"), True),)


class MessageStatus:
    PENDING = "pending"
    SENDING = "sending"
    SENT = "sent"
    FAILED = "failed"


class OutboxMessage(BaseModel):
    """An email to send, and afterwards the small record of it.

    A row names what to render (`template`, recipient, `match`, `seat`, `ply` and a few
    kind-specific `params`), never a rendered copy: the mail layer renders at send time from
    the match as it stood at `ply`, so no body, seat link or reply key is ever stored. After
    sending, the row keeps the record (recipient, subject, kind, status, times; its Message-ID
    is derived from the row, see `notify.message_key`);
    `params` are dropped after the retention period (`mail_retention_days`).
    """

    match = peewee.ForeignKeyField(Match, null=True, backref="messages", on_delete="CASCADE")
    match_id: int | None
    seat = peewee.IntegerField(null=True)
    ply = peewee.IntegerField(null=True)
    to_address = peewee.CharField(max_length=254)
    template = peewee.CharField(max_length=40)
    params = JSONField(null=True)
    subject = peewee.TextField(null=True)
    status = peewee.CharField(max_length=16, default=MessageStatus.PENDING)
    attempts = peewee.IntegerField(default=0)
    version = peewee.IntegerField(default=0)
    # Due messages are found through the (status, next_attempt_at) index below.
    next_attempt_at = peewee.DateTimeField()
    claimed_until = peewee.DateTimeField(null=True)
    last_error = peewee.TextField(null=True)
    created_at = peewee.DateTimeField()
    sent_at = peewee.DateTimeField(null=True)
    # The match's ply when the message was written: a reply to it by email is stale once the
    # position has moved on from this ply (see core/mailin.py).
    ply = peewee.IntegerField(null=True)

    class Meta:
        indexes = ((("status", "next_attempt_at"), False),)


class Vacation(BaseModel):
    """A declared absence: the player's clocks stop from `starts_at` to `ends_at`."""

    player = peewee.ForeignKeyField(Player, backref="vacations", on_delete="CASCADE")
    starts_at = peewee.DateTimeField()
    ends_at = peewee.DateTimeField()
    created_at = peewee.DateTimeField()


class AdjudicationStatus:
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


class DrawOfferStatus:
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


class AdminRole:
    ADMIN = "admin"  # everything
    MODERATOR = "moderator"  # the queue and the matches only
    ALL = ("admin", "moderator")


class Admin(BaseModel):
    email = peewee.CharField(max_length=254, unique=True)
    password_hash = peewee.CharField(max_length=255)
    created_at = peewee.DateTimeField()
    role = peewee.CharField(max_length=16, default=AdminRole.ADMIN)


class AuditEntry(BaseModel):
    """Who did what, when and why: every ruling, from the web or the shell."""

    at = peewee.DateTimeField(index=True)
    actor = peewee.CharField(max_length=254)
    action = peewee.CharField(max_length=40)
    match = peewee.ForeignKeyField(Match, null=True, backref="audit", on_delete="CASCADE")
    match_id: int | None
    reason = peewee.TextField()
    detail = JSONField(default=dict)
    # The one-time key of the admin form that asked for this action: a second post of the
    # same form finds it and does nothing (unique, so racing posts cannot both act).
    action_key = peewee.CharField(max_length=64, null=True, unique=True)


class InboundMessage(BaseModel):
    """One email that came in (reply by email), whatever became of it, for the admin page.

    `message_key` is the SHA-256 of the Message-ID (or of the whole message if it has none):
    its uniqueness makes a message delivered twice act once. The reply key itself is never
    stored, only the match and seat it opened.
    """

    message_key = peewee.CharField(max_length=64, unique=True)
    message_id = peewee.CharField(max_length=200, null=True)
    received_at = peewee.DateTimeField(index=True)
    via = peewee.CharField(max_length=8)  # "pipe", "imap", "http" or "dev"
    sender = peewee.CharField(max_length=254, null=True)
    recipient = peewee.CharField(max_length=254, null=True)  # with the key's MAC cut short
    match = peewee.ForeignKeyField(Match, null=True, backref="inbound", on_delete="CASCADE")
    match_id: int | None
    seat = peewee.IntegerField(null=True)
    first_line = peewee.CharField(max_length=200, null=True)
    action = peewee.CharField(max_length=16)
    detail = peewee.TextField(null=True)
    # The kind of answer mailed (None: none); error answers count against a per-seat limit.
    answer = peewee.CharField(max_length=16, null=True)

    class Meta:
        indexes = ((("match", "seat", "received_at"), False),)


class Heartbeat(BaseModel):
    """The worker's last tick, to tell an outage from a quiet night."""

    name = peewee.CharField(max_length=40, unique=True)
    seen_at = peewee.DateTimeField()


class SessionKind:
    PLAYER = "player"
    ADMIN = "admin"


class Session(BaseModel):
    """A signed-in browser. The cookie holds a random id; only its keyed hash is stored, so a
    copy of the database opens no session. Deleting the row ends the session everywhere."""

    key_hash = peewee.CharField(max_length=64, unique=True)
    kind = peewee.CharField(max_length=8)
    player = peewee.ForeignKeyField(Player, null=True, backref="sessions", on_delete="CASCADE")
    admin = peewee.ForeignKeyField(Admin, null=True, backref="sessions", on_delete="CASCADE")
    user_agent = peewee.CharField(max_length=120, default="")
    created_at = peewee.DateTimeField()
    last_seen_at = peewee.DateTimeField()
    expires_at = peewee.DateTimeField(index=True)  # absolute: no session outlives this
    player_id: int | None
    admin_id: int | None


class Attempt(BaseModel):
    """One counted event for a rate limit (a failed login, a sign-in or invitation mail).

    Kept in the database so that every web process sees the same counts."""

    kind = peewee.CharField(max_length=24)
    key = peewee.CharField(max_length=300)
    at = peewee.DateTimeField()

    class Meta:
        indexes = ((("kind", "key", "at"), False),)


class SignInLink(BaseModel):
    """An emailed one-time sign-in link. The token is derived from `id` and `nonce` with the
    sign-in key (so the database alone cannot rebuild it); only its hash is stored."""

    email = peewee.CharField(max_length=254)
    nonce = peewee.CharField(max_length=32)
    token_hash = peewee.CharField(max_length=64, unique=True)
    created_at = peewee.DateTimeField()
    expires_at = peewee.DateTimeField()
    used_at = peewee.DateTimeField(null=True)


class ApiToken(BaseModel):
    """A personal API token (Bearer). Random; only its keyed hash is stored."""

    player = peewee.ForeignKeyField(Player, backref="api_tokens", on_delete="CASCADE")
    name = peewee.CharField(max_length=60)
    token_hash = peewee.CharField(max_length=64, unique=True)
    created_at = peewee.DateTimeField()
    last_used_at = peewee.DateTimeField(null=True)
    player_id: int


class Suppression(BaseModel):
    """An address that asked never to be invited again."""

    email = peewee.CharField(max_length=254, unique=True)
    created_at = peewee.DateTimeField()


class ChallengeStatus:
    PENDING = "pending"
    STARTED = "started"
    DECLINED = "declined"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


class Challenge(BaseModel):
    """A signed-in player's invitation of others to a match. `version` guards every change
    (accept, decline, cancel, expiry, start), so racing requests have exactly one outcome."""

    challenger = peewee.ForeignKeyField(Player, backref="challenges_sent", on_delete="CASCADE")
    game = peewee.CharField(max_length=40)
    options = JSONField(default=dict)
    time_control = peewee.CharField(max_length=40)
    on_timeout = peewee.CharField(max_length=16)
    # Player ids in seat order when the seats are fixed ("as-listed", rematches); else null.
    seating = JSONField(null=True)
    status = peewee.CharField(max_length=16, default=ChallengeStatus.PENDING, index=True)
    version = peewee.IntegerField(default=0)
    match = peewee.ForeignKeyField(Match, null=True, backref="challenge", on_delete="SET NULL")
    rematch_of = peewee.ForeignKeyField(Match, null=True, on_delete="SET NULL")
    created_at = peewee.DateTimeField()
    expires_at = peewee.DateTimeField(index=True)
    closed_at = peewee.DateTimeField(null=True)
    challenger_id: int
    match_id: int | None
    rematch_of_id: int | None


class InviteStatus:
    PENDING = "pending"
    ACCEPTED = "accepted"
    DECLINED = "declined"


class Invite(BaseModel):
    """One invitee of a challenge. Its emailed link token is derived from `id` and `nonce`
    with the sign-in key; only the hash is stored."""

    challenge = peewee.ForeignKeyField(Challenge, backref="invites", on_delete="CASCADE")
    player = peewee.ForeignKeyField(Player, backref="invites", on_delete="CASCADE")
    position = peewee.IntegerField()
    nonce = peewee.CharField(max_length=32)
    token_hash = peewee.CharField(max_length=64, unique=True)
    status = peewee.CharField(max_length=16, default=InviteStatus.PENDING)
    answered_at = peewee.DateTimeField(null=True)
    challenge_id: int
    player_id: int

    class Meta:
        indexes = ((("challenge", "player"), True),)


class SeekStatus:
    OPEN = "open"
    STARTED = "started"
    CANCELLED = "cancelled"


class Seek(BaseModel):
    """An open offer: anyone signed in may take a seat; the match starts when it is full."""

    creator = peewee.ForeignKeyField(Player, backref="seeks", on_delete="CASCADE")
    game = peewee.CharField(max_length=40)
    options = JSONField(default=dict)
    time_control = peewee.CharField(max_length=40)
    on_timeout = peewee.CharField(max_length=16)
    players = peewee.IntegerField()
    status = peewee.CharField(max_length=16, default=SeekStatus.OPEN, index=True)
    version = peewee.IntegerField(default=0)
    match = peewee.ForeignKeyField(Match, null=True, on_delete="SET NULL")
    created_at = peewee.DateTimeField()
    creator_id: int
    match_id: int | None


class SeekEntry(BaseModel):
    seek = peewee.ForeignKeyField(Seek, backref="entries", on_delete="CASCADE")
    player = peewee.ForeignKeyField(Player, on_delete="CASCADE")
    joined_at = peewee.DateTimeField()
    seek_id: int
    player_id: int

    class Meta:
        indexes = ((("seek", "player"), True),)


class JobRun(BaseModel):
    """The last run of each worker job, for `/healthz` and `/admin/metrics`."""

    name = peewee.CharField(max_length=40, unique=True)
    finished_at = peewee.DateTimeField()
    seconds = peewee.FloatField()
    # A job's own counters (the daily admin digest keeps the day it last mailed).
    detail = JSONField(default=dict)


ALL_MODELS: tuple[type[BaseModel], ...] = (
    Player, Match, Seat, Move, OutboxMessage, Vacation, Adjudication, Admin,
    AuditEntry, Heartbeat, DrawOffer, JobRun, Session, Attempt, SignInLink, ApiToken,
    Suppression, Challenge, Invite, Seek, SeekEntry, InboundMessage,
)


# A match's seats with their players, in seat order: read by nearly every page and mail.
_SEAT_ROWS = Prepared(lambda match_id: Seat.select(Seat, Player).join(Player)
                      .where(Seat.match == match_id).order_by(Seat.seat))
