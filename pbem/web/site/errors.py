"""Every error gets a clear answer: an HTML page, or problem+json under /api/. Never a 500 for
bad input; the service layer's messages are written to be shown as they are."""

from __future__ import annotations

import logging
import math
import re

import peewee
from flask import Flask, Response, jsonify, make_response, render_template, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from pbem.core.db import generation
from pbem.core.db.connection import (
    UNAVAILABLE,
    database,
    discard_connection,
    is_read_only,
    unavailable_reason,
)
from pbem.errors import PbemError, UnavailableError
from pbem.games.base import RulesError
from pbem.i18n import DEFAULT, N_, _, current, lazy_gettext
from pbem.web.site.csrf import CSRFError
from pbem.web.site.language import speak_now

log = logging.getLogger(__name__)

# problem+json keeps these English titles (clients may match them); the HTML error pages
# show them in the reader's language.
TITLES = {400: N_("Bad request"), 401: N_("Sign-in required"), 403: N_("Forbidden"),
          404: N_("Not found"), 405: N_("Method not allowed"),
          409: N_("Conflict"), 413: N_("Request too large"), 415: N_("Unsupported media type"),
          422: N_("Refused"), 429: N_("Too many requests"), 500: N_("Server error"),
          503: N_("Temporarily unavailable")}
UNAVAILABLE_DETAIL = N_("The game server cannot reach its database just now. Nothing was "
                        "changed; please try again in a few minutes.")
# What an HTTP error that no view raised says (werkzeug's own words are English).
HTTP_DETAILS = {
    400: N_("The request could not be read. Go back, reload the page and try again."),
    404: N_("There is nothing at this address."),
    405: N_("This address does not take that kind of request."),
    413: N_("That request is too large."),
    415: N_("This address does not take that kind of content."),
}
ERROR_TITLE = N_("Error")  # a status with no title of its own
RETRY_AFTER_SECONDS = 60


def connect_or_unavailable() -> None:
    """Open the request's database connection and read its generation first (what the
    request keeps is keyed with it), or raise UnavailableError (a 503 page)."""
    try:
        database.connect(reuse_if_open=True)
        generation.check()
    except UNAVAILABLE as error:
        log.error("database unavailable on %s %s: %s", request.method, request.path,
                  unavailable_reason(error))
        # Said when shown: the reader's language is not known yet (see `speak_now`).
        raise UnavailableError(lazy_gettext(UNAVAILABLE_DETAIL)) from None


def problem(status: int, detail: str) -> Response:
    response = jsonify({"type": "about:blank", "title": TITLES.get(status, "Error"),
                        "status": status, "detail": detail})
    response.status_code = status
    response.mimetype = "application/problem+json"
    return response


# JSON answered outside /api/ (the downloadable record, the waiting page's poll): its errors
# are problem+json too, so a script reading it never gets an HTML page.
# Addresses outside /api/ that answer JSON (a seat's live updates too): their errors are JSON.
_JSON_PATHS = re.compile(r"^/(?:matches/[^/]+/(?:record\.json|ply)|play/[^/]+/ply)$")


def wants_problem() -> bool:
    return (request.path.startswith(("/api/", "/inbound/"))
            or bool(_JSON_PATHS.match(request.path)))


def error_response(status: int, detail: str) -> Response | tuple[str, int]:
    speak_now()
    if wants_problem():
        return problem(status, detail)
    return render_template("errors/error.html", status=status,
                           title=_(TITLES.get(status, ERROR_TITLE)), detail=detail), status


def init_app(app: Flask) -> None:
    app.register_error_handler(PbemError, _service_error)
    for kind in UNAVAILABLE:
        app.register_error_handler(kind, _database_gone)
    app.register_error_handler(peewee.DatabaseError, _database_refused)
    app.register_error_handler(RulesError, _rules_error)
    app.register_error_handler(CSRFError, _csrf_error)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected)


def _service_error(error: PbemError) -> Response:
    # A message made before the reader's language was known is said in it now.
    speak_now()
    response = make_response(error_response(error.status, str(error)))
    if error.status == 503:
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    wait = getattr(error, "retry_after", None)  # a rate limit (accounts/limits.py) says
    if error.status == 429 and wait is not None:
        response.headers["Retry-After"] = str(max(1, math.ceil(wait.total_seconds())))
    return response


def _database_gone(error: Exception) -> Response:
    # The server went away mid-request (the transaction, if any, was not committed).
    log.error("database error on %s %s: %s", request.method, request.path,
              unavailable_reason(error))
    return _service_error(UnavailableError(lazy_gettext(UNAVAILABLE_DETAIL)))


def _database_refused(error: peewee.DatabaseError) -> Response | tuple[str, int]:
    # A read-only database (a standby after a failover) refuses writes: try again later.
    if is_read_only(error):
        discard_connection()  # the next request's connection finds the primary
        return _database_gone(error)
    return _unexpected(error)


def _rules_error(error: RulesError) -> Response | tuple[str, int]:
    return error_response(422, str(error))


def _csrf_error(error: CSRFError) -> Response | tuple[str, int]:
    return error_response(400, _("This form has expired or did not come from this site. "
                                 "Go back, reload the page and try again."))


def _http_error(error: HTTPException) -> Response:
    speak_now()
    status = error.code or 500
    if status in (404, 413):
        detail = _(HTTP_DETAILS[status])
    elif current() == DEFAULT and error.description:
        detail = error.description
    else:
        # werkzeug describes the error in English only.
        detail = _(HTTP_DETAILS.get(status) or TITLES.get(status, ERROR_TITLE))
    response = make_response(error_response(status, detail))
    if isinstance(error, MethodNotAllowed) and error.valid_methods:
        # RFC 9110: a 405 names the methods the address does take.
        response.headers["Allow"] = ", ".join(sorted(error.valid_methods))
    return response


def _unexpected(error: Exception) -> Response | tuple[str, int]:
    log.exception("unhandled error on %s %s", request.method, request.path)
    return error_response(500, _("Something went wrong on our side. Nothing was "
                                 "changed; please try again in a moment."))
