"""The code that reaches into peewee's private state runs only on the peewee release it was
written for: on another, importing it fails at once and says what to check."""

from __future__ import annotations

import peewee
import pytest

from pbem.core.db import peewee_reach
from pbem.library_versions import LibraryVersionError, check_version
from tests.support.reaches import refused_at_import


def test_the_installed_peewee_is_the_release_the_reaches_were_written_for() -> None:
    assert peewee.__version__.split(".")[:2] == peewee_reach.WRITTEN_FOR.split(".")


@pytest.mark.parametrize("installed", ["4.6.0", "5.5.3", "3.17.9", "4"])
def test_another_release_is_refused(installed: str) -> None:
    with pytest.raises(LibraryVersionError, match=rf"written for peewee 4\.5\.x, but peewee "
                                                  rf"{installed} is installed"):
        check_version("peewee", installed, "4.5", "pbem.core.db.peewee_reach")


@pytest.mark.parametrize("installed", ["4.5.0", "4.5.3", "4.5.17"])
def test_a_patch_release_of_the_same_minor_is_taken(installed: str) -> None:
    check_version("peewee", installed, "4.5", "pbem.core.db.peewee_reach")


def test_importing_the_reaches_under_another_peewee_fails_loudly() -> None:
    """The check runs at import, before anything relies on the reaches: pbem does not start
    (the database module imports the reaches) on a release nobody checked."""
    refused_at_import("import peewee; peewee.__version__ = '4.6.0'; "
                      "import pbem.core.db.connection", "peewee", "4.5", "4.6.0")


def test_a_joined_row_is_read_without_asking_the_database(settings) -> None:
    """`joined_row` gives the row a foreign key leads to only when it was read with its
    row; otherwise None, and no query runs."""
    from pbem.core.accounts.models import Player
    from pbem.core.db.connection import database
    from pbem.core.matches.creation import create_match
    from pbem.core.matches.models import Seat
    from tests.conftest import START

    create_match("nim", ["ann@example.org", "ben@example.org"], {}, settings.secret_key,
                 START)
    joined = Seat.select(Seat, Player).join(Player).order_by(Seat.seat).first()
    alone = Seat.select().order_by(Seat.seat).first()
    ran: list[str] = []
    real = database.obj.execute_sql

    def counting(sql: str, params=None, *args, **kwargs):
        ran.append(sql)
        return real(sql, params, *args, **kwargs)
    database.obj.execute_sql = counting
    try:
        assert peewee_reach.joined_row(joined, "player").email == "ann@example.org"
        assert peewee_reach.joined_row(alone, "player") is None
    finally:
        del database.obj.execute_sql
    assert ran == []
