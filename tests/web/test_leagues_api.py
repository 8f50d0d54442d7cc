"""Leagues and ladders through the server: a whole season of a three-division league played
from the seat links in the players' mail, the worker closing it and starting the next by
itself; twenty ladder challenges made, accepted and played through the API; refusals as
problem+json."""

from __future__ import annotations

import re
from typing import Any

import feedparser
import pytest

from pbem.core.accounts import api_tokens
from pbem.core.accounts.models import Player
from tests.conftest import START
from tests.support.players import text_of

PLAYERS = [f"member{n}@example.org" for n in range(12)]


@pytest.fixture
def bearer(settings) -> dict[str, dict[str, str]]:
    made = {}
    for email in PLAYERS:
        _, token = api_tokens.create(settings.secret_key, Player.for_email(email, START),
                                     "tests", START, scopes=("read", "play"))
        made[email] = {"Authorization": f"Bearer {token}"}
    return made


def _play_mailed_seats(client, smtp, seen: set[str]) -> int:
    """Play every seat link mailed so far whose seat is to move (nim with one counter: the
    first mover takes it and wins)."""
    played = 0
    for email in PLAYERS:
        for mail in smtp.to(email):
            for token in re.findall(r"/play/([A-Za-z0-9_\-.]+)", text_of(mail)):
                if token in seen:
                    continue
                seat = client.get(f"/api/play/{token}").get_json()
                if seat["status"] == "active" and seat["your_turn"]:
                    answer = client.post(f"/api/play/{token}",
                                         json={"move": "take 1", "ply": seat["ply"]})
                    assert answer.status_code == 200, answer.get_json()
                    played += 1
                seen.add(token)
    return played


def test_a_season_of_three_divisions_through_the_server(client, bearer, worker, smtp,
                                                        clock) -> None:
    first = bearer[PLAYERS[0]]
    made = client.post("/api/leagues", headers=first, json={
        "name": "Winter league", "game": "nim", "options": {"pile": 1}, "clock": "3d",
        "division_size": 4, "promote": 1, "relegate": 1, "break_days": 7, "start_days": 1})
    assert made.status_code == 201, made.get_json()
    league = made.get_json()["id"]
    for email in PLAYERS:
        assert client.post(f"/api/leagues/{league}/join", headers=bearer[email]).status_code == 200
    again = client.post(f"/api/leagues/{league}/join", headers=first)
    assert again.status_code == 409 and again.content_type == "application/problem+json"
    worker.run_leagues()
    assert client.get(f"/api/leagues/{league}").get_json()["seasons"] == []
    clock.advance(days=1)
    worker.run_leagues()
    found = client.get(f"/api/leagues/{league}").get_json()
    divisions = found["seasons"][0]["divisions"]
    assert [len(d["players"]) for d in divisions] == [4, 4, 4]
    assert sum(len(d["matches"]) for d in divisions) == 36
    worker.send_outbox()
    assert _play_mailed_seats(client, smtp, set()) == 36
    Player.update(language="ja").where(Player.email == PLAYERS[1]).execute()
    worker.run_leagues()
    found = client.get(f"/api/leagues/{league}").get_json()
    assert found["status"] == "break"
    for division in found["seasons"][0]["divisions"]:
        assert sorted(s["points"] for s in division["standings"]) == [3, 3, 3, 3]
        assert all(s["played"] == 6 for s in division["standings"])
    worker.send_outbox()
    # Each player's end-of-season mail says where they finished and where they go.
    ended = {email: [m for m in smtp.to(email) if "season 1 is over" in text_of(m)
                     or "シーズン1" in text_of(m)] for email in PLAYERS}
    assert all(len(mails) == 1 for mails in ended.values()), ended
    assert any("go up" in text_of(m) or "go down" in text_of(m)
               for mails in ended.values() for m in mails)
    assert "順位表" in text_of(ended[PLAYERS[1]][0])
    clock.advance(days=7)
    worker.run_leagues()
    found = client.get(f"/api/leagues/{league}").get_json()
    assert [s["number"] for s in found["seasons"]] == [2, 1]
    worker.send_outbox()
    assert all(any("season 2 has started" in text_of(m) or "シーズン2" in text_of(m)
                   for m in smtp.to(email)) for email in PLAYERS)
    up = [s["player"] for s in found["seasons"][1]["divisions"][1]["standings"]
          if s["move"] == "up"]
    assert up and up[0] in found["seasons"][0]["divisions"][0]["players"]
    # Its Atom feed (read by a real parser): both seasons' starts, the first one's end, and
    # each of its 36 games, linking to the match's public page.
    feed = _feed(client, f"/feeds/leagues/{league}.atom")
    titles = [entry.title for entry in feed.entries]
    assert {"Season 1 has begun", "Season 1 has finished", "Season 2 has begun"} <= set(titles)
    games = [entry for entry in feed.entries if entry.title.endswith("have finished")]
    assert len(games) == 36 and all("/matches/" in entry.link for entry in games)


