"""Accounts' tables: players, admins, their sessions, sign-in links, API tokens
and counted attempts (rate limits).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

import peewee

from pbem.core.db.base import BaseModel


class Player(BaseModel):
    email = peewee.CharField(max_length=254, unique=True)
    # The display name others see; the address is never shown to anyone but its owner.
    name = peewee.CharField(max_length=40, null=True, unique=True)
    # An IANA zone name ("Europe/Paris") the player chose, for showing deadlines; null: UTC.
    timezone = peewee.CharField(max_length=64, null=True)
    # The language pages and mails speak to the player (`pbem.i18n.LANGUAGES`); null: the
    # browser's on pages, English in mail.
    language = peewee.CharField(max_length=8, null=True)
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
    # Text mode: the play page shows a text view and a command line instead of the board.
    text_mode = peewee.BooleanField(default=False)
    # Takebacks in the player's matches (core/takebacks): "never", "casual" (unrated matches
    # outside tournaments: the default) or "always" (every match that allows them).
    takebacks = peewee.CharField(max_length=8, default="casual")
    # When the player's last vacation ends (null: never had one), kept with each vacation
    # declared: a clock or page reads the vacation table only when one may matter.
    away_until = peewee.DateTimeField(null=True)
    # Chat mails (conversation/): "now", "digest" (listed in the daily digest) or "off".
    chat_mail = peewee.CharField(max_length=8, default="now")
    # Set by an admin: the player may not write in any chat (reading goes on).
    chat_barred_at = peewee.DateTimeField(null=True)
    # Set on the five computer players only (core/computer/players.py): the level the seat's
    # moves are chosen at. They are named "Computer (level N)", which no person's name can
    # be (a display name has no brackets), get no mail and never sign in.
    computer_level = peewee.SmallIntegerField(null=True, unique=True)

    @classmethod
    def for_email(cls, email: str, now: datetime) -> Player:
        player, _ = cls.get_or_create(email=email, defaults={"created_at": now})
        return player

    @property
    def is_computer(self) -> bool:
        return self.computer_level is not None

    @property
    def public_name(self) -> str:
        """How other players and public pages name this player: the display name, else the
        address's local part (never the whole address)."""
        return self.name or self.email.split("@", 1)[0]


class AdminRole(StrEnum):
    ADMIN = "admin"  # everything
    MODERATOR = "moderator"  # the queue and the matches only


class Admin(BaseModel):
    email = peewee.CharField(max_length=254, unique=True)
    password_hash = peewee.CharField(max_length=255)
    created_at = peewee.DateTimeField()
    role = peewee.CharField(max_length=16, default=AdminRole.ADMIN)


class SessionKind(StrEnum):
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
    # What it may do, space-separated (see api_tokens.Scope): "read", "play", "account".
    scopes = peewee.CharField(max_length=40, default="read")
    player_id: int


class FormerName(BaseModel):
    """A display name the player had before, kept so links to their old page still work (and
    no one else can take the name over at once: see players.update_settings)."""

    player = peewee.ForeignKeyField(Player, backref="former_names", on_delete="CASCADE")
    name = peewee.CharField(max_length=40, index=True)
    until = peewee.DateTimeField()
