"""The JSON API: a three-player hidden-hand match played to the end, and clean errors."""

from __future__ import annotations

from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match
from tests.conftest import START

PLAYERS = ["ann@example.org", "ben@example.org", "cat@example.org"]


def test_three_players_with_hidden_hands_play_through_the_api(settings, client) -> None:
    created = create_match("bids", PLAYERS, {"hand": "2"}, settings.secret_key, START, seed=5)
    tokens = created.tokens
    hands = Match.get().state["hands"]
    for _round in range(2):
        for seat, token in enumerate(tokens):
            record = client.get(f"/api/play/{token}").get_json()
            assert record["view"]["hand"] == hands[seat]
            others = [h for i, h in enumerate(hands) if i != seat]
            assert all(str(card) not in record["legal_moves"] for card in others)
            assert record["legal_moves"] == [f"play {card}" for card in hands[seat]]
            reply = client.post(f"/api/play/{token}",
                                json={"move": f"play {hands[seat][0]}", "ply": record["ply"]})
            assert reply.status_code == 200, reply.get_json()
            body = reply.get_json()
            assert body["applied"]["move"] == f"play {hands[seat][0]}"
            if seat < 2:
                # Another seat's secret choice shows as hidden, never as its text.
                other_view = client.get(f"/api/play/{tokens[2]}").get_json()
                hidden = [m for m in other_view["moves"] if m["seat"] == seat][-1]
                assert (hidden["text"] is None) == (seat != 2)
        hands = [hand[1:] for hand in hands]
    final = client.get(f"/api/matches/{created.match.id}").get_json()
    assert final["status"] == "finished" and final["result"]["reason"].startswith("Most rounds")
    assert all(move["text"] for move in final["moves"]), "the end reveals every choice"
    assert "email" not in final["players"][0], "public records never show addresses"


def test_api_refusals_are_problem_json(settings, client) -> None:
    token = create_match("nim", ["a@example.org", "b@example.org"], {}, settings.secret_key,
                         START).tokens[0]
    url = f"/api/play/{token}"
    cases = [
        (client.post(url, data="{not json", content_type="application/json"), 400, "JSON object"),
        (client.post(url, data="take 1", content_type="text/plain"), 400, "Content-Type"),
        (client.post(url, json=["take 1"]), 400, "JSON object"),
        (client.post(url, json={"move": "take 1"}), 400, '"ply"'),
        (client.post(url, json={"move": 3, "ply": 0}), 400, '"move"'),
        (client.post(url, json={"move": "take 1", "ply": True}), 400, '"ply"'),
        (client.post(url, json={"move": "take 9", "ply": 0}), 422, "you cannot take 9"),
        (client.post(url, json={"move": "fly", "ply": 0}), 422, "'fly' is not a move"),
        (client.post(url, json={"move": "take 1", "ply": 5}), 409, "at move 0, not 5"),
        (client.get("/api/play/bogus"), 404, "not valid"),
        (client.post("/api/play/bogus", json={"move": "take 1", "ply": 0}), 404, "not valid"),
        (client.get("/api/matches/999"), 404, "no match 999"),
        (client.get("/api/matches/1?ply=x"), 400, "ply must be a move number"),
        (client.get("/api/matches/1?ply=4"), 404, "moves 0 to 0"),
        (client.post(url, data="x" * 100_000, content_type="application/json"), 413,
         "too large"),
    ]
    for response, status, detail in cases:
        body = response.get_json(force=True)
        assert response.status_code == status, (status, body)
        assert response.mimetype == "application/problem+json"
        assert body["status"] == status and detail in body["detail"], body
    assert Match.get().ply == 0
    assert client.post(url, json={"move": "take 1", "ply": 0}).status_code == 200
    repeat = client.post(url, json={"move": "take 1", "ply": 0})
    assert repeat.status_code == 409 and "already moved" in repeat.get_json()["detail"]


def test_every_seat_is_numbered_from_1_beside_its_index_as_pages_name_it(settings,
                                                                         client) -> None:
    created = create_match("mimic-taking", PLAYERS, {}, settings.secret_key, START, seed=3)
    for seat, token in enumerate(created.tokens):
        record = client.get(f"/api/play/{token}").get_json()
        assert (record["seat"], record["seat_number"]) == (seat, seat + 1)
        for listed in (record["players"], record["clocks"]):
            assert [(p["seat"], p["seat_number"]) for p in listed] == [(0, 1), (1, 2), (2, 3)]
        page = client.get(f"/play/{token}").get_data(as_text=True)
        # Mimic Taking names seats by number: the page says the same number the API gives.
        assert f"Player {record['seat_number']}" in page
        assert record["seat_label"] == f"Player {record['seat_number']}"
    public = client.get(f"/api/matches/{created.match.id}").get_json()
    assert [p["seat_number"] for p in public["players"]] == [1, 2, 3]