def test_twenty_ladder_challenges_through_the_api(client, bearer, worker, smtp) -> None:
    first = bearer[PLAYERS[0]]
    made = client.post("/api/ladders", headers=first, json={
        "name": "Club ladder", "game": "nim", "options": {"pile": 1}, "clock": "3d"})
    assert made.status_code == 201, made.get_json()
    ladder = made.get_json()["id"]
    for email in PLAYERS:
        assert client.post(f"/api/ladders/{ladder}/join",
                           headers=bearer[email]).status_code == 200
    seen: set[str] = set()
    for n in range(20):
        places = client.get(f"/api/ladders/{ladder}").get_json()["places"]
        at = 1 + n % (len(places) - 1)  # the challenger's place, from 2 down
        challenger = f"{places[at]['player']}@example.org"
        defender_name = places[at - 1]["player"]
        answer = client.post(f"/api/ladders/{ladder}/challenge", headers=bearer[challenger],
                             json={"player": defender_name})
        assert answer.status_code == 201, answer.get_json()
        number = answer.get_json()["challenge"]
        worker.send_outbox()
        asked = [m for m in smtp.to(f"{defender_name}@example.org")
                 if f"challenges you for place {at}" in text_of(m)]
        assert asked and f"/ladders/{ladder}" in text_of(asked[-1])
        accepted = client.post(f"/api/ladders/{ladder}/accept",
                               headers=bearer[f"{defender_name}@example.org"],
                               json={"challenge": number})
        assert accepted.status_code == 200, accepted.get_json()
        worker.send_outbox()
        assert _play_mailed_seats(client, smtp, seen) == 1  # the challenger moves first, wins
        after = client.get(f"/api/ladders/{ladder}").get_json()["places"]
        assert after[at - 1]["player"] == places[at]["player"]
        assert after[at]["player"] == defender_name
    feed = _feed(client, f"/feeds/ladders/{ladder}.atom")
    titles = [entry.title for entry in feed.entries]
    assert sum(" beat " in title for title in titles) == 20
    assert sum(title.endswith("joined the ladder") for title in titles) == len(PLAYERS)
    assert len({entry.id for entry in feed.entries}) == len(feed.entries)


def _feed(client, path: str) -> feedparser.FeedParserDict:
    answer = client.get(path)
    assert answer.status_code == 200, answer.data
    parsed = feedparser.parse(answer.data)
    assert not parsed.bozo, parsed.bozo_exception
    return parsed


def _problem(answer, status: int) -> dict[str, Any]:
    assert answer.status_code == status, answer.get_json()
    assert answer.content_type == "application/problem+json"
    return answer.get_json()


def test_refusals_are_problems(client, bearer) -> None:
    first = bearer[PLAYERS[0]]
    _problem(client.post("/api/leagues", headers=first, json={"name": "x", "game": "nim",
                                                               "division_size": 40}), 422)
    _problem(client.post("/api/leagues", headers=first, json={"name": "x", "game": "nim",
                                                               "colour": "red"}), 400)
    _problem(client.get("/api/leagues/999"), 404)
    _problem(client.post("/api/leagues/999/join", headers=first), 404)
    ladder = client.post("/api/ladders", headers=first,
                         json={"name": "L", "game": "nim"}).get_json()["id"]
    _problem(client.post(f"/api/ladders/{ladder}/challenge", headers=first,
                         json={"place": 1, "player": "x"}), 400)
    _problem(client.post(f"/api/ladders/{ladder}/challenge", headers=first, json={}), 400)
    _problem(client.post(f"/api/ladders/{ladder}/accept", headers=first,
                         json={"challenge": "one"}), 400)
    _problem(client.post(f"/api/ladders/{ladder}/challenge", json={"place": 1}), 401)
    client.post(f"/api/ladders/{ladder}/join", headers=first)
    _problem(client.post(f"/api/ladders/{ladder}/challenge", headers=first,
                         json={"place": 1}), 422)  # nobody above


def test_what_the_api_description_allows_or_refuses_is_answered_so(client, bearer) -> None:
    """Found by schemathesis: each of these answered otherwise than the description says."""
    first = bearer[PLAYERS[0]]
    # A two-player league has no tables, but a size past its documented range is refused.
    _problem(client.post("/api/leagues", headers=first, json={
        "name": "x", "game": "nim", "table_size": 3, "tables_per_division": 5}), 422)
    _problem(client.post("/api/leagues", headers=first, json={
        "name": "x", "game": "nim", "tables_per_division": None}), 400)
    # A seat's live-update address answers JSON, so its errors are problem+json too.
    _problem(client.get("/play/0/ply"), 404)
    # `on_timeout` is a string when given: null was taken for "forfeit".
    _problem(client.post("/api/ladders", headers=first,
                         json={"name": "L", "game": "nim", "on_timeout": None}), 400)
    ladder = client.post("/api/ladders", headers=first,
                         json={"name": "L", "game": "nim"}).get_json()["id"]
    # Challenging place 1 of an empty ladder was a 500 (no place 1 to read).
    _problem(client.post(f"/api/ladders/{ladder}/challenge", headers=first,
                         json={"place": 1}), 409)
    # 7.0 is JSON's whole number 7: no such challenge, not a malformed request.
    _problem(client.post(f"/api/ladders/{ladder}/accept", headers=first,
                         json={"challenge": 71392.0}), 404)
    # An id too large for the database: 404 on both methods, never 405.
    _problem(client.get("/api/matches/2147483648/analysis"), 404)
    _problem(client.post("/api/matches/2147483648/analysis", headers=first), 404)
