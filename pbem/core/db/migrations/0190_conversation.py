"""Talk at the board (conversation/): chat messages, seat notes, reports, players' block lists
and chat mutes, and two player columns: the chat mail preference and an admin's chat bar.
Adds tables and columns only; nothing existing changes."""

from __future__ import annotations

from typing import Any

from peewee import (
    CharField,
    DateTimeField,
    ForeignKeyField,
    IntegerField,
    Model,
    TextField,
)

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Player(Base):
        pass

    class Match(Base):
        pass

    class Seat(Base):
        pass

    class ChatMessage(Base):
        match = ForeignKeyField(Match, backref="chat", on_delete="CASCADE")
        room = CharField(max_length=12)
        seat = IntegerField(null=True)
        author = ForeignKeyField(Player, backref="chat_messages", on_delete="CASCADE")
        text = TextField()
        ply = IntegerField()
        channel = CharField(max_length=8)
        created_at = DateTimeField()
        hidden_at = DateTimeField(null=True)
        hidden_by = CharField(max_length=254, null=True)

        class Meta:
            table_name = "chat_message"
            indexes = ((("match", "room", "id"), False), (("author", "created_at"), False))

    class SeatNote(Base):
        seat = ForeignKeyField(Seat, backref="notes", on_delete="CASCADE", unique=True)
        text = TextField()
        updated_at = DateTimeField()

        class Meta:
            table_name = "seat_note"

    class ChatReport(Base):
        message = ForeignKeyField(ChatMessage, backref="reports", on_delete="CASCADE")
        reporter = ForeignKeyField(Player, backref="chat_reports", on_delete="CASCADE")
        reason = CharField(max_length=300)
        created_at = DateTimeField()
        resolved_at = DateTimeField(null=True, index=True)
        resolved_by = CharField(max_length=254, null=True)
        resolution = CharField(max_length=12, null=True)

        class Meta:
            table_name = "chat_report"
            indexes = ((("message", "reporter"), True),)

    class PlayerBlock(Base):
        player = ForeignKeyField(Player, backref="blocks", on_delete="CASCADE")
        blocked = ForeignKeyField(Player, backref="blocked_by", on_delete="CASCADE")
        created_at = DateTimeField()

        class Meta:
            table_name = "player_block"
            indexes = ((("player", "blocked"), True),)

    class ChatMute(Base):
        match = ForeignKeyField(Match, backref="chat_mutes", on_delete="CASCADE")
        player = ForeignKeyField(Player, backref="chat_mutes", on_delete="CASCADE")
        created_at = DateTimeField()

        class Meta:
            table_name = "chat_mute"
            indexes = ((("match", "player"), True),)

    db.create_tables([ChatMessage, SeatNote, ChatReport, PlayerBlock, ChatMute], safe=True)
    add_column_once(migrator, db, "player", "chat_mail", CharField(max_length=8, default="now"))
    add_column_once(migrator, db, "player", "chat_barred_at", DateTimeField(null=True))
