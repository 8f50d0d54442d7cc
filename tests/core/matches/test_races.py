"""Races through the one door (changes.py), with real threads on every test database.

Each race is repeated enough times to have failed before the door existed: moves accepted
into forfeited matches and deadlocks (MariaDB), refused simultaneous choices (PostgreSQL),
rulings applied several times, vacations beyond the allowance, a sweep stopped by one match.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from pbem.core.accounts.models import Player
from pbem.core.db.connection import database
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Adjudication, ChangeLog, Match, Move, Seat, Vacation
from pbem.core.matches.play import submit_move
from pbem.core.matches.rulings import make_ruling
from pbem.core.matches.sweep import sweep
from pbem.core.matches.vacations import cancel, declare
from pbem.errors import ConflictError, NotFoundError, PbemError
from tests.conftest import START

SECRET = "test-secret-key"
ANN, BEN, CY, DI = "ann@example.org", "ben@example.org", "cy@example.org", "di@example.org"
GRACE = timedelta(hours=1)
LATE = START + timedelta(minutes=1)


def race(*actions: Callable[[], Any]) -> list[Any]:
    """Start every action at once, each in its own thread with its own connection; return
    each one's result or the exception it raised."""
    barrier = threading.Barrier(len(actions))
    results: list[Any] = [None] * len(actions)

    def run(index: int, action: Callable[[], Any]) -> None:
        barrier.wait()
        try:
            with database.connection_context():
                results[index] = action()
        except Exception as error:
            results[index] = error

    threads = [threading.Thread(target=run, args=(i, a)) for i, a in enumerate(actions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_a_move_racing_a_forfeit_never_lands_in_a_forfeited_match(db_url: str) -> None:
    outcomes = {"moved": 0, "forfeited": 0}
    for _ in range(25):
        match = create_match("nim", [ANN, BEN], {}, SECRET, START, time_control="45s",
                             on_timeout="forfeit").match
        sweep(START, GRACE)  # the worker's heartbeat, so the race is not seen as an outage
        report, moved = race(lambda: sweep(LATE, GRACE),
                             lambda match=match: submit_move(match.id, 0, "take 1", 0, LATE))
        assert not isinstance(report, Exception), f"the sweep died: {report!r}"
        assert report.failed == 0
        match = Match.get_by_id(match.id)
        moves = Move.select().where(Move.match == match).count()
        if isinstance(moved, Exception):
            # Refused cleanly (a 409), never a deadlock or a database error.
            assert isinstance(moved, ConflictError), repr(moved)
            assert match.status == "finished" and moves == 0
            assert match.result["winners"] == [1]
            outcomes["forfeited"] += 1
        else:
            assert match.status == "active" and moves == 1 and match.result is None
            assert match.to_move == [1]
            outcomes["moved"] += 1
        ben_turns = OutboxMessage.select().where(OutboxMessage.match == match,
                                                 OutboxMessage.to_address == BEN,
                                                 OutboxMessage.template == "your_turn")
        assert ben_turns.count() == (1 if match.status == "active" else 0)
        Match.delete().where(Match.id == match.id).execute()
    assert sum(outcomes.values()) == 25


def test_simultaneous_choices_in_bursts_are_never_refused(db_url: str) -> None:
    for _ in range(12):
        match = create_match("bids", [ANN, BEN, CY, DI], {}, SECRET, START, seed=5).match
        hands = match.state["hands"]
        results = race(*(lambda seat=seat, match=match, hands=hands: submit_move(
            match.id, seat, f"play {hands[seat][0]}", 0, START) for seat in range(4)))
        refused = [r for r in results if isinstance(r, Exception)]
        assert refused == [], f"valid choices were refused: {refused!r}"
        match = Match.get_by_id(match.id)
        assert match.ply == 4 and match.turn == 1 and match.to_move == [0, 1, 2, 3]
        Match.delete().where(Match.id == match.id).execute()


def test_a_ruling_posted_eight_times_at_once_acts_once(db_url: str) -> None:
    for ruling in ("extend", "award", "extend", "abort", "extend", "draw"):
        match = create_match("nim", [ANN, BEN], {}, SECRET, START, time_control="45s").match
        sweep(LATE, GRACE)
        mails_before = OutboxMessage.select().where(OutboxMessage.match == match).count()
        results = race(*(lambda match=match, ruling=ruling: make_ruling(
            match.id, ruling, "no reply for a week", "ref", LATE + timedelta(minutes=5),
            extension=timedelta(days=2)) for _ in range(8)))
        ruled = [r for r in results if isinstance(r, Adjudication)]
        repeats = [r for r in results if isinstance(r, PbemError)]
        assert len(ruled) == 1 and len(repeats) == 7, results
        assert all("Already ruled" in str(r) for r in repeats)
        assert ChangeLog.select().where(ChangeLog.match == match,
                                        ChangeLog.kind == "ruling").count() == 1
        mails = OutboxMessage.select().where(OutboxMessage.match == match).count()
        assert mails - mails_before == 2, "one ruling or result email per player"
        Match.delete().where(Match.id == match.id).execute()


def test_sixteen_vacations_at_once_stay_within_the_allowance(db_url: str) -> None:
    create_match("nim", [ANN, BEN], {}, SECRET, START)
    player = Player.get(Player.email == ANN)
    first = START.date() + timedelta(days=1)
    # Sixteen windows of five days, each overlapping its neighbours.
    windows = [(first + timedelta(days=i), first + timedelta(days=i + 4)) for i in range(16)]
    results = race(*(lambda a=a, b=b: declare(player.id, a, b, 14, START) for a, b in windows))
    assert not [r for r in results if isinstance(r, Exception)
                and not isinstance(r, PbemError)], results
    recorded = sorted((v.starts_at, v.ends_at) for v in
                      Vacation.select().where(Vacation.player == player))
    days = sum((end - start).days for start, end in recorded)
    assert len(recorded) >= 1 and days <= 14
    for (_, end), (start, _) in itertools.pairwise(recorded):
        assert end <= start, "vacations never overlap"


def test_a_vacation_called_off_twice_at_once_is_called_off_once(db_url: str) -> None:
    """Without the per-player guard both would find it, both delete it, and the opponent
    would be told twice."""
    match = create_match("nim", [ANN, BEN], {}, SECRET, START).match
    Player.update(mail_pref="each").where(Player.email == BEN).execute()
    player = Player.get(Player.email == ANN)
    day = START.date() + timedelta(days=1)
    for round_number in range(10):
        vacation = declare(player.id, day, day, 14, START).vacation
        results = race(*(lambda v=vacation.id: cancel(player.id, v, START) for _ in range(3)))
        assert sum(not isinstance(r, Exception) for r in results) == 1, results
        assert all(isinstance(r, NotFoundError) for r in results if isinstance(r, Exception))
        told = OutboxMessage.select().where(OutboxMessage.match == match.id,
                                            OutboxMessage.template == "vacation")
        assert [m.params.get("cancelled") for m in told].count("withdrawn") == \
            round_number + 1, "the opponent is told once a time"
    assert Vacation.select().count() == 0


def test_a_corrupted_match_does_not_stop_the_sweep(db_url: str) -> None:
    matches = [create_match("nim", [ANN, BEN], {}, SECRET, START, time_control="45s",
                            on_timeout=policy).match
               for policy in ("adjudicate", "autoplay", "autoplay", "forfeit")]
    broken = matches[1]
    Match.update(state={"garbage": True}).where(Match.id == broken.id).execute()
    for _ in range(3):
        report = sweep(LATE, GRACE)
    assert Match.get_by_id(matches[3].id).status == "finished"  # forfeit settled
    assert Move.select().where(Move.match == matches[2]).count() == 1  # autoplay settled
    assert Adjudication.select().where(Adjudication.match == matches[0]).count() == 1
    (entry,) = Adjudication.select().where(Adjudication.match == broken)
    assert (entry.cause, entry.status, entry.seat) == ("error", "open", 0)
    # The failed autoplay left the seat a queue entry, which now stands for its deadline, so
    # later sweeps neither retry it every minute nor open a second entry.
    assert Seat.get(Seat.match == broken, Seat.seat == 0).deadline is None
    assert report.failed == 0


def test_a_failed_autoplay_keeps_the_seat_deadline_or_opens_an_entry(db_url: str) -> None:
    match = create_match("nim", [ANN, BEN], {}, SECRET, START, time_control="45s",
                         on_timeout="autoplay").match
    Match.update(state={"pile": "many"}).where(Match.id == match.id).execute()
    report = sweep(LATE, GRACE)
    assert report.failed == 1
    (entry,) = Adjudication.select().where(Adjudication.match == match)
    assert (entry.cause, entry.status) == ("error", "open") and Move.select().count() == 0



def test_an_outage_credit_racing_a_move_goes_through_the_door_one_after_the_other(
        db_url: str) -> None:
    """The outage credit used to move deadlines without the match lock or a version bump;
    now each is a change like a move, so the two queue at the door: both land, each logged
    once, and the version counts them both."""
    from pbem.core.admin.models import Heartbeat
    from pbem.core.matches.models import ChangeLog

    grace = timedelta(minutes=10)
    for round_number in range(20):
        start = START + timedelta(days=round_number)
        created = create_match("nim", [ANN, BEN], {"pile": "9"}, SECRET, start,
                               time_control="1d")
        match_id = created.match.id
        Heartbeat.delete().execute()
        Heartbeat.create(name="worker", seen_at=start)
        later = start + timedelta(hours=2)
        results = race(lambda at=later: sweep(at, grace),
                       lambda at=later, m=match_id: submit_move(m, 0, "take 1", 0, at))
        assert not any(isinstance(r, Exception) for r in results), results
        kinds = [row.kind for row in ChangeLog.select().where(ChangeLog.match == match_id)]
        assert kinds.count("move") == 1 and kinds.count("outage-credit") <= 1
        versions = [row.version for row in ChangeLog.select().where(
            ChangeLog.match == match_id).order_by(ChangeLog.version)]
        assert versions[-1] == Match.get_by_id(match_id).version
        assert len(set(versions)) == len(versions)  # one after the other, never together
