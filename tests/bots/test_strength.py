"""The measured strength reaches the rules pages, per game and level."""

from __future__ import annotations

from pbem.bots import LEVELS
from pbem.bots.strength import MEASURED, MEASURED_HOW, measured
from pbem.games import DESCRIPTIONS


def test_every_game_has_measured_levels_from_the_bench() -> None:
    assert MEASURED_HOW, "say how the figures were measured"
    for slug in DESCRIPTIONS:
        rows = measured(slug)
        assert rows, f"{slug} has no measured strength"
        assert [row.level for row in rows] == sorted(row.level for row in rows)
        assert all(row.level in LEVELS for row in rows)
        assert all(row.vs_random.low <= row.vs_random.percent <= row.vs_random.high
                   for row in rows)
    assert set(MEASURED) <= set(DESCRIPTIONS)


def test_the_rules_page_shows_each_level_measured(client) -> None:
    for slug in DESCRIPTIONS:
        page = client.get(f"/games/{slug}").get_data(as_text=True)
        assert "Playing the computer" in page
        for row in measured(slug):
            assert row.vs_random.text() in page
