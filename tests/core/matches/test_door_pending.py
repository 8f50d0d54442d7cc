"""What the door reads as pending (`changes.Pending`): a move skips the reads of draw offers,
conditional moves and the admin's queue when the match has none, and still meets each one
that exists: alone, when the match ends, when committed while the change waited for the
match's lock, and when the door runs inside a caller's longer transaction."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import peewee
import pytest

from pbem.core.db.connection import database, is_sqlite, write_transaction
from pbem.core.matches import offers
from pbem.core.matches.changes import Change, Locked, apply_change, apply_within
from pbem.core.matches.conditional import store
from pbem.core.matches.creation import create_match
from pbem.core.matches.lifecycle import OfferDraw, Resign
from pbem.core.matches.models import Adjudication, DrawOffer, Match
from pbem.core.matches.play import submit_move
from pbem.core.matches.sweep import open_entry
from pbem.games import get_rules
from tests.conftest import START
from tests.support.statements import statements
from tests.support.threads import race

SECRET = "test-secret-key"
ANN, BEN = "ann@example.org", "ben@example.org"
SIDE_TABLES = ("draw_offer", "conditional_tree", "adjudication")
FIRST = "b2-a1"  # a legal first move of seat 0 in every new mimic match


@dataclass(frozen=True, kw_only=True)
class OpenEntry(Change):
    """Send a seat to the admin's queue, as the sweep does for a timeout."""

    kind: ClassVar[str] = "timeout"

    def apply(self, door: Locked) -> None:
        open_entry(door, self.seat or 0, "timeout")
        door.touch()


@dataclass(frozen=True, kw_only=True)
class OfferThenWait(Change):
    """A draw offer whose transaction stays open until `go` is set."""

    kind: ClassVar[str] = "draw-offer"
    started: threading.Event = field(metadata={"unlogged": True})
    go: threading.Event = field(metadata={"unlogged": True})

    def apply(self, door: Locked) -> None:
        offers.offer(door, 1)
        self.started.set()
        assert self.go.wait(10)


def test_a_move_with_nothing_pending_reads_no_side_table_on_its_own(db_url: str) -> None:
    match = create_match("mimic", [ANN, BEN], {}, SECRET, START).match
    with statements() as seen:
        submit_move(match.id, 0, FIRST, 0, START)
    touching = [sql for sql in seen if any(f'"{t}"' in sql or f"`{t}`" in sql
                                           for t in SIDE_TABLES)]
    # Only the seated players' read asks about them, in one statement.
    assert len(touching) == 1, touching
    assert all(f'"{t}"' in touching[0] or f"`{t}`" in touching[0] for t in SIDE_TABLES)


def test_a_move_plays_a_stored_answer(db_url: str) -> None:
    match = create_match("mimic", [ANN, BEN], {}, SECRET, START).match
    answer = _answer_to(match.seed, FIRST)
    store(match.id, 1, [[FIRST, answer]], START)
    assert submit_move(match.id, 0, FIRST, 0, START).answered_with == answer


def test_a_move_declines_a_standing_offer(db_url: str) -> None:
    match = create_match("mimic", [ANN, BEN], {}, SECRET, START).match
    apply_change(match.id, OfferDraw(seat=1), START)
    submit_move(match.id, 0, FIRST, 0, START)
    assert (DrawOffer.get().status, DrawOffer.get().how) == ("declined", "moved instead")


def test_a_move_closes_its_seats_open_entry(db_url: str) -> None:
    match = create_match("mimic", [ANN, BEN], {}, SECRET, START).match
    apply_change(match.id, OpenEntry(seat=0), START)
    submit_move(match.id, 0, FIRST, 0, START)
    assert Adjudication.get().status == "closed"


@pytest.mark.parametrize("pending", ["offer", "entry"])
def test_an_ending_lapses_the_offer_and_closes_the_entry(db_url: str, pending: str) -> None:
    match = create_match("mimic", [ANN, BEN], {}, SECRET, START).match
    apply_change(match.id, OfferDraw(seat=1) if pending == "offer" else OpenEntry(seat=0),
                 START)
    apply_change(match.id, Resign(seat=0), START)
    assert Match.get_by_id(match.id).status == "finished"
    if pending == "offer":
        assert DrawOffer.get().status == "lapsed"
    else:
        assert Adjudication.get().status == "closed"


