"""The per-player tally (player pages read it) always equals counting the seats: after
matches start, finish with every kind of result, and are aborted; and the migration's backfill
counts the same."""

from __future__ import annotations

import importlib

from pbem.core.accounts.models import Player
from pbem.core.db.connection import database
from pbem.core.matches.changes import apply_change
from pbem.core.matches.creation import create_match
from pbem.core.matches.lifecycle import Abort, OfferDraw, Resign
from pbem.core.records.models import PlayerTally
from pbem.core.records.standings import counted_record_by_game, record_by_game
from tests.conftest import START

SECRET = "test-secret-key"
ANN, BEN, CY, DI = "ann@example.org", "ben@example.org", "cy@example.org", "di@example.org"


def _everyone_agrees() -> None:
    for player in Player.select():
        assert record_by_game(player) == counted_record_by_game(player), player.email


def test_the_tally_follows_starts_endings_and_aborts(db_url: str) -> None:
    resigned = create_match("nim", [ANN, BEN], {}, SECRET, START).match
    apply_change(resigned.id, Resign(seat=0), START)
    drawn = create_match("nim", [BEN, ANN], {}, SECRET, START).match
    apply_change(drawn.id, OfferDraw(seat=0), START)
    apply_change(drawn.id, OfferDraw(seat=1), START)
    aborted = create_match("nim", [ANN, CY], {}, SECRET, START).match
    apply_change(aborted.id, Abort(seat=0), START)
    create_match("bids", [ANN, BEN, CY, DI], {}, SECRET, START)  # still in play
    _everyone_agrees()
    ann = Player.get(Player.email == ANN)
    assert {row["game"]: (row["finished"], row["wins"], row["losses"], row["draws"],
                          row["live"], row["aborted"]) for row in record_by_game(ann)} == {
        "nim": (2, 0, 1, 1, 0, 1), "bids": (0, 0, 0, 0, 1, 0)}

    PlayerTally.delete().execute()
    migration = importlib.import_module("pbem.core.db.migrations.0171_player_tally")
    migration.up(None, database.obj)
    _everyone_agrees()
