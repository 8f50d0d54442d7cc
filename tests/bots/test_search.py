"""The search's promises: seeded, within its budget, takes a win, refuses to hand one over."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pbem.bots import LEVELS, choose_move
from pbem.bots.search import decide
from pbem.clock import think_clock
from pbem.games import REGISTRY
from pbem.games.base import Move
from tests.support.games import TEST_GAMES

NIM = TEST_GAMES["nim"]
MIMIC = REGISTRY["mimic"]
EXIMO = REGISTRY["eximo"]
SYNCH = REGISTRY["move-in-synch"]


@pytest.mark.parametrize("slug", sorted(REGISTRY))
def test_the_same_seed_gives_the_same_move(slug: str) -> None:
    rules = REGISTRY[slug]
    state = rules.new_game(min(rules.player_counts), {}, 7)
    seat = min(rules.to_move(state))
    first = [choose_move(rules, state, seat, 2, seed, iterations=60) for seed in range(4)]
    again = [choose_move(rules, state, seat, 2, seed, iterations=60) for seed in range(4)]
    assert first == again


def test_a_different_seed_may_give_a_different_move() -> None:
    # The seed is really used: with a tiny budget, different seeds explore differently.
    state = SYNCH.new_game(2, {}, 1)
    moves = {choose_move(SYNCH, state, 0, 1, seed, iterations=3) for seed in range(20)}
    assert len(moves) > 1


def test_an_iteration_budget_is_kept_exactly() -> None:
    state = EXIMO.new_game(2, {}, 1)
    decision = decide(EXIMO, state, 0, 3, seed=1, iterations=17)
    assert decision.iterations == 17
    assert decision.playouts == 17


def test_the_time_budget_stops_the_search_when_a_clock_is_given() -> None:
    state = EXIMO.new_game(2, {}, 1)
    ticks = iter(range(1000))

    def clock() -> float:
        return next(ticks) * 0.1  # every reading is a tenth of a second later

    decision = decide(EXIMO, state, 0, 1, seed=1, clock=clock)
    # Level 1 has 0.2 s; the look-ahead costs two readings (0.1 s), but the first iteration
    # always runs, and the next is not begun when it would likely end past the budget.
    assert decision.iterations == 1
    slower = iter(range(1000))
    # 1/32 s per reading: 0.159 s (95 % of 0.2 s, less the look-ahead) are left, and the
    # search stops once the time spent plus one average iteration reaches that: after 5.
    assert decide(EXIMO, state, 0, 1, seed=1,
                  clock=lambda: next(slower) / 32).iterations == 5
    assert decide(EXIMO, state, 0, 1, seed=1).iterations == 25  # no clock: the whole budget


def test_the_search_finds_the_winning_nim_move_by_itself() -> None:
    # Taking so that a multiple of four is left wins; no tactic sees that far, the tree does.
    for pile, best in ((9, 1), (10, 2), (7, 3)):
        state = NIM.from_position(f"{pile} 0")
        assert choose_move(NIM, state, 0, 3, seed=pile) == best


def test_it_takes_an_immediate_win() -> None:
    # Mimic: Blue's checker on e9 steps to its goal row 10 (d10, e10 or f10) and wins at once.
    mimic = MIMIC.from_position("10/4b5/10/10/10/5r4/10/10/10/10 b - goal:any -")
    for level in (1, 2, 3):
        move = choose_move(MIMIC, mimic, 0, level, seed=level)
        assert MIMIC.outcome(MIMIC.apply_move(mimic, 0, move).state).winners == {0}
    # Move In Synch: Red to pick a direction; only a move landing Red on an empty square
    # makes Red's symbols more than Blue's plus the squares left.
    synch = SYNCH.from_position("oxxx/oxox/ooxo/oo.x c2 b2 2 decider-first synch")
    move = choose_move(SYNCH, synch, 1, 2, seed=1)
    outcome = SYNCH.outcome(SYNCH.apply_move(synch, 1, move).state)
    assert outcome is not None and outcome.winners == {1}


def test_it_refuses_a_move_that_lets_the_opponent_win_at_once() -> None:
    # Blue's checker on e5 sees Red's on e3, so Red mimics every Blue step with the opposite
    # one: a step north (d6, e6, f6) drags Red to rank 2, from where Red wins at once.
    state = MIMIC.from_position("10/10/10/10/10/4b5/10/4r5/10/10 b - goal:any -")
    unsafe = [m for m in MIMIC.legal_moves(state, 0) if _loses_at_once(state, m)]
    safe = [m for m in MIMIC.legal_moves(state, 0) if m not in unsafe]
    assert len(unsafe) == 3 and safe
    for seed in range(3):
        assert choose_move(MIMIC, state, 0, 2, seed, iterations=60) in safe


def _loses_at_once(state: object, move: Move) -> bool:
    after = MIMIC.apply_move(state, 0, move).state
    return any(MIMIC.outcome(MIMIC.apply_move(after, 1, reply).state)
               for reply in MIMIC.legal_moves(after, 1))


def test_a_seat_with_no_move_is_refused() -> None:
    state = NIM.from_position("5 0")
    with pytest.raises(ValueError, match="no legal move"):
        choose_move(NIM, state, 1, 1, seed=1)
    with pytest.raises(ValueError, match="no level 9"):
        choose_move(NIM, state, 0, 9, seed=1)


def test_the_move_does_not_depend_on_the_process() -> None:
    # Workers are separate processes with their own string hashing: nothing in the search may
    # follow a set's or a hash's order.
    script = ("from pbem.bots import choose_move; from pbem.games import REGISTRY\n"
              "for slug in sorted(REGISTRY):\n"
              "    r = REGISTRY[slug]; s = r.new_game(min(r.player_counts), {}, 5)\n"
              "    print(r.format_move(s, choose_move(r, s, min(r.to_move(s)), 1, 9)))\n")
    answers = set()
    for hash_seed in ("1", "2"):
        environment = {**os.environ, "PYTHONHASHSEED": hash_seed,
                       "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
        answers.add(subprocess.run([sys.executable, "-c", script], env=environment,
                                   capture_output=True, text=True, check=True).stdout)
    assert len(answers) == 1


def _busy(stop: threading.Event) -> None:
    while not stop.is_set():
        sum(range(10_000))


@pytest.mark.parametrize("slug", ["eximo", "mimic-taking"])
def test_a_busy_machine_plays_the_same_move_as_an_idle_one(slug: str) -> None:
    # The worker caps thinking by the thinking thread's CPU time (`think_clock`), never by
    # wall time: three busy threads take most of the interpreter from the search, so its wall
    # time is several times its CPU time, yet the whole iteration budget is searched and the
    # move is the one an unhurried search (no clock at all) makes with the same seed.
    rules = REGISTRY[slug]
    state = rules.new_game(min(rules.player_counts), {}, 11)
    seat = min(rules.to_move(state))
    idle = decide(rules, state, seat, 2, seed=5)
    stop = threading.Event()
    burners = [threading.Thread(target=_busy, args=(stop,)) for _ in range(3)]
    for burner in burners:
        burner.start()
    try:
        started, thought = time.monotonic(), think_clock()
        busy = decide(rules, state, seat, 2, seed=5, clock=think_clock)
        wall, thought = time.monotonic() - started, think_clock() - thought
    finally:
        stop.set()
        for burner in burners:
            burner.join()
    assert busy == idle
    assert busy.iterations == LEVELS[2].iterations
    # The load was real: the search had less than half the interpreter, so a wall-time cap
    # would have cut it to less than half its iterations. (Compared with its own CPU time,
    # not the level's budget: a faster search takes less than the budget even when slowed.)
    assert wall > 2 * thought

