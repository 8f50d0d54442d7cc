"""Each move keeps the position after it, so a replay page reads one row instead of replaying
the match from its seed. Existing matches are backfilled by replaying them once, here."""

from __future__ import annotations

from typing import Any

from peewee import BigIntegerField, DateTimeField, ForeignKeyField, IntegerField, Model, TextField

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "move", "state", TextField(null=True))
    _backfill(db)


def _backfill(db: Any) -> None:
    import json

    from pbem.games import REGISTRY
    from pbem.games.base import RulesError

    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Match(Base):
        game = TextField()
        options = TextField()
        seed = BigIntegerField()

    class Seat(Base):
        match = ForeignKeyField(Match)
        seat = IntegerField()

    class Move(Base):
        match = ForeignKeyField(Match)
        ply = IntegerField()
        seat = IntegerField()
        text = TextField()
        state = TextField(null=True)
        created_at = DateTimeField()

    # Re-runnable: only matches that still have moves without a snapshot are replayed.
    pending = (Match.select(Match.id, Match.game, Match.options, Match.seed)
               .where(Match.id.in_(Move.select(Move.match).where(Move.state.is_null())))
               .order_by(Match.id))
    for match in pending:
        rules = REGISTRY.get(match.game)
        if rules is None:
            continue  # a game no longer installed: its pages replay, as before
        seats = Seat.select().where(Seat.match == match.id).count()
        try:
            state = rules.new_game(seats, json.loads(match.options), match.seed)
            for move in (Move.select(Move.id, Move.seat, Move.text, Move.state)
                         .where(Move.match == match.id).order_by(Move.ply)):
                state = rules.apply_move(state, move.seat,
                                         rules.parse_move(state, move.seat, move.text)).state
                if move.state is None:
                    dumped = json.dumps(rules.dump(state), separators=(",", ":"))
                    Move.update(state=dumped).where(Move.id == move.id).execute()
        except RulesError:
            continue  # the rules changed under this match: leave it to replay on demand
