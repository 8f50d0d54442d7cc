"""Conditional moves and the analysis board over the JSON API: the owner's lines stored,
read, played and cleared; nothing of them in the opponent's or a spectator's answers; and
clear problem+json for what cannot be stored."""

from __future__ import annotations

import json

from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match
from pbem.games import get_rules
from tests.conftest import START

ANN, BEN = "ann@example.org", "ben@example.org"
START_POSITION_MOVE = "b2-b3"


def mimic(settings) -> tuple[int, list[str]]:
    created = create_match("mimic", [ANN, BEN], {}, settings.secret_key, START)
    return created.match.id, created.tokens


def test_lines_are_stored_read_played_and_seen_only_by_their_owner(settings, client) -> None:
    match_id, (blue, red) = mimic(settings)
    url = f"/api/play/{red}/conditional"
    assert client.get(url).get_json() == {"lines": [], "ply": 0, "version": 0, "offered": True,
                                          "moves": 0}
    put = client.put(url, json={"lines": [["B2B3", "c9-c8"], ["c2-c3", "d9-d8"]], "ply": 0})
    assert put.status_code == 200, put.get_json()
    assert put.get_json()["lines"] == [["b2-b3", "c9-c8"], ["c2-c3", "d9-d8"]], "canonical"
    assert client.get(url).get_json()["version"] == 1
    # Nothing of it reaches Blue or a spectator, in any answer.
    for answer in (client.get(f"/api/play/{blue}"), client.get(f"/api/matches/{match_id}"),
                   client.get(f"/matches/{match_id}/record.json"),
                   client.get(f"/api/play/{blue}/conditional")):
        assert "c9-c8" not in answer.get_data(as_text=True)
    played = client.post(f"/api/play/{blue}", json={"move": "b2-b3", "ply": 0}).get_json()
    assert played["ply"] == 2, "Blue's request returns with Red's answer already played"
    assert played["applied"] == {"move": "b2-b3", "events": played["applied"]["events"],
                                 "conditional_answer": "c9-c8"}
    assert played["moves"][-1]["text"] == "c9-c8" and played["moves"][-1]["conditional"]
    public = client.get(f"/api/matches/{match_id}").get_json()
    assert [m["conditional"] for m in public["moves"]] == [False, True]
    record = client.get(f"/matches/{match_id}/record.json").get_json()
    assert record["moves"][1].get("conditional") is True
    assert "conditional" in client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert client.get(url).get_json()["lines"] == []


def test_refusals_are_problem_json_and_change_nothing(settings, client) -> None:
    match_id, (blue, red) = mimic(settings)
    url = f"/api/play/{red}/conditional"
    cases = [
        (client.put(url, json={"lines": "b2-b3 c9-c8"}), 400, '"lines"'),
        (client.put(url, json={"lines": [["b2-b3", 4]]}), 400, "notation"),
        (client.put(url, json={"lines": [["b2-b3"]] * 41}), 400, "at most 40 lines"),
        (client.put(url, data="{", content_type="application/json"), 400, "JSON object"),
        (client.put(url, json={"lines": [["b2-b3", "c9-c7"]]}), 422, "line 1, move 2"),
        (client.put(url, json={"lines": [["b2-b3"]]}), 422, "add your answer"),
        # A move number the match has not reached (one it has left is "moved on").
        (client.put(url, json={"lines": [["b2-b3", "c9-c8"]], "ply": 3}), 409,
         "written for move 3, but the match is at move 0"),
        (client.put(f"/api/play/{blue}/conditional", json={"lines": [["c9-c8", "b2-b3"]]}),
         422, "your turn"),
        (client.put("/api/play/bogus/conditional", json={"lines": []}), 404, "not valid"),
        (client.post(f"/api/play/{red}/analyse", json={"moves": ["b2-b3", "z1"]}), 422,
         "move 2"),
        (client.post(f"/api/play/{red}/analyse", json={"moves": "b2-b3"}), 400, '"moves"'),
    ]
    for response, status, words in cases:
        assert response.status_code == status, (words, response.get_json())
        assert response.content_type == "application/problem+json"
        assert words in response.get_json()["detail"], response.get_json()
    assert client.get(url).get_json()["version"] == 0
    assert Match.get_by_id(match_id).version == 0


