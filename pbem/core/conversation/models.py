"""Conversation's tables: chat messages, seat notes, reports, blocks and mutes.

Messages are rows, never copies inside mails: a mail quoting them renders them at send time.
"""

from __future__ import annotations

from enum import StrEnum

import peewee

from pbem.core.accounts.models import Player
from pbem.core.db.base import BaseModel
from pbem.core.matches.models import Match, Seat


class Room(StrEnum):
    PLAYERS = "players"  # the seats of the match, and no one else, ever
    SPECTATORS = "spectators"  # signed-in players who are not seated; the players may read it


class ChatMessage(BaseModel):
    match = peewee.ForeignKeyField(Match, backref="chat", on_delete="CASCADE", index=False)
    match_id: int
    room = peewee.CharField(max_length=12)
    # The writer's seat in the players' room (null in the spectators' room).
    seat = peewee.IntegerField(null=True)
    author = peewee.ForeignKeyField(Player, backref="chat_messages", on_delete="CASCADE",
                                    index=False)
    author_id: int
    text = peewee.TextField()  # plain text as typed (cleaned); escaped wherever it is shown
    # The match's ply when it was written; a message sent with a move by email has the ply
    # the move made.
    ply = peewee.IntegerField()
    channel = peewee.CharField(max_length=8)  # web, api or mail
    created_at = peewee.DateTimeField()
    # Set by an admin (moderation): the message is shown to no one but the admin console.
    hidden_at = peewee.DateTimeField(null=True)
    hidden_by = peewee.CharField(max_length=254, null=True)

    class Meta:
        table_name = "chat_message"
        # Pages read one room newest first by id (keyset); the limit counts by author and time.
        indexes = ((("match", "room", "id"), False), (("author", "created_at"), False))


class SeatNote(BaseModel):
    """A seat's private notes: only that seat reads them (its page, its API, its export)."""

    seat = peewee.ForeignKeyField(Seat, backref="notes", on_delete="CASCADE", unique=True)
    seat_id: int
    text = peewee.TextField()
    updated_at = peewee.DateTimeField()

    class Meta:
        table_name = "seat_note"


class ChatReport(BaseModel):
    """A player's report of a message, for the admin console's queue of reports."""

    message = peewee.ForeignKeyField(ChatMessage, backref="reports", on_delete="CASCADE",
                                     index=False)
    message_id: int
    reporter = peewee.ForeignKeyField(Player, backref="chat_reports", on_delete="CASCADE")
    reporter_id: int
    reason = peewee.CharField(max_length=300)
    created_at = peewee.DateTimeField()
    # Set when an admin dealt with it: "hidden", "barred" or "dismissed", and by whom.
    resolved_at = peewee.DateTimeField(null=True, index=True)
    resolved_by = peewee.CharField(max_length=254, null=True)
    resolution = peewee.CharField(max_length=12, null=True)

    class Meta:
        table_name = "chat_report"
        indexes = ((("message", "reporter"), True),)


class PlayerBlock(BaseModel):
    """`player` blocked `blocked`: no message of `blocked` is shown or mailed to `player`."""

    player = peewee.ForeignKeyField(Player, backref="blocks", on_delete="CASCADE", index=False)
    player_id: int
    blocked = peewee.ForeignKeyField(Player, backref="blocked_by", on_delete="CASCADE")
    blocked_id: int
    created_at = peewee.DateTimeField()

    class Meta:
        table_name = "player_block"
        indexes = ((("player", "blocked"), True),)


class ChatMute(BaseModel):
    """`player` muted the chat of `match`: no chat mail and no quotes for them from it."""

    match = peewee.ForeignKeyField(Match, backref="chat_mutes", on_delete="CASCADE", index=False)
    match_id: int
    player = peewee.ForeignKeyField(Player, backref="chat_mutes", on_delete="CASCADE")
    player_id: int
    created_at = peewee.DateTimeField()

    class Meta:
        table_name = "chat_mute"
        indexes = ((("match", "player"), True),)
