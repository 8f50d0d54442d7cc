"""Playing the computer through the API and the web form: a whole match (the person moves by
`/api/play/<token>`, the worker's computer job answers, until the end), the seat named
"Computer (level N)" everywhere, no clock and no mail for it, the match unrated, and bad
requests refused with a message and nothing made."""

from __future__ import annotations

import re

import pytest

from pbem.core.accounts import api_tokens
from pbem.core.accounts.models import Player
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.models import ChangeLog, ComputerJob, Match, Move, Seat
from pbem.games import REGISTRY
from tests.conftest import START
from tests.support.players import csrf_from, sign_in

ANN = "ann@example.org"


@pytest.fixture
def bearer(settings) -> dict[str, str]:
    _, token = api_tokens.create(settings.secret_key, Player.for_email(ANN, START), "tests",
                                 START, scopes=("read", "play"))
    return {"Authorization": f"Bearer {token}"}


def test_a_whole_match_against_the_computer_through_the_api(client, bearer, worker) -> None:
    made = client.post("/api/challenges/computer", headers=bearer, json={
        "game": "mimic", "level": 1, "options": {}, "clock": "3d", "seat": 0})
    assert made.status_code == 201, made.get_json()
    answer = made.get_json()["match"]
    assert answer["seat"] == 0 and answer["link"].endswith(f"/play/{answer['token']}")
    token, match_id = answer["token"], answer["id"]
    record = client.get(f"/api/play/{token}").get_json()
    assert [p["name"] for p in record["players"]] == [record["players"][0]["name"],
                                                       "Computer (level 1)"]
    assert record["players"][1]["computer"] == 1 and record["unrated"] is True
    moves = 0
    while record["status"] == "active":
        assert record["your_turn"], "the computer answers every move before the next poll"
        moved = client.post(f"/api/play/{token}", json={"move": record["legal_moves"][0],
                                                        "ply": record["ply"]})
        assert moved.status_code == 200, moved.get_json()
        moves += 1
        if moved.get_json()["status"] == "active":
            report = worker.computer_moves()
            assert (report.moved, report.failed) == (1, 0)
        record = client.get(f"/api/play/{token}").get_json()
        assert moves < 200
    match = Match.get_by_id(match_id)
    assert match.status == "finished" and match.has_computer
    kinds = [row.kind for row in ChangeLog.select().where(ChangeLog.match == match_id)
             .order_by(ChangeLog.version)]
    assert kinds.count("computer-move") == sum(1 for m in Move.select()
                                               .where(Move.match == match_id, Move.seat == 1))
    assert kinds.count("move") == moves
    # The computer's seat never had a clock and was never mailed; no job is left over.
    computer = Seat.get(Seat.match == match_id, Seat.seat == 1)
    assert computer.deadline is None and computer.allowance_seconds >= 3 * 86400
    assert not OutboxMessage.select().where(OutboxMessage.to_address.contains("computer")
                                            ).exists()
    assert ComputerJob.select().count() == 0
    assert record["result"]["scores"][1]["name"] == "Red (Computer (level 1))"


def test_the_computer_moves_first_and_mimic_taking_seats_three(client, bearer,
                                                                worker) -> None:
    first = client.post("/api/challenges/computer", headers=bearer, json={
        "game": "frozen-forest", "level": 2, "seat": 1}).get_json()["match"]
    assert ComputerJob.select().where(ComputerJob.match == first["id"]).count() == 1
    assert worker.computer_moves().moved == 1
    assert client.get(f"/api/play/{first['token']}").get_json()["your_turn"]
    table = client.post("/api/challenges/computer", headers=bearer, json={
        "game": "mimic-taking", "level": 1, "seat": "random", "players": 4})
    assert table.status_code == 201
    seats = list(Seat.select().where(Seat.match == table.get_json()["match"]["id"])
                 .order_by(Seat.seat))
    assert len(seats) == 4
    assert sorted(s.player.public_name for s in seats).count("Computer (level 1)") == 3


@pytest.mark.parametrize(("body", "status", "says"), [
    ({"game": "mimic", "level": 9}, 400, "level"),
    ({"game": "mimic", "level": "hard"}, 400, "whole number"),
    ({"game": "mimic", "level": 2, "seat": 2}, 422, "seat"),
    ({"game": "mimic", "level": 2, "seat": "first"}, 400, "seat"),
    ({"game": "mimic", "level": 2, "players": 3}, 422, "2 players"),
    ({"game": "mimic-taking", "level": 2, "players": 5}, 422, "3 or 4"),
    ({"game": "chess", "level": 2}, 422, "no game"),
    ({"game": "mimic", "level": 2, "clock": "forever"}, 400, "clock"),
    ({"game": "mimic", "level": 2, "colour": "blue"}, 400, "unknown field"),
    ({"level": 2}, 400, "game"),
])
def test_a_bad_request_is_refused_with_a_message_and_makes_nothing(client, bearer, body,
                                                                   status, says) -> None:
    reply = client.post("/api/challenges/computer", headers=bearer, json=body)
    assert reply.status_code == status and reply.mimetype == "application/problem+json"
    assert says in reply.get_json()["detail"]
    assert Match.select().count() == 0


