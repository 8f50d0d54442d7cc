"""Mimic Taking's option `salted` is on by default now: a new match's first deal waits for
every seat's salt. A match keeps the options it was created with, and one whose options name
no `salted` was created when the default was off: it is replayed from its first position on
every page that shows an earlier move, so reading it with the new default would make its
first moves (cards, not salts) illegal. Its options are pinned to `salted: false` here, so it
keeps playing as it always did. Re-runnable: a match that names `salted` is left alone."""

from __future__ import annotations

import json
from typing import Any

from peewee import CharField, Model, TextField

GAME = "mimic-taking"


def up(migrator: Any, db: Any) -> None:
    class Match(Model):
        game = CharField(max_length=40)
        options = TextField()

        class Meta:
            database = db
            legacy_table_names = False

    # Options are JSON text; the matches of a game share a handful of distinct values, so
    # each is rewritten by one UPDATE, whatever the number of matches.
    stored = (Match.select(Match.options).where(Match.game == GAME).distinct())
    for text in [row.options for row in stored]:
        options = json.loads(text)
        if not isinstance(options, dict) or "salted" in options:
            continue
        pinned = json.dumps({**options, "salted": False}, separators=(",", ":"))
        (Match.update(options=pinned)
         .where(Match.game == GAME, Match.options == text).execute())