def test_delete_clears_the_lines(settings, client) -> None:
    _match_id, (_blue, red) = mimic(settings)
    url = f"/api/play/{red}/conditional"
    client.put(url, json={"lines": [["b2-b3", "c9-c8"]]})
    assert client.delete(url).get_json()["lines"] == []
    assert client.get(url).get_json()["version"] == 0


def test_the_analysis_board_answers_a_hypothetical_line(settings, client) -> None:
    match_id, (_blue, red) = mimic(settings)
    answer = client.post(f"/api/play/{red}/analyse",
                         json={"moves": ["b2-b3", "c9-c8"], "board": True})
    body = answer.get_json()
    assert answer.status_code == 200, body
    assert body["moves"] == ["b2-b3", "c9-c8"] and len(body["positions"]) == 3
    assert body["to_move"] == [0] and "d2-d3" in body["legal_moves"]
    assert body["outcome"] is None and "<svg" in body["board_html"]
    assert {"move": "d2-d3", "clicks": ["d2", "d3"]} in body["clicks"]["moves"]
    rules = get_rules("mimic")
    live = rules.load(Match.get_by_id(match_id).state)
    assert body["positions"][0]["view"] == json.loads(json.dumps(rules.view(live, 1)))
    assert Match.get_by_id(match_id).ply == 0, "nothing is played"


def test_text_mode_commands_read_the_lines_last_position(settings, client) -> None:
    """"ask": a command of text mode answers about the line's end, in "said"; a line that is
    no command is said to be none (null), for the page to play it as a move."""
    match_id, (blue, red) = mimic(settings)
    client.post(f"/api/play/{blue}", json={"move": "b2-b3", "ply": 0})
    url = f"/api/play/{red}/analyse"

    def said(line: list[str], ask: str) -> str | None:
        answer = client.post(url, json={"moves": line, "ask": ask})
        assert answer.status_code == 200, answer.get_json()
        assert "board_html" not in answer.get_json()
        return answer.get_json()["said"]

    assert said([], "square c9") == "c9: R."
    assert said(["c9-c8"], "square c9") == "c9: empty."
    assert said(["c9-c8"], "square c8") == "c8: R."
    legal = said(["c9-c8"], " moves ")
    assert legal is not None and "legal moves:" in legal and "d2-d3" in legal
    assert said(["c9-c8"], "last 2") == "1. Blue b2-b3; 2. Red c9-c8."
    assert "no clock" in said([], "clocks")
    assert said(["c9-c8"], "d2-d3") is None, "a move, not a command"
    assert "said" not in client.post(url, json={"moves": []}).get_json()
    for ask in ("", "   ", 3, "x" * 201):
        refused = client.post(url, json={"moves": [], "ask": ask})
        assert refused.status_code == 400 and '"ask"' in refused.get_json()["detail"]
    assert Match.get_by_id(match_id).ply == 1, "nothing is played"


def test_games_with_hidden_cards_have_neither(settings, client) -> None:
    created = create_match("mimic-taking", [ANN, BEN, "cy@example.org"], {},
                           settings.secret_key, START)
    token = created.tokens[1]
    assert client.get(f"/api/play/{token}/conditional").get_json()["offered"] is False
    for response in (client.put(f"/api/play/{token}/conditional", json={"lines": []}),
                     client.post(f"/api/play/{token}/analyse", json={"moves": []})):
        assert response.status_code == 422 and "hidden" in response.get_json()["detail"]


def test_the_pages_form_says_a_refusal_beside_itself(settings, client) -> None:
    """Without script, the form posts and the page comes back at the form (#conditional):
    a refusal is said there, not at the top of a long page a phone scrolled away from."""
    _match_id, (_blue, red) = mimic(settings)
    page = f"/play/{red}"
    assert f'action="/play/{red}/conditional#conditional"' in client.get(page).data.decode()
    # A seat's forms carry no CSRF token: the link's own token is the secret.
    refused = client.post(f"/play/{red}/conditional",
                          data={"lines": "if b2-b3 then c9-c7", "ply": "0"})
    assert refused.status_code == 422
    shown = refused.data.decode()
    section = shown[shown.index('id="conditional"'):]
    assert section.index("Your conditional moves were not stored") < section.index("<form")
    assert 'role="alert">Your conditional moves were not stored' not in shown[
        :shown.index('id="conditional"')]
    assert "if b2-b3 then c9-c7" in section  # the lines come back to be mended
