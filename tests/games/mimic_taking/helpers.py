"""Small helpers for the Mimic Taking tests: build positions, list and play moves by text."""

from __future__ import annotations

from pbem.games.base import Transition
from pbem.games.mimic_taking import MimicTakingRules, MimicTakingState

RULES = MimicTakingRules()


def at(text: str) -> MimicTakingState:
    return RULES.from_position(text)


def legal(state: MimicTakingState, seat: int) -> list[str]:
    return [RULES.format_move(state, move) for move in RULES.legal_moves(state, seat)]


def move(state: MimicTakingState, seat: int, text: str) -> Transition:
    return RULES.apply_move(state, seat, RULES.parse_move(state, seat, text))


def play(state: MimicTakingState, *texts: str) -> MimicTakingState:
    """Play moves in turn order (one seat to move at a time)."""
    for text in texts:
        (seat,) = RULES.to_move(state)
        state = move(state, seat, text).state
    return state


def kinds(transition: Transition) -> list[str]:
    return [event.kind for event in transition.events]


def event(transition: Transition, kind: str) -> dict:
    (found,) = [e for e in transition.events if e.kind == kind]
    return found.data
