"""The search plays exactly as it did: pinned moves, pinned trees, pinned legal moves.

Recorded from the code before the playouts were made cheaper (issue 51, "half the thinking").
An optimisation that keeps, for the same seed, every position's legal moves in the same order
and the search's tree (the visits of each root move) and choice identical is the same player,
so it cannot have made a level weaker. A change that is meant to alter the play (new hints, a
new rule) re-records these values on purpose: run this file's `_record()`.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

import pbem.bots.search as search_module
from pbem.bots.search import decide
from pbem.games import REGISTRY

PLAYERS = {"mimic-taking": 3}

# (game, seed, plies of seeded random play, level, iterations) -> (seat, the chosen move's
# repr, a digest of the root moves' visits, a digest of every mover's legal moves in order).
PINNED: dict[tuple[str, int, int, int, int], tuple[int, str, str, str]] = {
    ('eximo', 1, 7, 2, 200):
        (1, 'EximoMove(path=(53, 35, 21, 5), captured=(44, 28, 13), drops=(53, 54))',
         '7f415b99b20030e2', '95f0730a86467e78'),
    ('eximo', 2, 15, 2, 200):
        (1, 'EximoMove(path=(51, 37), captured=(), drops=())',
         '3e19a6aa655f751c', 'a39476f7b33ca2bc'),
    ('eximo', 3, 30, 2, 800):
        (0, 'EximoMove(path=(12, 20), captured=(), drops=())',
         'c0dc48f490131018', '700925927696515c'),
    ('frozen-forest', 1, 7, 2, 200):
        (1, '(5, 1)', '2c035ac2f992cc36', '2a6356d499226c36'),
    ('frozen-forest', 2, 15, 2, 200):
        (1, '(1, 0)', 'cd42679f93af520d', 'f38685954a0c2351'),
    ('frozen-forest', 3, 30, 2, 200):
        (0, '(0, 3)', '5b019662f41e67b5', '5ba9907b63370291'),
    ('mimic', 1, 7, 2, 200):
        (1, '(96, 87)', '5bc3e7f44bfbeab3', '2b299083571f3929'),
    ('mimic', 2, 15, 2, 200):
        (1, '(64, 54)', '2c1e5e3d43669e17', '4b948bb3d473b07b'),
    ('mimic', 3, 30, 2, 200):
        (0, '(27, 16)', '5022b1ea0c546417', 'e27e66dacc3e05f1'),
    ('mimic-taking', 1, 7, 2, 200):
        (2, "Move(kind='play', cards=('O7',))", 'c25cf259f2eb29d9', 'd8685aa80dec0d68'),
    ('mimic-taking', 2, 15, 2, 200):
        (0, "Move(kind='play', cards=('G2',))", '9054e74f497d797b', '4763545e835251c9'),
    ('mimic-taking', 3, 30, 2, 800):
        (1, "Move(kind='play', cards=('O8',))", '871e7f3d45f67d0a', 'aed8e9dd82bd9175'),
    ('move-in-synch', 1, 7, 2, 200):
        (0, "'S'", '327de7fd6c57762f', 'cb272c1409f8d819'),
    ('move-in-synch', 2, 15, 2, 200):
        (0, "'SW'", '0640066fbbb780e3', '69946f26c16d4d10'),
    ('move-in-synch', 3, 30, 2, 200):
        (1, "'synch'", '1fe51faa8c88bc66', '26cdf05db00ff61e'),
}


def position(slug: str, seed: int, plies: int) -> Any:
    """The position after `plies` seeded random moves from a seeded new game."""
    rules = REGISTRY[slug]
    state = rules.new_game(PLAYERS.get(slug, 2), {}, seed)
    rng = random.Random(f"pinned/{slug}/{seed}")
    for _ in range(plies):
        for seat in sorted(rules.to_move(state)):
            if seat in rules.to_move(state):
                moves = rules.legal_moves(state, seat)
                state = rules.apply_move(state, seat, moves[rng.randrange(len(moves))]).state
    return state


def _digest(value: object) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()[:16]


def legal_digest(slug: str, state: Any) -> str:
    rules = REGISTRY[slug]
    return _digest([(seat, list(rules.legal_moves(state, seat)))
                    for seat in sorted(rules.to_move(state))])


def searched(slug: str, state: Any, level: int, iterations: int,
             monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    """The seat to move, the search's move (seed 1) and a digest of its root's visits."""
    rules = REGISTRY[slug]
    seat = min(rules.to_move(state))
    roots: list[Any] = []
    grow = search_module.grow

    def watched(*args: Any, **kwargs: Any) -> Any:
        root, done = grow(*args, **kwargs)
        roots.append(root)
        return root, done

    monkeypatch.setattr(search_module, "grow", watched)
    move = decide(rules, state, seat, level, seed=1, iterations=iterations).move
    if not roots:
        return seat, repr(move), "no search"  # the look-ahead decided
    visits = [(repr(m), c.visits, round(c.reward, 6)) for m, c in roots[0].children.items()]
    return seat, repr(move), _digest(visits)


@pytest.mark.parametrize("key", sorted(PINNED))
def test_the_search_plays_as_recorded(key: tuple[str, int, int, int, int],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    slug, seed, plies, level, iterations = key
    state = position(slug, seed, plies)
    seat, move, visits, legal = PINNED[key]
    assert legal_digest(slug, state) == legal
    assert searched(slug, state, level, iterations, monkeypatch) == (seat, move, visits)


def _record() -> None:  # pragma: no cover - run by hand to re-record PINNED
    with pytest.MonkeyPatch.context() as monkeypatch:
        for slug in sorted(REGISTRY):
            for seed, plies in ((1, 7), (2, 15), (3, 30)):
                # One long search in a perfect-information game, one in the hidden one.
                iterations = 800 if seed == 3 and slug in ("eximo", "mimic-taking") else 200
                state = position(slug, seed, plies)
                seat, move, visits = searched(slug, state, 2, iterations, monkeypatch)
                print(f"    ({slug!r}, {seed}, {plies}, 2, {iterations}): "
                      f"({seat}, {move!r}, {visits!r}, {legal_digest(slug, state)!r}),")


if __name__ == "__main__":  # pragma: no cover
    _record()
