"""The session cookie is written as plain JSON when the session holds only what JSON holds,
and as Flask tags it otherwise; either reads back as it was written (a pair as a list)."""

from __future__ import annotations

import json

from markupsafe import Markup

from pbem.web import _Sessions


def test_plain_values_are_written_as_plain_json_and_read_back() -> None:
    serializer = _Sessions.serializer
    value = {"_flashes": [("ok", "Dein Zug a1-b2 wurde gemacht."), ("error@chat", "…")],
             "csrf_token": "ab" * 20, "count": 3, "flag": True, "none": None}
    written = serializer.dumps(value)
    assert json.loads(written) == {**value, "_flashes": [list(pair) for pair in
                                                         value["_flashes"]]}
    assert serializer.loads(written) == json.loads(written)


def test_what_json_does_not_hold_is_tagged_as_flask_tags_it(app) -> None:
    from flask.json.tag import TaggedJSONSerializer

    serializer, flasks = _Sessions.serializer, TaggedJSONSerializer()
    with app.app_context():  # as a request writes it (Flask's JSON then is the app's)
        for value in ({"_flashes": [("ok", Markup("<b>made</b>"))]}, {"when": b"bytes"},
                      {"looks": {" t": ["like a tag"]}}, {"lone": "\ud800"}):
            written = serializer.dumps(value)
            if value != {"lone": "\ud800"}:
                assert written == flasks.dumps(value)
            assert serializer.loads(written) == value
            written.encode()  # ASCII, as Flask's: nothing in it that UTF-8 cannot carry
    marked = serializer.loads(serializer.dumps({"m": [("ok", Markup("<b>x</b>"))]}))
    assert isinstance(marked["m"][0][1], Markup)


def test_a_message_survives_the_redirect(client, app) -> None:
    @app.get("/test-flash")
    def flashing():  # pragma: no cover - a route for this test alone
        from flask import flash, redirect
        flash("Ihr Zug wurde gemacht: ä ö ü 日本", "ok")
        return redirect("/games")
    page = client.get("/test-flash", follow_redirects=True)
    assert "Ihr Zug wurde gemacht: ä ö ü 日本" in page.get_data(as_text=True)


def test_an_empty_session_left_as_it_was_sets_no_cookie(app) -> None:
    from flask import Response
    from flask.sessions import SecureCookieSession

    interface = app.session_interface
    with app.test_request_context("/"):
        untouched = Response("x")
        interface.save_session(app, SecureCookieSession(), untouched)
        assert "Set-Cookie" not in untouched.headers and "Vary" not in untouched.headers
        read = SecureCookieSession()
        read.accessed = True  # read, not changed: the answer varies by the cookie
        answered = Response("x")
        interface.save_session(app, read, answered)
        assert "Set-Cookie" not in answered.headers and answered.headers["Vary"] == "Cookie"
        emptied = SecureCookieSession({"_flashes": []})
        emptied.pop("_flashes")  # emptied: the cookie is removed, as Flask removes it
        removed = Response("x")
        interface.save_session(app, emptied, removed)
        assert "Expires=Thu, 01 Jan 1970" in removed.headers["Set-Cookie"]


def test_a_cookie_written_before_is_still_read(client, app) -> None:
    """A session cookie as Flask wrote it (tagged: the pair a tuple) still carries its
    message and its CSRF token."""
    from flask.sessions import SecureCookieSessionInterface

    signer = SecureCookieSessionInterface().get_signing_serializer(app)
    assert signer is not None
    old = signer.dumps({"_flashes": [("ok", "Schon gespeichert: ä 日本")]})
    assert '" t"' in signer.serializer.dumps({"_flashes": [("ok", "x")]})
    client.set_cookie(app.config.get("SESSION_COOKIE_NAME", "session"), old)
    page = client.get("/games")
    assert "Schon gespeichert: ä 日本" in page.get_data(as_text=True)
