"""Turn mails that wait while their player looks at the match: none while present, exactly
one once away however many moves came meanwhile, none when the player moved first, and one
only when two workers release it at once."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

import pytest

from pbem.core import settlers
from pbem.core.db.connection import database, is_sqlite
from pbem.core.mailout.models import OutboxMessage, WaitingTurn
from pbem.core.mailout.waiting import release_due
from pbem.core.matches.creation import create_match
from pbem.core.matches.play import submit_move
from pbem.core.presence import seen
from tests.conftest import START

PAIR = ["ann@example.org", "ben@example.org"]
AWAY = timedelta(seconds=300)


@pytest.fixture(autouse=True)
def _fresh_presence() -> None:
    seen.forget_written()


def _turn_mails(match_id: int, seat: int) -> int:
    return (OutboxMessage.select().where(OutboxMessage.match == match_id,
                                         OutboxMessage.seat == seat,
                                         OutboxMessage.template == "your_turn").count())


def _nim(pile: int = 20) -> int:
    return create_match("nim", PAIR, {"pile": pile}, "k", START).match.id


def test_a_player_looking_gets_no_turn_mail_until_away_then_exactly_one(db_url: str) -> None:
    match_id = _nim()
    submit_move(match_id, 0, "take 1", 0, START)
    assert _turn_mails(match_id, 0) == 1  # the first, before Ann ever looked
    seen.mark_seen(match_id, 0, START + timedelta(seconds=5))  # Ann waits on her page
    submit_move(match_id, 1, "take 1", 1, START + timedelta(seconds=10))
    assert _turn_mails(match_id, 0) == 1  # held
    assert release_due(START + timedelta(seconds=20)) == 0
    # Ann answers and waits again; Ben moves twice more in all while she watches.
    submit_move(match_id, 0, "take 1", 2, START + timedelta(seconds=30))
    seen.mark_seen(match_id, 0, START + timedelta(seconds=60))
    submit_move(match_id, 1, "take 2", 3, START + timedelta(seconds=70))
    assert WaitingTurn.select().count() == 1
    assert release_due(START + timedelta(seconds=60) + AWAY - timedelta(seconds=1)) == 0
    assert _turn_mails(match_id, 0) == 1
    assert release_due(START + timedelta(seconds=60) + AWAY) == 1
    assert _turn_mails(match_id, 0) == 2
    mail = OutboxMessage.select().order_by(OutboxMessage.id.desc()).first()
    assert (mail.seat, mail.ply, mail.template) == (0, 4, "your_turn")  # the latest move's
    assert release_due(START + timedelta(hours=1)) == 0
    assert _turn_mails(match_id, 0) == 2 and WaitingTurn.select().count() == 0


def test_a_look_meanwhile_keeps_the_mail_waiting(db_url: str) -> None:
    match_id = _nim()
    submit_move(match_id, 0, "take 1", 0, START)
    seen.mark_seen(match_id, 0, START)
    submit_move(match_id, 1, "take 1", 1, START + timedelta(seconds=10))
    seen.mark_seen(match_id, 0, START + timedelta(seconds=200))  # still there, later
    assert release_due(START + AWAY) == 0
    assert WaitingTurn.get().due_at == START + timedelta(seconds=200) + AWAY
    assert release_due(START + timedelta(seconds=200) + AWAY) == 1


def test_a_player_who_moved_while_looking_is_never_mailed_that_turn(db_url: str) -> None:
    match_id = _nim()
    submit_move(match_id, 0, "take 1", 0, START)
    seen.mark_seen(match_id, 0, START)
    submit_move(match_id, 1, "take 1", 1, START + timedelta(seconds=10))
    submit_move(match_id, 0, "take 1", 2, START + timedelta(seconds=20))  # she saw it
    assert release_due(START + timedelta(hours=1)) == 0
    assert _turn_mails(match_id, 0) == 1 and WaitingTurn.select().count() == 0


def test_a_player_away_or_never_seen_is_mailed_at_once(db_url: str) -> None:
    match_id = _nim()
    submit_move(match_id, 0, "take 1", 0, START)
    seen.mark_seen(match_id, 0, START)
    submit_move(match_id, 1, "take 1", 1, START + AWAY)  # seen exactly the window ago: away
    assert _turn_mails(match_id, 0) == 2


def test_an_away_window_of_zero_mails_every_turn(db_url: str) -> None:
    settlers.install(notify_away_seconds=0)
    try:
        match_id = _nim()
        submit_move(match_id, 0, "take 1", 0, START)
        seen.mark_seen(match_id, 0, START)
        submit_move(match_id, 1, "take 1", 1, START + timedelta(seconds=1))
        assert _turn_mails(match_id, 0) == 2
    finally:
        settlers.install()


def test_presence_is_written_once_per_resolution_and_never_goes_back(db_url: str) -> None:
    match_id = _nim()
    seen.mark_seen(match_id, 1, START)
    seen.mark_seen(match_id, 1, START + timedelta(seconds=5))  # within the resolution
    assert seen.last_seen(match_id, 1) == START
    seen.mark_seen(match_id, 1, START + seen.RESOLUTION)
    assert seen.last_seen(match_id, 1) == START + seen.RESOLUTION
    seen.forget_written()
    seen.mark_seen(match_id, 1, START)  # an older look (another process's clock) is ignored
    assert seen.last_seen(match_id, 1) == START + seen.RESOLUTION


def test_two_workers_releasing_at_once_send_one_mail(db_url: str) -> None:
    """Repeated: each round holds one mail and lets two threads release it together."""
    rounds = 5 if is_sqlite() else 20
    for round_number in range(rounds):
        at = START + timedelta(hours=round_number)
        match_id = _nim()
        submit_move(match_id, 0, "take 1", 0, at)
        seen.mark_seen(match_id, 0, at)
        submit_move(match_id, 1, "take 1", 1, at + timedelta(seconds=1))
        before = _turn_mails(match_id, 0)
        barrier = threading.Barrier(2)
        counts: list[int] = []

        def release(barrier: threading.Barrier = barrier, counts: list[int] = counts,
                    when: datetime = at + timedelta(minutes=30)) -> None:
            with database.connection_context():
                barrier.wait()
                counts.append(release_due(when))

        threads = [threading.Thread(target=release) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(counts) == [0, 1]
        assert _turn_mails(match_id, 0) == before + 1
