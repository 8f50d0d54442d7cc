"""Feeds (core/feeds): each player's feed generation, which replacing their secret feed links
bumps. Adds a table only."""

from __future__ import annotations

from typing import Any

from peewee import ForeignKeyField, IntegerField, Model


def up(migrator: Any, db: Any) -> None:
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Player(Base):
        pass

    class FeedLink(Base):
        player = ForeignKeyField(Player, on_delete="CASCADE", unique=True)
        generation = IntegerField(default=0)

        class Meta:
            table_name = "feed_link"

    db.create_tables([FeedLink], safe=True)
