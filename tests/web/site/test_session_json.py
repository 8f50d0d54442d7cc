"""The session cookie carries a message across a redirect, and a cookie an earlier release
wrote (Flask's tagged JSON, or plain JSON with a message's pair as a list) is still read."""

from __future__ import annotations

import json

import pytest
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import URLSafeTimedSerializer


def test_a_message_survives_the_redirect(client, app) -> None:
    @app.get("/test-flash")
    def flashing():  # pragma: no cover - a route for this test alone
        from flask import flash, redirect
        flash("Ihr Zug wurde gemacht: ä ö ü 日本", "ok")
        return redirect("/games")
    page = client.get("/test-flash", follow_redirects=True)
    assert "Ihr Zug wurde gemacht: ä ö ü 日本" in page.get_data(as_text=True)


def _plain_json_signer(app) -> URLSafeTimedSerializer:
    """How releases before issue 50 wrote a session holding only what JSON holds: plain JSON,
    signed as Flask signs its cookies."""
    interface = SecureCookieSessionInterface()
    return URLSafeTimedSerializer(app.secret_key, salt=interface.salt, serializer=json,
                                  signer_kwargs={"key_derivation": interface.key_derivation,
                                                 "digest_method": interface.digest_method})


@pytest.mark.parametrize("written_as", ["tagged", "plain JSON"])
def test_a_cookie_written_before_is_still_read(client, app, written_as: str) -> None:
    """A session cookie as Flask tags it (the pair a tuple) or as an earlier release wrote it
    in plain JSON (the pair a list) still carries its message."""
    session = {"_flashes": [("ok", "Schon gespeichert: ä 日本")]}
    if written_as == "tagged":
        signer = SecureCookieSessionInterface().get_signing_serializer(app)
        assert signer is not None
        assert '" t"' in signer.serializer.dumps(session)
        old = signer.dumps(session)
    else:
        old = _plain_json_signer(app).dumps(session)
    client.set_cookie(app.config.get("SESSION_COOKIE_NAME", "session"), old)
    page = client.get("/games")
    assert "Schon gespeichert: ä 日本" in page.get_data(as_text=True)
