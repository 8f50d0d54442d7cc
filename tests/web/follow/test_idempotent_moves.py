"""A move sent twice with one idempotency key is made once, and the second copy is answered
as done (the page: "already made"; the API: 409 problem+json), even when both copies race
through the door at once; a malformed key is refused with a reason."""

from __future__ import annotations

from datetime import datetime, timedelta

from pbem.core.matches.changes import AlreadyDoneError
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Move
from pbem.core.matches.play import submit_move
from pbem.errors import ConflictError
from tests.conftest import START, STRONG_KEY
from tests.support.threads import race

ANN, BEN = "ann@example.org", "ben@example.org"


def test_the_page_makes_a_keyed_move_once(client) -> None:
    created = create_match("nim", [ANN, BEN], {}, STRONG_KEY, START)
    link = f"/play/{created.tokens[0]}"
    form = {"move_text": "take 1", "ply": "0", "idempotency_key": "k-1"}
    assert client.post(link, data=form).status_code == 303
    again = client.post(link, data=form, follow_redirects=True)
    assert "Your move was already made." in again.data.decode()
    assert Move.select().count() == 1
    bad = client.post(link, data={**form, "idempotency_key": "not a key!"})
    assert bad.status_code == 400 and Move.select().count() == 1


def test_the_api_makes_a_keyed_move_once(client) -> None:
    created = create_match("nim", [ANN, BEN], {}, STRONG_KEY, START)
    path = f"/api/play/{created.tokens[0]}"
    body = {"move": "take 1", "ply": 0, "idempotency_key": "api-1"}
    assert client.post(path, json=body).status_code == 200
    again = client.post(path, json=body)
    assert again.status_code == 409 and again.content_type == "application/problem+json"
    assert Move.select().count() == 1


def test_two_copies_racing_make_one_move(db_url: str) -> None:
    """Repeated: each round sends one move twice at once with the same key."""
    for round_number in range(6):
        match_id = create_match("nim", [ANN, BEN], {}, STRONG_KEY, START).match.id
        at = START + timedelta(minutes=round_number)
        outcomes = race(*[lambda m=match_id, t=at: _submit(m, t) for _ in range(2)])
        assert Move.select().where(Move.match == match_id).count() == 1
        assert sorted(outcomes) == ["done", "made"], outcomes


def _submit(match_id: int, at: datetime) -> str:
    try:
        submit_move(match_id, 0, "take 1", 0, at, idempotency_key="same")
    except AlreadyDoneError:
        return "done"
    except ConflictError:
        return "stale"  # the copy seen as another move: what the key is there to prevent
    return "made"
