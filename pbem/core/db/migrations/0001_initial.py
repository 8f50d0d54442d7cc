"""The schema as first released: frozen copies of the tables, independent of `models.py`.

JSON columns are plain text here, as `models.JSONField` stores them.
"""

from __future__ import annotations

from typing import Any

from peewee import (
    BigIntegerField,
    CharField,
    DateTimeField,
    ForeignKeyField,
    IntegerField,
    Model,
    TextField,
)


def up(migrator: Any, db: Any) -> None:
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Match(Base):
        game = CharField(index=True, max_length=40)
        rules_version = IntegerField()
        options = TextField()
        seed = BigIntegerField()
        status = CharField(index=True, max_length=16, default="active")
        ply = IntegerField(default=0)
        turn = IntegerField(default=0)
        to_move = TextField()
        state = TextField()
        result = TextField(null=True)
        thread_key = CharField(max_length=32)
        time_control = CharField(max_length=40, default="3d")
        on_timeout = CharField(max_length=16, default="adjudicate")
        created_at = DateTimeField()
        updated_at = DateTimeField()
        finished_at = DateTimeField(null=True)

    class Player(Base):
        email = CharField(unique=True, max_length=254)
        timezone = CharField(null=True, max_length=64)
        created_at = DateTimeField()

    class Seat(Base):
        match = ForeignKeyField(Match, on_delete="CASCADE")
        seat = IntegerField()
        player = ForeignKeyField(Player)
        token_hash = CharField(unique=True, max_length=64)
        token_generation = IntegerField(default=1)
        allowance_seconds = IntegerField(default=0)
        owes_since = DateTimeField(null=True)
        deadline = DateTimeField(index=True, null=True)
        remind_at = DateTimeField(index=True, null=True)
        version = IntegerField(default=0)

        class Meta:
            indexes = ((("match", "seat"), True),)

    class Move(Base):
        match = ForeignKeyField(Match, on_delete="CASCADE")
        ply = IntegerField()
        turn = IntegerField()
        seat = IntegerField()
        text = CharField(max_length=200)
        visible_to = TextField(null=True)
        events = TextField()
        note = TextField(null=True)
        created_at = DateTimeField()

        class Meta:
            indexes = ((("match", "ply"), True),)

    class OutboxMessage(Base):
        match = ForeignKeyField(Match, null=True, on_delete="CASCADE")
        seat = IntegerField(null=True)
        to_address = CharField(max_length=254)
        template = CharField(max_length=40)
        context = TextField()
        message_id = CharField(unique=True, max_length=200)
        in_reply_to = CharField(null=True, max_length=200)
        subject = TextField(null=True)
        body_text = TextField(null=True)
        body_html = TextField(null=True)
        status = CharField(max_length=16, default="pending")
        attempts = IntegerField(default=0)
        version = IntegerField(default=0)
        next_attempt_at = DateTimeField(index=True)
        claimed_until = DateTimeField(null=True)
        last_error = TextField(null=True)
        created_at = DateTimeField()
        sent_at = DateTimeField(null=True)

        class Meta:
            indexes = ((("status", "next_attempt_at"), False),)

    class Vacation(Base):
        player = ForeignKeyField(Player, on_delete="CASCADE")
        starts_at = DateTimeField()
        ends_at = DateTimeField()
        created_at = DateTimeField()

    class Adjudication(Base):
        match = ForeignKeyField(Match, on_delete="CASCADE")
        seat = IntegerField()
        cause = CharField(max_length=16)
        status = CharField(index=True, max_length=16, default="open")
        opened_at = DateTimeField()
        ruling = CharField(null=True, max_length=16)
        reason = TextField(null=True)
        ruled_by = CharField(null=True, max_length=254)
        ruled_at = DateTimeField(null=True)

    class Admin(Base):
        email = CharField(unique=True, max_length=254)
        password_hash = CharField()
        created_at = DateTimeField()

    class AuditEntry(Base):
        at = DateTimeField(index=True)
        actor = CharField(max_length=254)
        action = CharField(max_length=40)
        match = ForeignKeyField(Match, null=True, on_delete="CASCADE")
        reason = TextField()
        detail = TextField()

    class Heartbeat(Base):
        name = CharField(unique=True, max_length=40)
        seen_at = DateTimeField()

    # safe=True (IF NOT EXISTS): re-running after a half-finished attempt on MariaDB, whose
    # DDL is not transactional, completes the schema instead of failing.
    db.create_tables([Match, Player, Seat, Move, OutboxMessage, Vacation, Adjudication, Admin,
                      AuditEntry, Heartbeat], safe=True)
