"""`Latest`, the bounded store of what pbem keeps per process."""

from __future__ import annotations

import threading

import pytest

from pbem.latest import Kept, Latest


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


def test_kept_makes_once_and_keeps_only_what_it_is_told_to() -> None:
    kept: Kept[int | None] = Kept(2)
    calls: list[str] = []

    def make(key: str, value: int | None) -> int | None:
        return kept.made(key, lambda: calls.append(key) or value, lambda made: key != "mine")

    assert make("a", 1) == 1 and make("a", 2) == 1  # kept: made once
    assert make("none", None) is None and make("none", 3) is None  # a None is kept too
    assert make("mine", 4) == 4 and make("mine", 5) == 5  # made for its caller alone
    assert calls == ["a", "none", "mine", "mine"] and len(kept) == 2
    kept.clear()
    assert len(kept) == 0 and make("a", 6) == 6
