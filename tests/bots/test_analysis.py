"""Analysis after the game (pbem/bots/analysis.py): every ply appraised, a blunder marked, and
in Mimic Taking only from what the moving seat could see."""

from __future__ import annotations

import random

import pytest

from pbem.bots.analysis import MISTAKE, analyse, appraise
from pbem.games import REGISTRY
from tests.bots.test_hidden import _permuted, _position
from tests.support.games import TEST_GAMES

NIM = TEST_GAMES["nim"]


def _random_match(slug: str, seed: int, limit: int = 60) -> tuple[object, list]:
    rules = REGISTRY[slug]
    rng = random.Random(seed)
    start = state = rules.new_game(min(rules.player_counts), {}, seed)
    plies = []
    while rules.to_move(state) and len(plies) < limit:
        seat = min(rules.to_move(state))
        move = rng.choice(list(rules.legal_moves(state, seat)))
        plies.append((seat, move))
        state = rules.apply_move(state, seat, move).state
    return start, plies


@pytest.mark.parametrize("slug", sorted(REGISTRY))
def test_every_ply_of_a_match_is_appraised(slug: str) -> None:
    rules = REGISTRY[slug]
    start, plies = _random_match(slug, 3)
    found = analyse(rules, start, plies, level=4, seed=7, iterations=6)
    assert [p.ply for p in found] == list(range(1, len(plies) + 1))
    state = start
    for ply, (seat, move) in zip(found, plies, strict=True):
        assert ply.seat == seat and ply.played == rules.format_move(state, move)
        assert 0.0 <= ply.estimate <= 1.0 and 0.0 <= ply.played_estimate <= 1.0
        assert ply.mistake == (ply.estimate - ply.played_estimate > MISTAKE)
        state = rules.apply_move(state, seat, move).state
    # Seeded: the same call gives the same analysis.
    assert found == analyse(rules, start, plies, level=4, seed=7, iterations=6)


def test_a_blunder_is_marked_and_the_winning_move_named() -> None:
    # Nim, 9 counters: taking 1 leaves 8 (a multiple of four: a win); taking 3 leaves 6,
    # from which the opponent wins by taking 2.
    state = NIM.from_position("9 0")
    (found,) = analyse(NIM, state, [(0, 3)], level=4, seed=1, iterations=600)
    assert found.best == NIM.format_move(state, 1)
    assert found.estimate > 0.8 and found.mistake
    (good,) = analyse(NIM, state, [(0, 1)], level=4, seed=1, iterations=600)
    assert not good.mistake and good.played_estimate == good.estimate


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_mimic_taking_is_appraised_from_the_seat_s_own_view(seed: int) -> None:
    # The other hands, the face-down stacks and the cards set aside are permuted: what the
    # seat could not see changes, and the appraisal does not.
    rules = REGISTRY["mimic-taking"]
    state = _position(3, seed, plies=4)
    seat = min(rules.to_move(state))
    played = rules.legal_moves(state, seat)[0]
    first = appraise(rules, state, seat, played, 4, seed, iterations=40)
    assert first == appraise(rules, _permuted(state, seat, seed + 50), seat, played, 4, seed,
                             iterations=40)
