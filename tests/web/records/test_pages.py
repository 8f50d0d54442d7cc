"""The archive (`/matches`, `GET /api/matches`), player pages, downloads, board images and
link previews, over real databases."""

from __future__ import annotations

import json
import random
import re
from datetime import timedelta
from typing import Any
from xml.etree import ElementTree

import pytest

from pbem.core.accounts.models import Player
from pbem.core.matches.creation import create_match, rules_for
from pbem.core.matches.models import Match, MatchStatus, Move, Position, event_parts
from pbem.core.matches.play import submit_move
from pbem.core.records.archive import encode_cursor
from pbem.core.records.standings import set_hidden_from_archive, settle, tally_ended
from pbem.games import describe
from tests.conftest import START
from tests.support.players import post_form, sign_in
from tests.support.playing import play_randomly
from tests.support.records import every_finished_match_replays

pytestmark = pytest.mark.usefixtures(every_finished_match_replays.__name__)

ANN, BEN, CY = "ann@example.org", "ben@example.org", "cy@example.org"


@pytest.fixture
def made(settings) -> dict[str, int]:
    """Six matches, oldest first: ids 1 to 6. Ann and Ben have display names; Cy has none."""
    key = settings.secret_key

    def nim(emails: list[str], plays: list[str]) -> int:
        match = create_match("nim", emails, {"pile": "3"}, key, START).match
        for ply, text in enumerate(plays):
            submit_move(match.id, ply % 2, text, ply, START + timedelta(hours=ply + 1))
        return match.id

    ids = {
        "ann_beats_ben": nim([ANN, BEN], ["take 3"]),
        "ben_cy_live": nim([BEN, CY], ["take 1"]),
        "bids_live": create_match("bids", [ANN, BEN, CY], {}, key, START, seed=3).match.id,
        "ann_cy_aborted": nim([ANN, CY], []),
        "cy_ann_drawn": nim([CY, ANN], []),
        "ben_beats_ann": nim([ANN, BEN], ["take 1", "take 2"]),
    }
    Match.update(status=MatchStatus.ABORTED, to_move=[]).where(
        Match.id == ids["ann_cy_aborted"]).execute()
    Match.update(status=MatchStatus.FINISHED, to_move=[], result={
        "winners": [0, 1], "scores": [0.5, 0.5], "reason": "drawn by the adjudicator: agreed"}
    ).where(Match.id == ids["cy_ann_drawn"]).execute()
    settle(ids["cy_ann_drawn"])
    # Ended by hand, as the door would end them: the players' tallies follow, as the door's.
    tally_ended(ids["ann_cy_aborted"])
    tally_ended(ids["cy_ann_drawn"])
    Player.update(name="Ann").where(Player.email == ANN).execute()
    Player.update(name="Ben").where(Player.email == BEN).execute()
    return ids


def _ids(client, query: str = "") -> list[int]:
    answer = client.get(f"/api/matches{query}")
    assert answer.status_code == 200, answer.get_json()
    return [row["id"] for row in answer.get_json()["matches"]]


def test_the_archive_lists_matches_newest_first_with_what_a_row_needs(client, made) -> None:
    page = client.get("/matches").data.decode()
    assert [int(n) for n in re.findall(r'href="/matches/(\d+)">#', page)] == [6, 5, 4, 3, 2, 1]
    assert "@example.org" not in page
    first = client.get("/api/matches").get_json()["matches"][0]
    assert first == {
        "id": 6, "game": "nim", "title": "Nim (test game)", "status": "finished",
        "players": [{"seat": 0, "name": "Ann", "public_page": True, "outcome": "loss"},
                    {"seat": 1, "name": "Ben", "public_page": True, "outcome": "win"}],
        "result": {"text": "Ben won", "winners": ["Ben"], "draw": False,
                   "reason": first["result"]["reason"]},
        "moves": 2, "created_at": "2026-01-05T12:00:00Z",
        "last_activity": "2026-01-05T14:00:00Z",
        "url": "/matches/6", "record": "/matches/6/record.json"}
    assert '<a href="/players/Ben">Ben</a>' in page and "Ben won" in page
    assert ">2026-01-05 14:00 UTC</time>" in page  # a time says its zone
    assert '<a href="/players/cy">cy</a>' in page  # no display name: the address's local part


