"""The session forms' CSRF check (`pbem.web.site.csrf`): a form must bring back a fresh
signature of its own session's token; on HTTPS the referrer must be this site too. Sign-in
(`POST /signin`) is the form every visitor has, so it is the one tried here."""

from __future__ import annotations

import logging
import time
import types

import itsdangerous.timed
import pytest
from itsdangerous import URLSafeTimedSerializer

from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.keys import Purpose, purpose_key
from tests.support.players import csrf_from

EMAIL = "ann@example.org"
# What the person reads, whatever the reason (the reason goes to the log).
REFUSED = "This form has expired or did not come from this site"


def ask_for_a_link(client, token: str | None, **options):
    data = {"email": EMAIL} | ({"csrf_token": token} if token is not None else {})
    return client.post("/signin", data=data, **options)


def test_a_form_with_its_own_sessions_token_goes_through(client) -> None:
    token = csrf_from(client.get("/signin").data)
    assert ask_for_a_link(client, token).status_code in (200, 303)
    assert OutboxMessage.select().count() == 1


@pytest.mark.parametrize(("case", "reason"), [
    pytest.param(case, reason, id=case) for case, reason in (
        ("missing", "The CSRF token is missing."),
        ("garbage", "The CSRF token is invalid."),
        ("another session's", "The CSRF tokens do not match."),
        ("a day old", "The CSRF token has expired."))])
def test_a_form_without_a_good_token_is_refused_and_changes_nothing(
        app, client, monkeypatch, caplog, case, reason) -> None:
    token = csrf_from(client.get("/signin").data)  # this browser has a session token
    if case == "a day old":
        # The form was opened 25 hours ago: its token is past the 24-hour limit.
        then = time.time() - 25 * 3600
        with monkeypatch.context() as past:
            past.setattr(itsdangerous.timed, "time", types.SimpleNamespace(time=lambda: then))
            token = csrf_from(client.get("/signin").data)
    token = {"missing": None, "garbage": "not.a.token",
             "another session's": csrf_from(app.test_client().get("/signin").data)
             }.get(case, token)
    with caplog.at_level(logging.INFO, logger="pbem.web.site.csrf"):
        refused = ask_for_a_link(client, token)
    assert refused.status_code == 400 and REFUSED in refused.get_data(as_text=True)
    assert reason in caplog.text
    assert OutboxMessage.select().count() == 0


def test_a_token_without_a_session_is_refused(app, client, caplog) -> None:
    token = csrf_from(client.get("/signin").data)
    fresh = app.test_client()  # no session cookie: the token alone proves nothing
    with caplog.at_level(logging.INFO, logger="pbem.web.site.csrf"):
        assert ask_for_a_link(fresh, token).status_code == 400
    assert "The CSRF session token is missing." in caplog.text
    assert OutboxMessage.select().count() == 0


@pytest.mark.parametrize("header", ["X-CSRFToken", "X-CSRF-Token"])
def test_the_token_may_come_in_a_header(client, header) -> None:
    token = csrf_from(client.get("/signin").data)
    assert client.post("/signin", data={"email": EMAIL},
                       headers={header: token}).status_code in (200, 303)
    assert OutboxMessage.select().count() == 1


def test_a_session_token_that_is_not_text_is_refused(client) -> None:
    token = csrf_from(client.get("/signin").data)
    with client.session_transaction() as session:
        session["csrf_token"] = ["not", "text"]
    assert ask_for_a_link(client, token).status_code == 400


def test_a_token_signed_with_another_key_is_refused(app, client) -> None:
    csrf_from(client.get("/signin").data)
    with client.session_transaction() as session:
        raw = session["csrf_token"]
    # The session's own token, signed with the session cookie's key instead of the CSRF key.
    forged = URLSafeTimedSerializer(app.config["SECRET_KEY"], salt="wtf-csrf-token").dumps(raw)
    assert app.config["CSRF_SECRET_KEY"] == purpose_key(
        app.config["PBEM_SETTINGS"].secret_key, Purpose.CSRF) != app.config["SECRET_KEY"]
    assert ask_for_a_link(client, forged).status_code == 400


def test_on_https_the_referrer_must_be_this_site(client) -> None:
    secure = {"base_url": "https://pbem.test"}
    token = csrf_from(client.get("/signin", **secure).data)
    for referrer in (None, "https://evil.example/signin", "http://pbem.test/signin"):
        headers = {"Referer": referrer} if referrer else {}
        assert ask_for_a_link(client, token, headers=headers, **secure).status_code == 400
    assert OutboxMessage.select().count() == 0
    same = ask_for_a_link(client, token, headers={"Referer": "https://pbem.test/signin"},
                          **secure)
    assert same.status_code in (200, 303) and OutboxMessage.select().count() == 1


def test_forms_that_authenticate_otherwise_need_no_token(client, settings, clock) -> None:
    """The exempt blueprints are listed in `create_app`: a seat's page is opened by its
    private link, which a cross-site page cannot know; the language switch only picks the
    language pages speak, and is pressed on seat pages, which carry no session."""
    seat = create_match("mimic", [EMAIL, "ben@example.org"], {}, settings.secret_key,
                        clock.now).tokens[0]
    reached = client.post(f"/play/{seat}", data={"move": "", "ply": "0"})
    assert reached.status_code == 422 and b"Choose a move or type one." in reached.data
    assert client.post("/language", data={"language": "de"}).status_code == 303
