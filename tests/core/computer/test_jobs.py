"""The worker's computer moves: claimed exactly once by several workers, thought about
outside any transaction, and made through the door, which lets a resignation racing the
computer win cleanly; and the computer standing in for late people (the autoplay policy and
an admin's hand-over ruling)."""

from __future__ import annotations

import random
import threading
import time
from datetime import timedelta
from typing import Any

from pbem.bots import choose_move
from pbem.core.accounts.models import Player
from pbem.core.computer.jobs import claim_next, run_due
from pbem.core.computer.opponents import ComputerRequest, play_computer
from pbem.core.db.connection import database
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.computer_turns import StandIn, move_seed
from pbem.core.matches.creation import create_match
from pbem.core.matches.lifecycle import resign
from pbem.core.matches.models import ChangeLog, ComputerJob, Match, Move, Seat
from pbem.core.matches.play import submit_move
from pbem.core.matches.rulings import make_ruling
from pbem.core.matches.sweep import Limits, sweep
from pbem.games import get_rules
from tests.conftest import START
from tests.core.matches.test_races import race

ANN, BEN = "ann@example.org", "ben@example.org"
LEASE = timedelta(seconds=60)
GRACE = timedelta(hours=1)


def computer_first(level: int = 1, game: str = "mimic") -> Match:
    """A match where the computer (seat 0) owes the first move: its job is queued."""
    ann = Player.for_email(ANN, START)
    return play_computer(ann, ComputerRequest(game, level, seat=1), "k", START).match


def test_two_workers_think_about_each_move_exactly_once(db_url: str) -> None:
    matches = [computer_first() for _ in range(12)]
    thoughts: list[tuple[int, int]] = []
    lock = threading.Lock()

    def think(rules: Any, state: Any, seat: int, level: int, seed: int, **kw: Any) -> Any:
        with lock:
            thoughts.append((seed, seat))
        time.sleep(0.01)  # long enough for the other worker to try the same job
        return choose_move(rules, state, seat, level, seed, **kw)

    reports = race(*(lambda: run_due(lambda: START, think, time.monotonic, LEASE)
                     for _ in range(2)))
    assert not [r for r in reports if isinstance(r, Exception)], reports
    assert sum(r.moved for r in reports) == 12 and sum(r.failed for r in reports) == 0
    assert len(thoughts) == len(set(thoughts)) == 12, "no move was thought about twice"
    for match in matches:
        assert Match.get_by_id(match.id).ply == 1
        assert Move.select().where(Move.match == match).count() == 1
    assert ComputerJob.select().count() == 0


def test_a_worker_back_after_a_stop_catches_up_and_a_stopping_one_claims_nothing(
        db_url: str) -> None:
    matches = [computer_first() for _ in range(3)]
    assert run_due(lambda: START, choose_move, time.monotonic, LEASE,
                   stopping=lambda: True).moved == 0
    back = START + timedelta(days=2)  # the worker was down two days: every job is still due
    report = run_due(lambda: back, choose_move, time.monotonic, LEASE)
    assert report.moved == 3 and ComputerJob.select().count() == 0
    assert all(Match.get_by_id(m.id).to_move == [1] for m in matches)


def test_a_claim_is_exclusive_until_its_lease_lapses(db_url: str) -> None:
    computer_first()
    first = claim_next(START, LEASE)
    assert first is not None
    assert claim_next(START + timedelta(seconds=59), LEASE) is None
    # A worker that died mid-thought: after the lease another takes the job over, and the
    # first one's late move is refused (the job is no longer its own).
    second = claim_next(START + timedelta(seconds=61), LEASE)
    assert second is not None and second.id == first.id
    assert second.lease_token != first.lease_token


def test_the_computer_plays_the_engines_move_seeded_by_match_and_ply(db_url: str) -> None:
    a, b = computer_first(level=1), computer_first(level=1)

    def unhurried(*args: Any, clock: Any = None) -> Any:
        return choose_move(*args)  # the iteration budget alone: the same move every time

    run_due(lambda: START, unhurried, time.monotonic, LEASE)
    made = {m.match_id: m.text for m in Move.select()}
    rules = get_rules("mimic")
    for match in (a, b):
        state = rules.new_game(2, match.options, match.seed)
        expected = rules.format_move(state, choose_move(rules, state, 0, 1,
                                                        move_seed(match.id, 0, 0)))
        assert made[match.id] == expected