@pytest.mark.parametrize(("query", "wanted"), [
    ("?game=nim", [6, 5, 4, 2, 1]),
    ("?game=bids", [3]),
    ("?status=live", [3, 2]),
    ("?status=active", [3, 2]),  # the word the API's records use for a match in play
    ("?status=finished", [6, 5, 1]),
    ("?status=aborted", [4]),
    ("?player=Ann", [6, 5, 4, 3, 1]),
    ("?player=cy", [5, 4, 3, 2]),
    ("?player=Ann&result=win", [1]),
    ("?player=Ann&result=loss", [6]),
    ("?player=Ann&result=draw", [5]),
    ("?player=Ben&status=live&game=nim", [2]),
    ("?result=draw", [5]),
    ("?result=win", [6, 1]),
    ("?game=nim&result=win", [6, 1]),
    ("?player=Nobody", []),
    ("?player=ann%40example.org", []),  # addresses are never a way in
])
def test_filters_by_game_player_status_and_result(client, made, query: str,
                                                  wanted: list[int]) -> None:
    assert _ids(client, query) == wanted
    html = client.get(f"/matches{query}").data.decode()
    assert [int(n) for n in re.findall(r'href="/matches/(\d+)">#', html)] == wanted


def test_keyset_pages_follow_next_to_the_end_and_past_it(client, made) -> None:
    seen, url = [], "/api/matches?game=nim&limit=2"
    while url:
        body = client.get(url).get_json()
        seen.append([row["id"] for row in body["matches"]])
        url = body["next_url"]
        assert (body["next"] is None) == (url is None)
    assert seen == [[6, 5], [4, 2], [1]]
    html = client.get("/matches?limit=2").data.decode()  # the HTML page ignores limit
    assert "older matches" not in html
    past = client.get(f"/api/matches?cursor={encode_cursor(1)}").get_json()
    assert past["matches"] == [] and past["next"] is None
    page = client.get(f"/matches?cursor={encode_cursor(1)}")
    assert page.status_code == 200 and b"No older matches." in page.data


@pytest.mark.parametrize("cursor", ["abc", "bm90LWEtY3Vyc29y", encode_cursor(5) + "!",
                                    "x" * 300, "YmVmb3JlOi0x"])
def test_bad_cursors_are_422s_that_say_what_to_do(client, made, cursor: str) -> None:
    answer = client.get(f"/api/matches?cursor={cursor}")
    # Well-formed, but not a cursor this server gave out: 422, not 400 (malformed).
    assert answer.status_code == 422 and answer.mimetype == "application/problem+json"
    assert "not a cursor this archive gave out" in answer.get_json()["detail"]
    page = client.get(f"/matches?cursor={cursor}")
    assert page.status_code == 422 and b"start again without a cursor" in page.data


@pytest.mark.parametrize(("query", "message"), [
    ("?game=chess", "no game called 'chess'"),
    ("?status=paused", "status must be one of live, finished, aborted"),
    ("?result=won", "result must be one of win, loss, draw"),
    ("?limit=0", "limit must be from 1 to 100"),
    ("?limit=many", "limit must be a whole number"),
    ("?limit=%C2%B2", "limit must be a whole number"),
    ("?limit=" + "9" * 30, "limit must be a whole number"),
])
def test_bad_filters_are_400s(client, made, query: str, message: str) -> None:
    answer = client.get(f"/api/matches{query}")
    assert answer.status_code == 400 and message in answer.get_json()["detail"]


