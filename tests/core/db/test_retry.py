"""Which database errors `retrying` runs a transaction again for: the driver's own error is
under peewee's (its `orig`), where its SQLSTATE (PostgreSQL) or error number (MariaDB) is."""

from __future__ import annotations

import peewee
import pytest

from pbem.core.db.retry import is_transient


def _as_peewees(error: Exception, times: int = 1) -> peewee.OperationalError:
    """`error` as peewee raises it (`times` over: mapped again by an outer wrapper)."""
    for _ in range(times):
        try:
            with peewee.__exception_wrapper__:  # type: ignore[attr-defined]
                raise error
        except peewee.OperationalError as mapped:
            error = mapped
    assert isinstance(error, peewee.OperationalError)
    return error


@pytest.mark.parametrize("times", [1, 2])
@pytest.mark.parametrize("name", ["SerializationFailure", "DeadlockDetected",
                                  "LockNotAvailable"])
def test_postgresql_races_are_tried_again(name: str, times: int) -> None:
    import psycopg.errors

    error = getattr(psycopg.errors, name)("the message says nothing of it")
    assert is_transient(_as_peewees(error, times))


@pytest.mark.parametrize("code", [1205, 1213])
def test_mariadb_lock_waits_and_deadlocks_are_tried_again(code: int) -> None:
    import pymysql.err

    assert is_transient(_as_peewees(pymysql.err.OperationalError(code, "busy")))


def test_a_database_that_is_down_is_not_a_race() -> None:
    import psycopg.errors

    assert not is_transient(_as_peewees(psycopg.errors.AdminShutdown("terminating")))
    assert not is_transient(peewee.OperationalError("unable to open database file"))
