"""Messages after a form (pbem/web/site/flashes.py): a session keeps only the latest few
waiting, so a client posting form after form without following the redirects keeps a cookie
browsers accept (and with it the session's CSRF token)."""

from __future__ import annotations

from flask import flash, session

from pbem.core.matches.creation import create_match
from pbem.web.site import flashes
from tests.conftest import START


def test_a_session_keeps_the_latest_messages_waiting(app) -> None:
    with app.test_request_context("/", method="POST"):
        for number in range(30):
            flash(f"message {number}", "ok")
        app.process_response(app.response_class())
        assert session["_flashes"] == [("ok", f"message {number}")
                                       for number in range(30 - flashes.WAITING, 30)]


def test_moves_posted_without_following_the_redirects_keep_the_cookie_small(
        client, settings) -> None:
    created = create_match("nim", ["ann@example.org", "ben@example.org"], {"pile": "30"},
                           settings.secret_key, START)
    sizes = []
    for ply in range(24):
        posted = client.post(f"/play/{created.tokens[ply % 2]}",
                             data={"move": "take 1", "ply": str(ply)})
        assert posted.status_code == 303
        cookie = client.get_cookie("session")
        sizes.append(len(cookie.value))
    # It stopped growing once the latest few were kept, well under the 4 KB browsers take
    # (each message is its own length: "29 left", "9 left").
    kept_full = sizes[flashes.WAITING:]
    assert max(kept_full) - min(kept_full) < 40 and max(sizes) < 2000, sizes
    page = client.get(f"/play/{created.tokens[0]}").get_data(as_text=True)
    assert page.count("was made.") == flashes.WAITING
    assert client.get(f"/play/{created.tokens[0]}").get_data(as_text=True).count(
        "was made.") == 0  # shown once
