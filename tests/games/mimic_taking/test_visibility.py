"""What each seat sees (RULINGS.md, Mimic Taking): over whole random seeded matches, no view,
email text or event a seat receives carries another seat's hand, anyone's face-down stack, the
cards a trump winner set aside or a pending last-card choice, and the seed never shows."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from pbem.games.base import Event
from pbem.games.mimic_taking import MimicTakingState
from tests.games.mimic_taking.helpers import RULES

SEED = 982_451_653  # large and unusual, so finding it in a text would mean a leak
CARD = re.compile(r"^(?:[OBPG][1-9]|M)$")
PRIVATE_KINDS = {"took_cards", "last_card_choice"}
ROUND_END_KINDS = {"last_cards_revealed", "round_scored", "round_started", "game_over"}

MATCHES = [pytest.param(players, seed, face_up,
                        id=f"{players}p-seed{seed}-{'up' if face_up else 'down'}")
           for players in (3, 4) for seed in (SEED, SEED + 1) for face_up in (False, True)]


@pytest.mark.parametrize(("players", "seed", "face_up"), MATCHES)
def test_no_seat_ever_sees_a_secret(players: int, seed: int, face_up: bool) -> None:
    rng = random.Random(seed)
    state = RULES.new_game(players, {"face_up": face_up}, seed)
    steps = 0
    while RULES.to_move(state):
        for seat in [*range(players), None]:
            _check_view(state, seat, rng)
        seat = rng.choice(sorted(RULES.to_move(state)))
        moves = RULES.legal_moves(state, seat)
        transition = RULES.apply_move(state, seat, rng.choice(moves))
        _check_events(state, transition.state, seat, list(transition.events))
        state = transition.state
        steps += 1
    for seat in [*range(players), None]:
        _check_view(state, seat, rng)
    assert steps > 100 and RULES.outcome(state) is not None


def _check_view(state: MimicTakingState, seat: int | None, rng: random.Random) -> None:
    view = RULES.view(state, seat)
    text = RULES.render_text(view)
    for _ in range(2):
        other = RULES.shuffle_hidden(state, seat, rng.randrange(2**31))
        assert RULES.view(other, seat) == view, f"seat {seat} sees something hidden"
        assert RULES.render_text(RULES.view(other, seat)) == text
    assert view["hand"] == (list(state.hands[seat]) if seat is not None else None)
    if not state.face_up:
        assert view["stacks"] is None
    if state.choices is not None:
        assert view["my_choice"] == (state.choices[seat] if seat is not None else None)
    dumped = json.dumps(view)
    assert str(state.seed) not in dumped and str(state.seed) not in text


def _check_events(before: MimicTakingState, after: MimicTakingState, mover: int,
                  events: list[Event]) -> None:
    kinds = {event.kind for event in events}
    public_cards = _cards(RULES.view(after, None))
    in_hands = {card for hand in after.hands for card in hand if card != "M"}
    for event in events:
        mentioned = _cards(event.data)
        assert RULES.describe_event(event).strip()
        if event.visible_to is not None:
            assert event.kind in PRIVATE_KINDS and event.visible_to == {mover}
            known = set(before.trick) | set(before.hands[mover])
            assert mentioned <= known, f"{event.kind} tells {mover} more than they know"
            continue
        assert event.kind not in PRIVATE_KINDS
        if event.kind == "last_cards_revealed":
            assert "round_scored" in kinds, "last-card choices revealed before all had chosen"
            continue
        assert mentioned <= public_cards, f"public {event.kind} names a hidden card"
        if event.kind == "took" and not before.face_up:
            assert event.data["cards"] is None
        if not kinds & ROUND_END_KINDS:
            assert not mentioned & in_hands, f"{event.kind} names a card still in a hand"


def _cards(data: Any) -> set[str]:
    if isinstance(data, str):
        return {data} if CARD.match(data) else set()
    if isinstance(data, dict):
        return set().union(*(_cards(value) for value in data.values())) if data else set()
    if isinstance(data, list | tuple):
        return set().union(*(_cards(value) for value in data)) if data else set()
    return set()


def test_kept_cards_and_last_card_choices_are_secret_moves_but_card_plays_are_not() -> None:
    import random

    from tests.games.mimic_taking.helpers import RULES

    seen: set[tuple[str, bool]] = set()
    for face_up in (False, True):
        rng = random.Random(11)
        state = RULES.new_game(3, {"face_up": face_up}, 11)
        while RULES.to_move(state):
            seat = rng.choice(sorted(RULES.to_move(state)))
            chosen = rng.choice(list(RULES.legal_moves(state, seat)))
            readers = RULES.move_visibility(state, seat, chosen)
            text = RULES.format_move(state, chosen)
            word = text.split()[0] if text.split()[0] in ("take", "add", "discard") else "card"
            public = word == "card" or (word == "take" and face_up)
            assert readers == (None if public else frozenset({seat})), (text, face_up)
            seen.add((word, face_up))
            state = RULES.apply_move(state, seat, chosen).state
    assert {("card", False), ("add", False), ("discard", False), ("take", False),
            ("take", True)} <= seen
