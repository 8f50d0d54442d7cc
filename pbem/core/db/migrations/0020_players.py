"""Players run their own matches: server-side sessions (players and admins), login and mail
rate limits, sign-in links, personal API tokens, the suppression list, challenges and seeks.

New tables only; frozen copies, as 0001_initial does. `Player`, `Match` and `Admin` are
declared here only so the foreign keys can name them (they are not created).
"""

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


def up(migrator: Any, db: Any) -> None:
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Player(Base):
        email = CharField(unique=True, max_length=254)

    class Match(Base):
        game = CharField(max_length=40)

    class Admin(Base):
        email = CharField(unique=True, max_length=254)

    class Session(Base):
        key_hash = CharField(unique=True, max_length=64)
        kind = CharField(max_length=8)
        player = ForeignKeyField(Player, null=True, on_delete="CASCADE")
        admin = ForeignKeyField(Admin, null=True, on_delete="CASCADE")
        user_agent = CharField(max_length=120, default="")
        created_at = DateTimeField()
        last_seen_at = DateTimeField()
        expires_at = DateTimeField(index=True)

    class Attempt(Base):
        kind = CharField(max_length=24)
        key = CharField(max_length=300)
        at = DateTimeField()

        class Meta:
            indexes = ((("kind", "key", "at"), False),)

    class SignInLink(Base):
        email = CharField(max_length=254)
        nonce = CharField(max_length=32)
        token_hash = CharField(unique=True, max_length=64)
        created_at = DateTimeField()
        expires_at = DateTimeField()
        used_at = DateTimeField(null=True)

    class ApiToken(Base):
        player = ForeignKeyField(Player, on_delete="CASCADE")
        name = CharField(max_length=60)
        token_hash = CharField(unique=True, max_length=64)
        created_at = DateTimeField()
        last_used_at = DateTimeField(null=True)

    class Suppression(Base):
        email = CharField(unique=True, max_length=254)
        created_at = DateTimeField()

    class Challenge(Base):
        challenger = ForeignKeyField(Player, on_delete="CASCADE")
        game = CharField(max_length=40)
        options = TextField()
        time_control = CharField(max_length=40)
        on_timeout = CharField(max_length=16)
        seating = TextField(null=True)
        status = CharField(index=True, max_length=16, default="pending")
        version = IntegerField(default=0)
        match = ForeignKeyField(Match, null=True, on_delete="SET NULL")
        rematch_of = ForeignKeyField(Match, null=True, on_delete="SET NULL")
        created_at = DateTimeField()
        expires_at = DateTimeField(index=True)
        closed_at = DateTimeField(null=True)

    class Invite(Base):
        challenge = ForeignKeyField(Challenge, on_delete="CASCADE")
        player = ForeignKeyField(Player, on_delete="CASCADE")
        position = IntegerField()
        nonce = CharField(max_length=32)
        token_hash = CharField(unique=True, max_length=64)
        status = CharField(max_length=16, default="pending")
        answered_at = DateTimeField(null=True)

        class Meta:
            indexes = ((("challenge", "player"), True),)

    class Seek(Base):
        creator = ForeignKeyField(Player, on_delete="CASCADE")
        game = CharField(max_length=40)
        options = TextField()
        time_control = CharField(max_length=40)
        on_timeout = CharField(max_length=16)
        players = IntegerField()
        status = CharField(index=True, max_length=16, default="open")
        version = IntegerField(default=0)
        match = ForeignKeyField(Match, null=True, on_delete="SET NULL")
        created_at = DateTimeField()

    class SeekEntry(Base):
        seek = ForeignKeyField(Seek, on_delete="CASCADE")
        player = ForeignKeyField(Player, on_delete="CASCADE")
        joined_at = DateTimeField()

        class Meta:
            indexes = ((("seek", "player"), True),)

    db.create_tables([Session, Attempt, SignInLink, ApiToken, Suppression, Challenge, Invite,
                      Seek, SeekEntry], safe=True)
