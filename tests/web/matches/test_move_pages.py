"""The move list comes a page at a time on play pages, public pages and the API."""

from __future__ import annotations

import pytest

from pbem.core.matches.creation import create_match
from pbem.core.matches.play import submit_move
from pbem.core.records import match_record
from tests.conftest import START

PAIR = ["ann@example.org", "ben@example.org"]


@pytest.fixture
def long_nim(settings, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(match_record, "MOVES_PER_PAGE", 4)
    monkeypatch.setattr(match_record, "SEAT_MOVES_PER_PAGE", 4)
    created = create_match("nim", PAIR, {"pile": "30"}, settings.secret_key, START)
    for ply in range(10):
        submit_move(created.match.id, ply % 2, "take 1", ply, START)
    return created


def _plies(data: bytes) -> list[int]:
    import re

    return [int(n) for n in re.findall(rb'<li value="(\d+)"', data)]


def test_the_public_page_lists_the_latest_moves_and_links_to_earlier_ones(client, long_nim
                                                                           ) -> None:
    match_id = long_nim.match.id
    page = client.get(f"/matches/{match_id}")
    assert _plies(page.data) == [7, 8, 9, 10]
    assert b"moves 7\xe2\x80\x9310 of 10" in page.data
    assert f'href="/matches/{match_id}?moves=6"'.encode() in page.data
    earlier = client.get(f"/matches/{match_id}?moves=6")
    assert _plies(earlier.data) == [3, 4, 5, 6]
    assert f'href="/matches/{match_id}?moves=2"'.encode() in earlier.data
    assert f'href="/matches/{match_id}?moves=10"'.encode() in earlier.data
    # Replaying an old ply shows the page of the list that holds it, and keeps that page.
    old = client.get(f"/matches/{match_id}?ply=3")
    assert b"after move 3 of 10" in old.data and _plies(old.data) == [1, 2, 3, 4]
    assert b'<li value="3" class="current" aria-current="step">' in old.data
    assert f'href="/matches/{match_id}?ply=5&amp;moves=6"'.encode() in earlier.data
    # A move number the match has not reached is unprocessable; one that is no number at all
    # is malformed.
    for bad, status in (("0", 422), ("11", 422), ("x", 400)):
        assert client.get(f"/matches/{match_id}?moves={bad}").status_code == status


def test_the_play_page_and_the_api_page_the_move_list_too(client, long_nim) -> None:
    token = long_nim.tokens[0]
    assert _plies(client.get(f"/play/{token}").data) == [7, 8, 9, 10]
    assert _plies(client.get(f"/play/{token}?moves=5").data) == [2, 3, 4, 5]
    looking_back = client.get(f"/play/{token}?ply=2").data
    assert _plies(looking_back) == [1, 2, 3, 4]
    assert b'<li value="2" class="current" aria-current="step">' in looking_back
    api = client.get(f"/api/play/{token}?moves=4").get_json()
    assert [m["ply"] for m in api["moves"]] == [1, 2, 3, 4]
    assert api["moves_page"] == {"first": 1, "last": 4, "total": 10, "earlier": None,
                                 "later": 8}
    public = client.get(f"/api/matches/{long_nim.match.id}").get_json()
    assert [m["ply"] for m in public["moves"]] == [7, 8, 9, 10]
    assert public["moves_page"]["earlier"] == 6 and public["moves_page"]["later"] is None
    bad = client.get(f"/api/matches/{long_nim.match.id}?moves=99")
    assert bad.status_code == 422 and "from 1 to 10" in bad.get_json()["detail"]
