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


def add_salts(match_id: int, now: datetime, own: dict[int, str] | None = None) -> Match:
    """While a match's first deal waits for salts (Mimic Taking, option `salted`, the
    default): every seat that owes one adds it, its own text from `own` or else the one it
    was offered, as a player would by reply; the last salt deals round one. A match that
    does not wait is returned as it is."""
    match = Match.get_by_id(match_id)
    state = current_state(match)
    rules = rules_for(match)
    for seat in sorted(rules.to_move(state) if _salting(state) else ()):
        text = f"salt {(own or {}).get(seat, '')}".strip()
        submit_move(match.id, seat, text, match.ply, now)
        match = Match.get_by_id(match_id)
    return match


def _salting(state: object) -> bool:
    return bool(getattr(state, "salting", False))
