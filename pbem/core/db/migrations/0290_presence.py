"""Presence (core/presence): when each seat last looked at its match; and the turn mails that
wait while their players look (mailout's `waiting_turn`). Adds tables only."""

from __future__ import annotations

from typing import Any

from peewee import CharField, DateTimeField, ForeignKeyField, IntegerField, Model, TextField


def up(migrator: Any, db: Any) -> None:
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Match(Base):
        pass

    class Presence(Base):
        match = ForeignKeyField(Match, on_delete="CASCADE", index=False)
        seat = IntegerField()
        seen_at = DateTimeField()

        class Meta:
            table_name = "presence"
            indexes = ((("match", "seat"), True),)

    class WaitingTurn(Base):
        match = ForeignKeyField(Match, on_delete="CASCADE", index=False)
        seat = IntegerField()
        ply = IntegerField()
        params = TextField(null=True)
        due_at = DateTimeField(index=True)
        reason = CharField(max_length=8, default="present")
        held_at = DateTimeField()
        version = IntegerField(default=0)

        class Meta:
            table_name = "waiting_turn"
            indexes = ((("match", "seat"), True),)

    db.create_tables([Presence, WaitingTurn], safe=True)
