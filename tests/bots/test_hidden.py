"""The computer chooses from its seat's view alone: it cannot have looked at another hand."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from pbem.bots import choose_move
from pbem.games import REGISTRY
from pbem.games.mimic_taking.cards import sort_cards
from pbem.games.mimic_taking.state import MimicTakingState

RULES = REGISTRY["mimic-taking"]


def _position(players: int, seed: int, plies: int) -> MimicTakingState:
    """A position some way into a round, reached by random legal moves."""
    rng = random.Random(seed)
    state = RULES.new_game(players, {}, seed)
    for _ in range(plies):
        for seat in sorted(RULES.to_move(state)):
            moves = RULES.legal_moves(state, seat)
            state = RULES.apply_move(state, seat, moves[rng.randrange(len(moves))]).state
    return state


def _permuted(state: MimicTakingState, seat: int, seed: int) -> MimicTakingState:
    """The same position with every card `seat` cannot see moved elsewhere among the hidden
    places (other hands, face-down stacks, set-aside cards), and other future deals."""
    rng = random.Random(seed)
    others = [s for s in range(state.players) if s != seat]
    pool = [*(c for s in others for c in state.hands[s]),
            *(c for stack in state.stacks for c in stack), *state.aside]
    rng.shuffle(pool)
    hands, stacks = list(state.hands), list(state.stacks)
    for s in others:
        hands[s] = sort_cards(pool.pop() for _ in state.hands[s])
    for s in range(state.players):
        stacks[s] = tuple(pool.pop() for _ in state.stacks[s])
    return replace(state, hands=tuple(hands), stacks=tuple(stacks), aside=tuple(pool),
                   seed=rng.randrange(2**31))


CASES = [(3, 11, 4), (3, 12, 9), (3, 13, 17), (4, 14, 6), (4, 15, 13)]


@pytest.mark.parametrize(("players", "seed", "plies"), CASES)
def test_the_choice_is_the_same_when_the_hidden_cards_are_permuted(
        players: int, seed: int, plies: int) -> None:
    state = _position(players, seed, plies)
    (seat,) = RULES.to_move(state)
    assert len(RULES.legal_moves(state, seat)) > 1, "a forced move would prove nothing"
    for variant in range(3):
        other = _permuted(state, seat, seed * 10 + variant)
        assert other.hands[seat] == state.hands[seat]
        assert other.hands != state.hands, "the permutation must change another hand"
        assert (choose_move(RULES, other, seat, 2, seed=seed, iterations=60)
                == choose_move(RULES, state, seat, 2, seed=seed, iterations=60))


def test_a_search_that_looked_would_be_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # The test above has teeth: with the re-deal switched off, the search plays the real
    # cards, and the same permutations then change its choice.
    monkeypatch.setattr(type(RULES), "shuffle_hidden",
                        lambda self, state, seat, seed: state)
    changed = 0
    for players, seed, plies in CASES:
        state = _position(players, seed, plies)
        (seat,) = RULES.to_move(state)
        for variant in range(3):
            other = _permuted(state, seat, seed * 10 + variant)
            changed += (choose_move(RULES, other, seat, 2, seed=seed, iterations=60)
                        != choose_move(RULES, state, seat, 2, seed=seed, iterations=60))
    assert changed > 0
