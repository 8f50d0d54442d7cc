"""Times, dates and numbers as each language writes them, in the reader's zone."""

from __future__ import annotations

from datetime import datetime

import pytest

from pbem import i18n

NOON = datetime(2026, 1, 12, 12, 0)  # stored times are naive UTC


@pytest.mark.parametrize(("code", "zone", "time", "day", "number"), [
    ("en", None, "2026-01-12 12:00 UTC", "2026-01-12", "1,234.5"),
    ("en", "Europe/Berlin", "2026-01-12 13:00 CET", "2026-01-12", "1,234.5"),
    ("de", "Europe/Berlin", "12.01.26, 13:00 CET", "12.01.2026", "1.234,5"),
    ("ja", "Asia/Tokyo", "2026/01/12 21:00 JST", "2026/01/12", "1,234.5"),
])
def test_each_language_writes_times_its_own_way(code, zone, time, day, number) -> None:
    with i18n.language(code, zone):
        assert i18n.format_time(NOON) == time
        assert i18n.format_date(NOON) == day
        assert i18n.format_number(1234.5) == number


def test_a_deadline_names_its_weekday_in_the_readers_language() -> None:
    with i18n.language("de", "Europe/Berlin"):
        assert i18n.format_time(NOON, style="full") == "Montag, 12. Januar 2026 13:00 CET"
    with i18n.language("en"):
        assert i18n.format_time(NOON, "%a %d %b %Y, %H:%M") == "Mon 12 Jan 2026, 12:00 UTC"


def test_an_unknown_zone_or_language_falls_back_quietly() -> None:
    with i18n.language("xx", "Not/AZone"):
        assert i18n.current() == "en"
        assert i18n.format_time(NOON) == "2026-01-12 12:00 UTC"
    assert i18n.format_time(None) == "—"


def test_words_kept_per_language_are_made_once_per_language_and_arguments() -> None:
    from pbem.i18n import _, language, per_language

    made: list[tuple[int, str]] = []

    @per_language(8)
    def said(days: int) -> str:
        made.append((days, _("Resign")))
        return f"{days} {_('Resign')}"

    english = said(3)
    with language("de"):
        german = said(3)
        assert said(3) == german
    assert said(3) == english != german
    said(4)
    assert len(made) == 3  # (3, en), (3, de), (4, en)


@pytest.mark.parametrize(("code", "written"), [
    ("en", ["3", "1.5", "0.5", "0.33", "2.67", "-1", "1,001.5"]),
    ("de", ["3", "1,5", "0,5", "0,33", "2,67", "-1", "1.001,5"]),
    ("ja", ["3", "1.5", "0.5", "0.33", "2.67", "-1", "1,001.5"]),
])
def test_points_are_decimals_in_every_language(code, written) -> None:
    with i18n.language(code):
        assert [i18n.format_points(p) for p in (3.0, 1.5, 0.5, 1 / 3, 8 / 3, -1, 1001.5)
                ] == written


def test_no_page_or_mail_writes_points_another_way() -> None:
    # One format for points: the `points` filter, never a half sign (standings once mixed
    # "1.83" and "1½").
    from pbem.paths import TEMPLATES

    for path in TEMPLATES.rglob("*"):
        if path.suffix in (".html", ".txt"):
            text = path.read_text(encoding="utf-8")
            assert "½" not in text and 'replace(".50"' not in text, path
