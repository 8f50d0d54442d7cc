"""The archive: per-seat and per-match outcomes to filter and count results, the indexes its
keyset pages walk, and a player's choice to keep their page out of it. Finished matches get
their outcomes from their stored results."""

from __future__ import annotations

import json
from typing import Any

from peewee import (
    BooleanField,
    CharField,
    ForeignKeyField,
    IntegerField,
    Model,
    PostgresqlDatabase,
    TextField,
)

from pbem.core.db.migrations.helpers import add_column_once, add_index_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "player", "hidden_from_archive", BooleanField(default=False))
    add_column_once(migrator, db, "match", "outcome", CharField(max_length=8, null=True))
    add_column_once(migrator, db, "seat", "outcome", CharField(max_length=8, null=True))
    for columns in (("game", "id"), ("status", "id"), ("game", "status", "id"),
                    ("outcome", "id"), ("game", "outcome", "id")):
        add_index_once(migrator, db, "match", columns)
    add_index_once(migrator, db, "seat", ("player_id", "match_id"))
    if isinstance(db, PostgresqlDatabase):
        # Filters combine game, status and result; PostgreSQL assumes them independent unless
        # told, and a rare pair (a new game's aborted matches) then looks common enough to
        # walk the primary key for, reading every match. Pair statistics let it pick the
        # (game, status, id) index instead.
        db.execute_sql("CREATE STATISTICS IF NOT EXISTS match_game_status_outcome "
                       "(dependencies, mcv) ON game, status, outcome FROM match")
    _backfill(db)


def _backfill(db: Any) -> None:
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Match(Base):
        result = TextField(null=True)
        outcome = CharField(null=True)

    class Seat(Base):
        match = ForeignKeyField(Match)
        seat = IntegerField()
        outcome = CharField(null=True)

    done = (Match.select(Match.id, Match.result)
            .where(Match.result.is_null(False), Match.outcome.is_null()))
    for match in done:
        winners = set(json.loads(match.result).get("winners", []))
        seats = [row.seat for row in Seat.select(Seat.seat).where(Seat.match == match.id)]
        draw = not winners or winners >= set(seats)
        for seat in seats:
            outcome = "draw" if draw else "win" if seat in winners else "loss"
            Seat.update(outcome=outcome).where(Seat.match == match.id,
                                               Seat.seat == seat).execute()
        Match.update(outcome="draw" if draw else "win").where(Match.id == match.id).execute()
