"""The session forms' CSRF check (`pbem.web.site.csrf`): a form must bring back a fresh
signature of its own session's token; on HTTPS the referrer must be this site too. Sign-in
(`POST /signin`) is the form every visitor has, so it is the one tried here."""

from __future__ import annotations

import pytest
from itsdangerous import URLSafeTimedSerializer

from pbem.core.mailout.models import OutboxMessage
from pbem.keys import Purpose, purpose_key
from tests.support.players import csrf_from

EMAIL = "ann@example.org"
EXPIRED = "This form has expired or did not come from this site"


def ask_for_a_link(client, token: str | None, **options):
    data = {"email": EMAIL} | ({"csrf_token": token} if token is not None else {})
    return client.post("/signin", data=data, **options)


def test_a_form_with_its_own_sessions_token_goes_through(client) -> None:
    token = csrf_from(client.get("/signin").data)
    assert ask_for_a_link(client, token).status_code in (200, 303)
    assert OutboxMessage.select().count() == 1


@pytest.mark.parametrize("case", ["missing", "garbage", "another session's", "expired"])
def test_a_form_without_a_good_token_is_refused_and_changes_nothing(app, client, case) -> None:
    csrf_from(client.get("/signin").data)  # this browser has a session token
    other = app.test_client()
    token = {"missing": None, "garbage": "not.a.token",
             "another session's": csrf_from(other.get("/signin").data),
             "expired": csrf_from(client.get("/signin").data)}[case]
    if case == "expired":
        app.config["CSRF_TIME_LIMIT"] = -1
    refused = ask_for_a_link(client, token)
    assert refused.status_code == 400 and EXPIRED in refused.get_data(as_text=True)
    assert OutboxMessage.select().count() == 0


def test_a_token_without_a_session_is_refused(app, client) -> None:
    token = csrf_from(client.get("/signin").data)
    fresh = app.test_client()  # no session cookie: the token alone proves nothing
    assert ask_for_a_link(fresh, token).status_code == 400


def test_the_token_may_come_in_a_header(client) -> None:
    token = csrf_from(client.get("/signin").data)
    assert client.post("/signin", data={"email": EMAIL},
                       headers={"X-CSRFToken": token}).status_code in (200, 303)


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


def test_a_seat_link_form_needs_no_token(client) -> None:
    """The exempt blueprints authenticate otherwise (a seat's link, a bearer token): they are
    listed in `create_app`; the language switch is one, pressed on pages with no session."""
    assert client.post("/language", data={"language": "de"}).status_code != 400
