"""Cross-site request forgery checks for the forms a browser session signs in to.

The synchronizer-token pattern (OWASP): the session cookie keeps a random token, each form
carries it signed and timestamped, and a POST (or PUT, PATCH, DELETE) must bring back a
signature of the session's own token that is younger than the time limit. On HTTPS the
referrer must also be this site, so a man in the middle on plain HTTP cannot plant a token.

It does what Flask-WTF's `CSRFProtect` does without importing Flask-WTF: pbem has no WTForms
forms, and Flask-WTF would bring all of WTForms and `urllib.request` into every web worker for
this one check. The session key, the signing salt and the token format are Flask-WTF's, so a
form opened under Flask-WTF still submits.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from urllib.parse import urlsplit

from flask import Flask, current_app, g, request, session
from itsdangerous import BadData, SignatureExpired, URLSafeTimedSerializer
from werkzeug.exceptions import BadRequest

from pbem.web.site import steps

log = logging.getLogger(__name__)

FIELD = "csrf_token"
HEADERS = ("X-CSRFToken", "X-CSRF-Token")
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_SALT = "wtf-csrf-token"  # Flask-WTF's, so tokens signed before the switch stay valid


class CSRFError(BadRequest):
    """A state-changing request without a valid token: the reason goes to the log, the person
    is told to reload the form (`pbem.web.site.errors`)."""

    description = "The CSRF token is missing or invalid."


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["CSRF_SECRET_KEY"], salt=_SALT)


def csrf_token() -> str:
    """The signed token a form carries (templates call it as `csrf_token()`). One per
    request, however many forms a page has."""
    signed: str | None = g.get(FIELD)
    if signed is None:
        if not isinstance(session.get(FIELD), str):
            session[FIELD] = secrets.token_hex(20)  # 40 hex digits, as Flask-WTF's
        signed = _serializer().dumps(session[FIELD])
        setattr(g, FIELD, signed)
    return signed


def validate(signed: str | None) -> None:
    """Raise `CSRFError` unless `signed` is a fresh signature of this session's token."""
    if not signed:
        raise CSRFError("The CSRF token is missing.")
    expected = session.get(FIELD)
    if not isinstance(expected, str):
        raise CSRFError("The CSRF session token is missing.")
    try:
        token = _serializer().loads(signed, max_age=current_app.config["CSRF_TIME_LIMIT"])
    except SignatureExpired as error:
        raise CSRFError("The CSRF token has expired.") from error
    except BadData as error:
        raise CSRFError("The CSRF token is invalid.") from error
    if not isinstance(token, str) or not hmac.compare_digest(expected, token):
        raise CSRFError("The CSRF tokens do not match.")


def _sent_token() -> str | None:
    return request.form.get(FIELD) or next(
        (value for name in HEADERS if (value := request.headers.get(name))), None)


def _same_origin(address: str, host: str) -> bool:
    parts = urlsplit(address)
    return parts.scheme == "https" and parts.netloc == host


def init_app(app: Flask, exempt_blueprints: frozenset[str]) -> None:
    """Check every unsafe request, except to `exempt_blueprints` (those that authenticate
    otherwise: see `create_app`). Tests of other things may set `CSRF_ENABLED` to False."""
    app.config.setdefault("CSRF_ENABLED", True)
    app.jinja_env.globals["csrf_token"] = csrf_token

    @steps.before_request(app)
    def _check() -> None:
        if (request.method not in UNSAFE_METHODS or not app.config["CSRF_ENABLED"]
                or request.endpoint is None or request.blueprint in exempt_blueprints):
            return
        try:
            validate(_sent_token())
            if request.is_secure:
                if not request.referrer:
                    raise CSRFError("The referrer header is missing.")
                if not _same_origin(request.referrer, request.host):
                    raise CSRFError("The referrer does not match the host.")
        except CSRFError as error:
            log.info("refused a form: %s", error.description)
            raise
