"""Time controls and deadline arithmetic (pure: no database, no clock)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from pbem.core.matches.clocks import (
    TimeControl,
    deadline,
    describe_left,
    reminder_lead,
    running_time,
)
from pbem.errors import InvalidRequestError

T0 = datetime(2026, 3, 1, 12, 0)
DAY, HOUR = timedelta(days=1), timedelta(hours=1)


@pytest.mark.parametrize(("text", "bank", "canonical", "words"), [
    ("3d", 3 * DAY, "3d", "3 days per move"),
    ("36h", 36 * HOUR, "36h", "36 hours per move"),
    ("90m", timedelta(minutes=90), "90m", "90 minutes per move"),
    ("45S", timedelta(seconds=45), "45s", "45 seconds per move"),
    ("7d+1d/14d", 7 * DAY, "7d+1d/14d",
     "7 days to start, plus 1 day per move, at most 14 days"),
    (" 2h + 30m / 3h ", 2 * HOUR, "2h+30m/3h",
     "2 hours to start, plus 30 minutes per move, at most 3 hours"),
])
def test_time_controls_are_read_as_players_write_them(text, bank, canonical, words) -> None:
    control = TimeControl.parse(text)
    assert control.bank == bank and str(control) == canonical and control.describe() == words
    assert TimeControl.parse(str(control)) == control


@pytest.mark.parametrize("text", ["", "3", "3w", "0d", "1d+1d", "7d+1d/3d", "soon"])
def test_nonsense_time_controls_are_refused_with_examples(text: str) -> None:
    with pytest.raises(InvalidRequestError, match=r"3d|zero|cap"):
        TimeControl.parse(text)


def test_a_fixed_clock_gives_the_same_time_for_every_move() -> None:
    control = TimeControl.parse("3d")
    assert control.allowance_after_move(3 * DAY, 2 * DAY) == 3 * DAY


def test_the_fischer_bank_grows_by_the_increment_and_never_past_the_cap() -> None:
    control = TimeControl.parse("7d+1d/14d")
    assert control.allowance_after_move(7 * DAY, 2 * DAY) == 6 * DAY
    assert control.allowance_after_move(13 * DAY + 12 * HOUR, HOUR) == 14 * DAY
    assert control.allowance_after_move(7 * DAY, 9 * DAY) == DAY, "overdue: only the increment"


def test_a_deadline_counts_only_running_time() -> None:
    assert deadline(T0, 3 * DAY, []) == T0 + 3 * DAY
    vacation = (T0 + DAY, T0 + 2 * DAY)
    assert deadline(T0, 3 * DAY, [vacation]) == T0 + 4 * DAY
    before = (T0 - 5 * DAY, T0 - 4 * DAY)
    after = (T0 + 10 * DAY, T0 + 12 * DAY)
    assert deadline(T0, 3 * DAY, [before, after]) == T0 + 3 * DAY
    started_during = (T0 - DAY, T0 + DAY)
    assert deadline(T0, 3 * DAY, [started_during]) == T0 + 4 * DAY
    two = [(T0 + DAY, T0 + 2 * DAY), (T0 + 3 * DAY, T0 + 5 * DAY)]
    assert deadline(T0, 3 * DAY, two) == T0 + 6 * DAY


def test_running_time_leaves_out_pauses() -> None:
    assert running_time(T0, T0 + 3 * DAY, [(T0 + DAY, T0 + 2 * DAY)]) == 2 * DAY
    assert running_time(T0, T0 + DAY, [(T0 - DAY, T0 + 2 * DAY)]) == timedelta(0)


def test_reminders_come_a_day_early_or_at_a_fifth_of_a_short_clock() -> None:
    assert reminder_lead(3 * DAY) == DAY
    assert reminder_lead(36 * HOUR) == timedelta(hours=7, minutes=12)
    assert reminder_lead(timedelta(seconds=45)) == timedelta(seconds=9)


def test_time_left_reads_naturally() -> None:
    assert describe_left(2 * DAY + 3 * HOUR + timedelta(minutes=5)) == "2 days 3 hours left"
    assert describe_left(timedelta(minutes=1, seconds=30)) == "1 minute 30 seconds left"
    assert describe_left(timedelta(seconds=-5)) == "no time left"


def test_a_spans_words_are_kept_by_the_units_shown_and_the_language() -> None:
    """Each span's words are worked out once per units shown and language: read again, in
    another language, or at another span with the same units, they are what saying them
    afresh gives (the words as `_unit_words` and the catalog make them)."""
    from pbem.core.matches.clocks import _left_words, _shown_units, _span_words, describe_span
    from pbem.i18n import _, language

    def afresh(span: timedelta, left: bool) -> str:
        # The words as the kept functions' own bodies say them, nothing kept.
        if span <= timedelta(0):
            return _("no time left") if left else _("no time")
        said = _left_words if left else _span_words
        return str(said.__wrapped__(_shown_units(span)))  # type: ignore[attr-defined]

    spans = [timedelta(seconds=s) for s in (-5, 0, 1, 59, 60, 61, 3_599, 3_600, 3_661, 86_399,
                                            86_400, 90_061, 3 * 86_400 + 7_200)]
    spans.append(timedelta(milliseconds=400))
    for _round in range(2):  # worked out, then kept
        for code in ("en", "de", "ja"):
            with language(code):
                for span in spans:
                    assert describe_span(span) == afresh(span, left=False)
                    assert describe_left(span) == afresh(span, left=True)
    with language("de"):  # the language is in the key: not the English kept before
        assert "day" not in describe_left(2 * DAY + 3 * HOUR)
