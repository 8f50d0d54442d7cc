"""Tournament pages through the app: the organiser's form (a refused form is drawn again with
its message), joining and starting from the page, and a match page naming its tournament."""

from __future__ import annotations

import re

from pbem.core.accounts.models import Player
from pbem.core.admin.audit import AuditFilter, search
from pbem.core.matches.models import Match
from pbem.core.matches.seat_links import token_for
from pbem.core.tournaments import service
from pbem.core.tournaments.models import Tournament, TournamentEntry
from tests.conftest import START
from tests.support.players import post_form, sign_in

ANN = "ann@example.org"


def test_organise_join_and_start_from_the_pages(client, worker, smtp) -> None:
    sign_in(client, ANN, worker, smtp)
    blank = client.get("/tournaments/new").get_data(as_text=True)
    # A fresh form is rated, as a challenge is, and its example start is tomorrow evening.
    assert '<input type="checkbox" name="rated" checked>' in blank
    assert "(UTC, like 2026-01-06T18:00; empty: when full)" in blank  # the test clock's tomorrow
    refused = post_form(client, "/tournaments", "/tournaments/new", name="Spring cup",
                        game="nim", format="ladder")
    assert refused.status_code == 400 and b"format" in refused.data
    assert b"Spring cup" in refused.data  # the form comes back as it was sent
    assert b'<input type="checkbox" name="rated">' in refused.data  # unticked, as sent
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
    # The terms a player joins under: casual, the days a round may take, the timeout rule.
    assert "casual · 14 days a round · when a clock runs out, " in shown
    # The organiser's home page lists it, and offers to organise another.
    home = client.get("/me").get_data(as_text=True)
    assert re.search(rf'<a href="/tournaments/{tournament.id}"><strong>Spring cup</strong></a>'
                     r' · Nim \(test game\) · running <span class="meta">\(you organise it\)',
                     home), home
    assert 'href="/tournaments/new">Organise a tournament</a>' in home
    match = Match.get()
    public = client.get(f"/matches/{match.id}").get_data(as_text=True)
    assert re.search(rf'href="/tournaments/{tournament.id}#round-1">Spring cup</a>', public)
    # Refusals on the page are flashed, never a 500: joining a started tournament.
    again = post_form(client, f"{page}/join", page)
    assert again.status_code == 303
    assert "has started" in client.get(page).get_data(as_text=True)


def test_a_finished_match_counts_in_the_standings_before_the_worker_runs(client,
                                                                          settings) -> None:
    """The worker closes rounds on its next pass; until then the pages and the API already
    read a finished match's result from the match (a player who resigned saw "in play" and
    0 points for a minute)."""
    from pbem.core.matches.changes import apply_change
    from pbem.core.matches.lifecycle import Resign
    from tests.support.tournaments import started_round_robin

    tournament, match = started_round_robin((ANN, "ben@example.org"), settings.secret_key)
    # A seat's page names the tournament and round too, as the public page does.
    token = token_for(settings.secret_key, match.seat_rows()[0])
    play = client.get(f"/play/{token}").get_data(as_text=True)
    assert re.search(rf'In the tournament <a href="/tournaments/{tournament.id}#round-1">'
                     r'Club</a>, round 1\.', play)
    # Both seats' ratings are worded alike ("rating 1000?"), the reader's and the opponent's.
    assert play.count("rating 1000?") == 2
    api = f"/api/tournaments/{tournament.id}"
    (pairing,) = client.get(api).get_json()["rounds"][0]["pairings"]
    assert pairing["result"] is None
    apply_change(match.id, Resign(seat=1), START)  # no worker pass after it
    answer = client.get(api).get_json()
    (pairing,) = answer["rounds"][0]["pairings"]
    winner = pairing["players"][0]
    assert pairing["result"] == [1.0, 0.0]
    assert answer["standings"][0] == {**answer["standings"][0], "player": winner,
                                      "points": 1.0}
    page = client.get(f"/tournaments/{tournament.id}").get_data(as_text=True)
    assert "in play" not in page