def test_a_resignation_racing_the_computer_wins_cleanly(db_url: str) -> None:
    """The person resigns while the computer's job thinks: the resignation always applies,
    the computer's move lands only if it was made before it (never after the match ended),
    nothing raises, no job is left and no move is made twice. Both orders are seen."""
    seen = {"resigned first": 0, "computer first": 0}
    rng = random.Random(26)
    for _ in range(30):
        match = computer_first()
        started = threading.Event()
        # The thought lasts a random while (the engine's own time varies with the position),
        # and the resignation comes at another random moment of it: both orders happen.
        thinking, resigning = rng.random() * 0.1, rng.random() * 0.1

        def think(*args: Any, started: threading.Event = started, thinking: float = thinking,
                  **kw: Any) -> Any:
            started.set()
            time.sleep(thinking)
            return choose_move(*args, **kw)

        def resign_while_thinking(match_id: int = match.id, delay: float = resigning,
                                  started: threading.Event = started) -> str:
            started.wait(5)
            time.sleep(delay)
            return resign(match_id, 1, START)

        report, said = race(lambda: run_due(lambda: START, think, time.monotonic, LEASE),
                            resign_while_thinking)
        assert not isinstance(report, Exception), repr(report)
        assert not isinstance(said, Exception), repr(said)
        assert report.failed == 0 and report.moved + report.dropped == 1
        match = Match.get_by_id(match.id)
        assert match.status == "finished" and match.result["winners"] == [0]
        log = [row.kind for row in ChangeLog.select().where(ChangeLog.match == match)
               .order_by(ChangeLog.version)]
        assert log[-1] == "resign", "nothing happens to a match after its resignation"
        assert log.count("computer-move") == report.moved <= 1
        assert Move.select().where(Move.match == match).count() == report.moved
        assert ComputerJob.select().count() == 0
        seen["computer first" if report.moved else "resigned first"] += 1
    assert all(seen.values()), f"the race never went both ways: {seen}"


def test_an_abort_before_the_job_runs_drops_it_with_the_abort(db_url: str) -> None:
    from pbem.core.matches.lifecycle import abort

    match = computer_first()
    assert ComputerJob.select().count() == 1
    abort(match.id, 1, START)
    assert ComputerJob.select().count() == 0, "the abort's own transaction drops the job"
    report = run_due(lambda: START, choose_move, time.monotonic, LEASE)
    assert (report.moved, report.dropped, report.failed) == (0, 0, 0)
    assert Match.get_by_id(match.id).status == "aborted"
    assert ComputerJob.select().count() == 0


class HurriedClock:
    """A clock for the engine whose time is up at its second reading: the search stops after
    its first look, so the test is quick, and every reading is counted (the engine was
    asked). Two such clocks give the engine the same budget, so the same move."""

    def __init__(self) -> None:
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        return 0.0 if self.readings == 1 else 1e9


def test_autoplay_stands_in_with_the_engine_and_says_so(db_url: str) -> None:
    match = create_match("mimic", [ANN, BEN], {}, "k", START, seed=11, time_control="45s",
                         on_timeout="autoplay").match
    rules = get_rules("mimic")
    state = rules.load(match.state)
    engine = rules.format_move(state, choose_move(rules, state, 0, 4, move_seed(match.id, 0, 0),
                                                  clock=HurriedClock()))
    clock = HurriedClock()
    limits = Limits(stand_in=StandIn(4, clock))
    sweep(START, GRACE, limits=limits)
    report = sweep(START + timedelta(minutes=2), GRACE, limits=limits)
    assert report.settled == 1 and clock.readings >= 1, "the engine chose the move"
    (move,) = Move.select().where(Move.match == match)
    assert move.text == engine
    assert move.note == ("played by the computer for ann "
                         "(the clock ran out (autoplay policy))")
    assert ChangeLog.get(ChangeLog.match == match, ChangeLog.kind == "timeout"
                         ).payload["level"] == 4
    # The person keeps their seat (only this move was made for them), and the match is rated.
    assert Seat.get(Seat.match == match, Seat.seat == 0).computer_level is None
    assert not Match.get_by_id(match.id).has_computer


def test_the_move_list_says_played_by_the_computer_for(client, worker, db_url) -> None:
    match = create_match("mimic", [ANN, BEN], {}, "k", START, seed=11, time_control="45s",
                         on_timeout="autoplay").match
    limits = Limits(stand_in=StandIn(1, HurriedClock()))
    sweep(START, GRACE, limits=limits)
    sweep(START + timedelta(minutes=2), GRACE, limits=limits)
    page = client.get(f"/matches/{match.id}")
    assert b"played by the computer for ann" in page.data
    assert b"played by the server" not in page.data


def test_an_admin_hands_a_late_seat_to_the_computer(db_url: str) -> None:
    match = create_match("mimic", [ANN, BEN], {}, "k", START, seed=3, time_control="45s").match
    submit_move(match.id, 0, get_rules("mimic").format_move(
        get_rules("mimic").load(match.state),
        next(iter(get_rules("mimic").legal_moves(get_rules("mimic").load(match.state), 0)))),
        0, START)
    sweep(START, GRACE)
    sweep(START + timedelta(minutes=2), GRACE)  # ben's time runs out: an admin's entry
    later = START + timedelta(minutes=5)
    make_ruling(match.id, "computer", "ben has not been seen for weeks", "ref@club.org",
                later, stand_in=StandIn(1))
    ben = Seat.get(Seat.match == match, Seat.seat == 1)
    assert ben.computer_level == 1 and ben.deadline is None and ben.player.email == BEN
    assert Match.get_by_id(match.id).has_computer
    told = {m.to_address for m in OutboxMessage.select().where(
        OutboxMessage.match == match, OutboxMessage.template == "ruling")}
    assert told == {ANN, BEN}, "every seat is told"
    assert ComputerJob.select().count() == 1, "ben owes a move: the computer's job is queued"
    assert run_due(lambda: later, choose_move, time.monotonic, LEASE).moved == 1
    moved = Move.select().where(Move.match == match, Move.seat == 1).get()
    assert moved.note == "played by the computer for ben"
    # From now on the computer answers ann's moves; ben is mailed no more turns.
    rules = get_rules("mimic")
    state = rules.load(Match.get_by_id(match.id).state)
    if Match.get_by_id(match.id).is_live:
        submit_move(match.id, 0, rules.format_move(state, next(iter(rules.legal_moves(state, 0)))),
                    2, later)
        assert run_due(lambda: later, choose_move, time.monotonic, LEASE).moved == 1
    turns_for_ben = OutboxMessage.select().where(
        OutboxMessage.to_address == BEN, OutboxMessage.template == "your_turn",
        OutboxMessage.created_at >= later)
    assert turns_for_ben.count() == 0
    assert database.is_closed() is False


