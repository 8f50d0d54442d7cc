"""A player's former display names, so a link to their old page still finds them."""

from __future__ import annotations

from typing import Any

from peewee import CharField, DateTimeField, ForeignKeyField, Model


def up(migrator: Any, db: Any) -> None:
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Player(Base):
        pass

    class FormerName(Base):
        player = ForeignKeyField(Player, backref="former_names", on_delete="CASCADE")
        name = CharField(max_length=40, index=True)
        until = DateTimeField()

    db.create_tables([FormerName], safe=True)