def test_a_full_tournament_says_it_starts_shortly(client) -> None:
    """Full, it starts on the worker's next pass: until then its page says so rather than
    "starts when full"."""
    ann = Player.for_email(ANN, START)
    tournament = service.create_tournament(ann, {"name": "Pair", "game": "nim",
                                                 "format": "round-robin", "max_players": 2},
                                           START)
    service.join(tournament.id, ann, START)
    page = f"/tournaments/{tournament.id}"
    assert "starts when full" in client.get(page).get_data(as_text=True)
    service.join(tournament.id, Player.for_email("ben@example.org", START), START)
    shown = client.get(page).get_data(as_text=True)
    assert "full: starting shortly" in shown and "starts when full" not in shown


def test_the_list_filters_by_status_and_strangers_may_read(client) -> None:
    organiser = Player.for_email(ANN, START)
    service.create_tournament(organiser, {"name": "Open one", "game": "nim",
                                          "format": "swiss"}, START)
    assert b"Open one" in client.get("/tournaments?status=open").data
    assert b"Open one" not in client.get("/tournaments?status=finished").data
    assert client.get("/tournaments/new").status_code == 302  # sign in first
    assert client.get("/tournaments/999").status_code == 404


def test_the_organisers_tools_pause_adjudicate_and_remove_with_an_audit(client, worker, smtp,
                                                                        settings) -> None:
    from pbem.core.tournaments import running
    from pbem.core.tournaments.service import Organising

    sign_in(client, ANN, worker, smtp)
    ann = Player.get(Player.email == ANN)
    others = [Player.for_email(f"p{n}@example.org", START) for n in range(3)]
    tournament = service.create_tournament(ann, {"name": "Club", "game": "nim",
                                                 "format": "swiss", "rounds": 2}, START)
    for player in [*others, ann]:
        service.join(tournament.id, player, START)
    running.start(tournament.id, Organising(ann), settings.secret_key, START)
    page = f"/tournaments/{tournament.id}"
    shown = client.get(page).get_data(as_text=True)
    assert "Organiser's tools" in shown
    assert post_form(client, f"{page}/manage/pause", page, reason="").status_code == 303
    assert "Give a reason" in client.get(page).get_data(as_text=True)  # refused, flashed
    post_form(client, f"{page}/manage/pause", page, reason="club holiday")
    assert all(m.paused_at is not None for m in Match.select())
    post_form(client, f"{page}/manage/resume", page, reason="back")
    match = Match.select().order_by(Match.id).first()
    post_form(client, f"{page}/manage/adjudicate", page, match=str(match.id), winner="draw",
              reason="agreed on the phone")
    assert Match.get_by_id(match.id).outcome == "draw"
    post_form(client, f"{page}/manage/remove", page, player=str(others[0].id),
              reason="left the club")
    assert TournamentEntry.get(TournamentEntry.player == others[0].id).status == "removed"
    actions = {e.action for e in search(AuditFilter())}
    assert {"tournament:pause", "tournament:resume", "tournament:adjudicate",
            "tournament:remove-player"} <= actions
    # Another signed-in player sees no tools and is refused.
    client.post("/signout")
    stranger = client.application.test_client()
    sign_in(stranger, "p1@example.org", worker, smtp)
    assert "Organiser's tools" not in stranger.get(page).get_data(as_text=True)
    refused = post_form(stranger, f"{page}/manage/pause", page, reason="mine now")
    assert refused.status_code == 403


def test_an_admin_uses_the_organisers_tools_on_anyones_tournament(client, settings) -> None:
    from pbem.core.admin.models import AuditEntry
    from pbem.core.tournaments import running
    from pbem.core.tournaments.service import Organising
    from tests.web.admin.test_console import sign_in as admin_sign_in

    organiser = Player.for_email(ANN, START)
    tournament = service.create_tournament(organiser, {"name": "Club", "game": "nim",
                                                       "format": "swiss", "rounds": 2}, START)
    for n in range(2):
        service.join(tournament.id, Player.for_email(f"p{n}@example.org", START), START)
    running.start(tournament.id, Organising(organiser), settings.secret_key, START)
    admin_sign_in(client)
    page = f"/tournaments/{tournament.id}"
    assert "Organiser's tools" in client.get(page).get_data(as_text=True)
    post_form(client, f"{page}/manage/pause", page, reason="complaint under review")
    assert Tournament.get_by_id(tournament.id).status == "paused"
    entry = AuditEntry.get(AuditEntry.action == "tournament:pause")
    assert entry.actor == "ref@club.org" and entry.reason == "complaint under review"
