"""Ratings on the web: the leaderboard (keyset-paged), the player page with its chart and
head-to-head, each seat's rating and change on match pages, the API, record.json, and seeks
with a rating range that only matching players see and join."""

from __future__ import annotations

from datetime import timedelta

from pbem.core.accounts.models import Player
from pbem.core.lobby.models import Seek
from pbem.core.matches.changes import apply_change
from pbem.core.matches.creation import create_match
from pbem.core.matches.lifecycle import Resign
from pbem.core.matches.models import Match
from pbem.core.ratings import queries
from pbem.core.ratings.models import Rating
from tests.conftest import START
from tests.support.players import post_form, sign_in

SECRET = "test-secret-key"


def _play(winner: str, loser: str, rated: bool = True, at=START) -> Match:
    match = create_match("nim", [winner, loser], {}, SECRET, at, rated=rated).match
    apply_change(match.id, Resign(seat=1), at)
    return match


def test_leaderboard_player_page_and_api(app, client) -> None:
    # ann beats ben 12 times; cy plays ben 10 times and loses them all; di plays only twice.
    for n in range(12):
        _play("ann@example.org", "ben@example.org", at=START + timedelta(minutes=n))
    for n in range(10):
        _play("ben@example.org", "cy@example.org", at=START + timedelta(hours=1, minutes=n))
    last = _play("di@example.org", "ann@example.org", at=START + timedelta(hours=2))
    _play("di@example.org", "cy@example.org", rated=False, at=START + timedelta(hours=3))

    page = client.get("/ratings/nim")
    assert page.status_code == 200
    html = page.data.decode()
    assert html.index(">ann<") < html.index(">ben<") < html.index(">cy<")
    assert ">di<" not in html  # fewer than 10 rated games: not on the board yet
    assert client.get("/ratings/no-such-game").status_code == 404

    board = client.get("/api/ratings/nim").get_json()
    assert [row["name"] for row in board["players"]] == ["ann", "ben", "cy"]
    assert [row["rank"] for row in board["players"]] == [1, 2, 3]
    assert board["next"] is None
    ann_row = board["players"][0]
    assert ann_row["games"] == 13 and ann_row["provisional"] is False

    # Keyset paging: one row a page, each page after the last row of the one before.
    first = queries.leaderboard("nim", START, size=1)
    second = queries.leaderboard("nim", START, first.next_cursor, size=1)
    third = queries.leaderboard("nim", START, second.next_cursor, size=1)
    assert [first.rows[0]["name"], second.rows[0]["name"], third.rows[0]["name"]] \
        == ["ann", "ben", "cy"]
    assert third.rows[0]["rank"] == 3 and third.next_cursor is None
    bad = client.get("/api/ratings/nim?cursor=nonsense")
    assert bad.status_code == 422 and bad.mimetype == "application/problem+json"

    # A player who keeps out of the archive is neither listed nor counted in others' ranks.
    Player.update(hidden_from_archive=True).where(Player.email == "ann@example.org").execute()
    hidden = client.get("/api/ratings/nim").get_json()["players"]
    assert [(row["rank"], row["name"]) for row in hidden] == [(1, "ben"), (2, "cy")]
    assert "#1 on the leaderboard" in client.get("/players/ben").data.decode()
    Player.update(hidden_from_archive=False).where(Player.email == "ann@example.org").execute()

    player = client.get("/api/players/ann").get_json()
    nim = player["ratings"]["nim"]
    stored = Rating.get(Rating.player == Player.get(Player.email == "ann@example.org").id)
    assert nim == {"rating": stored.display, "mu": stored.mu, "sigma": stored.sigma,
                   "games": 13, "provisional": False}
    di = client.get("/api/players/di").get_json()["ratings"]["nim"]
    assert di["games"] == 1 and di["provisional"] is True  # the casual match did not count
    assert client.get("/api/players/nobody").status_code == 404

    page_html = client.get("/players/ann?vs=ben").data.decode()
    assert f"<strong>{stored.display}</strong>" in page_html
    assert "#1 on the leaderboard" in page_html and "13 rated games" in page_html
    assert '<svg class="rating-chart"' in page_html and "<script" not in page_html.split(
        '<svg class="rating-chart"')[1].split("</svg>")[0]
    versus = page_html.split('<table class="list versus">')[1].split("</table>")[0]
    assert '<td data-label="Won">12</td>' in versus and '<td data-label="Lost">0</td>' in versus
    assert "?</strong>" in client.get("/players/di").data.decode()  # provisional

    # The finished match shows each seat's change, and record.json the values behind it.
    shown = client.get(f"/matches/{last.id}").data.decode()
    assert 'class="rating-change">+' in shown and 'class="rating-change">-' in shown
    record = client.get(f"/matches/{last.id}/record.json").get_json()
    assert record["rated"] is True
    assert [r["seat"] for r in record["ratings"]] == [0, 1]
    assert record["ratings"][0]["mu_after"] > record["ratings"][0]["mu_before"]
    casual = Match.select().where(Match.rated == False).get()  # noqa: E712
    assert client.get(f"/matches/{casual.id}/record.json").get_json()["ratings"] is None


