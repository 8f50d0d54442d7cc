"""Positions move out of the `move` table into their own (`position`: match, ply, state).

A finished match keeps one position in fifty. As a column of `move`, the others were set to
null and every move page was left half empty; as rows of their own they are deleted, whole
pages come free and the incremental vacuum gives them back. Copies the positions there are,
then drops `move.state`. Safe to run again: the copy skips positions already copied, and the
column is dropped only while it exists."""

from __future__ import annotations

from typing import Any

from peewee import ForeignKeyField, IntegerField, Model, TextField

from pbem.core.db.migrations.helpers import has_column


def up(migrator: Any, db: Any) -> None:
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Match(Base):
        pass

    class Position(Base):
        match = ForeignKeyField(Match, backref="positions", on_delete="CASCADE")
        ply = IntegerField()
        state = TextField()

        class Meta:
            table_name = "position"
            indexes = ((("match", "ply"), True),)

    db.create_tables([Position], safe=True)
    if has_column(db, "move", "state"):
        db.execute_sql(
            "INSERT INTO position (match_id, ply, state) "
            "SELECT m.match_id, m.ply, m.state FROM move m WHERE m.state IS NOT NULL "
            "AND NOT EXISTS (SELECT 1 FROM position p "
            "WHERE p.match_id = m.match_id AND p.ply = m.ply)")
        migrator.migrate(migrator.drop_column("move", "state"))
