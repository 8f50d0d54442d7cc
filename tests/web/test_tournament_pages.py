"""Tournament pages through the app: the organiser's form (a refused form is drawn again with
its message), joining and starting from the page, and a match page naming its tournament."""

from __future__ import annotations

import re

from pbem.core.accounts.models import Player
from pbem.core.matches.models import Match
from pbem.core.tournaments import service
from pbem.core.tournaments.models import Tournament, TournamentEntry
from tests.conftest import START
from tests.support.players import post_form, sign_in

ANN = "ann@example.org"


def test_organise_join_and_start_from_the_pages(client, worker, smtp) -> None:
    sign_in(client, ANN, worker, smtp)
    assert client.get("/tournaments/new").status_code == 200
    refused = post_form(client, "/tournaments", "/tournaments/new", name="Spring cup",
                        game="nim", format="ladder")
    assert refused.status_code == 400 and b"format" in refused.data
    assert b"Spring cup" in refused.data  # the form comes back as it was sent
    assert Tournament.select().count() == 0
    made = post_form(client, "/tournaments", "/tournaments/new", name="Spring cup",
                     game="nim", format="round-robin", min_players="2", max_players="4",
                     clock="2d", **{"option.nim.pile": "7"})
    assert made.status_code == 303
    tournament = Tournament.get()
    assert tournament.options == {"pile": 7} and tournament.time_control == "2d"
    page = f"/tournaments/{tournament.id}"
    assert post_form(client, f"{page}/join", page).status_code == 303
    ben = Player.for_email("ben@example.org", START)
    service.join(tournament.id, ben, START)
    assert TournamentEntry.select().count() == 2
    started = post_form(client, f"{page}/start", page)
    assert started.status_code == 303
    shown = client.get(page).get_data(as_text=True)
    assert "Crosstable" in shown and "Round 1" in shown
    match = Match.get()
    public = client.get(f"/matches/{match.id}").get_data(as_text=True)
    assert re.search(rf'href="/tournaments/{tournament.id}#round-1">Spring cup</a>', public)
    # Refusals on the page are flashed, never a 500: joining a started tournament.
    again = post_form(client, f"{page}/join", page)
    assert again.status_code == 303
    assert "has started" in client.get(page).get_data(as_text=True)


def test_the_list_filters_by_status_and_strangers_may_read(client) -> None:
    organiser = Player.for_email(ANN, START)
    service.create_tournament(organiser, {"name": "Open one", "game": "nim",
                                          "format": "swiss"}, START)
    assert b"Open one" in client.get("/tournaments?status=open").data
    assert b"Open one" not in client.get("/tournaments?status=finished").data
    assert client.get("/tournaments/new").status_code == 302  # sign in first
    assert client.get("/tournaments/999").status_code == 404
