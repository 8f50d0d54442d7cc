"""The players' JSON API with Bearer tokens: who am I, challenges (create, accept, decline,
cancel, read), seeks and rematches; 401 without a token, 403/404 for someone else's
challenge, 400/422 with a message for a bad body, and nothing changed by a refused request."""

from __future__ import annotations

import pytest

from pbem.core.accounts import api_tokens
from pbem.core.accounts.models import Player
from pbem.core.lobby.models import Challenge, Seek
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match
from pbem.core.matches.play import submit_move
from tests.conftest import START
from tests.core.db.test_pipeline import POSTGRES_ONLY, waits
from tests.support.players import last_mail, link_in

ANN, BEN, CY = "ann@example.org", "ben@example.org", "cy@example.org"


@pytest.fixture
def tokens(settings) -> dict[str, dict[str, str]]:
    made = {}
    for email in (ANN, BEN, CY):
        _, token = api_tokens.create(settings.secret_key, Player.for_email(email, START),
                                     "tests", START, scopes=("read", "play", "account"))
        made[email] = {"Authorization": f"Bearer {token}"}
    return made


def test_no_token_or_a_bad_one_is_401_problem_json(client, tokens) -> None:
    # No token (or another scheme) is asked for one; a token sent is said to be invalid.
    for headers, words in (({}, "Bearer"), ({"Authorization": "Basic x"}, "Bearer"),
                           ({"Authorization": "Bearer pbem_wrong"}, "not valid")):
        reply = client.get("/api/me", headers=headers)
        assert reply.status_code == 401 and reply.mimetype == "application/problem+json"
        assert words in reply.get_json()["detail"]
    assert client.post("/api/challenges", json={"game": "nim", "opponents": [BEN]}
                       ).status_code == 401
    assert Challenge.select().count() == 0


def test_a_browser_cookie_does_not_open_the_api(app, client, worker, smtp) -> None:
    from tests.support.players import sign_in

    sign_in(client, ANN, worker, smtp)
    assert client.get("/me").status_code == 200
    assert client.get("/api/me").status_code == 401


def test_challenge_accept_and_me_through_the_api(client, tokens, worker, smtp) -> None:
    made = client.post("/api/challenges", headers=tokens[ANN], json={
        "game": "nim", "opponents": [BEN], "options": {"pile": 5}, "clock": "3d",
        "on_timeout": "forfeit", "seat_order": "as-listed"})
    assert made.status_code == 201
    body = made.get_json()
    assert body["status"] == "pending" and set(body) == {"id", "status"}
    challenge_id = body["id"]
    worker.run_once()
    assert link_in(last_mail(smtp, BEN, "challenges you"), "/invites/")
    seen = client.get(f"/api/challenges/{challenge_id}", headers=tokens[BEN]).get_json()
    assert seen["match"] is None and seen["challenger"] == "ann" and "email" not in str(seen)
    me = client.get("/api/me", headers=tokens[BEN]).get_json()
    assert [c["id"] for c in me["challenges"]["received"]] == [challenge_id]
    # Someone else's challenge: 403 for its sender, 404 for a stranger; nothing changes.
    assert client.post(f"/api/challenges/{challenge_id}/accept", headers=tokens[ANN]
                       ).status_code == 403
    assert client.post(f"/api/challenges/{challenge_id}/accept", headers=tokens[CY]
                       ).status_code == 404
    assert client.get(f"/api/challenges/{challenge_id}", headers=tokens[CY]).status_code == 404
    assert client.post(f"/api/challenges/{challenge_id}/cancel", headers=tokens[BEN]
                       ).status_code == 403
    assert Challenge.get().status == "pending" and Match.select().count() == 0
    accepted = client.post(f"/api/challenges/{challenge_id}/accept", headers=tokens[BEN])
    assert accepted.status_code == 200
    started = accepted.get_json()
    assert started["status"] == "started" and started["match"]["link"].startswith(
        "http://pbem.test/play/")
    me = client.get("/api/me", headers=tokens[ANN]).get_json()
    assert me["email"] == ANN and me["challenges"]["sent"][0]["match"]["id"] == started[
        "match"]["id"] if isinstance(me["challenges"]["sent"][0]["match"], dict) else True
    (match,) = me["matches"]
    assert match["your_turn"] and match["game"] == "nim" and match["deadline"].endswith("Z")
    assert match["link"].startswith("http://pbem.test/play/")
    assert client.get(match["link"].removeprefix("http://pbem.test")).status_code == 200


def test_decline_and_cancel_through_the_api(client, tokens, worker, smtp) -> None:
    first = client.post("/api/challenges", headers=tokens[ANN],
                        json={"game": "nim", "opponents": [BEN]}).get_json()["id"]
    declined = client.post(f"/api/challenges/{first}/decline", headers=tokens[BEN])
    assert declined.status_code == 200 and declined.get_json()["status"] == "declined"
    worker.run_once()
    assert last_mail(smtp, ANN, "declined")
    second = client.post("/api/challenges", headers=tokens[ANN],
                         json={"game": "nim", "opponents": [BEN]}).get_json()["id"]
    assert client.post(f"/api/challenges/{second}/cancel", headers=tokens[ANN]
                       ).get_json()["status"] == "cancelled"
    late = client.post(f"/api/challenges/{second}/accept", headers=tokens[BEN])
    assert late.status_code == 409 and "cancelled" in late.get_json()["detail"]


