"""One secret, one key per purpose: a credential signed for one purpose never opens another."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest
from flask.sessions import SecureCookieSessionInterface

from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Seat
from pbem.core.matches.seat_links import reissue, seat_for_token, token_for, token_hash
from pbem.errors import NotFoundError
from pbem.keys import Purpose, purpose_key
from tests.conftest import START

PLAYERS = ["ann@example.org", "ben@example.org"]


def _link(key: bytes, match_id: int, seat: int, generation: int = 1) -> str:
    message = f"pbem-seat-link:{match_id}:{seat}:{generation}".encode()
    digest = hmac.new(key, message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def test_every_purpose_has_its_own_key() -> None:
    secret = "s" * 10
    keys = {purpose: purpose_key(secret, purpose) for purpose in Purpose}
    assert len(set(keys.values())) == len(Purpose)
    assert all(len(key) == 32 and secret.encode() not in key for key in keys.values())
    assert purpose_key(secret, Purpose.SEAT_LINK) != purpose_key(secret + "x", Purpose.SEAT_LINK)


def test_a_seat_link_made_with_another_purposes_key_does_not_open(settings) -> None:
    match = create_match("nim", PLAYERS, {}, settings.secret_key, START).match
    right = _link(purpose_key(settings.secret_key, Purpose.SEAT_LINK), match.id, 1)
    assert seat_for_token(right).seat == 1
    wrong_keys = [purpose_key(settings.secret_key, purpose)
                  for purpose in Purpose if purpose != Purpose.SEAT_LINK]
    # The secret itself signing the link (what a stolen key would forge) opens nothing either.
    for key in [*wrong_keys, settings.secret_key.encode()]:
        with pytest.raises(NotFoundError):
            seat_for_token(_link(key, match.id, 1))


def test_links_made_before_per_purpose_keys_keep_working_until_reissued(settings) -> None:
    """An upgraded server: the seat's stored hash is of a link signed with the bare secret."""
    match = create_match("nim", PLAYERS, {}, settings.secret_key, START).match
    seat = Seat.get(Seat.match == match, Seat.seat == 0)
    old_link = _link(settings.secret_key.encode(), match.id, 0)
    seat.token_hash = token_hash(old_link)
    seat.save()
    assert token_for(settings.secret_key, seat) == old_link, "later mails carry the same link"
    assert seat_for_token(old_link).id == seat.id
    fresh = reissue(settings.secret_key, seat)
    assert fresh == _link(purpose_key(settings.secret_key, Purpose.SEAT_LINK), match.id, 0, 2)
    assert token_for(settings.secret_key, seat) == fresh
    with pytest.raises(NotFoundError):
        seat_for_token(old_link)


def test_a_session_cookie_signed_with_the_bare_secret_is_refused(app, client) -> None:
    def cookie(secret: str | bytes) -> str:
        # What someone who recovered the configured secret would try: sign a session with it.
        app.secret_key = secret
        signer = SecureCookieSessionInterface().get_signing_serializer(app)
        return signer.dumps({"admin": "boss@example.org"})

    session_key = app.secret_key
    forged = cookie(app.config["PBEM_SETTINGS"].secret_key)
    app.secret_key = session_key
    client.set_cookie("session", forged)
    answer = client.get("/admin")
    assert answer.status_code == 302 and "/admin/login" in answer.location