@pytest.mark.parametrize(("query", "message"), [
    ("?result=loss", "result=loss needs a player"),
    ("?status=live&result=draw", "live matches have no result"),
])
def test_filters_that_mean_nothing_together_are_422s(client, made, query: str,
                                                      message: str) -> None:
    answer = client.get(f"/api/matches{query}")
    assert answer.status_code == 422 and message in answer.get_json()["detail"]


def test_a_player_page_shows_the_public_record_and_nothing_private(client, made) -> None:
    page = client.get("/players/Ann")
    text = page.data.decode()
    assert page.status_code == 200
    assert "3 finished matches: <strong>1</strong> won, <strong>1</strong> lost, " \
           "<strong>1</strong> drawn · 1 in play." in text
    assert "@example.org" not in text and "Your hand" not in text
    # The bids test game has no SVG board: no thumbnail (a broken image), and its image
    # answers 404, never a hand.
    assert f'src="/matches/{made["bids_live"]}/board.svg"' not in text
    assert f'<a href="/matches/{made["bids_live"]}">' in text
    assert client.get(f"/matches/{made['bids_live']}/board.svg").status_code == 404
    by_game = re.search(r"<h2>By game</h2>(.*?)</table>", text, re.S).group(1)
    assert re.search(r"Nim \(test game\)</a></td><td>3</td><td>1</td><td>1</td><td>1</td>"
                     r"<td>0</td>", by_game)
    assert client.get("/players/cy").status_code == 200
    for missing in ("Nobody", "ann@example.org", "an_", "a%"):
        assert client.get(f"/players/{missing}").status_code == 404
    assert client.get("/players/ANN").headers["Location"] == "/players/Ann"
    assert _ids(client, "?player=aNN") == _ids(client, "?player=Ann")


def test_a_player_may_hide_their_page_from_the_archive(client, made) -> None:
    ann = Player.get(Player.email == ANN)
    set_hidden_from_archive(ann.id, True)
    hidden = client.get("/players/Ann")
    assert hidden.status_code == 404 and b"no public page" in hidden.data
    assert _ids(client, "?player=Ann") == []
    assert b"No player with a public page" in client.get("/matches?player=Ann").data
    listing = client.get("/matches").data.decode()
    assert "Ann" in listing and 'href="/players/Ann"' not in listing
    set_hidden_from_archive(ann.id, False)
    assert client.get("/players/Ann").status_code == 200


def test_downloads_of_a_finished_match(client, made) -> None:
    answer = client.get("/matches/6/record.json")
    assert answer.mimetype == "application/json"
    record = answer.get_json()
    assert record["seed"] == Match.get_by_id(6).seed and [m["text"] for m in
                                                          record["moves"]] == ["take 1",
                                                                               "take 2"]
    text = client.get("/matches/6/record.txt")
    assert text.mimetype == "text/plain" and '[Site "http://pbem.test/matches/6"]' in \
        text.data.decode()
    assert client.get("/matches/99/record.json").status_code == 404


def _revealed_and_secret(match: Match, rules: Any) -> tuple[int, int]:
    """The last ply a round's public scoring revealed secret moves at (every secret move
    before it is public), and how many secret moves came after it."""
    revealed = max((m.ply for m in Move.select().where(Move.match == match)
                    if any(kind in rules.reveal_events and readers is None
                           for kind, _data, readers in map(event_parts, m.events))), default=0)
    secret = Move.select().where(Move.match == match, Move.visible_to.is_null(False),
                                 Move.ply > revealed).count()
    return revealed, secret