def test_a_read_only_token_may_not_start_one(client, settings) -> None:
    _, token = api_tokens.create(settings.secret_key, Player.for_email(ANN, START), "ro",
                                 START, scopes=("read",))
    reply = client.post("/api/challenges/computer", json={"game": "mimic", "level": 1},
                        headers={"Authorization": f"Bearer {token}"})
    assert reply.status_code == 403 and "play" in reply.get_json()["detail"]
    assert Match.select().count() == 0


def test_the_form_on_me_and_on_a_game_page_starts_a_match(client, worker, smtp) -> None:
    sign_in(client, ANN, worker, smtp)
    home = client.get("/me")
    assert b"Play the computer" in home.data and b'name="level"' in home.data
    page = client.get("/games/mimic")
    assert b"Play the computer" in page.data
    started = client.post("/computer", data={
        "csrf_token": csrf_from(page.data), "game": "mimic", "level": "3", "seat": "1",
        "clock": "1d"})
    assert started.status_code == 303 and "/play/" in started.headers["Location"]
    match = Match.get()
    assert match.time_control == "1d" and match.has_computer and match.on_timeout == "forfeit"
    assert match.seat_rows()[0].player.public_name == "Computer (level 3)"
    assert worker.computer_moves().moved == 1
    seat_page = client.get(started.headers["Location"])
    assert b"Computer (level 3)" in seat_page.data
    refused = client.post("/computer", data={"csrf_token": csrf_from(page.data),
                                             "game": "mimic", "level": "0"})
    assert refused.status_code == 400 and b"level" in refused.data
    assert Match.select().count() == 1


@pytest.mark.parametrize("path", ["/computer", "/computer?game=mimic"])
def test_the_form_starts_each_game_with_its_default_options(client, worker, smtp,
                                                            path) -> None:
    # The form is sent as a browser sends it: every control with its value as drawn, a box
    # left ticked sent as "on", an unticked one not at all.
    sign_in(client, ANN, worker, smtp)
    page = client.get(path).get_data(as_text=True)
    assert re.search(r'name="option\.mimic\.mimic_goal_wins" value="on"[^>]*checked', page)
    for rules in REGISTRY.values():
        if rules.slug == "mimic-taking":
            continue  # played by 3 or 4 here; its options are checked with the others'
        sent = dict(_controls(page), game=rules.slug, level="1", seat="0", clock="1d",
                    csrf_token=csrf_from(page.encode()))
        started = client.post("/computer", data=sent)
        assert started.status_code == 303, started.get_data(as_text=True)
        match = Match.select().order_by(Match.id.desc()).get()
        assert match.game == rules.slug
        assert match.options == rules.resolve_options({}), rules.slug


def _controls(page: str) -> dict[str, str]:
    """The option controls' values as a browser would send them."""
    sent = {}
    for tag in re.findall(r"<input[^>]*>", page):
        name = re.search(r'name="(option\.[^"]+)"', tag)
        if name is None:
            continue
        value = re.search(r'value="([^"]*)"', tag)
        if 'type="checkbox"' in tag:
            if " checked" in tag:
                sent[name.group(1)] = "on"
        else:
            sent[name.group(1)] = value.group(1) if value else ""
    for name, body in re.findall(r'<select[^>]*name="(option\.[^"]+)"[^>]*>(.*?)</select>',
                                 page, re.S):
        chosen = re.search(r'<option value="([^"]*)" selected', body)
        if chosen:
            sent[name] = chosen.group(1)
    return sent


def test_the_computer_is_named_in_the_reader_s_language_with_its_level(
        client, bearer, worker, smtp) -> None:
    made = client.post("/api/challenges/computer", headers=bearer, json={
        "game": "mimic", "level": 3, "clock": "3d", "seat": 0}).get_json()["match"]
    english = client.get(f"/play/{made['token']}").get_data(as_text=True)
    assert "Computer (level 3)" in english and "1000?" not in english.split("against")[1]
    history = client.get(f"/matches/{made['id']}").get_data(as_text=True)
    assert "Computer (level 3)" in history and history.count("1000?") == 1  # Ann's only
    client.set_cookie("pbem_lang", "de")
    german = client.get(f"/play/{made['token']}")
    assert "Computer (Stufe 3)" in german.get_data(as_text=True)
    client.set_cookie("pbem_lang", "ja")
    japanese = client.get(f"/matches/{made['id']}")
    assert "コンピューター\uff08レベル 3\uff09" in japanese.get_data(as_text=True)
    # The API keeps the stored name, in English, with the level as a number.
    record = client.get(f"/api/play/{made['token']}").get_json()
    assert record["players"][1]["name"] == "Computer (level 3)"
