"""Analysis after the game through the web and the API: asked for on a finished match, made
by the worker's job, shown on the match page; refused for a live match."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from pbem.core.computer.analysis import run_due_analyses
from pbem.core.computer.models import MatchAnalysis
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match
from pbem.games import REGISTRY
from tests.conftest import ON_SQLITE, START
from tests.support.players import post_form
from tests.support.playing import play_randomly

LEASE = timedelta(minutes=5)
# The smallest boards where a game has a choice: what is analysed does not depend on the size,
# and a whole 19-by-19 Move In Synch match is hundreds of plies to search.
SHORT = {"frozen-forest": {"forest_size": 8}, "move-in-synch": {"size": 4}}


def _finished(slug: str, settings) -> int:
    players = min(REGISTRY[slug].player_counts)
    emails = [f"p{n}@example.org" for n in range(players)]
    match = create_match(slug, emails, SHORT.get(slug, {}), settings.secret_key, START,
                         seed=11).match
    match = play_randomly(match.id, 3, START)
    assert not match.is_live
    return match.id


# The search is the same on every database; what each database must hold is a long analysis
# (the test below).
@ON_SQLITE
@pytest.mark.parametrize("slug", sorted(REGISTRY))
def test_a_finished_match_is_analysed_in_each_game(client, settings, slug: str) -> None:
    match_id = _finished(slug, settings)
    assert client.get(f"/api/matches/{match_id}/analysis").get_json()["status"] == "none"
    asked = client.post(f"/api/matches/{match_id}/analysis")
    assert asked.status_code == 202 and asked.get_json()["status"] == "queued"
    # Asking again is the same request, not a second analysis.
    assert client.post(f"/api/matches/{match_id}/analysis").status_code == 202
    assert MatchAnalysis.select().count() == 1
    page = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert "The computer is analysing this match" in page
    assert run_due_analyses(lambda: START, LEASE, iterations=4) == 1
    assert run_due_analyses(lambda: START, LEASE, iterations=4) == 0  # nothing left
    answer = client.get(f"/api/matches/{match_id}/analysis").get_json()
    plies = answer["plies"]
    assert answer["status"] == "done" and answer["level"] == 4
    assert len(plies) == Match.get_by_id(match_id).ply
    assert {"ply", "seat", "played", "best", "estimate", "played_estimate",
            "mistake"} <= set(plies[0])
    assert all(0 <= p["estimate"] <= 1 and 0 <= p["played_estimate"] <= 1 for p in plies)
    page = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert 'class="list analysis-table"' in page and plies[-1]["played"] in page


def test_every_database_keeps_a_long_matchs_analysis(settings) -> None:
    """A long match's analysis is more than MariaDB's TEXT holds (64 KiB): it is kept whole."""
    match_id = create_match("mimic", ["a@example.org", "b@example.org"], {},
                            settings.secret_key, START).match.id
    plies = [{"ply": n, "seat": n % 2, "played": "a1-b2", "best": "c3-d4", "estimate": 0.5,
              "played_estimate": 0.25, "mistake": True} for n in range(1, 1501)]
    MatchAnalysis.create(match=match_id, status="done", level=4, plies=plies,
                         requested_at=START)
    assert len(json.dumps(plies)) > 65_536 and MatchAnalysis.get().plies == plies


def test_a_live_match_is_never_analysed(client, settings) -> None:
    match = create_match("mimic", ["a@example.org", "b@example.org"], {},
                         settings.secret_key, START, seed=3).match
    refused = client.post(f"/api/matches/{match.id}/analysis")
    assert refused.status_code == 409
    assert refused.mimetype == "application/problem+json"
    assert "still being played" in refused.get_json()["detail"]
    assert "Computer analysis" not in client.get(f"/matches/{match.id}").get_data(as_text=True)
    assert client.post("/api/matches/999/analysis").status_code == 404
    assert client.get("/api/matches/999/analysis").status_code == 404
    assert MatchAnalysis.select().count() == 0


def test_the_button_on_the_match_page_asks_for_it(client, settings) -> None:
    match_id = _finished("mimic", settings)
    page = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert "Analyse with the computer" in page
    asked = post_form(client, f"/matches/{match_id}/analysis", page=f"/matches/{match_id}")
    assert asked.status_code == 303 and asked.headers["Location"].endswith("#computer-analysis")
    assert MatchAnalysis.get().status == "queued"
    shown = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert "reload the page in a few minutes" in shown
