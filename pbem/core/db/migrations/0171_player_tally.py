"""Each player's tally per game (seats in live, finished and aborted matches; wins, losses,
draws), kept as matches start and end so a player's page reads a few rows instead of counting
every seat they ever had. Filled here from the seats as they are."""

from __future__ import annotations

from typing import Any

from peewee import Case, CharField, ForeignKeyField, IntegerField, Model, fn


def up(migrator: Any, db: Any) -> None:
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Player(Base):
        pass

    class Match(Base):
        game = CharField(max_length=40)
        status = CharField(max_length=16)

    class Seat(Base):
        match = ForeignKeyField(Match)
        player = ForeignKeyField(Player)
        outcome = CharField(max_length=8, null=True)

    class PlayerTally(Base):
        player = ForeignKeyField(Player, on_delete="CASCADE")
        game = CharField(max_length=40)
        live = IntegerField(default=0)
        finished = IntegerField(default=0)
        aborted = IntegerField(default=0)
        wins = IntegerField(default=0)
        losses = IntegerField(default=0)
        draws = IntegerField(default=0)

        class Meta:
            table_name = "player_tally"
            indexes = ((("player", "game"), True),)

    db.create_tables([PlayerTally], safe=True)
    if PlayerTally.select().exists():
        return  # filled by an earlier, interrupted run (MariaDB commits DDL as it goes)

    def count(condition: Any) -> Any:
        return fn.SUM(Case(None, [(condition, 1)], 0))

    finished = Match.status == "finished"
    query = (Seat.select(Seat.player, Match.game,
                         count(Match.status == "active"), count(finished),
                         count(Match.status == "aborted"),
                         count(finished & (Seat.outcome == "win")),
                         count(finished & (Seat.outcome == "loss")),
                         count(finished & (Seat.outcome == "draw")))
             .join(Match, on=(Seat.match == Match.id))
             .group_by(Seat.player, Match.game))
    PlayerTally.insert_from(query, [PlayerTally.player, PlayerTally.game, PlayerTally.live,
                                    PlayerTally.finished, PlayerTally.aborted,
                                    PlayerTally.wins, PlayerTally.losses,
                                    PlayerTally.draws]).execute()
