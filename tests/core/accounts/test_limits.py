"""Rate limits counted in the database: the window slides, and a release un-counts."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pbem.core.accounts.limits import Limit, LimitReachedError, prune, release
from pbem.core.accounts.models import Attempt
from tests.conftest import START

LIMIT = Limit("test", 3, timedelta(minutes=15), "tries")


def test_the_fourth_try_in_the_window_is_refused_and_not_counted(db_url) -> None:
    for minute in range(3):
        LIMIT.reserve(["account:a"], START + timedelta(minutes=minute))
    with pytest.raises(LimitReachedError, match=r"Too many tries\. Try again in 13 minutes\."):
        LIMIT.reserve(["account:a"], START + timedelta(minutes=2))
    assert Attempt.select().count() == 3
    # Each key counts on its own; the first try leaves the window after 15 minutes.
    LIMIT.reserve(["account:b"], START + timedelta(minutes=3))
    with pytest.raises(LimitReachedError, match=r"in 1 minute\."):
        LIMIT.reserve(["account:a"], START + timedelta(minutes=14, seconds=30))
    LIMIT.reserve(["account:a"], START + timedelta(minutes=15))


def test_a_released_reservation_does_not_count_and_old_rows_are_pruned(db_url) -> None:
    for _ in range(10):
        release(LIMIT.reserve(["account:a", "client:\x00 1.2.3.4"], START))
    assert Attempt.select().count() == 0
    LIMIT.reserve(["account:a"], START)
    assert prune(START + timedelta(days=3)) == 1
