"""The seat's own poll (`/play/<token>/ply`) answers as the public one and notes that the seat
is looking; the seat's page and its API record note it too; a wrong token is a 404, never a
look noted."""

from __future__ import annotations

from pbem.core.matches.creation import create_match
from pbem.core.presence import seen
from pbem.core.presence.models import Presence
from tests.conftest import STRONG_KEY

PAIR = ["ann@example.org", "ben@example.org"]


def test_the_seat_poll_answers_like_the_public_one_and_notes_the_look(client, clock) -> None:
    seen.forget_written()
    created = create_match("nim", PAIR, {}, STRONG_KEY, clock.now)
    match_id = created.match.id
    public = client.get(f"/matches/{match_id}/ply")
    own = client.get(f"/play/{created.tokens[1]}/ply")
    assert own.status_code == 200 and own.get_json() == public.get_json()
    assert own.headers["ETag"] == public.headers["ETag"]
    assert seen.last_seen(match_id, 1) == clock.now
    again = client.get(f"/play/{created.tokens[1]}/ply",
                       headers={"If-None-Match": own.headers["ETag"]})
    assert again.status_code == 304
    assert seen.last_seen(match_id, 0) is None


def test_the_page_and_the_api_note_the_look(client, clock) -> None:
    seen.forget_written()
    created = create_match("nim", PAIR, {}, STRONG_KEY, clock.now)
    assert client.get(f"/play/{created.tokens[0]}").status_code == 200
    assert client.get(f"/api/play/{created.tokens[1]}").status_code == 200
    assert {row.seat for row in Presence.select()} == {0, 1}


def test_a_wrong_token_notes_nothing(client) -> None:
    answer = client.get("/play/not-a-token/ply")
    assert answer.status_code == 404
    assert Presence.select().count() == 0
