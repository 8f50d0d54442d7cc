"""Web push (core/push): browsers' subscriptions, each player's channel per kind of news, and
the push outbox. Adds tables only."""

from __future__ import annotations

from typing import Any

from peewee import CharField, DateTimeField, ForeignKeyField, IntegerField, Model, TextField


def up(migrator: Any, db: Any) -> None:
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Player(Base):
        pass

    class Match(Base):
        pass

    class PushSubscription(Base):
        player = ForeignKeyField(Player, on_delete="CASCADE")
        endpoint = TextField()
        endpoint_hash = CharField(max_length=64, unique=True)
        p256dh = CharField(max_length=200)
        auth = CharField(max_length=100)
        created_at = DateTimeField()

        class Meta:
            table_name = "push_subscription"

    class PushChoice(Base):
        player = ForeignKeyField(Player, on_delete="CASCADE", index=False)
        kind = CharField(max_length=16)
        channel = CharField(max_length=8)

        class Meta:
            table_name = "push_choice"
            indexes = ((("player", "kind"), True),)

    class PushMessage(Base):
        subscription = ForeignKeyField(PushSubscription, on_delete="CASCADE")
        match = ForeignKeyField(Match, null=True, on_delete="CASCADE")
        seat = IntegerField(null=True)
        ply = IntegerField(null=True)
        template = CharField(max_length=40)
        params = TextField(null=True)
        status = CharField(max_length=16, default="pending")
        attempts = IntegerField(default=0)
        version = IntegerField(default=0)
        next_attempt_at = DateTimeField()
        claimed_until = DateTimeField(null=True)
        last_error = TextField(null=True)
        created_at = DateTimeField()
        sent_at = DateTimeField(null=True)

        class Meta:
            table_name = "push_message"
            indexes = ((("status", "next_attempt_at"), False),)

    db.create_tables([PushSubscription, PushChoice, PushMessage], safe=True)
