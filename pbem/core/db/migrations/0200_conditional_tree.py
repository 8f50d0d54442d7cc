"""Conditional moves: one row per seat holding its tree of lines (the opponent's move, then the
seat's answer, to any depth) as JSON, the match's ply at the tree's root and a version. Adds
the table and nothing else."""

from __future__ import annotations

from typing import Any

from peewee import DateTimeField, ForeignKeyField, IntegerField, Model, TextField


def up(migrator: Any, db: Any) -> None:
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Match(Base):
        pass

    class ConditionalTree(Base):
        match = ForeignKeyField(Match, backref="conditional_trees", on_delete="CASCADE")
        seat = IntegerField()
        ply = IntegerField()
        tree = TextField()
        version = IntegerField(default=1)
        updated_at = DateTimeField()

        class Meta:
            table_name = "conditional_tree"
            indexes = ((("match", "seat"), True),)

    db.create_tables([ConditionalTree], safe=True)
