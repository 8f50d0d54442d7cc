"""The statements a first read sends, held to the counts `docs/CACHES.md` documents: the read
a player meets after every move (the first of a new match version in this process), where
nothing kept helps, so each statement more is paid on every move."""

from __future__ import annotations

import re
from pathlib import Path

import peewee
import pytest

from pbem.core.db.connection import database
from pbem.core.matches.creation import create_match
from pbem.core.matches.play import submit_move
from tests.conftest import START
from tests.support.statements import statements

DOC = Path(__file__).resolve().parents[3] / "docs" / "CACHES.md"
PLAYERS = ["ann@example.org", "ben@example.org"]
FIRST_MOVE = "b2-a1"  # a legal first move of seat 0 in every new mimic match


def documented(read: str) -> int:
    """The count the docs give for a read (the table's row that begins with `read`)."""
    found = re.search(rf"^\| {re.escape(read)}[^|]*\| (\d+) \|", DOC.read_text(), re.MULTILINE)
    assert found, f"docs/CACHES.md documents no count for {read!r}"
    return int(found.group(1))


def _generation_reads() -> int:
    """PostgreSQL's pooled connections hear of the generation: no statement reads it."""
    return 0 if isinstance(database.obj, peewee.PostgresqlDatabase) else 1


def _after_a_move(settings) -> str:
    """A match whose first seat has moved; the opponent's link, for the version's first read."""
    created = create_match("mimic", PLAYERS, {}, settings.secret_key, START, seed=3)
    submit_move(created.match.id, 0, FIRST_MOVE, 0, START)
    return created.tokens[1]


@pytest.mark.parametrize(("path", "read"), [
    ("/play/", "A seat's play page, first read of a version"),
    ("/api/play/", "`GET /api/play/<token>`, first read of a version"),
])
def test_a_first_read_sends_no_more_statements_than_documented(settings, client, path: str,
                                                               read: str) -> None:
    assert client.get(path + _after_a_move(settings)).status_code == 200  # compiled, listening
    token = _after_a_move(settings)
    with statements() as seen:
        assert client.get(path + token).status_code == 200
    expected = documented(read) - 1 + _generation_reads()
    assert len(seen) <= expected, "\n".join(seen)
    # Fewer is better: then lower the documented count too.
    assert len(seen) == expected, "\n".join(seen)


def test_a_page_read_again_sends_no_more_statements_than_documented(settings, client) -> None:
    token = _after_a_move(settings)
    assert client.get(f"/play/{token}").status_code == 200  # notes the visit
    with statements() as seen:
        assert client.get(f"/play/{token}").status_code == 200
    expected = documented("A seat's play page read again") - 1 + _generation_reads()
    assert len(seen) == expected, "\n".join(seen)
