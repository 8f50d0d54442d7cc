"""The lobby's tables: challenges and their invites, open seeks and who joined them.
"""

from __future__ import annotations

from enum import StrEnum

import peewee

from pbem.core.accounts.models import Player
from pbem.core.db.base import BaseModel, JSONField
from pbem.core.matches.models import Match


class ChallengeStatus(StrEnum):
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
    rated = peewee.BooleanField(default=True)
    # Seats the computer fills, one level each (a mixed table, core/computer/tables.py).
    computers = JSONField(null=True)
    created_at = peewee.DateTimeField()
    expires_at = peewee.DateTimeField(index=True)
    closed_at = peewee.DateTimeField(null=True)
    challenger_id: int
    match_id: int | None
    rematch_of_id: int | None


class InviteStatus(StrEnum):
    PENDING = "pending"
    ACCEPTED = "accepted"
    DECLINED = "declined"


class Invite(BaseModel):
    """One invitee of a challenge. Its emailed link token is derived from `id` and `nonce`
    with the sign-in key; only the hash is stored."""

    challenge = peewee.ForeignKeyField(Challenge, backref="invites", on_delete="CASCADE",
                                       index=False)
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


class SeekStatus(StrEnum):
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
    players = peewee.IntegerField()  # every seat, the computer's included
    rated = peewee.BooleanField(default=True)
    # Who may see and join: players whose displayed rating in the game is in this range
    # (either end may be open). Null both: everyone.
    rating_min = peewee.IntegerField(null=True)
    rating_max = peewee.IntegerField(null=True)
    # Seats the computer fills, one level each (a mixed table, core/computer/tables.py).
    computers = JSONField(null=True)
    status = peewee.CharField(max_length=16, default=SeekStatus.OPEN, index=True)
    version = peewee.IntegerField(default=0)
    match = peewee.ForeignKeyField(Match, null=True, on_delete="SET NULL")
    created_at = peewee.DateTimeField()
    creator_id: int
    match_id: int | None


class SeekEntry(BaseModel):
    seek = peewee.ForeignKeyField(Seek, backref="entries", on_delete="CASCADE", index=False)
    player = peewee.ForeignKeyField(Player, on_delete="CASCADE")
    joined_at = peewee.DateTimeField()
    seek_id: int
    player_id: int

    class Meta:
        indexes = ((("seek", "player"), True),)
