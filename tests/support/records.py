"""Replaying a match from its downloaded record with the rules module alone."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from pbem.core.matches.models import Match, MatchStatus
from pbem.core.records.exports import match_record
from pbem.games import get_rules


def replay_record(record: dict[str, Any]) -> Any:
    """The final position the record's moves reach, using nothing but `pbem.games`."""
    rules = get_rules(record["game"])
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
