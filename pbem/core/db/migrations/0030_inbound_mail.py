"""Reply by email: a record of every inbound message, and the ply each outgoing mail was
written at (a reply to an older "your turn" mail is stale once the position moved on)."""

from __future__ import annotations

from typing import Any

from peewee import CharField, DateTimeField, ForeignKeyField, IntegerField, Model, TextField

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    class Match(Model):
        class Meta:
            database = db
            table_name = "match"

    class InboundMessage(Model):
        message_key = CharField(unique=True, max_length=64)
        message_id = CharField(null=True, max_length=200)
        received_at = DateTimeField(index=True)
        via = CharField(max_length=8)
        sender = CharField(null=True, max_length=254)
        recipient = CharField(null=True, max_length=254)
        match = ForeignKeyField(Match, null=True, on_delete="CASCADE")
        seat = IntegerField(null=True)
        first_line = CharField(null=True, max_length=200)
        action = CharField(max_length=16)
        detail = TextField(null=True)
        answer = CharField(null=True, max_length=16)

        class Meta:
            database = db
            table_name = "inbound_message"
            indexes = ((("match", "seat", "received_at"), False),)

    db.create_tables([InboundMessage], safe=True)
    # The lean outbox may add the same column: whichever migration runs second does nothing.
    add_column_once(migrator, db, "outbox_message", "ply", IntegerField(null=True))