def test_every_page_links_to_the_ratings_and_they_say_what_never_counts(client) -> None:
    """A new player found the leaderboards only by typing their address: the site's bar
    links them from every page, and the ratings page lists a voided match among what never
    counts, as the docs do (docs/players/ratings.md)."""
    for path in ("/", "/games", "/matches", "/seeks", "/tournaments", "/signin"):
        assert 'href="/ratings">Ratings</a>' in client.get(path).data.decode(), path
    page = client.get("/ratings").data.decode()
    assert "finished matches an admin voids for ratings" in page


def test_a_seek_with_a_rating_range_shows_and_opens_only_to_matching_players(
        app, client, worker, smtp) -> None:
    sign_in(client, "ann@example.org", worker, smtp)
    bad = post_form(client, "/seeks", page="/seeks", game="nim", players="2", clock="1d",
                    rated="on", rating_min="1500", rating_max="1200")
    assert bad.status_code == 422 and b"above its highest" in bad.data
    posted = post_form(client, "/seeks", page="/seeks", game="nim", players="2", clock="1d",
                       rated="on", rating_min="1100", rating_max="2000")
    assert posted.status_code == 303
    seek = Seek.get()
    assert seek.rated and (seek.rating_min, seek.rating_max) == (1100, 2000)
    assert b"for ratings 1100" in client.get("/seeks").data  # its creator sees it

    ben = app.test_client()
    sign_in(ben, "ben@example.org", worker, smtp)  # a new player: 1000, outside the range
    assert b"for ratings 1100" not in ben.get("/seeks").data
    refused = post_form(ben, f"/seeks/{seek.id}/join", page="/seeks")
    assert refused.status_code == 404 and Seek.get().status == "open"
    assert b"for ratings" not in app.test_client().get("/seeks").data  # signed out

    cy = app.test_client()
    sign_in(cy, "cy@example.org", worker, smtp)
    player = Player.get(Player.email == "cy@example.org")
    Rating.create(player=player, game="nim", mu=30.0, sigma=2.0, display=1960, games=20)
    assert b"for ratings 1100" in cy.get("/seeks").data
    joined = post_form(cy, f"/seeks/{seek.id}/join", page="/seeks")
    assert joined.status_code == 303
    match = Match.get_by_id(Seek.get().match_id)
    assert match.rated is True
    page = client.get(f"/matches/{match.id}").data.decode()
    assert "(1960)" in page and "(1000?)" in page


def test_challenges_are_rated_unless_unticked(app, client, worker, smtp) -> None:
    sign_in(client, "ann@example.org", worker, smtp)
    casual = post_form(client, "/challenges", page="/challenges/new", game="nim",
                       opponents="ben@example.org", clock="1d")
    assert casual.status_code == 303
    rated = post_form(client, "/challenges", page="/challenges/new", game="nim",
                      opponents="cy@example.org", clock="1d", rated="on")
    assert rated.status_code == 303
    shown = client.get(rated.headers["Location"]).data.decode()
    assert "a rated game of" in shown and "(1000?)" in shown
    assert "a casual game of" in client.get(casual.headers["Location"]).data.decode()


def test_the_api_chooses_rated_or_casual_and_a_rating_range(app, client, settings) -> None:
    from pbem.core.accounts import api_tokens

    headers = {}
    for email in ("ann@example.org", "ben@example.org"):
        _, token = api_tokens.create(settings.secret_key, Player.for_email(email, START),
                                     "test", START, scopes=("read", "play"))
        headers[email] = {"Authorization": f"Bearer {token}"}
    ann, ben = headers["ann@example.org"], headers["ben@example.org"]
    made = client.post("/api/challenges", headers=ann,
                       json={"game": "nim", "opponents": ["ben@example.org"], "rated": False})
    assert made.status_code == 201
    shown = client.get(f"/api/challenges/{made.get_json()['id']}", headers=ann).get_json()
    assert shown["rated"] is False and shown["ratings"] == {"ann": "1000?", "ben": "1000?"}
    wrong = client.post("/api/challenges", headers=ann,
                        json={"game": "nim", "opponents": ["ben@example.org"], "rated": "yes"})
    assert wrong.status_code == 400 and "rated" in wrong.get_json()["detail"]
    casual_range = client.post("/api/seeks", headers=ann,
                               json={"game": "nim", "players": 2, "rated": False,
                                     "rating_min": 900})
    assert casual_range.status_code == 422
    seek = client.post("/api/seeks", headers=ann,
                       json={"game": "nim", "players": 2, "rating_min": 1200})
    assert seek.status_code == 201
    assert client.get("/api/seeks", headers=ben).get_json()["seeks"] == []
    listed = client.get("/api/seeks", headers=ann).get_json()["seeks"]
    assert listed[0]["rated"] is True
    assert listed[0]["rating_range"] == {"min": 1200, "max": None}
    refused = client.post(f"/api/seeks/{seek.get_json()['id']}/join", headers=ben)
    assert refused.status_code == 404
