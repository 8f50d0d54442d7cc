"""Outgoing mail's tables: the outbox, and addresses the mail server refused for good.
"""

from __future__ import annotations

from enum import StrEnum

import peewee

from pbem.core.db.base import BaseModel, JSONField, MicrosecondsField, SecondsField
from pbem.core.matches.models import Match


class MessageStatus(StrEnum):
    PENDING = "pending"
    SENDING = "sending"
    SENT = "sent"
    FAILED = "failed"


class OutboxMessage(BaseModel):
    """An email to send, and afterwards the small record of it.

    A row names what to render (`template`, recipient, `match`, `seat`, `ply` and a few
    kind-specific `params`), never a rendered copy: the mail layer renders at send time from
    the match as it stood at `ply`, so no body, seat link or reply key is ever stored. After
    sending, the row keeps the record (recipient, kind, status, times; its Message-ID is
    derived from the row, see `notify.message_key`; the subject only when it is not its
    thread's, which `mail_thread` keeps: `threads.kept_subject`);
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
    # Due messages are found through the index of unsent mail below. The sending times are
    # kept to the second (SecondsField: there is a row a move); `created_at` keeps its
    # microseconds, since the mail is rendered as of that moment (the chat it quotes is
    # what was written up to then, to the microsecond).
    next_attempt_at = SecondsField()
    claimed_until = SecondsField(null=True)
    last_error = peewee.TextField(null=True)
    created_at = MicrosecondsField()
    sent_at = SecondsField(null=True)
    # The match's ply when the message was written: a reply to it by email is stale once the
    # position has moved on from this ply (see core/mailin.py).
    ply = peewee.IntegerField(null=True)



# Almost every row is a sent mail's record, and no query looks for sent mail by status: the
# status index holds only mail not yet sent (a query names `UNSENT` among its conditions, so
# SQLite and PostgreSQL see they may use it), and the sent-time index only mail whose params
# are still kept. A finished match's mails so leave nothing in either. MariaDB has no partial
# indexes: there they are plain (migration 0151).
UNSENT = OutboxMessage.status != MessageStatus.SENT
RETAINED = OutboxMessage.params.is_null(False)
OutboxMessage.add_index(OutboxMessage.index(OutboxMessage.status, OutboxMessage.next_attempt_at,
                                            name="outbox_message_unsent", where=UNSENT))
OutboxMessage.add_index(OutboxMessage.index(OutboxMessage.sent_at,
                                            name="outbox_message_retained", where=RETAINED))


class Suppression(BaseModel):
    """An address that asked never to be invited again."""

    email = peewee.CharField(max_length=254, unique=True)
    created_at = peewee.DateTimeField()


class MailThread(BaseModel):
    """One thread of a match's mails to one seat's player (`core/mailout/threads.py`): the
    subject fixed when the first mail of it was written, whatever language the player reads
    later, and the outbox row it starts at. A long match starts a new thread (`part`) before a
    mail client would split one on its own."""

    match = peewee.ForeignKeyField(Match, backref="mail_threads", on_delete="CASCADE",
                                   index=False)
    match_id: int
    seat = peewee.IntegerField()
    part = peewee.IntegerField()
    subject = peewee.TextField()
    # The first outbox row of this part (0 for the first part: every mail from the start).
    first_message = peewee.IntegerField()
    created_at = peewee.DateTimeField()

    class Meta:
        table_name = "mail_thread"
        indexes = ((("match", "seat", "part"), True),)


class WaitingTurn(BaseModel):
    """A seat's "your turn" mail held back while its player looks at the match (see
    `mailout/waiting.py`): one row per seat at most, replaced by each newer turn, so however
    many moves arrive while the player watches, one mail goes once they have been away.
    `version` is bumped by each replacement, so the worker that sends it claims it once."""

    # The unique (match, seat) index serves lookups by match alone as well.
    match = peewee.ForeignKeyField(Match, on_delete="CASCADE", index=False)
    match_id: int
    seat = peewee.IntegerField()
    ply = peewee.IntegerField()
    params = JSONField(null=True)
    due_at = peewee.DateTimeField(index=True)
    # Why it waits: "present" (the player looks at the match) or "pushed" (a push went; the
    # mail goes only if the match is not opened by `due_at`); since when.
    reason = peewee.CharField(max_length=8, default="present")
    held_at = peewee.DateTimeField()
    version = peewee.IntegerField(default=0)

    class Meta:
        indexes = ((("match", "seat"), True),)
