"""Playing matches through the real services, for tests that need history to look at."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from pbem.core.matches.creation import current_state, rules_for
from pbem.core.matches.models import Match
from pbem.core.matches.play import submit_move


def play_randomly(match_id: int, seed: int, start: datetime, max_plies: int = 10_000) -> Match:
    """Submit random legal moves (as notation, as a player would) until the match ends or
    `max_plies` more moves are made; each move a minute after the last."""
    chooser = random.Random(seed)
    match = Match.get_by_id(match_id)
    for step in range(max_plies):
        if not match.is_live:
            break
        rules = rules_for(match)
        state = current_state(match)
        seat = min(rules.to_move(state))
        text = rules.format_move(state, chooser.choice(list(rules.legal_moves(state, seat))))
        submit_move(match.id, seat, text, match.ply, start + timedelta(minutes=step + 1))
        match = Match.get_by_id(match_id)
    return match