def test_a_whole_mimic_taking_match_with_two_computers_and_simultaneous_choices(
        db_url: str) -> None:
    """Three seats, two the computer's: simultaneous decisions (every seat owes the last card
    at once) are played part by part, the computer's parts by its jobs, to the end."""
    # The deal follows the match's id as well as its seed (games/dealing.py), and ids differ by
    # database: matches are played until one reaches a simultaneous decision (most do).
    for seed in range(3, 13):
        match = create_match("mimic-taking", [ANN], {}, "k", START, seed=seed,
                             computers={1: 1, 2: 1}).match
        simultaneous = _play_against_two_computers(match)
        match = Match.get_by_id(match.id)
        assert match.status == "finished" and match.has_computer
        assert ComputerJob.select().count() == 0
        plies = [m.ply for m in Move.select().where(Move.match == match).order_by(Move.ply)]
        assert plies == list(range(1, match.ply + 1)), "every move made once"
        if simultaneous:
            break
    assert simultaneous, "a deal reaches a simultaneous decision"


def test_the_computer_takes_its_given_salts_at_once_and_the_last_salt_deals(
        db_url: str) -> None:
    rules = get_rules("mimic-taking")
    match = create_match("mimic-taking", [ANN], {}, "k", START, computers={1: 1, 2: 2}).match
    assert match.to_move == [0, 1, 2], "every seat owes its salt before the first deal"
    assert ComputerJob.select().count() == 2, "both computer seats are queued at once"
    report = run_due(lambda: START, choose_move, time.monotonic, LEASE)
    assert (report.moved, report.failed) == (2, 0)
    match = Match.get_by_id(match.id)
    assert match.to_move == [0] and rules.load(match.state).salting
    assert [m.text for m in Move.select().where(Move.match == match)] == ["salt", "salt"]
    submit_move(match.id, 0, "salt my own", match.ply, START)
    state = rules.load(Match.get_by_id(match.id).state)
    assert not state.salting and state.salts is not None and state.salts[0] == "my own"
    assert all(len(hand) == 12 for hand in state.hands)


def _play_against_two_computers(match: Match) -> bool:
    """Seat 0 plays its first legal move, the computer (thinking by its iteration budget
    alone) the others, to the end; whether a decision was ever owed by several seats."""
    rules = get_rules("mimic-taking")

    def unhurried(*args: Any, clock: Any = None) -> Any:
        return choose_move(*args)

    simultaneous = False
    for _ in range(400):
        match = Match.get_by_id(match.id)
        if not match.is_live:
            break
        # The salts before the first deal are one too, but the last-card choice is meant.
        simultaneous |= len(match.to_move) > 1 and not rules.load(match.state).salting
        if 0 in match.to_move:
            state = rules.load(match.state)
            submit_move(match.id, 0, rules.format_move(
                state, next(iter(rules.legal_moves(state, 0)))), match.ply, START)
        else:
            report = run_due(lambda: START, unhurried, time.monotonic, LEASE)
            assert report.moved >= 1 and report.failed == 0
    return simultaneous


def test_a_computer_that_keeps_failing_puts_the_match_before_an_admin(db_url: str) -> None:
    from pbem.core.computer.jobs import MAX_ATTEMPTS
    from pbem.core.matches.models import Adjudication

    match = computer_first()

    def broken(*args: Any, **kw: Any) -> Any:
        raise RuntimeError("a bug in the search")

    at = START
    for attempt in range(1, MAX_ATTEMPTS + 1):
        report = run_due(lambda at=at: at, broken, time.monotonic, LEASE)
        assert report.failed == 1, attempt
        at += timedelta(hours=1)  # past the back-off
    assert run_due(lambda: at + timedelta(days=30), broken, time.monotonic, LEASE).failed == 0
    entry = Adjudication.get(Adjudication.match == match)
    assert (entry.seat, entry.cause, entry.status) == (0, "error", "open")
    assert Match.get_by_id(match.id).is_live and Move.select().count() == 0
    # The admin's ruling settles it; the parked job goes with the match's end.
    make_ruling(match.id, "abort", "the computer cannot move here", "ref@club.org", at)
    assert ComputerJob.select().count() == 0
