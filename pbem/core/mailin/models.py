"""Incoming mail's table: one row per inbound message, so each is handled once.
"""

from __future__ import annotations

import peewee

from pbem.core.db.base import BaseModel
from pbem.core.matches.models import Match


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
    match = peewee.ForeignKeyField(Match, null=True, backref="inbound", on_delete="CASCADE",
                                   index=False)
    match_id: int | None
    seat = peewee.IntegerField(null=True)
    first_line = peewee.CharField(max_length=200, null=True)
    action = peewee.CharField(max_length=16)
    detail = peewee.TextField(null=True)
    # The kind of answer mailed (None: none); error answers count against a per-seat limit.
    answer = peewee.CharField(max_length=16, null=True)

    class Meta:
        indexes = ((("match", "seat", "received_at"), False),)
