"""Push's tables: browsers' subscriptions, players' channel choices, and the push outbox."""

from __future__ import annotations

from enum import StrEnum

import peewee

from pbem.core.accounts.models import Player
from pbem.core.db.base import BaseModel, JSONField, MicrosecondsField, SecondsField
from pbem.core.matches.models import Match


class PushSubscription(BaseModel):
    """A browser's push subscription (the Push API's `PushSubscription.toJSON()`): where to
    send (`endpoint`, on the browser maker's push service) and the keys to encrypt for it.
    One row per endpoint (its SHA-256, as endpoints are long URLs)."""

    player = peewee.ForeignKeyField(Player, on_delete="CASCADE")
    player_id: int
    endpoint = peewee.TextField()
    endpoint_hash = peewee.CharField(max_length=64, unique=True)
    p256dh = peewee.CharField(max_length=200)
    auth = peewee.CharField(max_length=100)
    created_at = peewee.DateTimeField()


class PushChoice(BaseModel):
    """A player's channel for one kind of news (`channels.KINDS`): mail, push or both."""

    player = peewee.ForeignKeyField(Player, on_delete="CASCADE", index=False)
    player_id: int
    kind = peewee.CharField(max_length=16)
    channel = peewee.CharField(max_length=8)

    class Meta:
        indexes = ((("player", "kind"), True),)


class PushStatus(StrEnum):
    PENDING = "pending"
    SENDING = "sending"
    SENT = "sent"
    FAILED = "failed"


class PushMessage(BaseModel):
    """A push to send to one subscription, and afterwards its record. Like a mail it names
    what to say (`template`, match, seat, ply), never the words or a seat link: the sender
    writes them in the player's language when it sends."""

    subscription = peewee.ForeignKeyField(PushSubscription, on_delete="CASCADE")
    subscription_id: int
    match = peewee.ForeignKeyField(Match, null=True, on_delete="CASCADE")
    match_id: int | None
    seat = peewee.IntegerField(null=True)
    ply = peewee.IntegerField(null=True)
    template = peewee.CharField(max_length=40)
    params = JSONField(null=True)
    status = peewee.CharField(max_length=16, default=PushStatus.PENDING)
    attempts = peewee.IntegerField(default=0)
    version = peewee.IntegerField(default=0)
    next_attempt_at = SecondsField()
    claimed_until = SecondsField(null=True)
    last_error = peewee.TextField(null=True)
    created_at = MicrosecondsField()
    sent_at = SecondsField(null=True)

    class Meta:
        indexes = ((("status", "next_attempt_at"), False),)
