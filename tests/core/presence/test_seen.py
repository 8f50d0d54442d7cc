"""The memo of recent presence writes: at most one write a seat every RESOLUTION, and bounded
by what it must remember (the last RESOLUTION's writes), whatever number of matches a process
serves."""

from __future__ import annotations

from datetime import timedelta

from pbem.core.matches.creation import create_match
from pbem.core.presence import seen
from pbem.core.presence.models import Presence
from tests.conftest import START

PLAYERS = ["ann@example.org", "ben@example.org"]


def _full_memo(at) -> None:  # type: ignore[no-untyped-def]
    """The memo as a process leaves it after many matches' reads at `at`."""
    seen.forget_written()
    seen._written.update({(-number, 0): at  # noqa: SLF001 - the bound under test
                          for number in range(1, seen._MAX_REMEMBERED + 1)})  # noqa: SLF001


def test_a_process_serving_many_matches_remembers_only_the_recent_writes(settings) -> None:
    match_id = create_match("mimic", PLAYERS, {}, settings.secret_key, START).match.id
    _full_memo(START)
    later = START + seen.RESOLUTION
    recent = {(-number, 1): later - timedelta(seconds=1) for number in range(1, 25)}
    seen._written.update(recent)  # noqa: SLF001
    seen.mark_seen(match_id, 0, later)  # full: the entries no longer heeded go, not these
    assert seen._written == {**recent, (match_id, 0): later}  # noqa: SLF001
    assert Presence.get(match=match_id, seat=0).seen_at == later
    # A seat written within RESOLUTION is still not written again.
    assert not seen.is_due(match_id, 0, later + timedelta(seconds=1))
    seen.forget_written()


def test_a_memo_full_of_recent_writes_is_cleared_rather_than_grown(settings) -> None:
    match_id = create_match("mimic", PLAYERS, {}, settings.secret_key, START).match.id
    _full_memo(START)
    seen.mark_seen(match_id, 0, START + timedelta(seconds=1))  # every entry is still heeded
    assert list(seen._written) == [(match_id, 0)]  # noqa: SLF001
    seen.forget_written()
