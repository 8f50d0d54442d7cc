"""`Latest`, the bounded store of what pbem keeps per process."""

from __future__ import annotations

import threading

import pytest

from pbem.latest import Kept, Latest, text_bytes


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


def test_a_budget_bounds_what_the_values_weigh_together() -> None:
    kept: Latest[str] = Latest(100, budget=1_000)
    for number in range(50):
        kept.keep(number, chr(97 + number % 26) * 100)
        assert kept.weight <= 1_000
        assert kept.weight == sum(text_bytes(value) for value in kept.values())
    assert 0 < len(kept) < 10 and list(kept)[-1] == 49  # the latest, the oldest dropped
    kept.keep(49, "short")  # kept again: weighed once, as the new value
    assert kept.weight == sum(text_bytes(value) for value in kept.values())
    kept.keep("huge", "x" * 2_000)  # heavier than the whole budget: not kept
    assert "huge" not in kept and 49 in kept
    kept.clear()
    assert kept.weight == 0 and not kept


def test_text_is_weighed_as_stored() -> None:
    """A character outside Latin-1 takes two or four bytes in memory: the weight says so."""
    assert text_bytes("é" * 1_000) < text_bytes("語" * 1_000) < text_bytes("🀄" * 1_000)
    assert text_bytes({"a": "x" * 100, "b": None}) == text_bytes("x" * 100)


def test_threads_keeping_at_once_keep_within_the_budget() -> None:
    kept: Latest[str] = Latest(64, budget=10_000)

    def keep_many(offset: int) -> None:
        for number in range(5_000):
            kept.keep((offset, number % 97), "x" * (number % 300))
    threads = [threading.Thread(target=keep_many, args=(offset,)) for offset in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert kept.weight <= 10_000 and len(kept) <= 64
    assert kept.weight == sum(text_bytes(value) for value in kept.values())


def test_every_rendered_cache_has_a_budget_in_bytes() -> None:
    """What a worker keeps of rendered text is bounded in bytes, not only in entries, so
    long chat lines, large boards or many matches cannot make a worker grow past it."""
    from pbem.web.matches import seat
    from pbem.web.site import fragments, kept_answers, kept_pages

    budgets = {
        "fragments": fragments.Fragments().budget,
        "kept pages": kept_pages.KeptPages().budget,
        "kept answers": kept_answers.KeptAnswers().budget,
        **{name: memo.budget for name, memo in seat.RENDERED_MEMOS.items()},
    }
    assert all(budgets.values()), budgets
    assert sum(budgets.values()) <= 4 * 1024 * 1024
