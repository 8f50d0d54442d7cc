"""`Latest`, the bounded store of what pbem keeps per process."""

from __future__ import annotations

import threading

import pytest

from pbem.latest import Latest


def test_it_keeps_the_latest_and_what_was_used_again() -> None:
    kept: Latest[int] = Latest(3)
    for number in range(5):
        kept.keep(number, number)
    assert list(kept) == [2, 3, 4]
    assert kept.used(2) == 2 and kept.used(9) is None
    kept.keep(5, 5)
    assert list(kept) == [4, 2, 5]


def test_threads_keeping_at_once_pass_its_size_only_for_a_moment() -> None:
    kept: Latest[int] = Latest(8)
    failures: list[BaseException] = []

    def keep_many(offset: int) -> None:
        try:
            for number in range(20_000):
                kept.keep((offset, number), number)
        except BaseException as error:
            failures.append(error)
    threads = [threading.Thread(target=keep_many, args=(offset,)) for offset in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # At most one value a thread beyond its size, and the next value kept brings it back.
    assert not failures and len(kept) <= 8 + 3
    kept.keep("last", 0)
    assert len(kept) <= 8


def test_it_keeps_at_least_one() -> None:
    with pytest.raises(ValueError, match="at least one"):
        Latest(0)
