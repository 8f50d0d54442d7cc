"""Seeks in the core: two players racing for the last seat get one seat and one "full", and
the match starts once with every seat."""

from __future__ import annotations

from functools import partial

import pytest

from pbem.core.accounts.models import Player
from pbem.core.lobby import seeks
from pbem.core.lobby.models import Seek, SeekEntry
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.models import Match, Seat
from pbem.errors import ConflictError, InvalidRequestError, NotFoundError
from pbem.games.base import RulesError
from tests.conftest import START
from tests.support.threads import race

ROUNDS = 6


def test_two_players_racing_for_the_last_seat(settings) -> None:
    ann = Player.for_email("ann@example.org", START)
    ben = Player.for_email("ben@example.org", START)
    cy = Player.for_email("cy@example.org", START)
    for _ in range(ROUNDS):
        Match.delete().execute()
        seek = seeks.create_seek(settings, ann, "nim", {}, "3d", 2, START)
        results = race(partial(seeks.join, settings, seek.id, ben, START),
                       partial(seeks.join, settings, seek.id, cy, START))
        won = [r for r in results if isinstance(r, Seek)]
        lost = [r for r in results if isinstance(r, ConflictError)]
        assert len(won) == 1 and len(lost) == 1 and "full" in str(lost[0]), results
        seek = Seek.get_by_id(seek.id)
        assert seek.status == "started" and Match.select().count() == 1
        assert SeekEntry.select().where(SeekEntry.seek == seek).count() == 2
        seats = Seat.select().where(Seat.match == seek.match_id)
        assert sorted(s.player_id for s in seats) in ([ann.id, ben.id], [ann.id, cy.id])
        assert OutboxMessage.select().where(OutboxMessage.match == seek.match_id,
                                            OutboxMessage.template == "welcome").count() == 2


def test_a_three_player_seek_fills_one_seat_at_a_time(settings) -> None:
    players = [Player.for_email(f"p{n}@example.org", START) for n in range(4)]
    seek = seeks.create_seek(settings, players[0], "bids", {}, "1d", 3, START)
    assert seeks.join(settings, seek.id, players[1], START).status == "open"
    with pytest.raises(ConflictError, match="already"):
        seeks.join(settings, seek.id, players[1], START)
    assert seeks.join(settings, seek.id, players[2], START).status == "started"
    with pytest.raises(ConflictError, match="full"):
        seeks.join(settings, seek.id, players[3], START)
    assert seeks.open_seeks() == []


def test_bad_seeks_are_refused_and_only_the_creator_cancels(settings) -> None:
    ann = Player.for_email("ann@example.org", START)
    ben = Player.for_email("ben@example.org", START)
    with pytest.raises(RulesError, match="played by 2 players"):
        seeks.create_seek(settings, ann, "nim", {}, "3d", 3, START)
    with pytest.raises(InvalidRequestError, match="whole number"):
        seeks.create_seek(settings, ann, "nim", {}, "3d", "two", START)
    with pytest.raises(InvalidRequestError, match="time control"):
        seeks.create_seek(settings, ann, "nim", {}, "forever", 2, START)
    assert Seek.select().count() == 0
    seek = seeks.create_seek(settings, ann, "nim", {"pile": 4}, "3d", 2, START)
    with pytest.raises(NotFoundError):
        seeks.cancel(seek.id, ben, START)
    assert seeks.cancel(seek.id, ann, START).status == "cancelled"
    with pytest.raises(ConflictError, match="cancelled"):
        seeks.join(settings, seek.id, ben, START)


def test_a_deadlock_while_joining_is_retried_not_shown(settings, monkeypatch) -> None:
    """Joins had their own retry loop that let a deadlock through as an error; now the one
    retry (pbem.core.db.retry) runs the join again."""
    import peewee

    ann = Player.for_email("ann@example.org", START)
    ben = Player.for_email("ben@example.org", START)
    seek = seeks.create_seek(settings, ann, "nim", {}, "3d", 2, START)
    real = seeks._join_once
    calls = []

    def deadlocked_once(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise peewee.OperationalError("deadlock detected")
        return real(*args, **kwargs)

    monkeypatch.setattr(seeks, "_join_once", deadlocked_once)
    joined = seeks.join(settings, seek.id, ben, START)
    assert len(calls) == 2 and joined.match_id is not None
