"""Tournaments end to end through the API: players join with their tokens, the worker starts
the tournament and pairs each round when the last is over, each player plays from the seat
links in their one mail per round, and the tournament ends with its final standings."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest

from pbem.core.accounts import api_tokens
from pbem.core.accounts.models import Player
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.models import Match
from pbem.core.tournaments.models import Tournament
from tests.conftest import START
from tests.support.players import text_of

PLAYERS = [f"player{n}@example.org" for n in range(8)]


@pytest.fixture
def bearer(settings) -> dict[str, dict[str, str]]:
    made = {}
    for email in PLAYERS:
        _, token = api_tokens.create(settings.secret_key, Player.for_email(email, START),
                                     "tests", START, scopes=("read", "play"))
        made[email] = {"Authorization": f"Bearer {token}"}
    return made


def _create(client, headers: dict[str, str], **body: Any) -> dict[str, Any]:
    answer = client.post("/api/tournaments", headers=headers, json={
        "name": "Club championship", "game": "nim", "options": {"pile": 5}, "clock": "3d",
        "min_players": 2, "rated": False, "starts_at": None, **body})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def _play_every_seat(client, smtp, seen: dict[str, int]) -> int:
    """Each player reads their new tournament mails and plays every seat link in them to the
    end of its match (taking one counter at a time, through the seat API)."""
    rounds = 0
    for email in PLAYERS:
        mails = [m for m in smtp.to(email) if "round" in m["Subject"]
                 or "your matches" in m["Subject"]]
        for mail in mails[seen.get(email, 0):]:
            rounds += 1
            for token in re.findall(r"/play/([A-Za-z0-9_\-.]+)", text_of(mail)):
                _play(client, token)
        seen[email] = len(mails)
    return rounds


def _play(client, token: str) -> None:
    for _ in range(20):
        seat = client.get(f"/api/play/{token}").get_json()
        if seat["status"] != "active":
            return
        if not seat["your_turn"]:
            # The opponent moves first: their own link (in their own mail) plays them; here
            # the match is finished from whichever side is asked, move by move, in turn.
            return
        answer = client.post(f"/api/play/{token}", json={"move": "take 1", "ply": seat["ply"]})
        assert answer.status_code == 200, answer.get_json()


def _run_rounds(client, smtp, worker, tournament_id: int, limit: int = 20) -> dict[str, Any]:
    seen: dict[str, int] = {}
    for _ in range(limit):
        worker.run_tournaments()
        worker.send_outbox()
        # Every seat plays until no move is owed: two passes settle nim with five counters.
        for _pass in range(6):
            _play_every_seat(client, smtp, {} if _pass else seen)
        found = client.get(f"/api/tournaments/{tournament_id}").get_json()
        if found["status"] == "finished":
            worker.send_outbox()
            return found
    raise AssertionError("the tournament did not finish")


def _shape(found: dict[str, Any]) -> None:
    assert {"id", "name", "game", "format", "status", "players", "rounds",
            "standings"} <= set(found)
    assert all(set(p) >= {"name"} for p in found["players"])
    for round_ in found["rounds"]:
        assert {"number", "status", "pairings"} <= set(round_)
        for pairing in round_["pairings"]:
            assert {"match", "players", "result"} <= set(pairing)
    for row in found["standings"]:
        assert set(row) == {"rank", "player", "points", "tiebreaks"}


def test_an_eight_player_swiss_played_to_the_end_through_the_api(client, bearer, smtp,
                                                                  worker) -> None:
    organiser = bearer[PLAYERS[0]]
    created = _create(client, organiser, format="swiss", rounds=3, max_players=8)
    assert created["status"] == "open"
    for email in PLAYERS:
        answer = client.post(f"/api/tournaments/{created['id']}/join", headers=bearer[email])
        assert answer.status_code == 200, answer.get_json()
    assert client.post(f"/api/tournaments/{created['id']}/join",
                       headers=organiser).status_code == 409
    found = _run_rounds(client, smtp, worker, created["id"])
    _shape(found)
    assert [r["number"] for r in found["rounds"]] == [1, 2, 3]
    assert all(len(r["pairings"]) == 4 for r in found["rounds"])
    assert sum(s["points"] for s in found["standings"]) == 12  # 3 rounds x 4 decisive games
    assert set(found["standings"][0]["tiebreaks"]) == {"buchholz", "median_buchholz"}
    # Nobody met anyone twice.
    pairs = [frozenset(p["players"]) for r in found["rounds"] for p in r["pairings"]]
    assert len(pairs) == len(set(pairs)) == 12
    # One mail per player per round, each with that round's seat link; then the final table.
    for email in PLAYERS:
        subjects = [m["Subject"] for m in smtp.to(email)]
        assert sum("round" in s for s in subjects) == 3, subjects
        assert sum("final standings" in s for s in subjects) == 1
        assert not any("has started" in s and "match" in s.lower() for s in subjects
                       if "Club" not in s)
    assert client.get("/api/tournaments?status=finished").get_json()["tournaments"][0][
        "id"] == created["id"]


def test_a_four_player_round_robin_played_to_the_end_through_the_api(client, bearer, smtp,
                                                                      worker) -> None:
    four = PLAYERS[:4]
    created = _create(client, bearer[four[0]], format="round-robin", max_players=6)
    for email in four:
        client.post(f"/api/tournaments/{created['id']}/join", headers=bearer[email])
    # Not full: the organiser starts it.
    assert client.post(f"/api/tournaments/{created['id']}/start",
                       headers=bearer[four[1]]).status_code == 403
    answer = client.post(f"/api/tournaments/{created['id']}/start", headers=bearer[four[0]])
    assert answer.status_code == 200 and answer.get_json()["status"] == "running"
    assert Match.select().count() == 6
    found = _run_rounds(client, smtp, worker, created["id"])
    _shape(found)
    assert len(found["rounds"]) == 3
    assert sum(s["points"] for s in found["standings"]) == 6
    assert set(found["standings"][0]["tiebreaks"]) == {"sonneborn_berger",
                                                       "direct_encounter"}
    for email in four:  # one mail with all three seat links
        mails = [m for m in smtp.to(email) if "your matches" in m["Subject"]]
        assert len(mails) == 1
        assert len(re.findall(r"/play/", text_of(mails[0]))) == 3
        started = [m for m in smtp.to(email) if "has started" in m["Subject"]]
        assert len(started) == 1 and "all of them at once" in text_of(started[0])
        final = [m for m in smtp.to(email) if "final standings" in m["Subject"]]
        assert len(final) == 1
        table = text_of(final[0])
        assert all(f"{row['rank']}. {row['player']}: " in table for row in found["standings"])


def test_refusals_are_problem_json_and_change_nothing(client, bearer, settings) -> None:
    _, reader = api_tokens.create(settings.secret_key, Player.for_email(PLAYERS[0], START),
                                  "read only", START, scopes=("read",))
    body = {"name": "x", "game": "nim", "format": "swiss"}
    answer = client.post("/api/tournaments", json=body,
                         headers={"Authorization": f"Bearer {reader}"})
    assert answer.status_code == 403 and "play" in answer.get_json()["detail"]
    assert client.post("/api/tournaments", json=body).status_code == 401
    headers = bearer[PLAYERS[0]]
    for bad, words in (({**body, "format": "ladder"}, "format"),
                       ({**body, "rounds": 99}, "rounds"),
                       ({**body, "colour": "red"}, "unknown"),
                       ({**body, "game": "chess"}, "chess"),
                       ({"name": "x", "game": "nim"}, '"format" is required')):
        answer = client.post("/api/tournaments", json=bad, headers=headers)
        assert 400 <= answer.status_code < 500, answer.get_json()
        assert answer.mimetype == "application/problem+json"
        assert words in answer.get_json()["detail"]
    assert Tournament.select().count() == 0
    assert client.get("/api/tournaments/999").status_code == 404
    assert client.get("/api/tournaments?status=nonsense").status_code == 400
    created = _create(client, headers, format="swiss", rounds=2)
    assert client.post(f"/api/tournaments/{created['id']}/withdraw",
                       headers=headers).status_code == 409  # not started
    assert OutboxMessage.select().count() == 0


def test_a_withdrawal_through_the_api_forfeits_and_shows(client, bearer, worker) -> None:
    four = PLAYERS[:4]
    created = _create(client, bearer[four[0]], format="round-robin", max_players=4)
    for email in four:
        client.post(f"/api/tournaments/{created['id']}/join", headers=bearer[email])
    worker.run_tournaments()  # full: the worker starts it
    answer = client.post(f"/api/tournaments/{created['id']}/withdraw", headers=bearer[four[3]])
    assert answer.status_code == 200 and answer.get_json()["forfeited"] == 3
    worker.run_tournaments()
    found = client.get(f"/api/tournaments/{created['id']}").get_json()
    forfeits = [p for r in found["rounds"] for p in r["pairings"] if p["forfeit"]]
    assert len(forfeits) == 3
    assert [p["status"] for p in found["players"]].count("withdrawn") == 1


def test_round_deadlines_are_in_the_players_calendar_feed(client, bearer, settings) -> None:
    from icalendar import Calendar

    from pbem.core.mailout import links

    two = PLAYERS[:2]
    created = _create(client, bearer[two[0]], format="swiss", rounds=2, round_days=3)
    for email in two:
        client.post(f"/api/tournaments/{created['id']}/join", headers=bearer[email])
    client.post(f"/api/tournaments/{created['id']}/start", headers=bearer[two[0]])
    player = Player.get(Player.email == two[1])
    feed = f"/calendar/{links.calendar_token(settings.secret_key, player)}.ics"
    events = Calendar.from_ical(client.get(feed).data).walk("VEVENT")
    rounds = [e for e in events if str(e["summary"]).startswith("Round 1 ends")]
    assert len(rounds) == 1
    assert rounds[0].decoded("dtend").replace(tzinfo=None) == START + timedelta(days=3)
    assert f"/tournaments/{created['id']}#round-1" in str(rounds[0]["url"])


def test_the_answers_fit_the_openapi_description(client, bearer) -> None:
    import schemathesis

    from pbem.web.site.api_description import document
    from tests.web.site.test_openapi import _validate

    schema = schemathesis.openapi.from_dict(document("http://pbem.test"))
    two = PLAYERS[:2]
    made = client.post("/api/tournaments", headers=bearer[two[0]], json={
        "name": "Described", "game": "nim", "format": "swiss", "rounds": 2,
        "options": {"pile": 4}, "starts_at": None})
    _validate(schema, "post", "/api/tournaments", made)
    number = made.get_json()["id"]
    for email in two:
        _validate(schema, "post", "/api/tournaments/{tournament_id}/join",
                  client.post(f"/api/tournaments/{number}/join", headers=bearer[email]))
    _validate(schema, "post", "/api/tournaments/{tournament_id}/start",
              client.post(f"/api/tournaments/{number}/start", headers=bearer[two[0]]))
    _validate(schema, "get", "/api/tournaments/{tournament_id}",
              client.get(f"/api/tournaments/{number}"))
    _validate(schema, "get", "/api/tournaments", client.get("/api/tournaments?status=running"))
    _validate(schema, "post", "/api/tournaments/{tournament_id}/withdraw",
              client.post(f"/api/tournaments/{number}/withdraw", headers=bearer[two[1]]))
    refused = client.post(f"/api/tournaments/{number}/leave", headers=bearer[two[0]])
    assert refused.status_code == 409
    _validate(schema, "post", "/api/tournaments/{tournament_id}/leave", refused)


def test_a_tournament_made_without_saying_is_rated_as_the_form_makes_it(client, bearer) -> None:
    answer = client.post("/api/tournaments", headers=bearer[PLAYERS[0]], json={
        "name": "Defaults", "game": "nim", "format": "round-robin"})
    assert answer.status_code == 201, answer.get_json()
    assert answer.get_json()["rated"] is True
    schema = client.get("/api/openapi.json").get_json()["components"]["schemas"]
    assert schema["TournamentRequest"]["properties"]["rated"]["default"] is True