def test_a_live_match_exports_nothing_a_spectator_could_not_see(client, settings) -> None:
    """Every export of a live Mimic Taking match is unchanged when everything hidden from a
    spectator (hands, face-down stacks, secret choices, secret moves and events) is re-dealt or
    rewritten: so none of it is in any export. Nor is the seed, which decides the deals."""
    emails = [f"p{n}@example.org" for n in range(4)]
    match = create_match("mimic-taking", emails, {}, settings.secret_key, START,
                         seed=982_451_653).match
    match = play_randomly(match.id, 5, START, max_plies=78)
    rules = rules_for(match)
    # The deal follows the match's id as well as its seed (games/dealing.py), and ids differ
    # by database: if a round's scoring has just revealed every secret move, play on until a
    # secret one is made.
    for extra in range(12):
        if _revealed_and_secret(match, rules)[1]:
            break
        match = play_randomly(match.id, 6 + extra, START + timedelta(minutes=78 + extra),
                              max_plies=1)
    assert match.is_live and Move.select().where(Move.visible_to.is_null(False)).count()
    urls = [f"/matches/{match.id}/record.json", f"/matches/{match.id}/record.txt",
            f"/matches/{match.id}", "/matches", "/players/p0", f"/api/matches/{match.id}",
            "/api/matches?player=p1"]
    for ply in (0, 7, 39, 40, 77, 78):
        urls += [f"/matches/{match.id}/board.svg?ply={ply}", f"/matches/{match.id}?ply={ply}",
                 f"/api/matches/{match.id}?ply={ply}"]
    before = {url: client.get(url).data for url in urls}

    revealed, secret = _revealed_and_secret(match, rules)
    assert revealed and secret
    chooser = random.Random(1)
    assert not [url for url, body in before.items() if b"982451653" in body]
    Match.update(state=rules.dump(rules.shuffle_hidden(
        rules.load(match.state), None, 99))).where(Match.id == match.id).execute()
    for move in Move.select().where(Move.match == match):
        secret_events = [[kind, {"secret": chooser.random()}, readers]
                         if readers is not None else [kind, data]
                         for kind, data, readers in map(event_parts, move.events)]
        Move.update(
            events=secret_events,
            text=move.text if move.visible_to is None or move.ply <= revealed else "play M",
        ).where(Move.id == move.id).execute()
    for position in Position.select().where(Position.match == match):
        Position.update(state=rules.dump(rules.shuffle_hidden(
            rules.load(position.state), None, chooser.randrange(2**31)))).where(
            Position.id == position.id).execute()

    changed = [url for url in urls if client.get(url).data != before[url]]
    assert changed == []
    exported = json.loads(before[f"/matches/{match.id}/record.json"])
    assert exported["seed"] is None and any(m.get("hidden") for m in exported["moves"])


def test_board_images_and_link_previews_at_any_ply(client, settings) -> None:
    match = create_match("eximo", [ANN, BEN], {}, settings.secret_key, START, seed=2).match
    match = play_randomly(match.id, 2, START, max_plies=12)
    Player.update(name="Ann").where(Player.email == ANN).execute()
    svg = client.get(f"/matches/{match.id}/board.svg?ply=5")
    assert svg.mimetype == "image/svg+xml" and "max-age=86400" in svg.headers["Cache-Control"]
    root = ElementTree.fromstring(svg.data)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert svg.data != client.get(f"/matches/{match.id}/board.svg?ply=6").data
    assert client.get(f"/matches/{match.id}/board.svg?ply=13").status_code == 404
    assert client.get(f"/matches/{match.id}/board.svg?ply=x").status_code == 400

    page = client.get(f"/matches/{match.id}?ply=5").data.decode()
    description = re.search(r'<meta name="description" content="([^"]*)"', page).group(1)
    assert description == ("EXIMO: Ann (Black) vs ben (White). After move 5 of 12 (in play): "
                           "White to move.")
    assert f'<link rel="canonical" href="http://pbem.test/matches/{match.id}?ply=5">' in page
    assert (f'<meta property="og:image" content="http://pbem.test/matches/{match.id}'
            f'/board.svg?ply=5">') in page
    assert "<title>EXIMO #1: Ann vs ben, move 5 · pbem</title>" in page


