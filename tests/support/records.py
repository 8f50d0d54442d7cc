"""Replaying a match from its downloaded record with the rules module alone."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from pbem.core.matches.models import Match, MatchStatus
from pbem.core.records.exports import match_record
from pbem.games import get_rules
from pbem.games.base import CommitsDeals


def replay_record(record: dict[str, Any]) -> Any:
    """The final position the record's moves reach, using nothing but `pbem.games`."""
    rules = get_rules(record["game"])
    if record.get("deal_scheme") is not None:  # a committed deal (games/dealing.py)
        assert isinstance(rules, CommitsDeals)
        state = rules.new_committed_game(len(record["players"]), record["options"],
                                         record["deal_seed"])
    else:
        state = rules.new_game(len(record["players"]), record["options"], record["seed"])
    for move in record["moves"]:
        parsed = rules.parse_move(state, move["seat"], move["text"])
        state = rules.apply_move(state, move["seat"], parsed).state
    return state


@pytest.fixture
def every_finished_match_replays(db_url: str) -> Iterator[None]:
    """After the test: every finished match it made replays from its record.json alone."""
    yield
    for match in Match.select().where(Match.status == MatchStatus.FINISHED):
        record = json.loads(json.dumps(match_record(match)))
        rules = get_rules(match.game)
        assert rules.dump(replay_record(record)) == match.state, f"match {match.id}"


def from_elsewhere(record: dict[str, Any]) -> dict[str, Any]:
    """The same record as if exported by another install where the match was played a day
    later: every time moved on by one day. Importing a record of a match played on this very
    server is refused ("already here"), so a test that imports what it just exported sends
    this instead."""
    def later(moment: str | None) -> str | None:
        if moment is None:
            return None
        shifted = datetime.fromisoformat(moment.removesuffix("Z")) + timedelta(days=1)
        return shifted.isoformat() + "Z"

    copy = json.loads(json.dumps(record))
    for key in ("created_at", "finished_at"):
        if key in copy:
            copy[key] = later(copy[key])
    for move in copy.get("moves", []):
        move["at"] = later(move.get("at"))
    for change in copy.get("changes", []):
        if "at" in change:
            change["at"] = later(change["at"])
    for ruling in copy.get("rulings", []):
        if "at" in ruling:
            ruling["at"] = later(ruling["at"])
    return copy
