"""The measured strength reaches the rules pages, per game and level."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pbem.bots import LEVELS, sprt
from pbem.bots.strength import DECIDED_FILE, MEASURED, MEASURED_HOW, decided, measured
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


def test_the_sequential_tests_shown_are_the_bench_s_own() -> None:
    # bench/bots.py --sprt (or --status) writes bench/results/strength.json and the rules
    # pages' copy together; every entry names the commit that was measured.
    root = Path(__file__).resolve().parents[2]
    bench = root / "bench" / "results" / "strength.json"
    assert bench.read_text() == DECIDED_FILE.read_text()
    entries = json.loads(bench.read_text())["pairings"]
    assert entries
    for entry in entries:
        assert entry["decision"] in ("H1", "H0", "open")
        assert entry["wins"] + entry["draws"] + entry["losses"] == entry["matches"]
        assert entry["game"] in DESCRIPTIONS and entry["level"] in LEVELS
        assert re.fullmatch(r"[0-9a-f]{40}", entry["commit"]), "measured on a clean commit"
        found = sprt.bounds(entry["alpha"], entry["beta"])
        assert (entry["lower"], entry["upper"]) == tuple(round(b, 3) for b in found)


def test_the_rules_page_shows_each_sequential_test_with_its_matches(client) -> None:
    for slug in DESCRIPTIONS:
        page = client.get(f"/games/{slug}").get_data(as_text=True)
        for test in decided(slug):
            assert (f"{test.wins}-{test.draws}-{test.losses} in {test.matches} match"
                    in page)


def test_the_readme_table_is_made_from_the_sequential_tests() -> None:
    from bench import ladder

    entries = json.loads(DECIDED_FILE.read_text())["pairings"]
    readme = ladder.README.read_text()
    shown = readme[readme.index(ladder.TABLE_START) + len(ladder.TABLE_START):
                   readme.index(ladder.TABLE_END)]
    assert shown.strip() == ladder.readme_table(entries)
    for entry in entries:
        assert f"{entry['wins']}-{entry['draws']}-{entry['losses']} in {entry['matches']}" in shown
