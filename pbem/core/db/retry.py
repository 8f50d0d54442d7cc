"""One way to run a transaction again: after a lost race, a deadlock or a serialization
failure, with jittered back-off. The match door, challenges and seeks all use it, so a
deadlock is retried wherever it happens instead of reaching a player as a 500."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar

import peewee

from pbem.core.db.connection import driver_error
from pbem.errors import ConflictError
from pbem.i18n import _

log = logging.getLogger(__name__)

T = TypeVar("T")
ATTEMPTS = 8
BACKOFF_SECONDS = 0.02
# SQLSTATEs (PostgreSQL) and error numbers (MariaDB) that mean "try the transaction again".
_RETRY_SQLSTATES = {"40001", "40P01", "55P03"}
_RETRY_MYSQL_CODES = {1205, 1213}


class LostRace(Exception):
    """Another writer changed the row between our read and our write: start again."""


def retrying(attempt: Callable[[], T], busy: str | None = None) -> T:
    """Run `attempt` (one whole transaction) again after a lost race, a deadlock or a
    serialization failure, with jittered back-off; after ATTEMPTS, a clear 409 (`busy`)."""
    for number in range(ATTEMPTS):
        try:
            return attempt()
        except LostRace as race:
            if race.__cause__ is not None:  # a write's error the lost race explains
                log.info("retrying a transaction after a lost race: %s", race.__cause__)
        except peewee.OperationalError as error:
            if not is_transient(error):
                raise
            log.info("retrying a transaction after a transient database error: %s", error)
        time.sleep(random.uniform(0, BACKOFF_SECONDS * 2 ** min(number, 4)))
    # `busy` is the caller's sentence (marked where it is written), said in the reader's language.
    raise ConflictError(_(busy) if busy else _("The server is very busy with this right now; "
                                                "nothing was changed. Try again in a moment."))


def is_transient(error: peewee.OperationalError) -> bool:
    original = driver_error(error)
    if getattr(original, "sqlstate", None) in _RETRY_SQLSTATES:
        return True
    codes = getattr(original, "args", ())
    if codes and codes[0] in _RETRY_MYSQL_CODES:
        return True
    text = str(error).lower()
    return "database is locked" in text or "deadlock" in text