def test_every_board_image_is_one_well_formed_svg_or_a_404(client, settings) -> None:
    # Mimic's page draws a key of small pictures after its board; the image is the board
    # alone. Mimic Taking's cards are HTML: no image, rather than a card and stray markup.
    for game, seats in (("mimic", 2), ("eximo", 2), ("frozen-forest", 2),
                        ("move-in-synch", 2), ("mimic-taking", 3)):
        match = create_match(game, [ANN, BEN, CY][:seats], {}, settings.secret_key, START,
                             seed=4).match
        play_randomly(match.id, 4, START, max_plies=3)
        image = client.get(f"/matches/{match.id}/board.svg")
        assert rules_for(match).board_picture == (game != "mimic-taking")
        # A link preview offers the picture only where there is one.
        shown = client.get(f"/matches/{match.id}")
        assert shown.status_code == 200
        pictured = describe(game).board_picture
        assert ('property="og:image"' in shown.data.decode()) == pictured
        # The page offers the picture as a download beside the records, where there is one.
        assert ('board.svg</a> ·' in shown.data.decode()) == pictured
        if not pictured:
            assert image.status_code == 404
            continue
        root = ElementTree.fromstring(image.data)
        assert root.tag == "{http://www.w3.org/2000/svg}svg" and "board" in root.get("class")


def test_a_player_hides_their_page_from_their_settings(client, made, worker, smtp) -> None:
    sign_in(client, ANN, worker, smtp)
    page = client.get("/me/settings").data.decode()
    assert 'name="hidden_from_archive">' in page and 'href="/players/Ann"' in page
    hidden = post_form(client, "/me/archive", page="/me/settings", hidden_from_archive="on")
    assert hidden.status_code == 303 and hidden.headers["Location"] == "/me/settings"
    assert Player.get(Player.email == ANN).hidden_from_archive
    assert client.get("/players/Ann").status_code == 404
    assert 'name="hidden_from_archive" checked>' in client.get("/me/settings").data.decode()
    post_form(client, "/me/archive", page="/me/settings")  # the box left unticked
    assert client.get("/players/Ann").status_code == 200
    forged = client.post("/me/archive", data={"hidden_from_archive": "on"})
    assert forged.status_code == 400 and not Player.get(Player.email == ANN).hidden_from_archive


def test_only_a_signed_in_player_can_hide_a_page(app, made) -> None:
    stranger = app.test_client()
    answer = stranger.post("/me/archive", data={"hidden_from_archive": "on"})
    assert answer.status_code in (302, 303, 400)
    assert not Player.select().where(Player.hidden_from_archive).count()


def test_a_player_without_a_display_name_is_found_in_any_case(client, made) -> None:
    """Cy has no display name and goes by the address's local part: `CY` finds her too."""
    by_api = client.get("/api/matches?player=CY").get_json()
    assert by_api["matches"] and by_api["matches"] == client.get(
        "/api/matches?player=cy").get_json()["matches"]
    page = client.get("/players/CY")
    assert page.status_code == 301 and page.location.endswith("/players/cy")


def test_the_text_record_names_its_charset_once(client, made) -> None:
    answer = client.get(f"/matches/{made['ann_beats_ben']}/record.txt")
    assert answer.headers["Content-Type"] == "text/plain; charset=utf-8"


def test_a_renamed_players_old_page_leads_to_the_new_one(client, made, worker, smtp) -> None:
    """Links to /players/Ann keep working after Ann renames herself (they 404ed)."""
    sign_in(client, ANN, worker, smtp)
    renamed = post_form(client, "/me/settings", name="Queen Ann", timezone="")
    assert renamed.status_code == 303
    for old in ("Ann", "ann"):
        moved = client.get(f"/players/{old}")
        assert moved.status_code == 301 and moved.location.endswith("/players/Queen%20Ann")
    assert client.get("/players/Queen%20Ann").status_code == 200
