"""Kept JSON answers (pbem/web/site/kept_answers.py): a seat's record read again is the same
bytes without being encoded again, with an ETag that a polling client sends back for a 304;
whatever changes the record changes the answer and its tag."""

from __future__ import annotations

import json

import pytest

from pbem.core.matches.creation import create_match
from pbem.core.matches.play import submit_move
from pbem.web.site import kept_answers

PAIR = ["ann@example.org", "ben@example.org"]


@pytest.fixture
def nim(settings, clock):
    return create_match("nim", PAIR, {"pile": "30"}, settings.secret_key, clock.now,
                        time_control="2d")


@pytest.fixture
def encodings(app, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The values the app encoded as JSON (not taken from the kept answers)."""
    made: list[object] = []
    real = app.json.dumps

    def counting(value, **options):
        if isinstance(value, dict) and "match" in value:  # a record (not a session cookie)
            made.append(value)
        return real(value, **options)
    monkeypatch.setattr(app.json, "dumps", counting)
    return made


def test_a_record_read_again_is_the_answer_kept(client, app, nim, encodings) -> None:
    path = f"/api/play/{nim.tokens[0]}"
    first = client.get(path)
    again = client.get(path)
    assert first.status_code == again.status_code == 200
    assert again.data == first.data and again.headers["ETag"] == first.headers["ETag"]
    assert len(encodings) == 1  # the second answer was not encoded again
    assert first.mimetype == "application/json" and again.headers["Cache-Control"] == "no-store"
    # The same bytes as encoding it afresh.
    app.extensions["pbem_kept_answers"].clear()
    assert client.get(path).data == first.data and len(encodings) == 2
    assert json.loads(first.data)["seat"] == 0


def test_a_client_sending_the_etag_back_gets_304(client, nim) -> None:
    path = f"/api/play/{nim.tokens[0]}"
    tag = client.get(path).headers["ETag"]
    unchanged = client.get(path, headers={"If-None-Match": tag})
    assert unchanged.status_code == 304 and unchanged.data == b""
    assert unchanged.headers["ETag"] == tag
    other = client.get(path, headers={"If-None-Match": '"something-else"'})
    assert other.status_code == 200 and other.headers["ETag"] == tag


def test_whatever_changes_the_record_changes_the_answer_and_its_tag(client, nim,
                                                                   clock) -> None:
    path = f"/api/play/{nim.tokens[0]}"
    first = client.get(path)
    tag = first.headers["ETag"]
    # Time passing changes the deadline's words (no match version moves).
    clock.advance(days=1)
    later = client.get(path, headers={"If-None-Match": tag})
    assert later.status_code == 200 and later.headers["ETag"] != tag
    assert later.get_json()["deadline"]["left"] != first.get_json()["deadline"]["left"]
    # Another language, another answer.
    german = client.get(path, headers={"Accept-Language": "de",
                                       "If-None-Match": later.headers["ETag"]})
    assert german.status_code == 200 and german.headers["ETag"] != later.headers["ETag"]
    # A move.
    submit_move(nim.match.id, 0, "take 1", 0, clock.now)
    moved = client.get(path, headers={"If-None-Match": later.headers["ETag"]})
    assert moved.status_code == 200 and moved.get_json()["ply"] == 1
    # Each seat its own answer.
    assert client.get(f"/api/play/{nim.tokens[1]}").headers["ETag"] != moved.headers["ETag"]


def test_a_large_answer_is_answered_but_not_kept(app, client, nim,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kept_answers, "LARGEST", 100)
    answer = client.get(f"/api/play/{nim.tokens[0]}")
    assert answer.status_code == 200 and len(answer.data) > 100
    assert len(app.extensions["pbem_kept_answers"]) == 0


def test_the_oldest_answers_make_room(app) -> None:
    answers = kept_answers.KeptAnswers(size=2)
    with app.test_request_context("/"):
        for value in ({"a": 1}, {"a": 2}, {"a": 3}, {"a": 1}):
            assert answers.answer(value).get_json() == value
    assert len(answers) == 2


def test_the_tag_changes_when_only_the_board_does(client, app, nim, monkeypatch) -> None:
    """The record's board, moves and legal moves are keyed by their digest, made once per
    match version: another worker, or another release, whose rules draw the same version's
    board otherwise gives another tag, and a client's old one no longer answers 304."""
    from pbem.core.db.memo import forget_all
    from pbem.games import REGISTRY

    path = f"/api/play/{nim.tokens[0]}"
    first = client.get(path)
    tag = first.headers["ETag"]
    app.extensions["pbem_kept_answers"].clear()
    forget_all()  # a new worker: nothing kept, nothing remembered
    rules = type(REGISTRY["nim"])
    drawn = rules.render_text
    monkeypatch.setattr(rules, "render_text",
                        lambda self, view, over=False: drawn(self, view, over) + " (new)")
    again = client.get(path, headers={"If-None-Match": tag})
    assert again.status_code == 200 and again.headers["ETag"] != tag
    assert again.get_json()["board_text"] != first.get_json()["board_text"]