def test_an_offer_committed_while_a_move_waits_for_the_lock_is_declined_by_it(
        db_url: str) -> None:
    # The pending answers are read after the match row is locked. Read before it (or with it,
    # under the statement's earlier snapshot on PostgreSQL), the move would miss an offer
    # committed while it waited, and leave it standing: this failed so on PostgreSQL and
    # MariaDB.
    for _ in range(3):
        match = create_match("mimic", [ANN, BEN], {}, SECRET, START).match
        _offer_while_a_move_waits(match.id)
        offer_row = DrawOffer.get(DrawOffer.match == match)
        assert (offer_row.status, offer_row.how) == ("declined", "moved instead")


@pytest.mark.parametrize("pending", ["offer", "entry"])
@pytest.mark.parametrize("door", [apply_within, apply_change], ids=["within", "nested"])
def test_inside_a_callers_transaction_rows_committed_after_its_first_read_are_met(
        db_url: str, pending: str, door: Callable[..., Any]) -> None:
    # Vacations and tournaments run the door inside a transaction of their own, which may
    # read before it locks the match (and `apply_change` called inside one is only a
    # savepoint in it). On MariaDB (REPEATABLE READ) that read fixes the snapshot, so the
    # door's pending answers would miss what another change committed since: there it does
    # not trust them. Resigning ends the match, which must lapse the offer or close the entry
    # that came in between (both stayed open before the fix).
    match = create_match("mimic", [ANN, BEN], {}, SECRET, START).match
    other: Change = OfferDraw(seat=1) if pending == "offer" else OpenEntry(seat=0)
    if is_sqlite():
        # The caller's IMMEDIATE transaction holds the write lock from its start: no other
        # change can commit in between there, so the other change comes first.
        apply_change(match.id, other, START)
        with write_transaction():
            Match.select().count()
            door(match.id, Resign(seat=0), START)
    else:
        with write_transaction():
            Match.select().count()  # the caller's first read
            [committed] = race(lambda: apply_change(match.id, other, START))
            assert not isinstance(committed, Exception), committed
            door(match.id, Resign(seat=0), START)
    if pending == "offer":
        assert DrawOffer.get().status == "lapsed"
    else:
        assert Adjudication.get().status == "closed"


def _offer_while_a_move_waits(match_id: int) -> None:
    started, go = threading.Event(), threading.Event()
    failures: list[BaseException] = []

    def offer() -> None:
        try:
            with database.connection_context():
                apply_change(match_id, OfferThenWait(seat=1, started=started, go=go), START)
        except BaseException as error:
            failures.append(error)
            started.set()

    def move() -> None:
        try:
            with database.connection_context():
                submit_move(match_id, 0, FIRST, 0, START)
        except BaseException as error:
            failures.append(error)

    holder = threading.Thread(target=offer)
    holder.start()
    assert started.wait(10)
    mover = threading.Thread(target=move)
    mover.start()
    _until_a_lock_is_awaited()
    go.set()
    holder.join(10)
    mover.join(10)
    assert not failures, failures


def _until_a_lock_is_awaited() -> None:
    """Return once another connection waits for a row lock (PostgreSQL, MariaDB), so the race
    is the one meant. SQLite's wait (its busy handler) cannot be seen from outside: there,
    a pause long enough for the mover to reach it."""
    if is_sqlite():
        time.sleep(0.3)
        return
    # MariaDB: the locking read still running (it returns at once unless it waits).
    probe, params = (
        ("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'", ())
        if isinstance(database.obj, peewee.PostgresqlDatabase) else
        ("SELECT count(*) FROM information_schema.PROCESSLIST WHERE command = 'Query' "
         "AND info LIKE %s AND id <> CONNECTION_ID()", ("%FOR UPDATE%",)))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if database.execute_sql(probe, params).fetchone()[0]:
            return
        time.sleep(0.01)
    raise AssertionError("the move never waited for the match's lock")


def _answer_to(seed: int, move: str) -> str:
    """A legal answer of seat 1 to seat 0's `move` in a new mimic match."""
    rules = get_rules("mimic")
    state = rules.new_game(2, {}, seed)
    state = rules.apply_move(state, 0, rules.parse_move(state, 0, move)).state
    return rules.format_move(state, rules.legal_moves(state, 1)[0])