@pytest.mark.parametrize("body,status,words", [
    ("not json", 400, "JSON body"),
    ([1, 2], 400, "JSON object"),
    ({"opponents": [BEN]}, 400, '"game" is required'),
    ({"game": "nim"}, 400, '"opponents" is required'),
    ({"game": "nim", "opponents": BEN}, 400, '"opponents" must be a JSON list'),
    ({"game": "nim", "opponents": [1]}, 400, "list of email addresses"),
    ({"game": "nim", "opponents": []}, 400, "list of email addresses"),
    ({"game": "nim", "opponents": ["x@"]}, 400, "not a valid email address"),
    ({"game": "nim", "opponents": [BEN], "clock": 3}, 400, '"clock" must be a JSON string'),
    ({"game": "nim", "opponents": [BEN], "clock": "1d+9999999d/9999999d"}, None, ""),
    ({"game": "nim", "opponents": [BEN], "options": {"pile": 0}}, 422, "pile"),
    ({"game": "nim", "opponents": [BEN], "color": "red"}, 400, "unknown field"),
    ({"game": "nim", "opponents": [BEN], "seat_order": "x"}, 400, "seat order"),
    ({"game": "nim", "opponents": [BEN], "on_timeout": "x"}, 400, "timeout policy"),
    ({"game": "go", "opponents": [BEN]}, 422, "no game called"),
])
def test_every_bad_body_is_refused_with_a_message(client, tokens, body, status, words) -> None:
    mails = OutboxMessage.select().count()
    if isinstance(body, str):
        reply = client.post("/api/challenges", headers=tokens[ANN], data=body)
    else:
        reply = client.post("/api/challenges", headers=tokens[ANN], json=body)
    if status is None:  # absurd clocks are the clock module's to bound: never a 500
        assert reply.status_code < 500
        return
    assert reply.status_code == status, reply.get_json()
    assert reply.mimetype == "application/problem+json" and words in reply.get_json()["detail"]
    assert Challenge.select().count() == 0 and OutboxMessage.select().count() == mails


def test_seeks_and_a_rematch_through_the_api(client, tokens, clock) -> None:
    assert client.post("/api/seeks", headers=tokens[ANN], json={"game": "nim"}
                       ).status_code == 400
    made = client.post("/api/seeks", headers=tokens[ANN],
                       json={"game": "nim", "options": {"pile": 1}, "clock": "1d", "players": 2})
    assert made.status_code == 201
    seek_id = made.get_json()["id"]
    listed = client.get("/api/seeks", headers=tokens[BEN]).get_json()["seeks"]
    assert [s["id"] for s in listed] == [seek_id] and listed[0]["joined"] == ["ann"]
    joined = client.post(f"/api/seeks/{seek_id}/join", headers=tokens[BEN])
    assert joined.status_code == 200 and joined.get_json()["status"] == "started"
    assert client.post(f"/api/seeks/{seek_id}/join", headers=tokens[CY]).status_code == 409
    match = Match.get()
    assert client.post(f"/api/matches/{match.id}/rematch", headers=tokens[ANN]
                       ).status_code == 409  # still being played
    first = match.seat_rows()[0]
    submit_move(match.id, 0, "take 1", 0, clock.now)
    assert client.post(f"/api/matches/{match.id}/rematch", headers=tokens[CY]
                       ).status_code == 404
    rematch = client.post(f"/api/matches/{match.id}/rematch", headers=tokens[BEN])
    assert rematch.status_code == 201
    body = rematch.get_json()
    assert body["status"] == "pending" and body["rematch_of"] == match.id
    assert Challenge.get_by_id(body["id"]).seating[-1] == first.player_id  # seats rotated
    assert Seek.get().status == "started"


@pytest.mark.parametrize("db_url", POSTGRES_ONLY, indirect=True)
def test_me_waits_for_postgresql_once_for_its_reads(client, tokens, settings) -> None:
    """The token (with its player), then the five reads that need only the player (seats with
    matches, tables, challenges received and sent, the feed links' generation), sent ahead
    together: a polling client's two round trips, where each read waited for its own."""
    create_match("nim", [ANN, BEN], {}, settings.secret_key, START)
    assert client.get("/api/me", headers=tokens[ANN]).status_code == 200  # notes its use
    with waits() as seen:
        answer = client.get("/api/me", headers=tokens[ANN])
    assert seen == ["SELECT", "+".join(["SELECT"] * 5)], seen
    assert answer.status_code == 200 and len(answer.json["matches"]) == 1


def test_me_gives_the_calendar_feed_the_preferences_page_shows(client, tokens, settings) -> None:
    from pbem.core.mailout import links

    me = client.get("/api/me", headers=tokens[ANN]).get_json()
    feed = me["calendar_url"]
    assert feed.startswith("http://pbem.test/calendar/") and feed.endswith(".ics")
    page = client.get("/mail/preferences/" + links.preferences_token(
        settings.secret_key, Player.get(Player.email == ANN).id)).get_data(as_text=True)
    assert feed in page
    answer = client.get(feed.removeprefix("http://pbem.test"))
    assert answer.status_code == 200 and answer.mimetype == "text/calendar"
